//! Half-precision arithmetic (9.7.4), mixed precision (9.7.5) and half comparisons (9.7.7):
//! every instruction on `.f16 .f16x2 .bf16 .bf16x2` with its modifiers, bit-exact against
//! `half_reference.rs` (approximate `tanh`/`ex2` against the ISA's error bounds).

use super::half_reference::{self as r, Arith, Fmt, Mods};
use super::{check_family_at, Dist, Form, Kernel, Res};
use rustc_apfloat::Round;

const MIN_VECTORS_PER_INSTRUCTION: usize = 10_000;

/// Mixed-precision forms need PTX ISA 8.6 and sm_100.
const HEADER: &str = ".version 8.6\n.target sm_100";

const COMPARISONS: [&str; 14] = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"];

/// One instruction type: its format, lane count, and the operand views and result it uses.
#[derive(Clone, Copy)]
struct Ty {
    fmt: Fmt,
    lanes: u32,
}

impl Ty {
    fn name(self) -> &'static str {
        match (self.fmt, self.lanes) {
            (Fmt::F16, 1) => ".f16",
            (Fmt::F16, _) => ".f16x2",
            (Fmt::BF16, 1) => ".bf16",
            (Fmt::BF16, _) => ".bf16x2",
        }
    }
    fn w(self) -> u32 {
        16 * self.lanes
    }
    fn res(self) -> Res {
        if self.lanes == 1 {
            Res::B16
        } else {
            Res::B32
        }
    }
    fn out(self) -> String {
        format!("%o{}", self.w())
    }
    fn op(self, x: char) -> String {
        format!("%{x}{}", self.w())
    }
    fn dist(self) -> Dist {
        match self.fmt {
            Fmt::F16 => Dist::F16,
            Fmt::BF16 => Dist::BF16,
        }
    }
}

fn arith_form(t: Ty, name: &str, op: Arith, mods: &str, m: Mods) -> Form {
    let (o, a, b, c) = (t.out(), t.op('a'), t.op('b'), t.op('c'));
    let operands = if op == Arith::Fma { format!("{o}, {a}, {b}, {c}") } else { format!("{o}, {a}, {b}") };
    let (fmt, lanes) = (t.fmt, t.lanes);
    Form::inst(format!("{name}{mods}{} {operands};", t.name()), t.res(), move |x| r::lanes(lanes, x[0], x[1], x[2], |p, q, s| r::arith(fmt, op, m, p, q, s)))
}

fn min_max_form(t: Ty, max: bool, ftz: bool, nan: bool, xorsign: bool) -> Form {
    let mods = format!("{}{}{}", if ftz { ".ftz" } else { "" }, if nan { ".NaN" } else { "" }, if xorsign { ".xorsign.abs" } else { "" });
    let name = if max { "max" } else { "min" };
    let (fmt, lanes) = (t.fmt, t.lanes);
    Form::inst(format!("{name}{mods}{} {}, {}, {};", t.name(), t.out(), t.op('a'), t.op('b')), t.res(), move |x| {
        r::lanes(lanes, x[0], x[1], 0, |p, q, _| r::min_max(fmt, max, ftz, nan, xorsign, p, q))
    })
}

/// `neg`/`abs`: exact, except that a NaN input may give any NaN (the ISA leaves it open).
fn sign_form(t: Ty, abs: bool, ftz: bool) -> Form {
    let ptx = format!("{}{}{} {}, {};", if abs { "abs" } else { "neg" }, if ftz { ".ftz" } else { "" }, t.name(), t.out(), t.op('a'));
    let (fmt, lanes) = (t.fmt, t.lanes);
    Form::accept(ptx.clone(), ptx, t.res(), move |x, got| {
        for i in 0..lanes {
            let a = (x[0] >> (16 * i)) as u16;
            let a = if ftz { fmt.flush(a) } else { a };
            let g = (got >> (16 * i)) as u16;
            let want = if abs { a & 0x7fff } else { a ^ 0x8000 };
            let ok = if fmt.is_nan(a) { fmt.is_nan(g) } else { g == want };
            if !ok {
                return Err(format!("lane {i}: expected {want:#06x}"));
            }
        }
        Ok(())
    })
}

/// `tanh.approx` / `ex2.approx{.ftz}` against the ISA's bounds.
fn approx_form(t: Ty, ex2: bool) -> Form {
    let ftz = ex2 && t.fmt == Fmt::BF16;
    let ptx = format!("{}{}{} {}, {};", if ex2 { "ex2.approx" } else { "tanh.approx" }, if ftz { ".ftz" } else { "" }, t.name(), t.out(), t.op('a'));
    let (fmt, lanes) = (t.fmt, t.lanes);
    Form::accept(ptx.clone(), ptx, t.res(), move |x, got| {
        for i in 0..lanes {
            let a = (x[0] >> (16 * i)) as u16;
            let a = if ftz { fmt.flush(a) } else { a };
            let g = (got >> (16 * i)) as u16;
            let v = fmt.to_f64(a);
            let check = if ex2 {
                if ftz && fmt.is_subnormal(g) {
                    Err("a subnormal result of `.ftz`".to_string())
                } else {
                    let exact = v.exp2();
                    let rel = if fmt == Fmt::F16 { 2f64.powf(-9.9) } else { 2f64.powi(-7) };
                    // `.ftz` results below the smallest normal may be flushed to +0.0.
                    let flushed = ftz && g == 0 && exact < 2f64.powi(-126) * (1.0 + 2f64.powi(-7));
                    if flushed {
                        Ok(())
                    } else {
                        r::check_approx(fmt, exact, g, None, Some(rel))
                    }
                }
            } else {
                let bound = if fmt == Fmt::F16 { 2f64.powf(-10.987) } else { 2f64.powi(-8) };
                // The ISA's corner cases: tanh(±0) = ±0, tanh(±inf) = ±1.
                let corner = match a & 0x7fff {
                    0 => Some(a),
                    m if m == fmt.exp_mask() => Some((a & 0x8000) | fmt.one()),
                    _ => None,
                };
                match corner {
                    Some(want) if g != want => Err(format!("expected {want:#06x}")),
                    Some(_) => Ok(()),
                    None => r::check_approx(fmt, v.tanh(), g, Some(bound), None),
                }
            };
            check.map_err(|e| format!("lane {i}: {e}"))?;
        }
        Ok(())
    })
}

fn arithmetic_kernel(t: Ty) -> Kernel {
    let mut forms = vec![];
    let f16 = t.fmt == Fmt::F16;
    let m = |ftz, sat, relu, oob| Mods { ftz, sat, relu, oob };
    for (name, op) in [("add", Arith::Add), ("sub", Arith::Sub), ("mul", Arith::Mul)] {
        forms.push(arith_form(t, name, op, "", Mods::default()));
        forms.push(arith_form(t, name, op, ".rn", Mods::default()));
        if f16 {
            forms.push(arith_form(t, name, op, ".ftz", m(true, false, false, false)));
            forms.push(arith_form(t, name, op, ".sat", m(false, true, false, false)));
            forms.push(arith_form(t, name, op, ".rn.ftz.sat", m(true, true, false, false)));
        }
    }
    forms.push(arith_form(t, "fma", Arith::Fma, ".rn", Mods::default()));
    forms.push(arith_form(t, "fma", Arith::Fma, ".rn.relu", m(false, false, true, false)));
    forms.push(arith_form(t, "fma", Arith::Fma, ".rn.oob", m(false, false, false, true)));
    forms.push(arith_form(t, "fma", Arith::Fma, ".rn.oob.relu", m(false, false, true, true)));
    if f16 {
        forms.push(arith_form(t, "fma", Arith::Fma, ".rn.ftz", m(true, false, false, false)));
        forms.push(arith_form(t, "fma", Arith::Fma, ".rn.sat", m(false, true, false, false)));
        forms.push(arith_form(t, "fma", Arith::Fma, ".rn.ftz.sat", m(true, true, false, false)));
        forms.push(arith_form(t, "fma", Arith::Fma, ".rn.ftz.relu", m(true, false, true, false)));
    }
    for abs in [false, true] {
        forms.push(sign_form(t, abs, false));
        if f16 {
            forms.push(sign_form(t, abs, true));
        }
    }
    for max in [false, true] {
        for (ftz, nan, xorsign) in
            [(false, false, false), (false, true, false), (false, false, true), (false, true, true), (true, false, false), (true, true, true)]
        {
            if !ftz || f16 {
                forms.push(min_max_form(t, max, ftz, nan, xorsign));
            }
        }
    }
    forms.push(approx_form(t, false));
    forms.push(approx_form(t, true));
    let name = format!("half_arith{}", t.name().replace('.', "_"));
    Kernel::new(name, [t.dist(); 4], forms)
}

/// The predicate `%p0` from bit 0 of `%d32`, for the `.and/.or/.xor` forms.
const PRED_FROM_D: &str = "and.b32 %t0, %d32, 1;\nsetp.ne.u32 %p0, %t0, 0;";

fn comparison_kernel(t: Ty) -> Kernel {
    let mut forms = vec![];
    let (fmt, lanes) = (t.fmt, t.lanes);
    let f16 = fmt == Fmt::F16;
    let (a, b) = (t.op('a'), t.op('b'));
    let lane = |x: u64, i: u32| (x >> (16 * i)) as u16;
    let c_bit = |x: &[u64; 4]| x[3] & 1 == 1;
    let mut setp = |cmp: &'static str, ftz: bool, bool_op: Option<&'static str>, negate_c: bool, lane_idx: u32| {
        let mods = format!(".{cmp}{}{}", bool_op.map(|o| format!(".{o}")).unwrap_or_default(), if ftz { ".ftz" } else { "" });
        let c = match bool_op {
            Some(_) => format!(", {}%p0", if negate_c { "!" } else { "" }),
            None => String::new(),
        };
        let dst = match (lanes, lane_idx) {
            (1, _) => "%op".to_string(),
            (_, 0) => "%op|%p1".to_string(),
            _ => "%p1|%op".to_string(),
        };
        let inst = format!("setp{mods}{} {dst}, {a}, {b}{c};", t.name());
        let ptx = if bool_op.is_some() { format!("{PRED_FROM_D}\n{inst}") } else { inst.clone() };
        forms.push(Form::new(inst, ptx, Res::Pred, move |x| {
            let t = r::compare_half(fmt, cmp, ftz, lane(x[0], lane_idx), lane(x[1], lane_idx));
            r::bool_op(bool_op, t, c_bit(x) != negate_c) as u64
        }));
    };
    for cmp in COMPARISONS {
        setp(cmp, false, None, false, 0);
        if lanes == 2 {
            setp(cmp, false, None, false, 1);
        }
    }
    for (cmp, op, neg) in [("lt", "and", false), ("equ", "or", true), ("ge", "xor", false), ("nan", "and", true)] {
        setp(cmp, false, Some(op), neg, lanes - 1);
    }
    if f16 {
        for cmp in ["eq", "lt", "geu", "ne"] {
            setp(cmp, true, None, false, 0);
        }
        setp("le", true, Some("or"), false, lanes - 1);
    }
    // `set`: half or integer results.
    let half_dst = t.name();
    let int_dsts: &[&'static str] = if lanes == 1 { &[".u16", ".s16", ".u32", ".s32"] } else { &[".u32", ".s32"] };
    let mut set = |cmp: &'static str, dst: &'static str, ftz: bool, bool_op: Option<&'static str>| {
        let mods = format!(".{cmp}{}{}", bool_op.map(|o| format!(".{o}")).unwrap_or_default(), if ftz { ".ftz" } else { "" });
        let c = if bool_op.is_some() { ", %p0" } else { "" };
        let w = if dst == ".u16" || dst == ".s16" || dst == ".f16" || dst == ".bf16" { 16 } else { 32 };
        let (o, res) = if w == 16 { ("%o16", Res::B16) } else { ("%o32", Res::B32) };
        let inst = format!("set{mods}{dst}{} {o}, {a}, {b}{c};", t.name());
        let ptx = if bool_op.is_some() { format!("{PRED_FROM_D}\n{inst}") } else { inst.clone() };
        let float_dst = dst.starts_with(".f") || dst.starts_with(".bf");
        forms.push(Form::new(inst, ptx, res, move |x| {
            let mut out = 0u64;
            for i in 0..lanes {
                let t = r::bool_op(bool_op, r::compare_half(fmt, cmp, ftz, lane(x[0], i), lane(x[1], i)), c_bit(x));
                let v = match (t, float_dst) {
                    (false, _) => 0,
                    (true, true) => fmt.one() as u64,
                    (true, false) if lanes == 2 || w == 16 => 0xffff,
                    (true, false) => 0xffff_ffff,
                };
                out |= v << (16 * i);
            }
            out
        }));
    };
    // A `.bf16` result takes the other source types (`set.lt.bf16.f16`), not `.bf16` itself.
    let half_result = t.name() != ".bf16";
    for cmp in ["lt", "equ", "num", "ne"] {
        if half_result {
            set(cmp, half_dst, false, None);
        }
        for d in int_dsts {
            set(cmp, d, false, None);
        }
    }
    if half_result {
        set("gtu", half_dst, false, Some("xor"));
    }
    set("le", int_dsts[0], false, Some("and"));
    if f16 {
        set("eq", half_dst, true, None);
        set("lt", int_dsts[int_dsts.len() - 1], true, Some("or"));
    }
    let name = format!("half_cmp{}", t.name().replace('.', "_"));
    Kernel::new(name, [t.dist(); 4], forms)
}

/// `set` with a half destination and another source type (`set.lt.f16.f32`), and the
/// mixed-precision `add/sub/fma .f32.{f16,bf16}` (c is an f32).
fn mixed_kernel(fmt: Fmt) -> Kernel {
    let t = if fmt == Fmt::F16 { ".f16" } else { ".bf16" };
    let dist = if fmt == Fmt::F16 { Dist::F16 } else { Dist::BF16 };
    let mut forms = vec![];
    let rounds = [
        ("", Round::NearestTiesToEven),
        (".rn", Round::NearestTiesToEven),
        (".rz", Round::TowardZero),
        (".rm", Round::TowardNegative),
        (".rp", Round::TowardPositive),
    ];
    for (name, op) in [("add", Arith::Add), ("sub", Arith::Sub), ("fma", Arith::Fma)] {
        for (rnd, round) in rounds {
            if op == Arith::Fma && rnd.is_empty() {
                continue;
            }
            for sat in [false, true] {
                let s = if sat { ".sat" } else { "" };
                let operands = if op == Arith::Fma { "%o32, %a16, %b16, %c32" } else { "%o32, %a16, %c32" };
                forms.push(Form::inst(format!("{name}{rnd}{s}.f32{t} {operands};"), Res::B32, move |x| {
                    r::mixed(fmt, op, round, sat, x[0] as u16, x[1] as u16, x[2] as u32) as u64
                }));
            }
        }
    }
    for cmp in ["lt", "neu", "nan", "ge"] {
        let ftz = cmp == "lt" && fmt == Fmt::F16;
        let f = if ftz { ".ftz" } else { "" };
        forms.push(Form::inst(format!("set.{cmp}{f}{t}.f32 %o16, %c32, %d32;"), Res::B16, move |x| {
            let flush = |b: u32| if ftz && b & 0x7f80_0000 == 0 { b & 0x8000_0000 } else { b };
            let (p, q) = (r::f32_value(flush(x[2] as u32)), r::f32_value(flush(x[3] as u32)));
            if r::compare(cmp, p, q) {
                fmt.one() as u64
            } else {
                0
            }
        }));
    }
    forms.push(Form::inst(format!("set.gt{t}.s32 %o16, %c32, %d32;"), Res::B16, move |x| {
        if (x[2] as u32 as i32) > (x[3] as u32 as i32) {
            fmt.one() as u64
        } else {
            0
        }
    }));
    // A half result from the other half format (`set.ge.bf16.f16`, `set.ge.f16.f16`).
    forms.push(Form::inst(format!("set.ge{t}.f16 %o16, %a16, %b16;"), Res::B16, move |x| {
        if r::compare_half(Fmt::F16, "ge", false, x[0] as u16, x[1] as u16) {
            fmt.one() as u64
        } else {
            0
        }
    }));
    let name = format!("half_mixed{}", t.replace('.', "_"));
    Kernel::new(name, [dist, dist, Dist::F32, Dist::F32], forms)
}

#[test]
fn half() {
    let mut kernels = vec![];
    for fmt in [Fmt::F16, Fmt::BF16] {
        for lanes in [1, 2] {
            let t = Ty { fmt, lanes };
            kernels.push(arithmetic_kernel(t));
            kernels.push(comparison_kernel(t));
        }
        kernels.push(mixed_kernel(fmt));
    }
    check_family_at("half", HEADER, kernels, MIN_VECTORS_PER_INSTRUCTION);
}

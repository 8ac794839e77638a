//! `cvt` (every integer and float type pair, integer and float rounding, `.ftz .sat .relu
//! .satfinite`, the packed f16x2/bf16x2/tf32/8-bit/6-bit/4-bit formats, `.rs` stochastic
//! rounding with the x2 and x4 forms, `.ue8m0x2`, `.s2f6x2` and `.scaled::n2::ue8m0`) and
//! `cvt.pack`, checked against `convert_reference.rs`.

use super::convert_reference::{self as r, Fmt, Int, Rnd, Want};
use super::{check_family_at, Dist, Form, Kernel, Res};
use rustc_apfloat::Float as _;

const MIN_VECTORS_PER_INSTRUCTION: usize = 10_000;

/// The 6- and 4-bit formats need an sm_100a target (and the newest forms PTX ISA 9.2).
const HEADER: &str = ".version 9.2\n.target sm_100a";

const INTS: [Int; 8] = [
    Int { bits: 8, signed: false },
    Int { bits: 16, signed: false },
    Int { bits: 32, signed: false },
    Int { bits: 64, signed: false },
    Int { bits: 8, signed: true },
    Int { bits: 16, signed: true },
    Int { bits: 32, signed: true },
    Int { bits: 64, signed: true },
];

const DIRECTED: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];

/// The register a result of `bits` lands in (8-bit results in a 16-bit register).
fn out(bits: u32) -> (&'static str, Res, u32) {
    match bits {
        0..=16 => ("%o16", Res::B16, 16),
        17..=32 => ("%o32", Res::B32, 32),
        _ => ("%o64", Res::B64, 64),
    }
}

/// Input `x` (`a`–`d`) seen as a `bits`-wide register.
fn input(x: char, bits: u32) -> String {
    format!("%{x}{}", bits.max(16))
}

fn fmt_of(f: Fmt) -> &'static str {
    f.name()
}

/// The value of input `raw` in float format `f` (its low bits).
fn float_in(f: Fmt, raw: u64) -> rustc_apfloat::ieee::Quad {
    f.value(raw & r::mask(f.width()))
}

/// A form whose result (of format `f` in its register) must match `want`.
fn float_form(ptx: String, f: Fmt, want: impl Fn(&[u64; 4]) -> Want + Send + Sync + 'static) -> Form {
    let (_, res, _) = out(f.width());
    Form::accept(ptx.clone(), ptx, res, move |x, actual| r::judge(want(x), f, actual))
}

/// A packed form: lane results (upper lane first) of `lane_bits` each.
fn packed_form(label: String, ptx: String, res: Res, f: Fmt, lane_bits: u32, want: impl Fn(&[u64; 4]) -> Vec<Want> + Send + Sync + 'static) -> Form {
    Form::accept(label, ptx, res, move |x, actual| {
        let wants = want(x);
        let n = wants.len() as u32;
        if actual >> (n * lane_bits) != 0 {
            return Err("bits above the packed lanes are set".into());
        }
        for (i, w) in wants.iter().enumerate() {
            let lane = (actual >> ((n - 1 - i as u32) * lane_bits)) & r::mask(lane_bits);
            r::judge(*w, f, lane).map_err(|e| format!("lane {i}: {e}"))?;
        }
        Ok(())
    })
}

fn int_rounding(rnd: Rnd) -> &'static str {
    match rnd {
        Rnd::Rn => "rni",
        Rnd::Rz => "rzi",
        Rnd::Rm => "rmi",
        _ => "rpi",
    }
}

/// Float source `from` to every integer type with every integer rounding (and `.ftz` for f32).
fn float_to_int_forms(from: Fmt, forms: &mut Vec<Form>) {
    let src = input('a', from.width());
    for to in INTS {
        for rnd in DIRECTED {
            for ftz in if from == Fmt::F32 { vec![false, true] } else { vec![false] } {
                let (o, res, reg) = out(to.bits);
                let ptx = format!("cvt.{}{}.{}.{} {o}, {src};", int_rounding(rnd), if ftz { ".ftz" } else { "" }, to.name(), fmt_of(from));
                forms.push(Form::inst(ptx, res, move |x| {
                    let raw = x[0] & r::mask(from.width());
                    let raw = if ftz { r::flush_f32(raw) } else { raw };
                    let v = r::float_to_int(from.value(raw), from == Fmt::F64, to, rnd);
                    to.in_register(v, reg)
                }));
            }
        }
    }
    // `.sat` is redundant for float-to-integer conversions.
    let ptx = format!("cvt.rzi.sat.s8.{} %o16, {src};", fmt_of(from));
    let s8 = Int { bits: 8, signed: true };
    forms.push(Form::inst(ptx, Res::B16, move |x| s8.in_register(r::float_to_int(float_in(from, x[0]), from == Fmt::F64, s8, Rnd::Rz), 16)));
}

/// Float `from` to float `to` (`to` narrower, or f16 ↔ bf16) with every rounding and the
/// modifiers the ISA allows for the pair.
fn narrowing_forms(from: Fmt, to: Fmt, forms: &mut Vec<Form>) {
    let src = input('a', from.width());
    let (o, _, _) = out(to.width());
    let f32_in = from == Fmt::F32;
    let f32_out = to == Fmt::F32;
    for rnd in DIRECTED {
        let mut variants: Vec<(bool, bool, bool, bool)> = vec![(false, false, false, false), (false, true, false, false)];
        if f32_in || f32_out {
            variants.push((true, false, false, false));
        }
        if f32_in && matches!(to, Fmt::F16 | Fmt::BF16) && matches!(rnd, Rnd::Rn | Rnd::Rz) {
            variants.extend([(false, false, true, false), (false, false, false, true), (false, false, true, true)]);
        }
        for (ftz, sat, relu, satfinite) in variants {
            let mods = format!(
                "{}{}{}{}",
                if ftz { ".ftz" } else { "" },
                if sat { ".sat" } else { "" },
                if relu { ".relu" } else { "" },
                if satfinite { ".satfinite" } else { "" }
            );
            let ptx = format!("cvt.{}{mods}.{}.{} {o}, {src};", rnd.name(), fmt_of(to), fmt_of(from));
            forms.push(float_form(ptx, to, move |x| {
                let raw = x[0] & r::mask(from.width());
                // NVIDIA silicon (sm_90): `.ftz` does not flush an f32 input converted to f16.
                let raw = if ftz && f32_in && to != Fmt::F16 { r::flush_f32(raw) } else { raw };
                let mut want = r::round_float(from.value(raw), to, rnd, relu, satfinite);
                if let (true, Want::Bits(b)) = (ftz && f32_out, want) {
                    want = Want::Bits(r::flush_f32(b));
                }
                if sat {
                    want = r::saturate(want, to);
                }
                want
            }));
        }
    }
}

/// Exact widening `from` → `to` (with `.ftz` where an f32 is involved).
fn widening_forms(from: Fmt, to: Fmt, forms: &mut Vec<Form>) {
    let src = input('a', from.width());
    let (o, _, _) = out(to.width());
    for ftz in if from == Fmt::F32 || to == Fmt::F32 { vec![false, true] } else { vec![false] } {
        let ptx = format!("cvt{}.{}.{} {o}, {src};", if ftz { ".ftz" } else { "" }, fmt_of(to), fmt_of(from));
        forms.push(float_form(ptx, to, move |x| {
            let raw = x[0] & r::mask(from.width());
            let raw = if ftz && from == Fmt::F32 { r::flush_f32(raw) } else { raw };
            match r::round_float(from.value(raw), to, Rnd::Rn, false, false) {
                // `.ftz` also flushes subnormal f32 results (from bf16 subnormals).
                Want::Bits(b) if ftz && to == Fmt::F32 => Want::Bits(r::flush_f32(b)),
                w => w,
            }
        }));
    }
}

/// Same-size float to an integral value (`cvt.rni.f32.f32`), `.ftz`/`.sat` forms of f32.
fn integral_forms(f: Fmt, forms: &mut Vec<Form>) {
    let src = input('a', f.width());
    let (o, _, _) = out(f.width());
    let name = fmt_of(f);
    for rnd in DIRECTED {
        for (ftz, sat) in if f == Fmt::F32 { vec![(false, false), (true, false), (false, true)] } else { vec![(false, false)] } {
            let ptx = format!("cvt.{}{}{}.{name}.{name} {o}, {src};", int_rounding(rnd), if ftz { ".ftz" } else { "" }, if sat { ".sat" } else { "" });
            forms.push(float_form(ptx, f, move |x| {
                let raw = x[0] & r::mask(f.width());
                let raw = if ftz { r::flush_f32(raw) } else { raw };
                let q = from_raw(f, raw);
                let want = if q.is_nan() { Want::AnyNan } else { r::round_float(r::integral(q, rnd), f, Rnd::Rn, false, false) };
                if sat {
                    r::saturate(want, f)
                } else {
                    want
                }
            }));
        }
    }
    if f == Fmt::F32 {
        for (ftz, sat) in [(true, false), (false, true), (true, true)] {
            let ptx = format!("cvt{}{}.f32.f32 %o32, %a32;", if ftz { ".ftz" } else { "" }, if sat { ".sat" } else { "" });
            forms.push(float_form(ptx, f, move |x| {
                let raw = x[0] & 0xffff_ffff;
                let raw = if ftz { r::flush_f32(raw) } else { raw };
                let want = if Fmt::F32.is_nan(raw) { Want::AnyNan } else { Want::Bits(raw) };
                if sat {
                    r::saturate(want, Fmt::F32)
                } else {
                    want
                }
            }));
        }
    }
}

fn from_raw(f: Fmt, raw: u64) -> rustc_apfloat::ieee::Quad {
    f.value(raw)
}

/// f32 pairs to packed formats: `cvt.rn.f16x2.f32 d, a, b` (a in the upper lane).
fn packed_from_f32_forms(forms: &mut Vec<Form>) {
    let half = [(Fmt::F16, "f16x2"), (Fmt::BF16, "bf16x2")];
    for (f, name) in half {
        for rnd in [Rnd::Rn, Rnd::Rz] {
            for (relu, satfinite) in [(false, false), (true, false), (false, true), (true, true)] {
                let mods = format!("{}{}", if relu { ".relu" } else { "" }, if satfinite { ".satfinite" } else { "" });
                let ptx = format!("cvt.{}{mods}.{name}.f32 %o32, %a32, %b32;", rnd.name());
                forms.push(packed_form(ptx.clone(), ptx, Res::B32, f, 16, move |x| {
                    [x[0], x[1]].iter().map(|v| r::round_float(float_in(Fmt::F32, *v), f, rnd, relu, satfinite)).collect()
                }));
            }
        }
    }
    // `.rs`: `rbits` (input c) holds the random bits of `a` in its upper half and of `b` in
    // its lower half (13 low bits of each half for f16, all 16 for bf16).
    for (f, name, n) in [(Fmt::F16, "f16x2", 13), (Fmt::BF16, "bf16x2", 16)] {
        for (relu, satfinite) in [(false, false), (true, false), (false, true), (true, true)] {
            let mods = format!("{}{}", if relu { ".relu" } else { "" }, if satfinite { ".satfinite" } else { "" });
            let ptx = format!("cvt.rs{mods}.{name}.f32 %o32, %a32, %b32, %c32;");
            forms.push(packed_form(ptx.clone(), ptx, Res::B32, f, 16, move |x| {
                [(x[0], x[2] >> 16), (x[1], x[2])]
                    .iter()
                    .map(|&(v, rbits)| r::round_stochastic(float_in(Fmt::F32, v), f, rbits & r::mask(n), n, relu, satfinite))
                    .collect()
            }));
        }
    }
    for (rnd, relu, satfinite) in [
        (Rnd::Rna, false, false),
        (Rnd::Rna, false, true),
        (Rnd::Rn, false, false),
        (Rnd::Rz, false, false),
        (Rnd::Rn, true, false),
        (Rnd::Rz, false, true),
        (Rnd::Rn, true, true),
    ] {
        let mods = format!("{}{}", if satfinite { ".satfinite" } else { "" }, if relu { ".relu" } else { "" });
        let ptx = format!("cvt.{}{mods}.tf32.f32 %o32, %a32;", rnd.name());
        forms.push(Form::accept(ptx.clone(), ptx, Res::B32, move |x, actual| {
            // `.rna` of an infinity or NaN as NVIDIA silicon (sm_90) gives it: a NaN keeps its
            // bits above the low 13; with `.satfinite` every such input gives its truncated
            // pattern minus one tf32 unit.
            let v = x[0] & 0xffff_ffff;
            if rnd == Rnd::Rna && v & 0x7f80_0000 == 0x7f80_0000 && (satfinite || v & 0x7f_ffff != 0) {
                let want = if satfinite { (v & 0xffff_e000) - 0x2000 } else { v & 0xffff_e000 };
                return if actual == want { Ok(()) } else { Err(format!("expected {want:#x}")) };
            }
            let want = r::round_float(float_in(Fmt::F32, x[0]), Fmt::Tf32, rnd, relu, satfinite);
            // A tf32 result is the f32 pattern with the low 13 bits zero.
            if actual & 0x1fff != 0 {
                return Err("low 13 bits of a tf32 result are not zero".into());
            }
            r::judge(want, Fmt::Tf32, actual >> 13)
        }));
    }
    for (f, name) in [(Fmt::E4m3, "e4m3x2"), (Fmt::E5m2, "e5m2x2"), (Fmt::E2m3, "e2m3x2"), (Fmt::E3m2, "e3m2x2"), (Fmt::E2m1, "e2m1x2")] {
        for relu in [false, true] {
            let (d, res, lane) = if f == Fmt::E2m1 { ("%q", Res::B16, 4) } else { ("%o16", Res::B16, 8) };
            let inst = format!("cvt.rn.satfinite{}.{name}.f32 {d}, %a32, %b32;", if relu { ".relu" } else { "" });
            let ptx = if f == Fmt::E2m1 { format!("{{\n.reg .b8 %q;\n{inst}\ncvt.u16.u8 %o16, %q;\n}}") } else { inst.clone() };
            forms.push(Form::accept(inst, ptx, res, move |x, actual| {
                let wants: Vec<Want> = [x[0], x[1]].iter().map(|v| r::round_float(float_in(Fmt::F32, *v), f, Rnd::Rn, relu, true)).collect();
                check_lanes(&wants, f, lane, actual)
            }));
        }
    }
}

/// Four f32 values to the 8/6/4-bit formats with stochastic rounding:
/// `cvt.rs.satfinite.e4m3x4.f32 d, {a, b, e, f}, rbits`. The elements are the low and high
/// halves of inputs a and b; `rbits` is input c, laid out as `rbits_of_element` says.
fn four_from_f32_forms(forms: &mut Vec<Form>) {
    for (f, name) in [(Fmt::E4m3, "e4m3x4"), (Fmt::E5m2, "e5m2x4"), (Fmt::E2m3, "e2m3x4"), (Fmt::E3m2, "e3m2x4"), (Fmt::E2m1, "e2m1x4")] {
        for relu in [false, true] {
            let (d, res, lane) = if f == Fmt::E2m1 { ("%o16", Res::B16, 4) } else { ("%o32", Res::B32, 8) };
            let inst = format!("cvt.rs{}.satfinite.{name}.f32 {d}, {{%t0, %t1, %t2, %t3}}, %c32;", if relu { ".relu" } else { "" });
            let ptx = format!("mov.b64 {{%t0, %t1}}, %a64;\nmov.b64 {{%t2, %t3}}, %b64;\n{inst}");
            forms.push(Form::accept(inst, ptx, res, move |x, actual| {
                let elements = [x[0], x[0] >> 32, x[1], x[1] >> 32];
                let wants: Vec<Want> = (0..4)
                    .map(|i| r::round_stochastic(float_in(Fmt::F32, elements[i] & 0xffff_ffff), f, rbits_of_element(f, x[2], i), 8, relu, true))
                    .collect();
                check_lanes(&wants, f, lane, actual)
            }));
        }
    }
}

/// The 8 random bits of element `i` (a, b, e, f) of a four-element `.rs` conversion:
/// bytes from the top for the 8- and 6-bit formats; for e2m1x4 the upper bytes of the two
/// halves go to a and b, the lower bytes to e and f.
fn rbits_of_element(f: Fmt, rbits: u64, i: usize) -> u64 {
    let at = if f == Fmt::E2m1 { [24, 8, 16, 0][i] } else { [24, 16, 8, 0][i] };
    (rbits >> at) & 0xff
}

/// Picks the two elements of a pair conversion out of the inputs (upper lane first).
type PairOf = fn(&[u64; 4]) -> [u64; 2];

/// Two f32 values (a, b) or a bf16x2 (upper, lower) to `.ue8m0x2`, rounded toward zero or
/// up: `cvt.rp.satfinite.ue8m0x2.f32 d, a, b`.
fn ue8m0_forms(from: Fmt, forms: &mut Vec<Form>) {
    for up in [false, true] {
        for satfinite in [false, true] {
            let mods = format!("{}{}", if up { ".rp" } else { ".rz" }, if satfinite { ".satfinite" } else { "" });
            let (ptx, elements): (String, PairOf) = if from == Fmt::F32 {
                (format!("cvt{mods}.ue8m0x2.f32 %o16, %a32, %b32;"), |x| [x[0], x[1]])
            } else {
                (format!("cvt{mods}.ue8m0x2.bf16x2 %o16, %a32;"), |x| [x[0] >> 16, x[0]])
            };
            forms.push(Form::inst(ptx, Res::B16, move |x| {
                let [a, b] = elements(x).map(|v| r::to_ue8m0(float_in(from, v), up, satfinite));
                (a << 8) | b
            }));
        }
    }
}

/// Two f32 values (a, b) or a bf16x2 (upper, lower) to `.s2f6x2`, optionally divided by
/// the scale factors in input c: `cvt.rn.satfinite.scaled::n2::ue8m0.s2f6x2.f32 d, a, b, c`.
fn s2f6_forms(from: Fmt, forms: &mut Vec<Form>) {
    for relu in [false, true] {
        for scaled in [false, true] {
            let mods = format!("{}{}", if relu { ".relu" } else { "" }, if scaled { ".scaled::n2::ue8m0" } else { "" });
            let scale = if scaled { ", %c16" } else { "" };
            let (ptx, elements): (String, PairOf) = if from == Fmt::F32 {
                (format!("cvt.rn.satfinite{mods}.s2f6x2.f32 %o16, %a32, %b32{scale};"), |x| [x[0], x[1]])
            } else {
                (format!("cvt.rn.satfinite{mods}.s2f6x2.bf16x2 %o16, %a32{scale};"), |x| [x[0] >> 16, x[0]])
            };
            forms.push(Form::inst(ptx, Res::B16, move |x| {
                let sf = if scaled { x[2] & 0xffff } else { 0x7f7f };
                let [a, b] = elements(x);
                (r::to_s2f6(float_in(from, a), sf >> 8, relu) << 8) | r::to_s2f6(float_in(from, b), sf, relu)
            }));
        }
    }
}

/// `.s2f6x2` and (scaled) the 8/6/4-bit formats to bf16x2, multiplied by the scale factors
/// in input b: `cvt.rn.satfinite.scaled::n2::ue8m0.bf16x2.s2f6x2 d, a, b`.
fn scaled_to_bf16_forms(forms: &mut Vec<Form>) {
    for (relu, satfinite) in [(false, false), (true, false), (false, true), (true, true)] {
        for scaled in [false, true] {
            let mods =
                format!("{}{}{}", if satfinite { ".satfinite" } else { "" }, if relu { ".relu" } else { "" }, if scaled { ".scaled::n2::ue8m0" } else { "" });
            let ptx = format!("cvt.rn{mods}.bf16x2.s2f6x2 %o32, %a16{};", if scaled { ", %b16" } else { "" });
            forms.push(packed_form(ptx.clone(), ptx, Res::B32, Fmt::BF16, 16, move |x| {
                let sf = if scaled { x[1] } else { 0x7f7f };
                vec![r::from_s2f6(x[0] >> 8, sf >> 8, Fmt::BF16, relu, satfinite), r::from_s2f6(x[0], sf, Fmt::BF16, relu, satfinite)]
            }));
        }
    }
    for (f, name) in [(Fmt::E4m3, "e4m3x2"), (Fmt::E5m2, "e5m2x2"), (Fmt::E2m3, "e2m3x2"), (Fmt::E3m2, "e3m2x2"), (Fmt::E2m1, "e2m1x2")] {
        for (relu, satfinite) in [(false, false), (true, true)] {
            let mods = format!("{}{}", if relu { ".relu" } else { "" }, if satfinite { ".satfinite" } else { "" });
            let inst = format!("cvt.rn{mods}.scaled::n2::ue8m0.bf16x2.{name} %o32, {}, %b16;", if f == Fmt::E2m1 { "%q" } else { "%a16" });
            let ptx = if f == Fmt::E2m1 { format!("{{\n.reg .b8 %q;\ncvt.u8.u16 %q, %a16;\n{inst}\n}}") } else { inst.clone() };
            let lane_in = if f == Fmt::E2m1 { 4 } else { 8 };
            forms.push(packed_form(inst, ptx, Res::B32, Fmt::BF16, 16, move |x| {
                vec![r::scaled_float(f, x[0] >> lane_in, x[1] >> 8, Fmt::BF16, relu, satfinite), r::scaled_float(f, x[0], x[1], Fmt::BF16, relu, satfinite)]
            }));
        }
    }
}

fn check_lanes(wants: &[Want], f: Fmt, lane_bits: u32, actual: u64) -> Result<(), String> {
    let n = wants.len() as u32;
    if actual >> (n * lane_bits) != 0 {
        return Err("bits above the packed lanes are set".into());
    }
    for (i, w) in wants.iter().enumerate() {
        let lane = (actual >> ((n - 1 - i as u32) * lane_bits)) & r::mask(lane_bits);
        r::judge(*w, f, lane).map_err(|e| format!("lane {i}: {e}"))?;
    }
    Ok(())
}

/// f16x2/bf16x2 to the 8/6/4-bit formats (`cvt.rn.satfinite.e4m3x2.f16x2 d, a`).
fn packed_from_half_forms(from: Fmt, forms: &mut Vec<Form>) {
    let from_name = if from == Fmt::F16 { "f16x2" } else { "bf16x2" };
    let targets: &[(Fmt, &str)] = if from == Fmt::F16 {
        &[(Fmt::E4m3, "e4m3x2"), (Fmt::E5m2, "e5m2x2"), (Fmt::E2m3, "e2m3x2"), (Fmt::E3m2, "e3m2x2"), (Fmt::E2m1, "e2m1x2")]
    } else {
        &[(Fmt::E4m3, "e4m3x2"), (Fmt::E5m2, "e5m2x2"), (Fmt::E2m3, "e2m3x2"), (Fmt::E3m2, "e3m2x2"), (Fmt::E2m1, "e2m1x2")]
    };
    for &(f, name) in targets {
        for relu in [false, true] {
            let (d, lane) = if f == Fmt::E2m1 { ("%q", 4) } else { ("%o16", 8) };
            let inst = format!("cvt.rn.satfinite{}.{name}.{from_name} {d}, %a32;", if relu { ".relu" } else { "" });
            let ptx = if f == Fmt::E2m1 { format!("{{\n.reg .b8 %q;\n{inst}\ncvt.u16.u8 %o16, %q;\n}}") } else { inst.clone() };
            forms.push(Form::accept(inst, ptx, Res::B16, move |x, actual| {
                let wants: Vec<Want> = [x[0] >> 16, x[0]].iter().map(|v| r::round_float(float_in(from, *v), f, Rnd::Rn, relu, true)).collect();
                check_lanes(&wants, f, lane, actual)
            }));
        }
    }
}

/// The 8/6/4-bit formats to f16x2 and bf16x2 (`cvt.rn.f16x2.e4m3x2 d, a`): exact, `.relu`
/// clamps.
fn packed_to_half_forms(forms: &mut Vec<Form>) {
    let ptx = "cvt.rn.bf16x2.ue8m0x2 %o32, %a16;".to_string();
    forms.push(packed_form(ptx.clone(), ptx, Res::B32, Fmt::BF16, 16, |x| vec![r::from_ue8m0(x[0] >> 8, Fmt::BF16), r::from_ue8m0(x[0], Fmt::BF16)]));
    for (f, name) in [(Fmt::E4m3, "e4m3x2"), (Fmt::E5m2, "e5m2x2"), (Fmt::E2m3, "e2m3x2"), (Fmt::E3m2, "e3m2x2"), (Fmt::E2m1, "e2m1x2")] {
        for (relu, to, to_name) in [(false, Fmt::F16, "f16x2"), (true, Fmt::F16, "f16x2"), (false, Fmt::BF16, "bf16x2"), (true, Fmt::BF16, "bf16x2")] {
            let inst = format!("cvt.rn{}.{to_name}.{name} %o32, {};", if relu { ".relu" } else { "" }, if f == Fmt::E2m1 { "%q" } else { "%a16" });
            let ptx = if f == Fmt::E2m1 { format!("{{\n.reg .b8 %q;\ncvt.u8.u16 %q, %a16;\n{inst}\n}}") } else { inst.clone() };
            let (lane_in, width) = if f == Fmt::E2m1 { (4, 4) } else { (8, f.width()) };
            forms.push(packed_form(inst, ptx, Res::B32, to, 16, move |x| {
                [x[0] >> lane_in, x[0]].iter().map(|v| r::round_float(f.value(v & r::mask(width)), to, Rnd::Rn, relu, false)).collect()
            }));
        }
    }
}

fn f32_kernel() -> Kernel {
    let mut forms = vec![];
    float_to_int_forms(Fmt::F32, &mut forms);
    narrowing_forms(Fmt::F32, Fmt::F16, &mut forms);
    narrowing_forms(Fmt::F32, Fmt::BF16, &mut forms);
    widening_forms(Fmt::F32, Fmt::F64, &mut forms);
    integral_forms(Fmt::F32, &mut forms);
    Kernel::new("cvt_from_f32", [Dist::F32, Dist::F32, Dist::Any, Dist::Any], forms)
}

fn f32_packed_kernel() -> Kernel {
    let mut forms = vec![];
    packed_from_f32_forms(&mut forms);
    four_from_f32_forms(&mut forms);
    ue8m0_forms(Fmt::F32, &mut forms);
    s2f6_forms(Fmt::F32, &mut forms);
    Kernel::new("cvt_packed_from_f32", [Dist::F32, Dist::F32, Dist::Any, Dist::Any], forms)
}

fn f64_kernel() -> Kernel {
    let mut forms = vec![];
    float_to_int_forms(Fmt::F64, &mut forms);
    narrowing_forms(Fmt::F64, Fmt::F32, &mut forms);
    narrowing_forms(Fmt::F64, Fmt::F16, &mut forms);
    narrowing_forms(Fmt::F64, Fmt::BF16, &mut forms);
    integral_forms(Fmt::F64, &mut forms);
    Kernel::new("cvt_from_f64", [Dist::F64, Dist::F64, Dist::Any, Dist::Any], forms)
}

fn half_kernel(f: Fmt) -> Kernel {
    let mut forms = vec![];
    float_to_int_forms(f, &mut forms);
    widening_forms(f, Fmt::F32, &mut forms);
    widening_forms(f, Fmt::F64, &mut forms);
    narrowing_forms(f, if f == Fmt::F16 { Fmt::BF16 } else { Fmt::F16 }, &mut forms);
    integral_forms(f, &mut forms);
    packed_from_half_forms(f, &mut forms);
    if f == Fmt::BF16 {
        ue8m0_forms(f, &mut forms);
        s2f6_forms(f, &mut forms);
    }
    let dist = if f == Fmt::F16 { Dist::F16 } else { Dist::BF16 };
    Kernel::new(format!("cvt_from_{}", f.name()), [dist, dist, Dist::Any, Dist::Any], forms)
}

fn int_kernel() -> Kernel {
    let mut forms = vec![];
    for from in INTS {
        let src = input('a', from.bits);
        for to in [Fmt::F16, Fmt::BF16, Fmt::F32, Fmt::F64] {
            let (o, _, _) = out(to.width());
            for rnd in DIRECTED {
                let ptx = format!("cvt.{}.{}.{} {o}, {src};", rnd.name(), fmt_of(to), from.name());
                forms.push(float_form(ptx, to, move |x| r::round_float(r::int_value(from.value(x[0])), to, rnd, false, false)));
            }
        }
        let ptx = format!("cvt.rn.sat.f32.{} %o32, {src};", from.name());
        forms.push(float_form(ptx, Fmt::F32, move |x| r::saturate(r::round_float(r::int_value(from.value(x[0])), Fmt::F32, Rnd::Rn, false, false), Fmt::F32)));
        for to in INTS {
            if to == from {
                continue;
            }
            let (o, res, reg) = out(to.bits);
            let ptx = format!("cvt.{}.{} {o}, {src};", to.name(), from.name());
            forms.push(Form::inst(ptx, res, move |x| to.in_register(r::int_to_int(from.value(x[0]), to, false), reg)));
            // `.sat` only where the destination range does not hold every source value.
            if !(to.min() <= from.min() && to.max() >= from.max()) {
                let ptx = format!("cvt.sat.{}.{} {o}, {src};", to.name(), from.name());
                forms.push(Form::inst(ptx, res, move |x| to.in_register(r::int_to_int(from.value(x[0]), to, true), reg)));
            }
        }
    }
    for (bits, signed) in [(16, false), (16, true), (8, false), (8, true), (4, false), (4, true), (2, false), (2, true)] {
        let t = format!("{}{bits}", if signed { 's' } else { 'u' });
        let ptx = if bits == 16 { format!("cvt.pack.sat.{t}.s32 %o32, %a32, %b32;") } else { format!("cvt.pack.sat.{t}.s32.b32 %o32, %a32, %b32, %c32;") };
        forms.push(Form::inst(ptx, Res::B32, move |x| r::pack_sat(x[0], x[1], x[2], bits, signed)));
    }
    packed_to_half_forms(&mut forms);
    scaled_to_bf16_forms(&mut forms);
    Kernel::new("cvt_from_int", [Dist::Any; 4], forms)
}

#[test]
fn convert() {
    let kernels = vec![f32_kernel(), f32_packed_kernel(), f64_kernel(), half_kernel(Fmt::F16), half_kernel(Fmt::BF16), int_kernel()];
    check_family_at("convert", HEADER, kernels, MIN_VECTORS_PER_INSTRUCTION);
}

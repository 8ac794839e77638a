//! `.f32`/`.f64` floating-point instructions (ISA 9.2 §9.7.3): every rounding mode, `.ftz`,
//! `.sat`, the NaN rules, the approximate forms against the ISA's error bounds and special
//! values, and the sm_1x / pre-1.4 legacy meanings (ISA 1.4), against `float_reference.rs`.

use super::float_reference::{self as r, Rnd};
use super::{check_family_at, run_family_at, Dist, Form, Kernel, Res};

const MIN_VECTORS_PER_INSTRUCTION: usize = 10_000;

/// Operand views, result register and result kind of a width.
fn regs(w: u32) -> (&'static str, &'static str, &'static str, &'static str, Res) {
    if w == 32 {
        ("%a32", "%b32", "%c32", "%o32", Res::B32)
    } else {
        ("%a64", "%b64", "%c64", "%o64", Res::B64)
    }
}

fn ty(w: u32) -> &'static str {
    if w == 32 {
        ".f32"
    } else {
        ".f64"
    }
}

fn dist(w: u32) -> Dist {
    if w == 32 {
        Dist::F32
    } else {
        Dist::F64
    }
}

fn bits(x: u64, w: u32) -> u64 {
    x & r::mask(w)
}

/// `add sub mul` (no rounding = `.rn`), `div`/`fma`/`mad` with rounding, `sqrt`/`rcp` IEEE.
fn ieee_kernel(w: u32) -> Kernel {
    let (a, b, c, o, res) = regs(w);
    let t = ty(w);
    let mut forms = vec![];
    let flags: &[(bool, bool)] = if w == 32 { &[(false, false), (true, false), (false, true), (true, true)] } else { &[(false, false)] };
    for &(ftz, sat) in flags {
        let m = format!("{}{}", if ftz { ".ftz" } else { "" }, if sat { ".sat" } else { "" });
        for op in ["add", "sub", "mul"] {
            forms.push(Form::inst(format!("{op}{m}{t} {o}, {a}, {b};"), res, move |x| r::arith(op, w, Rnd::Rn, ftz, sat, &[x[0], x[1]])));
            for rnd in Rnd::ALL {
                forms.push(Form::inst(format!("{op}{}{m}{t} {o}, {a}, {b};", rnd.name()), res, move |x| r::arith(op, w, rnd, ftz, sat, &[x[0], x[1]])));
            }
        }
        for rnd in Rnd::ALL {
            for op in ["fma", "mad"] {
                forms.push(Form::inst(format!("{op}{}{m}{t} {o}, {a}, {b}, {c};", rnd.name()), res, move |x| {
                    r::arith("fma", w, rnd, ftz, sat, &[x[0], x[1], x[2]])
                }));
            }
        }
    }
    let ftzs: &[bool] = if w == 32 { &[false, true] } else { &[false] };
    for &ftz in ftzs {
        let m = if ftz { ".ftz" } else { "" };
        for rnd in Rnd::ALL {
            forms.push(Form::inst(format!("div{}{m}{t} {o}, {a}, {b};", rnd.name()), res, move |x| r::arith("div", w, rnd, ftz, false, &[x[0], x[1]])));
            forms.push(Form::inst(format!("sqrt{}{m}{t} {o}, {a};", rnd.name()), res, move |x| r::arith("sqrt", w, rnd, ftz, false, &[x[0]])));
            forms.push(Form::inst(format!("rcp{}{m}{t} {o}, {a};", rnd.name()), res, move |x| r::arith("rcp", w, rnd, ftz, false, &[x[0]])));
        }
    }
    // Immediate operands.
    let one = if w == 32 { "0f3F800000" } else { "0d3FF0000000000000" };
    forms.push(Form::inst(format!("add.rz{t} {o}, {a}, {one};"), res, move |x| r::arith("add", w, Rnd::Rz, false, false, &[x[0], r::round_f64(1.0, w)])));
    // A chain (a dot product's `fma` after `fma`, then `mul sqrt div sub`): only the last
    // result's NaN can be seen, so the compiler may drop the NaN canonicalizations between
    // the links (lower/opt/nan_payload.rs); the result must stay the one of each step in turn.
    let d = if w == 32 { "%d32" } else { "%d64" };
    let s: Vec<String> = (0..5).map(|i| if w == 32 { format!("%t{i}") } else { format!("%u{i}") }).collect();
    let chain = format!(
        "fma.rn{t} {s0}, {a}, {b}, {c}; fma.rn{t} {s1}, {b}, {d}, {s0}; mul.rn{t} {s2}, {s1}, {a}; sqrt.rn{t} {s3}, {s2}; div.rn{t} {s4}, {s3}, {c}; sub.rn{t} {o}, {s4}, {d};",
        s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3], s4 = s[4]
    );
    forms.push(Form::new(format!("fma fma mul sqrt div sub{t} chain"), chain, res, move |x| {
        let rn = |op: &str, v: &[u64]| r::arith(op, w, Rnd::Rn, false, false, v);
        let s0 = rn("fma", &[x[0], x[1], x[2]]);
        let s1 = rn("fma", &[x[1], x[3], s0]);
        let s2 = rn("mul", &[s1, x[0]]);
        let s3 = rn("sqrt", &[s2]);
        let s4 = rn("div", &[s3, x[2]]);
        rn("sub", &[s4, x[3]])
    }));
    Kernel::new(format!("ieee{w}"), [dist(w); 4], forms)
}

/// Packed `.f32x2` `add sub mul fma` (two `.f32` lanes in a `.b64`): every rounding mode, `.ftz`.
fn packed_kernel() -> Kernel {
    let mut forms = vec![];
    for ftz in [false, true] {
        let m = if ftz { ".ftz" } else { "" };
        for op in ["add", "sub", "mul"] {
            forms.push(Form::inst(format!("{op}{m}.f32x2 %o64, %a64, %b64;"), Res::B64, move |x| r::arith_f32x2(op, Rnd::Rn, ftz, &[x[0], x[1]])));
            for rnd in Rnd::ALL {
                forms
                    .push(Form::inst(format!("{op}{}{m}.f32x2 %o64, %a64, %b64;", rnd.name()), Res::B64, move |x| r::arith_f32x2(op, rnd, ftz, &[x[0], x[1]])));
            }
        }
        for rnd in Rnd::ALL {
            forms.push(Form::inst(format!("fma{}{m}.f32x2 %o64, %a64, %b64, %c64;", rnd.name()), Res::B64, move |x| {
                r::arith_f32x2("fma", rnd, ftz, &[x[0], x[1], x[2]])
            }));
        }
    }
    Kernel::new("packed_f32x2", [Dist::F32; 4], forms)
}

/// `min max` (`.ftz .NaN .xorsign.abs`, three inputs), `abs neg copysign testp`.
fn select_kernel(w: u32) -> Kernel {
    let (a, b, c, o, res) = regs(w);
    let t = ty(w);
    let mut forms = vec![];
    for max in [false, true] {
        let op = if max { "max" } else { "min" };
        forms.push(Form::inst(format!("{op}{t} {o}, {a}, {b};"), res, move |x| r::min_max(max, w, false, false, false, false, &[x[0], x[1]])));
        if w == 32 {
            for (m, ftz, nan, xorsign) in [
                (".ftz", true, false, false),
                (".NaN", false, true, false),
                (".ftz.NaN", true, true, false),
                (".xorsign.abs", false, false, true),
                (".ftz.NaN.xorsign.abs", true, true, true),
            ] {
                forms.push(Form::inst(format!("{op}{m}{t} {o}, {a}, {b};"), res, move |x| r::min_max(max, w, ftz, nan, xorsign, xorsign, &[x[0], x[1]])));
            }
            for (m, ftz, nan, abs) in
                [("", false, false, false), (".abs", false, false, true), (".ftz.NaN", true, true, false), (".NaN.abs", false, true, true)]
            {
                forms.push(Form::inst(format!("{op}{m}{t} {o}, {a}, {b}, {c};"), res, move |x| r::min_max(max, w, ftz, nan, abs, false, &[x[0], x[1], x[2]])));
            }
        }
    }
    forms.push(Form::inst(format!("abs{t} {o}, {a};"), res, move |x| r::abs(x[0], w, false)));
    forms.push(Form::inst(format!("neg{t} {o}, {a};"), res, move |x| r::neg(x[0], w, false)));
    if w == 32 {
        forms.push(Form::inst(format!("abs.ftz{t} {o}, {a};"), res, move |x| r::abs(x[0], w, true)));
        forms.push(Form::inst(format!("neg.ftz{t} {o}, {a};"), res, move |x| r::neg(x[0], w, true)));
    }
    forms.push(Form::inst(format!("copysign{t} {o}, {a}, {b};"), res, move |x| r::copysign(x[0], x[1], w)));
    forms.push(Form::inst(format!("copysign{t} {o}, {b}, {a};"), res, move |x| r::copysign(x[1], x[0], w)));
    for class in ["finite", "infinite", "number", "notanumber", "normal", "subnormal"] {
        forms.push(Form::inst(format!("testp.{class}{t} %op, {a};"), Res::Pred, move |x| r::testp(class, x[0], w)));
    }
    Kernel::new(format!("select{w}"), [dist(w); 4], forms)
}

/// A single approximate instruction (its text is its label) checked by `accept`.
fn accepted(ptx: String, res: Res, accept: impl Fn(&[u64; 4], u64) -> Result<(), String> + Send + Sync + 'static) -> Form {
    Form::accept(ptx.clone(), ptx, res, accept)
}

/// Accepts `got` when it is the exact special result `want`, or for a NaN `want` any NaN.
fn special(got: u64, want: u64, w: u32) -> Result<(), String> {
    if bits(got, w) == bits(want, w) || r::is_nan(want, w) && r::is_nan(got, w) {
        Ok(())
    } else {
        Err(format!("special value: expected {want:#x}"))
    }
}

/// Relative error of `got` against the true value `t` at most `bound`.
fn relative(got: u64, t: f64, bound: f64, w: u32) -> Result<(), String> {
    let g = r::to_f64(got, w);
    let err = ((g - t) / t).abs();
    if err <= bound {
        Ok(())
    } else {
        Err(format!("relative error {err:e} > {bound:e} (true value {t:e})"))
    }
}

/// Within `n` ulp of the correctly rounded `want` (and NaN exactly when `want` is NaN).
fn ulps(got: u64, want: u64, n: u64, w: u32) -> Result<(), String> {
    if r::is_nan(want, w) || r::is_nan(got, w) {
        return special(got, want, w);
    }
    let d = r::ulp_distance(got, want, w);
    if d <= n {
        Ok(())
    } else {
        Err(format!("{d} ulp from {want:#x} (bound {n})"))
    }
}

/// With `.ftz`, a zero result is right when the unflushed true result lies below the
/// smallest normal number (it would be subnormal, or round up to the smallest normal).
fn ftz_zero_ok(ftz: bool, got: u64, unflushed: u64, w: u32) -> bool {
    let min_normal = if w == 32 { f32::MIN_POSITIVE as f64 } else { f64::MIN_POSITIVE };
    ftz && r::to_f64(got, w) == 0.0 && r::to_f64(unflushed, w).abs() <= min_normal
}

/// The `.approx` forms of `.f32`, checked against the ISA's bounds and special values.
fn approx_kernel() -> Kernel {
    let mut forms = vec![];
    let w = 32;
    for ftz in [false, true] {
        let m = if ftz { ".ftz" } else { "" };
        let inp = move |x: &[u64; 4], i: usize| if ftz { r::flush(x[i], 32) } else { x[i] & 0xffff_ffff };
        for sin in [true, false] {
            let op = if sin { "sin" } else { "cos" };
            forms.push(accepted(format!("{op}.approx{m}.f32 %o32, %a32;"), Res::B32, move |x, got| {
                let a = inp(x, 0);
                let v = r::to_f64(a, w);
                if !v.is_finite() {
                    return special(got, 0x7fc0_0000, w);
                }
                if v == 0.0 {
                    return special(got, if sin { a } else { 0x3f80_0000 }, w);
                }
                let t = if sin { v.sin() } else { v.cos() };
                let g = r::to_f64(got, w);
                let bound = if v.abs() <= 2.0 * std::f64::consts::PI {
                    2f64.powf(-20.5)
                } else if v.abs() <= 100.0 * std::f64::consts::PI {
                    2f64.powf(-14.7)
                } else {
                    // No bound in the ISA: the result must still be a sine.
                    2.0
                };
                if (g - t).abs() <= bound && g.abs() <= 1.0 {
                    Ok(())
                } else {
                    Err(format!("absolute error {:e} > {bound:e}", (g - t).abs()))
                }
            }));
        }
        forms.push(accepted(format!("lg2.approx{m}.f32 %o32, %a32;"), Res::B32, move |x, got| {
            let a = inp(x, 0);
            let v = r::to_f64(a, w);
            if v.is_nan() || v < 0.0 {
                return special(got, 0x7fc0_0000, w);
            }
            if v == 0.0 {
                return special(got, 0xff80_0000, w);
            }
            if v.is_infinite() {
                return special(got, 0x7f80_0000, w);
            }
            let t = v.log2();
            if v > 0.5 && v < 2.0 {
                let err = (r::to_f64(got, w) - t).abs();
                if err <= 2f64.powi(-22) {
                    Ok(())
                } else {
                    Err(format!("absolute error {err:e}"))
                }
            } else {
                relative(got, t, 2f64.powi(-22), w)
            }
        }));
        forms.push(accepted(format!("ex2.approx{m}.f32 %o32, %a32;"), Res::B32, move |x, got| {
            let a = inp(x, 0);
            let v = r::to_f64(a, w);
            if v.is_nan() {
                return special(got, 0x7fc0_0000, w);
            }
            let want = r::round_f64(v.exp2(), w);
            if v.is_infinite() || v == 0.0 {
                return special(got, want, w);
            }
            if ftz_zero_ok(ftz, got, want, w) && got & 0x8000_0000 == 0 {
                return Ok(());
            }
            ulps(got, want, 2, w)
        }));
        forms.push(accepted(format!("rsqrt.approx{m}.f32 %o32, %a32;"), Res::B32, move |x, got| {
            let a = inp(x, 0);
            let v = r::to_f64(a, w);
            if v.is_nan() || v < 0.0 {
                return special(got, 0x7fc0_0000, w);
            }
            if v == 0.0 || v.is_infinite() {
                return special(got, r::round_f64(1.0 / v.sqrt(), w), w);
            }
            relative(got, 1.0 / v.sqrt(), 2f64.powf(-22.9), w)
        }));
        forms.push(accepted(format!("sqrt.approx{m}.f32 %o32, %a32;"), Res::B32, move |x, got| {
            let a = inp(x, 0);
            let v = r::to_f64(a, w);
            if v.is_nan() || v < 0.0 {
                return special(got, 0x7fc0_0000, w);
            }
            if v == 0.0 || v.is_infinite() {
                return special(got, a, w);
            }
            relative(got, v.sqrt(), 2f64.powi(-23), w)
        }));
        forms.push(accepted(format!("rcp.approx{m}.f32 %o32, %a32;"), Res::B32, move |x, got| {
            let a = inp(x, 0);
            let v = r::to_f64(a, w);
            let want = r::round_f64(1.0 / v, w);
            if !v.is_finite() || v == 0.0 {
                return special(got, want, w);
            }
            if ftz_zero_ok(ftz, got, want, w) && (got ^ want) & 0x8000_0000 == 0 {
                return Ok(());
            }
            ulps(got, want, 1, w)
        }));
        forms.push(accepted(format!("div.full{m}.f32 %o32, %a32, %b32;"), Res::B32, move |x, got| {
            let want = r::arith("div", w, Rnd::Rn, ftz, false, &[x[0], x[1]]);
            ulps(got, want, 2, w)
        }));
        forms.push(accepted(format!("div.approx{m}.f32 %o32, %a32, %b32;"), Res::B32, move |x, got| {
            let (a, b) = (inp(x, 0), inp(x, 1));
            let (va, vb) = (r::to_f64(a, w), r::to_f64(b, w));
            let sign = (a ^ b) & 0x8000_0000;
            if vb.abs() > 2f64.powi(126) && vb.is_finite() {
                // Documented: NaN for an infinite `a`, else a signed zero.
                return if va.is_infinite() || va.is_nan() { special(got, 0x7fc0_0000, w) } else { special(got, sign, w) };
            }
            if !(vb.abs() >= 2f64.powi(-126)) || !va.is_finite() {
                // Outside the documented range: the defining formula `a * (1/b)`, the
                // reciprocal and the product in double precision (a subnormal `b` has a finite
                // reciprocal: `0 / tiny` is a zero, as on NVIDIA silicon), rounded to single
                // (`.ftz` applied to the inputs and the result).
                let fl = |v: f32| f32::from_bits(if ftz { r::flush(v.to_bits() as u64, 32) as u32 } else { v.to_bits() });
                let (fa, fb) = (fl(f32::from_bits(a as u32)) as f64, fl(f32::from_bits(b as u32)) as f64);
                let q = fl((fa * (1.0 / fb)) as f32);
                let q = if q.is_nan() { 0x7fff_ffff } else { q.to_bits() as u64 };
                return special(got, q, w);
            }
            let want = r::arith("div", w, Rnd::Rn, ftz, false, &[a, b]);
            if ftz_zero_ok(ftz, got, r::arith("div", w, Rnd::Rn, false, false, &[a, b]), w) {
                return Ok(());
            }
            ulps(got, want, 2, w)
        }));
    }
    for (operand, i) in [("%a32", 0), ("%b32", 1)] {
        forms.push(accepted(format!("tanh.approx.f32 %o32, {operand};"), Res::B32, move |x, got| {
            let a = x[i] & 0xffff_ffff;
            let v = r::to_f64(a, w);
            if v.is_nan() {
                return special(got, 0x7fc0_0000, w);
            }
            if v.is_infinite() || v == 0.0 || r::is_subnormal(a, w) {
                // ±1, ±0, and subnormals pass through.
                return special(got, if v.is_infinite() { r::round_f64(v.signum(), w) } else { a }, w);
            }
            relative(got, v.tanh(), 2f64.powi(-11), w)
        }));
    }
    Kernel::new("approx32", [Dist::F32; 4], forms)
}

/// `.f64` approximations: `rsqrt.approx.f64` and the "gross" `rcp/rsqrt.approx.ftz.f64`.
fn approx64_kernel() -> Kernel {
    let w = 64;
    let mut forms = vec![Form::accept("rsqrt.approx.f64 %o64, %a64;", "rsqrt.approx.f64 %o64, %a64;", Res::B64, move |x, got| {
        let v = f64::from_bits(x[0]);
        if v.is_nan() {
            return special(got, r::nan_result(64, &[x[0]]), w);
        }
        if v < 0.0 {
            return special(got, r::nan_result(64, &[]), w);
        }
        if v == 0.0 || v.is_infinite() {
            return special(got, (1.0 / v.sqrt()).to_bits(), w);
        }
        // No bound in the ISA: within 2 ulp of the true value.
        relative(got, 1.0 / v.sqrt(), 2f64.powi(-51), w)
    })];
    for rsqrt in [false, true] {
        let op = if rsqrt { "rsqrt" } else { "rcp" };
        let ptx = format!("{op}.approx.ftz.f64 %o64, %a64;");
        forms.push(Form::accept(ptx.clone(), ptx, Res::B64, move |x, got| {
            let upper = x[0] & 0xffff_ffff_0000_0000;
            let tmp = f64::from_bits(r::flush(upper, 64));
            if tmp.is_nan() || rsqrt && tmp < 0.0 {
                return special(got, 0x7fff_ffff_0000_0000, w).and_then(|_| {
                    if got == 0x7fff_ffff_0000_0000 {
                        Ok(())
                    } else {
                        Err("NaN must be 0x7fffffff00000000".into())
                    }
                });
            }
            let t = if rsqrt { 1.0 / tmp.sqrt() } else { 1.0 / tmp };
            if got & 0xffff_ffff != 0 {
                return Err("the low 32 bits must be zero".into());
            }
            if t == 0.0 || t.is_infinite() {
                return special(got, t.to_bits(), w);
            }
            if t.abs() < f64::MIN_POSITIVE {
                // Subnormal results are flushed (or rounded up to the smallest normal).
                let g = f64::from_bits(got);
                return if g == 0.0 && g.is_sign_negative() == t.is_sign_negative() || (g - t).abs() <= f64::MIN_POSITIVE {
                    Ok(())
                } else {
                    Err("subnormal result not flushed".into())
                };
            }
            relative(got, t, 2f64.powi(-20), w)
        }));
    }
    Kernel::new("approx64", [Dist::F64; 4], forms)
}

#[test]
fn float_arithmetic() {
    let kernels = vec![ieee_kernel(32), ieee_kernel(64), packed_kernel(), select_kernel(32), select_kernel(64), approx_kernel(), approx64_kernel()];
    // Three-input `min`/`max` and `.f32x2` need PTX ISA 8.8 (8.6) and sm_100.
    check_family_at("float", ".version 8.8\n.target sm_100", kernels, MIN_VECTORS_PER_INSTRUCTION);
}

/// sm_1x targets and PTX ISA 1.3 (ISA 1.4 text): `.f32` arithmetic flushes subnormals,
/// `mad.f32` is the unfused legacy form, `div rcp sqrt ...` without modifiers are
/// `.approx.ftz` for `.f32` and `.rn` for `.f64`.
#[test]
fn float_legacy_sm1x() {
    let mut forms = vec![];
    for op in ["add", "sub", "mul"] {
        forms.push(Form::inst(format!("{op}.f32 %o32, %a32, %b32;"), Res::B32, move |x| r::arith(op, 32, Rnd::Rn, true, false, &[x[0], x[1]])));
        forms.push(Form::inst(format!("{op}.rz.f32 %o32, %a32, %b32;"), Res::B32, move |x| r::arith(op, 32, Rnd::Rz, true, false, &[x[0], x[1]])));
        forms.push(Form::inst(format!("{op}.f64 %o64, %a64, %b64;"), Res::B64, move |x| r::arith(op, 64, Rnd::Rn, false, false, &[x[0], x[1]])));
    }
    forms.push(Form::inst("mad.f32 %o32, %a32, %b32, %c32;", Res::B32, |x| r::legacy_mad(x[0], x[1], x[2], false)));
    forms.push(Form::inst("mad.sat.f32 %o32, %a32, %b32, %c32;", Res::B32, |x| r::legacy_mad(x[0], x[1], x[2], true)));
    forms.push(Form::inst("mad.f32 %o32, %a32, %b32, 0f00000000;", Res::B32, |x| r::legacy_mad(x[0], x[1], 0, false)));
    forms.push(Form::inst("mad.rn.f64 %o64, %a64, %b64, %c64;", Res::B64, |x| r::arith("fma", 64, Rnd::Rn, false, false, &[x[0], x[1], x[2]])));
    forms.push(Form::inst("div.f64 %o64, %a64, %b64;", Res::B64, |x| r::arith("div", 64, Rnd::Rn, false, false, &[x[0], x[1]])));
    forms.push(Form::inst("sqrt.f64 %o64, %a64;", Res::B64, |x| r::arith("sqrt", 64, Rnd::Rn, false, false, &[x[0]])));
    forms.push(Form::inst("rcp.f64 %o64, %a64;", Res::B64, |x| r::arith("rcp", 64, Rnd::Rn, false, false, &[x[0]])));
    forms.push(Form::inst("min.f32 %o32, %a32, %b32;", Res::B32, |x| r::min_max(false, 32, true, false, false, false, &[x[0], x[1]])));
    forms.push(Form::inst("max.f32 %o32, %a32, %b32;", Res::B32, |x| r::min_max(true, 32, true, false, false, false, &[x[0], x[1]])));
    forms.push(Form::inst("abs.f32 %o32, %a32;", Res::B32, |x| r::abs(x[0], 32, true)));
    forms.push(Form::inst("neg.f32 %o32, %a32;", Res::B32, |x| r::neg(x[0], 32, true)));
    // Defaults of PTX ISA 1.3: the `.approx.ftz` forms (a subnormal input acts as zero).
    forms.push(Form::accept("rcp.f32 %o32, %a32;", "rcp.f32 %o32, %a32;", Res::B32, |x, got| {
        let want = r::round_f64(1.0 / r::to_f64(r::flush(x[0], 32), 32), 32);
        if r::is_subnormal(want, 32) && got & 0x7fff_ffff == 0 {
            return Ok(());
        }
        ulps(got, want, 1, 32)
    }));
    forms.push(Form::accept("sqrt.f32 %o32, %a32;", "sqrt.f32 %o32, %a32;", Res::B32, |x, got| {
        ulps(got, r::arith("sqrt", 32, Rnd::Rn, true, false, &[x[0]]), 1, 32)
    }));
    forms.push(Form::accept("div.f32 %o32, %a32, %b32;", "div.f32 %o32, %a32, %b32;", Res::B32, |x, got| {
        let (a, b) = (r::flush(x[0], 32), r::flush(x[1], 32));
        let vb = r::to_f64(b, 32);
        if vb.abs() > 2f64.powi(126) || vb.abs() < 2f64.powi(-126) || !r::to_f64(a, 32).is_finite() {
            return Ok(()); // covered by `div.approx` in the main family
        }
        let want = r::arith("div", 32, Rnd::Rn, true, false, &[a, b]);
        if ftz_zero_ok(true, got, r::arith("div", 32, Rnd::Rn, false, false, &[a, b]), 32) {
            return Ok(());
        }
        ulps(got, want, 2, 32)
    }));
    forms.push(Form::accept("ex2.f32 %o32, %a32;", "ex2.f32 %o32, %a32;", Res::B32, |x, got| {
        let v = r::to_f64(r::flush(x[0], 32), 32);
        if v.is_nan() {
            return special(got, 0x7fc0_0000, 32);
        }
        let want = r::round_f64(v.exp2(), 32);
        if ftz_zero_ok(true, got, want, 32) {
            return Ok(());
        }
        ulps(got, want, 2, 32)
    }));
    // sm_1x float-to-float `cvt` flushes single-precision subnormal inputs and results
    // without `.ftz` (NaN: any NaN).
    forms.push(Form::accept("cvt f32 to f64 (sm_1x flushes the input)", "cvt.f64.f32 %o64, %a32;", Res::B64, |x, got| {
        let v = r::to_f64(r::flush(x[0], 32), 32);
        match v.is_nan() {
            true if f64::from_bits(got).is_nan() => Ok(()),
            false if got == v.to_bits() => Ok(()),
            _ => Err(format!("want {:#x}", v.to_bits())),
        }
    }));
    forms.push(Form::accept("cvt.rn.f32.f64 (sm_1x flushes the result)", "cvt.rn.f32.f64 %o32, %a64;", Res::B32, |x, got| {
        let v = f64::from_bits(x[0]);
        let want = r::flush(r::round_f64(v, 32), 32);
        match v.is_nan() {
            true if f32::from_bits(got as u32).is_nan() => Ok(()),
            false if got == want => Ok(()),
            _ => Err(format!("want {want:#x}")),
        }
    }));
    // `.f64` forms read the 64-bit views: they get binary64 inputs in a kernel of their own.
    let (forms64, forms32): (Vec<Form>, Vec<Form>) = forms.into_iter().partition(|f| f.label.contains(".f64"));
    let kernels = vec![Kernel::new("legacy32", [Dist::F32; 4], forms32), Kernel::new("legacy64", [Dist::F64; 4], forms64)];
    run_family_at("float_legacy", ".version 1.3\n.target sm_13", kernels);
}

/// `.target map_f64_to_f32`: `.f64` instructions compute in single precision (with the
/// sm_1x flushing): operands rounded to `.f32`, the result widened back.
#[test]
fn float_map_f64_to_f32() {
    let demoted = |op: &'static str| {
        move |x: &[u64; 4]| {
            let narrow = |v: u64| (f64::from_bits(v) as f32).to_bits() as u64;
            let res = r::arith(op, 32, Rnd::Rn, true, false, &[narrow(x[0]), narrow(x[1]), narrow(x[2])][..if op == "fma" { 3 } else { 2 }]);
            (f32::from_bits(res as u32) as f64).to_bits()
        }
    };
    let forms = vec![
        Form::inst("add.f64 %o64, %a64, %b64;", Res::B64, demoted("add")),
        Form::inst("mul.rn.f64 %o64, %a64, %b64;", Res::B64, demoted("mul")),
        Form::inst("div.rn.f64 %o64, %a64, %b64;", Res::B64, demoted("div")),
    ];
    run_family_at("float_map_f64", ".version 1.3\n.target sm_10, map_f64_to_f32", vec![Kernel::new("mapped", [Dist::F64; 4], forms)]);
}

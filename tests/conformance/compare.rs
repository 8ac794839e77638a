//! Float comparison and selection (`setp`, `set`, `selp`, `slct` on `.f32`/`.f64`): all 14
//! comparison operators, `.ftz`, predicate combination with negated operands, the `p|q`
//! form, every `set` destination type; checked against `convert_reference.rs`.

use super::convert_reference::{self as r, Fmt};
use super::{check_family, Dist, Form, Kernel, Res};
use rustc_apfloat::Float as _;

const MIN_VECTORS_PER_INSTRUCTION: usize = 10_000;

fn value(f: Fmt, raw: u64, ftz: bool) -> rustc_apfloat::ieee::Quad {
    let raw = raw & r::mask(f.width());
    f.value(if ftz && f == Fmt::F32 { r::flush_f32(raw) } else { raw })
}

fn float_kernel(f: Fmt) -> Kernel {
    let (t, a, b, w) = if f == Fmt::F32 { ("f32", "%a32", "%b32", 32) } else { ("f64", "%a64", "%b64", 64) };
    let mut forms = vec![];
    for cmp in r::FLOAT_COMPARISONS {
        for ftz in if f == Fmt::F32 { vec![false, true] } else { vec![false] } {
            let z = if ftz { ".ftz" } else { "" };
            let test = move |x: &[u64; 4]| r::compare(cmp, value(f, x[0], ftz), value(f, x[1], ftz));
            forms.push(Form::inst(format!("setp.{cmp}{z}.{t} %op, {a}, {b};"), Res::Pred, move |x| test(x) as u64));
            // `p|q`: q is the complement.
            let ptx = format!("setp.{cmp}{z}.{t} %p2|%op, {a}, {b};");
            forms.push(Form::new(format!("setp.{cmp}{z}.{t} p|q, a, b (q)"), ptx, Res::Pred, move |x| !test(x) as u64));
            for (dty, yes) in [("u32", 0xffff_ffffu64), ("s32", 0xffff_ffff), ("f32", 1.0f32.to_bits() as u64)] {
                forms.push(Form::inst(format!("set.{cmp}{z}.{dty}.{t} %o32, {a}, {b};"), Res::B32, move |x| if test(x) { yes } else { 0 }));
            }
            // Combination with a predicate from `c`, plain and negated.
            for bop in ["and", "or", "xor"] {
                let combine = move |p: bool, c: bool| match bop {
                    "and" => p & c,
                    "or" => p | c,
                    _ => p ^ c,
                };
                let set_c = "and.b32 %t1, %c32, 1;\nsetp.ne.u32 %p1, %t1, 0;";
                let ptx = format!("{set_c}\nsetp.{cmp}.{bop}{z}.{t} %op, {a}, {b}, !%p1;");
                forms.push(Form::new(format!("setp.{cmp}.{bop}{z}.{t} p, a, b, !c"), ptx, Res::Pred, move |x| combine(test(x), x[2] & 1 == 0) as u64));
                let ptx = format!("{set_c}\nsetp.{cmp}.{bop}{z}.{t} %p2|%op, {a}, {b}, %p1;");
                forms.push(Form::new(format!("setp.{cmp}.{bop}{z}.{t} p|q, a, b, c (q)"), ptx, Res::Pred, move |x| combine(!test(x), x[2] & 1 == 1) as u64));
                let ptx = format!("{set_c}\nset.{cmp}.{bop}{z}.f32.{t} %o32, {a}, {b}, %p1;");
                forms.push(Form::new(format!("set.{cmp}.{bop}{z}.f32.{t} d, a, b, c"), ptx, Res::B32, move |x| {
                    if combine(test(x), x[2] & 1 == 1) {
                        1.0f32.to_bits() as u64
                    } else {
                        0
                    }
                }));
            }
        }
    }
    // Selection: selp on the float type, slct with a float or integer `c`.
    forms.push(Form::new(
        format!("selp.{t} d, a, b, c"),
        format!("and.b32 %t1, %c32, 1;\nsetp.ne.u32 %p1, %t1, 0;\nselp.{t} %o{w}, {a}, {b}, %p1;"),
        if w == 32 { Res::B32 } else { Res::B64 },
        move |x| if x[2] & 1 == 1 { x[0] & r::mask(w) } else { x[1] & r::mask(w) },
    ));
    let res = if w == 32 { Res::B32 } else { Res::B64 };
    for ftz in [false, true] {
        let z = if ftz { ".ftz" } else { "" };
        // `c` is `d`'s low word as an f32: F32 inputs give every kind of value.
        forms.push(Form::inst(format!("slct{z}.{t}.f32 %o{w}, {a}, {b}, %d32;"), res, move |x| {
            let c = value(Fmt::F32, x[3], ftz);
            // NaN selects b; -0 counts as zero.
            let take_a = !c.is_nan() && (c.is_zero() || !c.is_negative());
            if take_a {
                x[0] & r::mask(w)
            } else {
                x[1] & r::mask(w)
            }
        }));
    }
    forms.push(Form::inst(
        format!("slct.{t}.s32 %o{w}, {a}, {b}, %c32;"),
        res,
        move |x| if (x[2] as u32 as i32) >= 0 { x[0] & r::mask(w) } else { x[1] & r::mask(w) },
    ));
    let dist = if f == Fmt::F32 { Dist::F32 } else { Dist::F64 };
    Kernel::new(format!("compare_{t}"), [dist, dist, Dist::Any, Dist::F32], forms)
}

#[test]
fn compare() {
    check_family("compare", vec![float_kernel(Fmt::F32), float_kernel(Fmt::F64)], MIN_VECTORS_PER_INSTRUCTION);
}

//! Integer arithmetic (9.7.1), logic and shift (9.7.8, including `shf` and `lop3`), `prmt`,
//! comparison and selection (`set setp selp slct`) and vector `mov`.

use super::reference as r;
use super::{check_family, Dist, Form, Kernel, Res};

const MIN_VECTORS_PER_INSTRUCTION: usize = 10_000;

/// The operand view of input `x` (`a`–`d`) at width `w`.
fn v(x: char, w: u32) -> String {
    format!("%{x}{w}")
}

fn out(w: u32) -> (String, Res) {
    match w {
        16 => ("%o16".into(), Res::B16),
        32 => ("%o32".into(), Res::B32),
        _ => ("%o64".into(), Res::B64),
    }
}

fn ty(w: u32, signed: bool) -> String {
    format!(".{}{w}", if signed { 's' } else { 'u' })
}

/// Arithmetic of one integer type: add sub mul mad sad div rem min max (+ abs neg, .wide).
fn arithmetic_kernel(w: u32, signed: bool) -> Kernel {
    let t = ty(w, signed);
    let (o, res) = out(w);
    let (a, b, c) = (v('a', w), v('b', w), v('c', w));
    let mut forms = vec![
        Form::inst(format!("add{t} {o}, {a}, {b};"), res, move |x| r::add(x[0], x[1], w, signed, false)),
        Form::inst(format!("sub{t} {o}, {a}, {b};"), res, move |x| r::sub(x[0], x[1], w, signed, false)),
        Form::inst(format!("mul.lo{t} {o}, {a}, {b};"), res, move |x| r::mul("lo", x[0], x[1], w, signed)),
        Form::inst(format!("mul.hi{t} {o}, {a}, {b};"), res, move |x| r::mul("hi", x[0], x[1], w, signed)),
        Form::inst(format!("mad.lo{t} {o}, {a}, {b}, {c};"), res, move |x| r::mad("lo", x[0], x[1], x[2], w, signed, false)),
        Form::inst(format!("mad.hi{t} {o}, {a}, {b}, {c};"), res, move |x| r::mad("hi", x[0], x[1], x[2], w, signed, false)),
        Form::inst(format!("sad{t} {o}, {a}, {b}, {c};"), res, move |x| r::sad(x[0], x[1], x[2], w, signed)),
        Form::inst(format!("div{t} {o}, {a}, {b};"), res, move |x| r::div(x[0], x[1], w, signed)),
        Form::inst(format!("rem{t} {o}, {a}, {b};"), res, move |x| r::rem(x[0], x[1], w, signed)),
        Form::inst(format!("min{t} {o}, {a}, {b};"), res, move |x| r::min_max(false, x[0], x[1], w, signed, false)),
        Form::inst(format!("max{t} {o}, {a}, {b};"), res, move |x| r::min_max(true, x[0], x[1], w, signed, false)),
        // Immediate operands.
        Form::inst(format!("add{t} {o}, {a}, 1;"), res, move |x| r::add(x[0], 1, w, signed, false)),
        Form::inst(format!("div{t} {o}, {a}, 7;"), res, move |x| r::div(x[0], 7, w, signed)),
        Form::inst(format!("rem{t} {o}, {a}, -1;"), res, move |x| r::rem(x[0], u64::MAX, w, signed)),
    ];
    if w < 64 {
        let (wo, wres) = out(2 * w);
        let cw = v('c', 2 * w);
        forms.push(Form::inst(format!("mul.wide{t} {wo}, {a}, {b};"), wres, move |x| r::mul("wide", x[0], x[1], w, signed)));
        forms.push(Form::inst(format!("mad.wide{t} {wo}, {a}, {b}, {cw};"), wres, move |x| r::mad("wide", x[0], x[1], x[2], w, signed, false)));
    }
    if signed {
        forms.push(Form::inst(format!("abs{t} {o}, {a};"), res, move |x| r::abs(x[0], w)));
        forms.push(Form::inst(format!("neg{t} {o}, {a};"), res, move |x| r::neg(x[0], w)));
    }
    if signed && w == 32 {
        forms.push(Form::inst("add.sat.s32 %o32, %a32, %b32;", Res::B32, |x| r::add(x[0], x[1], 32, true, true)));
        forms.push(Form::inst("sub.sat.s32 %o32, %a32, %b32;", Res::B32, |x| r::sub(x[0], x[1], 32, true, true)));
        forms.push(Form::inst("mad.hi.sat.s32 %o32, %a32, %b32, %c32;", Res::B32, |x| r::mad("hi", x[0], x[1], x[2], 32, true, true)));
        forms.push(Form::inst("min.relu.s32 %o32, %a32, %b32;", Res::B32, |x| r::min_max(false, x[0], x[1], 32, true, true)));
        forms.push(Form::inst("max.relu.s32 %o32, %a32, %b32;", Res::B32, |x| r::min_max(true, x[0], x[1], 32, true, true)));
    }
    if w == 32 {
        for hi in [false, true] {
            let m = if hi { "hi" } else { "lo" };
            forms.push(Form::inst(format!("mul24.{m}{t} %o32, %a32, %b32;"), Res::B32, move |x| r::mul24(hi, x[0], x[1], None, signed, false)));
            forms.push(Form::inst(format!("mad24.{m}{t} %o32, %a32, %b32, %c32;"), Res::B32, move |x| r::mul24(hi, x[0], x[1], Some(x[2]), signed, false)));
        }
        if signed {
            forms.push(Form::inst("mad24.hi.sat.s32 %o32, %a32, %b32, %c32;", Res::B32, |x| r::mul24(true, x[0], x[1], Some(x[2]), true, true)));
        }
    }
    Kernel::new(format!("arith{}", t.replace('.', "_")), [Dist::Any; 4], forms)
}

/// `.u16x2`/`.s16x2` forms of `add sub min max` (and `.relu`).
fn packed_kernel() -> Kernel {
    let mut forms = vec![];
    for signed in [false, true] {
        let t = if signed { "s16x2" } else { "u16x2" };
        // `sub` has no packed forms.
        for op in ["add", "min", "max"] {
            forms.push(Form::inst(format!("{op}.{t} %o32, %a32, %b32;"), Res::B32, move |x| r::packed16x2(op, x[0], x[1], signed, false)));
        }
    }
    forms.push(Form::inst("min.relu.s16x2 %o32, %a32, %b32;", Res::B32, |x| r::packed16x2("min", x[0], x[1], true, true)));
    forms.push(Form::inst("max.relu.s16x2 %o32, %a32, %b32;", Res::B32, |x| r::packed16x2("max", x[0], x[1], true, true)));
    Kernel::new("packed16x2", [Dist::Any; 4], forms)
}

/// Counting, bit-field, shift and extension forms of one width: `a` any, `b`/`c` positions.
fn bits_kernel(w: u32) -> Kernel {
    let (o, res) = out(w);
    let (a, b, c) = (v('a', w), v('b', 32), v('c', 32));
    let bt = format!(".b{w}");
    let mut forms = vec![
        Form::inst(format!("not{bt} {o}, {a};"), res, move |x| !x[0] & r::mask(w)),
        Form::inst(format!("cnot{bt} {o}, {a};"), res, move |x| (x[0] & r::mask(w) == 0) as u64),
        Form::inst(format!("shl{bt} {o}, {a}, {b};"), res, move |x| r::shl(x[0], x[1], w)),
        Form::inst(format!("shl{bt} {o}, {a}, {};", w - 1), res, move |x| r::shl(x[0], w as u64 - 1, w)),
        Form::inst(format!("shr{bt} {o}, {a}, {b};"), res, move |x| r::shr(x[0], x[1], w, false)),
    ];
    if w >= 32 {
        forms.push(Form::inst(format!("popc{bt} %o32, {a};"), Res::B32, move |x| r::popc(x[0], w)));
        forms.push(Form::inst(format!("clz{bt} %o32, {a};"), Res::B32, move |x| r::clz(x[0], w)));
        forms.push(Form::inst(format!("brev{bt} {o}, {a};"), res, move |x| r::brev(x[0], w)));
    }
    for signed in [false, true] {
        let t = ty(w, signed);
        forms.push(Form::inst(format!("shr{t} {o}, {a}, {b};"), res, move |x| r::shr(x[0], x[1], w, signed)));
        if w >= 32 {
            forms.push(Form::inst(format!("bfind{t} %o32, {a};"), Res::B32, move |x| r::bfind(x[0], w, signed, false)));
            forms.push(Form::inst(format!("bfind.shiftamt{t} %o32, {a};"), Res::B32, move |x| r::bfind(x[0], w, signed, true)));
            forms.push(Form::inst(format!("bfe{t} {o}, {a}, {b}, {c};"), res, move |x| r::bfe(x[0], x[1], x[2], w, signed)));
            forms.push(Form::inst(format!("bfe{t} {o}, {a}, 8, 12;"), res, move |x| r::bfe(x[0], 8, 12, w, signed)));
        }
    }
    if w == 32 {
        for clamp in [false, true] {
            let m = if clamp { "clamp" } else { "wrap" };
            for signed in [false, true] {
                let t = ty(32, signed);
                forms.push(Form::inst(format!("szext.{m}{t} %o32, %a32, %b32;"), Res::B32, move |x| r::szext(clamp, signed, x[0], x[1])));
            }
            forms.push(Form::inst(format!("bmsk.{m}.b32 %o32, %b32, %c32;"), Res::B32, move |x| r::bmsk(clamp, x[1], x[2])));
        }
    }
    Kernel::new(format!("bits_b{w}"), [Dist::Any, Dist::Small, Dist::Small, Dist::Any], forms)
}

/// `bfi` (`a`, `b` any; `c`, `d` positions) and `shf` (`a`, `b` any; `c` amount), `fns`.
fn insert_funnel_kernel() -> Kernel {
    let mut forms = vec![];
    for w in [32u32, 64] {
        let (o, res) = out(w);
        let (a, b) = (v('a', w), v('b', w));
        forms.push(Form::inst(format!("bfi.b{w} {o}, {a}, {b}, %c32, %d32;"), res, move |x| r::bfi(x[0], x[1], x[2], x[3], w)));
        forms.push(Form::inst(format!("bfi.b{w} {o}, {a}, {b}, 4, 9;"), res, move |x| r::bfi(x[0], x[1], 4, 9, w)));
    }
    for left in [true, false] {
        for clamp in [true, false] {
            let d = if left { "l" } else { "r" };
            let m = if clamp { "clamp" } else { "wrap" };
            forms.push(Form::inst(format!("shf.{d}.{m}.b32 %o32, %a32, %b32, %c32;"), Res::B32, move |x| r::shf(left, clamp, x[0], x[1], x[2])));
            forms.push(Form::inst(format!("shf.{d}.{m}.b32 %o32, %a32, %b32, 13;"), Res::B32, move |x| r::shf(left, clamp, x[0], x[1], 13)));
        }
    }
    // fns: mask a, base c, offset d and -d.
    forms.push(Form::inst("fns.b32 %o32, %a32, %c32, %d32;", Res::B32, |x| r::fns(x[0], x[2], x[3])));
    forms.push(Form::new("fns.b32 %o32, %a32, %c32, -d", "neg.s32 %t0, %d32;\nfns.b32 %o32, %a32, %c32, %t0;", Res::B32, |x| {
        r::fns(x[0], x[2], (x[3] as u32).wrapping_neg() as u64)
    }));
    forms.push(Form::inst("fns.b32 %o32, %a32, 5, -3;", Res::B32, |x| r::fns(x[0], 5, (-3i64) as u64)));
    Kernel::new("insert_funnel", [Dist::Any, Dist::Any, Dist::Small, Dist::Small], forms)
}

/// Logic, permute, dot products, comparisons and selection, vector `mov`.
fn logic_kernel() -> Kernel {
    let mut forms = vec![];
    for w in [16u32, 32, 64] {
        let (o, res) = out(w);
        let (a, b) = (v('a', w), v('b', w));
        forms.push(Form::inst(format!("and.b{w} {o}, {a}, {b};"), res, move |x| x[0] & x[1] & r::mask(w)));
        forms.push(Form::inst(format!("or.b{w} {o}, {a}, {b};"), res, move |x| (x[0] | x[1]) & r::mask(w)));
        forms.push(Form::inst(format!("xor.b{w} {o}, {a}, {b};"), res, move |x| (x[0] ^ x[1]) & r::mask(w)));
    }
    for mode in [None, Some("f4e"), Some("b4e"), Some("rc8"), Some("ecl"), Some("ecr"), Some("rc16")] {
        let m = mode.map(|m| format!(".{m}")).unwrap_or_default();
        forms.push(Form::inst(format!("prmt.b32{m} %o32, %a32, %b32, %c32;"), Res::B32, move |x| r::prmt(mode, x[0], x[1], x[2])));
    }
    forms.push(Form::inst("prmt.b32 %o32, %a32, %b32, 0x8a31;", Res::B32, |x| r::prmt(None, x[0], x[1], 0x8a31)));
    for lut in [0x00u8, 0xff, 0x80, 0xfe, 0x40, 0x1a, 0x96, 0xe8, 0x3f, 0xca] {
        forms.push(Form::inst(format!("lop3.b32 %o32, %a32, %b32, %c32, {lut:#x};"), Res::B32, move |x| r::lop3(x[0], x[1], x[2], lut)));
    }
    for (op, lut) in [("and", 0x3fu8), ("or", 0x80)] {
        // p = (d != 0) op q with q = d's bit 0.
        let ptx = format!("and.b32 %t1, %d32, 1;\nsetp.ne.u32 %p1, %t1, 0;\nlop3.{op}.b32 %t0|%op, %a32, %b32, %c32, {lut:#x}, %p1;");
        forms.push(Form::new(format!("lop3.{op}.b32 d|p, a, b, c, {lut:#x}, q"), ptx.clone(), Res::Pred, move |x| {
            r::bool_op(op, r::lop3(x[0], x[1], x[2], lut) != 0, x[3] & 1 == 1) as u64
        }));
        forms.push(Form::new(format!("lop3.{op}.b32 d|p (d)"), ptx.replace("%t0|%op", "%o32|%op"), Res::B32, move |x| r::lop3(x[0], x[1], x[2], lut)));
        let sink = format!("and.b32 %t1, %d32, 1;\nsetp.ne.u32 %p1, %t1, 0;\nlop3.{op}.b32 _|%op, %a32, %b32, %c32, {lut:#x}, %p1;");
        forms.push(Form::new(format!("lop3.{op}.b32 _|p, a, b, c, {lut:#x}, q"), sink, Res::Pred, move |x| {
            r::bool_op(op, r::lop3(x[0], x[1], x[2], lut) != 0, x[3] & 1 == 1) as u64
        }));
    }
    for a_signed in [false, true] {
        for b_signed in [false, true] {
            let ts = format!("{}{}", ty(32, a_signed), ty(32, b_signed));
            forms.push(Form::inst(format!("dp4a{ts} %o32, %a32, %b32, %c32;"), Res::B32, move |x| r::dp4a(x[0], x[1], x[2], a_signed, b_signed)));
            for hi in [false, true] {
                let m = if hi { "hi" } else { "lo" };
                forms.push(Form::inst(format!("dp2a.{m}{ts} %o32, %a32, %b32, %c32;"), Res::B32, move |x| r::dp2a(hi, x[0], x[1], x[2], a_signed, b_signed)));
            }
        }
    }
    // Comparisons: setp/set on every integer type and operator, selp, slct.
    for w in [16u32, 32, 64] {
        for (kind, cmps) in [
            ("b", &["eq", "ne"][..]),
            ("u", &["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"][..]),
            ("s", &["eq", "ne", "lt", "le", "gt", "ge"][..]),
        ] {
            let signed = kind == "s";
            let (a, b) = (v('a', w), v('b', w));
            for &cmp in cmps {
                forms.push(Form::inst(format!("setp.{cmp}.{kind}{w} %op, {a}, {b};"), Res::Pred, move |x| r::compare(cmp, x[0], x[1], w, signed) as u64));
                forms.push(Form::inst(format!("set.{cmp}.u32.{kind}{w} %o32, {a}, {b};"), Res::B32, move |x| {
                    if r::compare(cmp, x[0], x[1], w, signed) {
                        0xffff_ffff
                    } else {
                        0
                    }
                }));
                forms.push(Form::inst(format!("set.{cmp}.s32.{kind}{w} %o32, {a}, {b};"), Res::B32, move |x| {
                    if r::compare(cmp, x[0], x[1], w, signed) {
                        0xffff_ffff
                    } else {
                        0
                    }
                }));
                forms.push(Form::inst(format!("set.{cmp}.f32.{kind}{w} %o32, {a}, {b};"), Res::B32, move |x| {
                    if r::compare(cmp, x[0], x[1], w, signed) {
                        1.0f32.to_bits() as u64
                    } else {
                        0
                    }
                }));
            }
        }
    }
    for bop in ["and", "or", "xor"] {
        let ptx = format!("and.b32 %t1, %c32, 1;\nsetp.ne.u32 %p1, %t1, 0;\nset.lt.{bop}.f32.s32 %o32, %a32, %b32, !%p1;");
        forms.push(Form::new(format!("set.lt.{bop}.f32.s32 d, a, b, !c"), ptx, Res::B32, move |x| {
            if r::bool_op(bop, r::compare("lt", x[0], x[1], 32, true), x[2] & 1 == 0) {
                1.0f32.to_bits() as u64
            } else {
                0
            }
        }));
        let ptx = format!("and.b32 %t1, %c32, 1;\nsetp.ne.u32 %p1, %t1, 0;\nsetp.hi.{bop}.u64 %op, %a64, %b64, %p1;");
        forms.push(Form::new(format!("setp.hi.{bop}.u64 p, a, b, c"), ptx, Res::Pred, move |x| {
            r::bool_op(bop, r::compare("hi", x[0], x[1], 64, false), x[2] & 1 == 1) as u64
        }));
    }
    for w in [16u32, 32, 64] {
        let (o, res) = out(w);
        let (a, b) = (v('a', w), v('b', w));
        let ptx = format!("and.b32 %t1, %c32, 1;\nsetp.ne.u32 %p1, %t1, 0;\nselp.b{w} {o}, {a}, {b}, %p1;");
        forms.push(Form::new(format!("selp.b{w} d, a, b, c"), ptx, res, move |x| if x[2] & 1 == 1 { x[0] & r::mask(w) } else { x[1] & r::mask(w) }));
        forms.push(Form::inst(format!("slct.b{w}.s32 {o}, {a}, {b}, %c32;"), res, move |x| {
            if (x[2] as u32 as i32) >= 0 {
                x[0] & r::mask(w)
            } else {
                x[1] & r::mask(w)
            }
        }));
        forms.push(Form::inst(format!("slct.u{w}.f32 {o}, {a}, {b}, %c32;"), res, move |x| r::slct_f32(x[0], x[1], x[2], false) & r::mask(w)));
        forms.push(Form::inst(format!("slct.ftz.s{w}.f32 {o}, {a}, {b}, %c32;"), res, move |x| r::slct_f32(x[0], x[1], x[2], true) & r::mask(w)));
    }
    // Vector mov: pack and unpack.
    forms.push(Form::inst("mov.b64 %o64, {%a32, %b32};", Res::B64, |x| (x[0] & 0xffff_ffff) | (x[1] << 32)));
    forms.push(Form::inst("mov.b32 %o32, {%a16, %b16};", Res::B32, |x| (x[0] & 0xffff) | ((x[1] & 0xffff) << 16)));
    forms.push(Form::new("mov.b64 {%t0, %t1}, %a64 (high)", "mov.b64 {%t0, %t1}, %a64;\nmov.b32 %o32, %t1;", Res::B32, |x| x[0] >> 32));
    forms.push(Form::new("mov.b64 {%h0, %h1, %h2, %h3}, %a64 (h2)", "mov.b64 {%h0, %h1, %h2, %h3}, %a64;\nmov.b16 %o16, %h2;", Res::B16, |x| {
        (x[0] >> 32) & 0xffff
    }));
    forms.push(Form::new("mov.b32 {_, %h1}, %a32", "mov.b16 %h1, 0;\nmov.b32 {_, %h1}, %a32;\nmov.b16 %o16, %h1;", Res::B16, |x| (x[0] >> 16) & 0xffff));
    Kernel::new("logic_select", [Dist::Any; 4], forms)
}

#[test]
fn integer_arithmetic() {
    let mut kernels = vec![];
    for w in [16, 32, 64] {
        for signed in [false, true] {
            kernels.push(arithmetic_kernel(w, signed));
        }
    }
    kernels.push(packed_kernel());
    check_family("integer_arithmetic", kernels, MIN_VECTORS_PER_INSTRUCTION);
}

#[test]
fn bit_manipulation_and_logic() {
    let kernels = vec![bits_kernel(16), bits_kernel(32), bits_kernel(64), insert_funnel_kernel(), logic_kernel()];
    check_family("bits_logic", kernels, MIN_VECTORS_PER_INSTRUCTION);
}

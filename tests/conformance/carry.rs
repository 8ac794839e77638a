//! Extended-precision arithmetic (9.7.2): `add.cc addc sub.cc subc mad.cc madc`, 32 and 64
//! bits, with the carry flag set from an input before each form, read back with
//! `addc.u32 d, 0, 0`, and flowing through multi-word chains mixed with other instructions,
//! guarded instructions and a barrier.

use super::reference as r;
use super::{check_family, Dist, Form, Kernel, Res};

/// Sets CC.CF to bit 0 of `d` (`x + 0xffffffff` carries exactly when `x` is 1).
const SET_CF: &str = "and.b32 %t6, %d32, 1;\nadd.cc.u32 %t7, %t6, -1;";
/// Reads CC.CF into `%o32`.
const READ_CF: &str = "addc.u32 %o32, 0, 0;";

fn cf_in(x: &[u64; 4]) -> bool {
    x[3] & 1 == 1
}

/// Every single instruction form, each with the carry-in from `d` and its carry-out.
fn single_forms() -> Kernel {
    let mut forms = vec![];
    for w in [32u32, 64] {
        for signed in [false, true] {
            let t = format!(".{}{w}", if signed { 's' } else { 'u' });
            let (o, res) = if w == 32 { ("%o32", Res::B32) } else { ("%o64", Res::B64) };
            let (a, b, c) = (format!("%a{w}"), format!("%b{w}"), format!("%c{w}"));
            // (opcode with modifiers, operands, carry-in used, value/carry function)
            type F = fn(&[u64; 4], bool, u32, bool) -> (u64, bool);
            let cases: Vec<(String, String, bool, F)> = vec![
                (format!("add.cc{t}"), format!("{a}, {b}"), false, |x, _, w, _| r::add_carry(x[0], x[1], false, w)),
                (format!("addc{t}"), format!("{a}, {b}"), true, |x, cf, w, _| r::add_carry(x[0], x[1], cf, w)),
                (format!("addc.cc{t}"), format!("{a}, {b}"), true, |x, cf, w, _| r::add_carry(x[0], x[1], cf, w)),
                (format!("sub.cc{t}"), format!("{a}, {b}"), false, |x, _, w, _| r::sub_borrow(x[0], x[1], false, w)),
                (format!("subc{t}"), format!("{a}, {b}"), true, |x, cf, w, _| r::sub_borrow(x[0], x[1], cf, w)),
                (format!("subc.cc{t}"), format!("{a}, {b}"), true, |x, cf, w, _| r::sub_borrow(x[0], x[1], cf, w)),
                (format!("mad.lo.cc{t}"), format!("{a}, {b}, {c}"), false, |x, _, w, s| r::mad_carry(false, x[0], x[1], x[2], false, w, s)),
                (format!("mad.hi.cc{t}"), format!("{a}, {b}, {c}"), false, |x, _, w, s| r::mad_carry(true, x[0], x[1], x[2], false, w, s)),
                (format!("madc.lo{t}"), format!("{a}, {b}, {c}"), true, |x, cf, w, s| r::mad_carry(false, x[0], x[1], x[2], cf, w, s)),
                (format!("madc.hi{t}"), format!("{a}, {b}, {c}"), true, |x, cf, w, s| r::mad_carry(true, x[0], x[1], x[2], cf, w, s)),
                (format!("madc.lo.cc{t}"), format!("{a}, {b}, {c}"), true, |x, cf, w, s| r::mad_carry(false, x[0], x[1], x[2], cf, w, s)),
                (format!("madc.hi.cc{t}"), format!("{a}, {b}, {c}"), true, |x, cf, w, s| r::mad_carry(true, x[0], x[1], x[2], cf, w, s)),
            ];
            for (opc, args, uses_cf, f) in cases {
                let inst = format!("{opc} {o}, {args};");
                let ptx = format!("{SET_CF}\n{inst}");
                forms.push(Form::new(format!("{inst} (CF in = d & 1)"), ptx.clone(), res, move |x| f(x, uses_cf && cf_in(x), w, signed).0));
                if opc.contains(".cc") {
                    let ptx = format!("{ptx}\n{READ_CF}");
                    forms.push(Form::new(format!("{inst} (carry-out, CF in = d & 1)"), ptx, Res::B32, move |x| f(x, uses_cf && cf_in(x), w, signed).1 as u64));
                }
            }
        }
    }
    // A guarded add.cc that does not run leaves CF unchanged.
    let ptx = format!("{SET_CF}\nand.b32 %t5, %c32, 2;\nsetp.ne.u32 %p1, %t5, 0;\n@%p1 add.cc.u32 %t0, %a32, %b32;\n{READ_CF}");
    forms.push(Form::new("add.cc.u32 guarded by @p (carry-out; p = c & 2)", ptx, Res::B32, |x| {
        if x[2] & 2 != 0 {
            r::add_carry(x[0], x[1], false, 32).1 as u64
        } else {
            x[3] & 1
        }
    }));
    // The carry flag lives across a barrier.
    let ptx = format!("{SET_CF}\nbar.sync 0;\naddc.u32 %o32, %a32, %b32;");
    forms.push(Form::new("addc.u32 after bar.sync (CF in = d & 1)", ptx, Res::B32, |x| r::add_carry(x[0], x[1], x[3] & 1 == 1, 32).0));
    Kernel::new("carry_single", [Dist::Any; 4], forms)
}

/// Unrelated instructions placed inside carry chains (they must not touch CC.CF).
const NOISE: &str = "mul.lo.u64 %u6, %a64, %c64;\nshr.u64 %u7, %u6, 7;\nsetp.ne.u64 %p3, %u7, 0;\nselp.u64 %u6, %u6, %u7, %p3;\nadd.u64 %u7, %u6, %u7;";

fn u128_of(lo: u64, hi: u64) -> u128 {
    lo as u128 | (hi as u128) << 64
}

/// 128-bit addition and subtraction of `[b, a]` and `[d, c]` as chains of 32-bit and 64-bit
/// words, and the multi-word multiplications of the `madc` example.
fn chains() -> Kernel {
    let mut forms = vec![];
    let split = "mov.b64 {%t0, %t1}, %a64;\nmov.b64 {%t2, %t3}, %b64;\nmov.b64 {%t4, %t5}, %c64;\nmov.b64 {%t6, %t7}, %d64;";
    for sub in [false, true] {
        let (first, next) = if sub { ("sub.cc", "subc") } else { ("add.cc", "addc") };
        let chain32 = format!(
            "{split}\n{first}.u32 %t0, %t0, %t4;\n{NOISE}\n{next}.cc.u32 %t1, %t1, %t5;\n{next}.cc.u32 %t2, %t2, %t6;\n{NOISE}\n{next}.cc.u32 %t3, %t3, %t7;"
        );
        let chain64 = format!("mov.b64 %u0, %a64;\nmov.b64 %u1, %b64;\n{first}.u64 %u0, %u0, %c64;\n{NOISE}\n{next}.cc.u64 %u1, %u1, %d64;");
        let reference = move |x: &[u64; 4]| {
            let (p, q) = (u128_of(x[0], x[1]), u128_of(x[2], x[3]));
            if sub {
                (p.wrapping_sub(q), p < q)
            } else {
                p.overflowing_add(q)
            }
        };
        let name = if sub { "sub" } else { "add" };
        forms.push(Form::new(format!("{first} 128-bit chain of u32 words (low 64)"), format!("{chain32}\nmov.b64 %o64, {{%t0, %t1}};"), Res::B64, move |x| {
            reference(x).0 as u64
        }));
        forms.push(Form::new(format!("{first} 128-bit chain of u32 words (high 64)"), format!("{chain32}\nmov.b64 %o64, {{%t2, %t3}};"), Res::B64, move |x| {
            (reference(x).0 >> 64) as u64
        }));
        forms.push(Form::new(format!("{first} 128-bit chain of u32 words ({name} carry-out)"), format!("{chain32}\n{READ_CF}"), Res::B32, move |x| {
            reference(x).1 as u64
        }));
        forms.push(Form::new(format!("{first} 128-bit chain of u64 words (low 64)"), format!("{chain64}\nmov.b64 %o64, %u0;"), Res::B64, move |x| {
            reference(x).0 as u64
        }));
        forms.push(Form::new(format!("{first} 128-bit chain of u64 words (high 64)"), format!("{chain64}\nmov.b64 %o64, %u1;"), Res::B64, move |x| {
            (reference(x).0 >> 64) as u64
        }));
        forms.push(Form::new(format!("{first} 128-bit chain of u64 words ({name} carry-out)"), format!("{chain64}\n{READ_CF}"), Res::B32, move |x| {
            reference(x).1 as u64
        }));
    }
    // [r3, r2, r1, r0] = [r5, r4] * [r7, r6] (the madc example), 32-bit words: a * c.
    let mul32 = "mov.b64 {%t4, %t5}, %a64;\nmov.b64 {%t6, %t7}, %c64;\nmul.lo.u32 %t0, %t4, %t6;\nmul.hi.u32 %t1, %t4, %t6;\nmad.lo.cc.u32 %t1, %t5, %t6, %t1;\nmadc.hi.u32 %t2, %t5, %t6, 0;\nmad.lo.cc.u32 %t1, %t4, %t7, %t1;\nmadc.hi.cc.u32 %t2, %t4, %t7, %t2;\naddc.u32 %t3, 0, 0;\nmad.lo.cc.u32 %t2, %t5, %t7, %t2;\nmadc.hi.u32 %t3, %t5, %t7, %t3;";
    forms.push(Form::new("madc 64x64-bit product of u32 words (low 64)", format!("{mul32}\nmov.b64 %o64, {{%t0, %t1}};"), Res::B64, |x| {
        (x[0] as u128 * x[2] as u128) as u64
    }));
    forms.push(Form::new("madc 64x64-bit product of u32 words (high 64)", format!("{mul32}\nmov.b64 %o64, {{%t2, %t3}};"), Res::B64, |x| {
        ((x[0] as u128 * x[2] as u128) >> 64) as u64
    }));
    // The same with 64-bit words: [b, a] * [d, c] → four 64-bit words.
    let mul64 = "mul.lo.u64 %u0, %a64, %c64;\nmul.hi.u64 %u1, %a64, %c64;\nmad.lo.cc.u64 %u1, %b64, %c64, %u1;\nmadc.hi.u64 %u2, %b64, %c64, 0;\nmad.lo.cc.u64 %u1, %a64, %d64, %u1;\nmadc.hi.cc.u64 %u2, %a64, %d64, %u2;\naddc.u64 %u3, 0, 0;\nmad.lo.cc.u64 %u2, %b64, %d64, %u2;\nmadc.hi.u64 %u3, %b64, %d64, %u3;";
    let product = |x: &[u64; 4]| -> [u64; 4] {
        // Schoolbook 128x128 → 256 bits in 64-bit limbs.
        let (p, q) = ([x[0], x[1]], [x[2], x[3]]);
        let mut limbs = [0u64; 4];
        for i in 0..2 {
            let mut carry = 0u128;
            for j in 0..2 {
                let t = p[i] as u128 * q[j] as u128 + limbs[i + j] as u128 + carry;
                limbs[i + j] = t as u64;
                carry = t >> 64;
            }
            limbs[i + 2] = carry as u64;
        }
        limbs
    };
    for k in 0..4 {
        forms.push(Form::new(format!("madc 128x128-bit product of u64 words (word {k})"), format!("{mul64}\nmov.b64 %o64, %u{k};"), Res::B64, move |x| {
            product(x)[k]
        }));
    }
    Kernel::new("carry_chains", [Dist::Any; 4], forms)
}

#[test]
fn extended_precision() {
    check_family("extended_precision", vec![single_forms(), chains()], 10_000);
}

//! Reference model of the half-precision instructions (ISA 9.2 §9.7.4, §9.7.5, §9.7.7):
//! IEEE arithmetic from `rustc_apfloat` (exact in every rounding mode) plus the `.ftz`,
//! `.sat`, `.relu`, `.oob`, `.NaN` and `.xorsign.abs` rules written from the ISA text.
//!
//! Choices where the ISA leaves the result open, made by the translator and checked here:
//! NaN results of arithmetic are the canonical NaN `0x7fff` (f32 results: `0x7fffffff`);
//! `.sat`/`.relu` turn -0.0 into +0.0; the OOB-NaN of `fma.oob` is `0x7fff`.

use rustc_apfloat::ieee::{BFloat, Double, Half, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Fmt {
    F16,
    BF16,
}

pub const CANONICAL_NAN: u16 = 0x7fff;
pub const OOB_NAN: u16 = 0x7fff;
const RN: Round = Round::NearestTiesToEven;

impl Fmt {
    pub fn exp_mask(self) -> u16 {
        match self {
            Fmt::F16 => 0x7c00,
            Fmt::BF16 => 0x7f80,
        }
    }

    pub fn one(self) -> u16 {
        match self {
            Fmt::F16 => 0x3c00,
            Fmt::BF16 => 0x3f80,
        }
    }

    pub fn is_nan(self, h: u16) -> bool {
        h & 0x7fff > self.exp_mask()
    }

    pub fn is_subnormal(self, h: u16) -> bool {
        h & self.exp_mask() == 0 && h & 0x7fff != 0
    }

    /// `.ftz`: subnormal → zero of its sign.
    pub fn flush(self, h: u16) -> u16 {
        if h & self.exp_mask() == 0 {
            h & 0x8000
        } else {
            h
        }
    }

    /// The exact value as an f64.
    pub fn to_f64(self, h: u16) -> f64 {
        let mut lost = false;
        let d: Double = match self {
            Fmt::F16 => Half::from_bits(h as u128).convert(&mut lost).value,
            Fmt::BF16 => BFloat::from_bits(h as u128).convert(&mut lost).value,
        };
        f64::from_bits(d.to_bits() as u64)
    }

    /// An f64 rounded to this format with `round`.
    pub fn round_f64(self, x: f64, round: Round) -> u16 {
        let mut lost = false;
        let d = Double::from_bits(x.to_bits() as u128);
        match self {
            Fmt::F16 => {
                let h: Half = d.convert_r(round, &mut lost).value;
                h.to_bits() as u16
            }
            Fmt::BF16 => {
                let h: BFloat = d.convert_r(round, &mut lost).value;
                h.to_bits() as u16
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Fma,
}

fn ieee<T: Float>(op: Arith, a: u16, b: u16, c: u16) -> (u16, bool) {
    let (x, y, z) = (T::from_bits(a as u128), T::from_bits(b as u128), T::from_bits(c as u128));
    let r = match op {
        Arith::Add => x.add_r(y, RN).value,
        Arith::Sub => x.sub_r(y, RN).value,
        Arith::Mul => x.mul_r(y, RN).value,
        Arith::Fma => x.mul_add_r(y, z, RN).value,
    };
    (r.to_bits() as u16, r.is_nan())
}

/// Modifiers of the arithmetic forms.
#[derive(Clone, Copy, Default)]
pub struct Mods {
    pub ftz: bool,
    pub sat: bool,
    pub relu: bool,
    pub oob: bool,
}

/// `.sat`: clamp to [+0.0, 1.0], NaN → +0.0. `.relu`: negative → +0.0, NaN → canonical NaN.
fn clamp(f: Fmt, r: u16, sat: bool, relu: bool) -> u16 {
    if sat {
        if f.is_nan(r) || r & 0x8000 != 0 {
            return 0;
        }
        return if r > f.one() { f.one() } else { r };
    }
    if relu && !f.is_nan(r) && r & 0x8000 != 0 {
        return 0;
    }
    r
}

/// `add sub mul fma` of one lane.
pub fn arith(f: Fmt, op: Arith, m: Mods, a: u16, b: u16, c: u16) -> u16 {
    let (x, y, z) = if m.ftz { (f.flush(a), f.flush(b), f.flush(c)) } else { (a, b, c) };
    let (r, nan) = match f {
        Fmt::F16 => ieee::<Half>(op, x, y, z),
        Fmt::BF16 => ieee::<BFloat>(op, x, y, z),
    };
    let mut r = if nan { CANONICAL_NAN } else { r };
    if m.ftz {
        r = f.flush(r);
    }
    r = clamp(f, r, m.sat, m.relu);
    let operands: &[u16] = if op == Arith::Fma { &[a, b, c] } else { &[a, b] };
    if m.oob && operands.contains(&OOB_NAN) {
        r = 0;
    }
    r
}

/// `min`/`max` of one lane, following the ISA pseudocode.
pub fn min_max(f: Fmt, max: bool, ftz: bool, nan_mode: bool, xorsign_abs: bool, a: u16, b: u16) -> u16 {
    let (mut a, mut b) = if ftz { (f.flush(a), f.flush(b)) } else { (a, b) };
    let xorsign = (a ^ b) & 0x8000;
    if xorsign_abs {
        a &= 0x7fff;
        b &= 0x7fff;
    }
    let (na, nb) = (f.is_nan(a), f.is_nan(b));
    let d = if (na && nb) || (nan_mode && (na || nb)) {
        CANONICAL_NAN
    } else if na {
        b
    } else if nb {
        a
    } else {
        let (x, y) = (f.to_f64(a), f.to_f64(b));
        if x == y && x == 0.0 {
            // +0.0 > -0.0
            let a_neg = a & 0x8000 != 0;
            if a_neg == max {
                b
            } else {
                a
            }
        } else if (x < y) != max {
            a
        } else {
            b
        }
    };
    if xorsign_abs && !f.is_nan(d) {
        (d & 0x7fff) | xorsign
    } else {
        d
    }
}

/// A comparison operator of `setp`/`set` (`.eq` ... `.nan`) on two values (NaN-aware).
pub fn compare(cmp: &str, x: f64, y: f64) -> bool {
    let unordered = x.is_nan() || y.is_nan();
    match cmp {
        "eq" => !unordered && x == y,
        "ne" => !unordered && x != y,
        "lt" => !unordered && x < y,
        "le" => !unordered && x <= y,
        "gt" => !unordered && x > y,
        "ge" => !unordered && x >= y,
        "equ" => unordered || x == y,
        "neu" => unordered || x != y,
        "ltu" => unordered || x < y,
        "leu" => unordered || x <= y,
        "gtu" => unordered || x > y,
        "geu" => unordered || x >= y,
        "num" => !unordered,
        "nan" => unordered,
        _ => panic!("unknown comparison {cmp}"),
    }
}

/// `a cmp b` on one lane, `.ftz` flushing subnormal inputs.
pub fn compare_half(f: Fmt, cmp: &str, ftz: bool, a: u16, b: u16) -> bool {
    let (a, b) = if ftz { (f.flush(a), f.flush(b)) } else { (a, b) };
    compare(cmp, f.to_f64(a), f.to_f64(b))
}

/// `BoolOp(t, c)`.
pub fn bool_op(op: Option<&str>, t: bool, c: bool) -> bool {
    match op {
        None => t,
        Some("and") => t && c,
        Some("or") => t || c,
        Some("xor") => t != c,
        Some(o) => panic!("unknown boolean operation {o}"),
    }
}

/// Applies a lane function to the low lane (`lanes` = 1) or both lanes of 32-bit inputs.
pub fn lanes(lanes: u32, a: u64, b: u64, c: u64, op: impl Fn(u16, u16, u16) -> u16) -> u64 {
    (0..lanes).fold(0u64, |acc, i| {
        let s = 16 * i;
        acc | (op((a >> s) as u16, (b >> s) as u16, (c >> s) as u16) as u64) << s
    })
}

/// Mixed precision `add/sub/fma.rnd{.sat}.f32.{f16,bf16}`: exact conversion to f32, one
/// rounding with `round`; NaN → `0x7fffffff` (or +0.0 with `.sat`).
pub fn mixed(f: Fmt, op: Arith, round: Round, sat: bool, a: u16, b: u16, c: u32) -> u32 {
    let widen = |h: u16| -> Single {
        match f {
            Fmt::F16 => Half::from_bits(h as u128).convert(&mut false).value,
            Fmt::BF16 => BFloat::from_bits(h as u128).convert(&mut false).value,
        }
    };
    let (x, y, z) = (widen(a), widen(b), Single::from_bits(c as u128));
    let r = match op {
        Arith::Add => x.add_r(z, round).value,
        Arith::Sub => x.sub_r(z, round).value,
        Arith::Fma => x.mul_add_r(y, z, round).value,
        Arith::Mul => unreachable!("no mixed-precision mul"),
    };
    let bits = r.to_bits() as u32;
    if sat {
        if r.is_nan() || bits & 0x8000_0000 != 0 {
            return 0;
        }
        return bits.min(0x3f80_0000);
    }
    if r.is_nan() {
        0x7fff_ffff
    } else {
        bits
    }
}

/// The f32 value of bits, for comparisons of `.f32` sources.
pub fn f32_value(bits: u32) -> f64 {
    f32::from_bits(bits) as f64
}

/// Checks an approximate `tanh`/`ex2` lane result against the ISA's error bound.
/// `abs_bound`: maximum absolute error (tanh), else `rel_bound`: maximum relative error (ex2).
/// A result that is one of the two format values around the exact one is always accepted
/// (no implementation can do better than rounding).
pub fn check_approx(f: Fmt, exact: f64, got: u16, abs_bound: Option<f64>, rel_bound: Option<f64>) -> Result<(), String> {
    if exact.is_nan() {
        return if f.is_nan(got) { Ok(()) } else { Err("expected NaN".into()) };
    }
    if f.is_nan(got) {
        return Err(format!("NaN for {exact:e}"));
    }
    let lo = f.round_f64(exact, Round::TowardNegative);
    let hi = f.round_f64(exact, Round::TowardPositive);
    if got == lo || got == hi {
        return Ok(());
    }
    let v = f.to_f64(got);
    let err = (v - exact).abs();
    let ok = abs_bound.is_some_and(|b| err <= b) || rel_bound.is_some_and(|b| err <= b * exact.abs());
    if ok {
        Ok(())
    } else {
        Err(format!("{v:e} is {err:e} from {exact:e}"))
    }
}

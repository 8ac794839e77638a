//! The reference model of the `.f32`/`.f64` floating-point instructions (ISA 9.2 §9.7.3),
//! independent of the compiler: IEEE results in every rounding mode come from `rustc_apfloat`
//! (square roots are found by squaring candidates exactly in binary128), and the PTX rules
//! are written from the ISA text:
//! - `.ftz`: subnormal inputs are zeros of the same sign; a result whose IEEE rounding (with
//!   gradual underflow) is subnormal is a zero of its sign.
//! - `.sat`: the result clamped to [+0.0, 1.0]; NaN gives +0.0 (and -0.0 gives +0.0).
//! - NaN results: the ISA leaves them unspecified; the implementation gives what NVIDIA
//!   silicon (sm_90) gives: the canonical `0x7fffffff` for `.f32` (also `abs`/`neg` of a
//!   NaN), and for `.f64` the payload (quieted) of the NaN operand that wins (`b`, then `a`;
//!   `b`, `c`, `a` for `fma`; `a`, then `b` for `div`) or `0xfff8000000000000` for invalid
//!   operations; `neg.f64` leaves a NaN unchanged, `abs.f64` quiets it. This model states
//!   that promise so that results are checked bit for bit (and agree between hosts).
//!
//! Values are `u64` bit patterns; `w` is 32 or 64.

use rustc_apfloat::ieee::{Double, Quad, Single};
use rustc_apfloat::{Float, FloatConvert, Round, Status};
use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    Rn,
    Rz,
    Rm,
    Rp,
}

impl Rnd {
    pub const ALL: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];

    pub fn name(self) -> &'static str {
        match self {
            Rnd::Rn => ".rn",
            Rnd::Rz => ".rz",
            Rnd::Rm => ".rm",
            Rnd::Rp => ".rp",
        }
    }

    fn round(self) -> Round {
        match self {
            Rnd::Rn => Round::NearestTiesToEven,
            Rnd::Rz => Round::TowardZero,
            Rnd::Rm => Round::TowardNegative,
            Rnd::Rp => Round::TowardPositive,
        }
    }
}

pub fn mask(w: u32) -> u64 {
    if w == 64 {
        u64::MAX
    } else {
        (1 << w) - 1
    }
}

pub fn sign_bit(w: u32) -> u64 {
    1 << (w - 1)
}

fn exp_mask(w: u32) -> u64 {
    if w == 64 {
        0x7ff0_0000_0000_0000
    } else {
        0x7f80_0000
    }
}

fn frac_mask(w: u32) -> u64 {
    if w == 64 {
        (1 << 52) - 1
    } else {
        (1 << 23) - 1
    }
}

pub fn is_nan(x: u64, w: u32) -> bool {
    let x = x & mask(w);
    x & exp_mask(w) == exp_mask(w) && x & frac_mask(w) != 0
}

pub fn is_subnormal(x: u64, w: u32) -> bool {
    let x = x & mask(w);
    x & exp_mask(w) == 0 && x & frac_mask(w) != 0
}

pub fn is_inf(x: u64, w: u32) -> bool {
    x & mask(w) & !sign_bit(w) == exp_mask(w)
}

/// `.ftz` on a value: a subnormal becomes a zero of its sign.
pub fn flush(x: u64, w: u32) -> u64 {
    let x = x & mask(w);
    if is_subnormal(x, w) {
        x & sign_bit(w)
    } else {
        x
    }
}

fn flush_if(ftz: bool, x: u64, w: u32) -> u64 {
    if ftz {
        flush(x, w)
    } else {
        x & mask(w)
    }
}

/// The NaN a NaN result has (see the module doc).
pub fn nan_result(w: u32, inputs: &[u64]) -> u64 {
    if w == 32 {
        return 0x7fff_ffff;
    }
    match inputs.iter().find(|x| is_nan(**x, 64)) {
        Some(x) => x | (1 << 51),
        None => 0xfff8_0000_0000_0000,
    }
}

/// The operands of `op` in the order in which a NaN among them wins (see the module doc).
fn nan_order(op: &str, v: &[u64]) -> Vec<u64> {
    match (op, v) {
        ("div", _) => v.to_vec(),
        (_, [a, b]) => vec![*b, *a],
        (_, [a, b, c]) => vec![*b, *c, *a],
        _ => v.to_vec(),
    }
}

pub fn saturate(x: u64, w: u32) -> u64 {
    let v = to_f64(x, w);
    if v.is_nan() || v <= 0.0 {
        0
    } else if v >= 1.0 {
        if w == 32 {
            0x3f80_0000
        } else {
            1f64.to_bits()
        }
    } else {
        x
    }
}

/// The value of a bit pattern as an f64 (exact for both widths).
pub fn to_f64(x: u64, w: u32) -> f64 {
    if w == 32 {
        f32::from_bits(x as u32) as f64
    } else {
        f64::from_bits(x)
    }
}

fn quad(x: u64, w: u32) -> Quad {
    let mut lost = false;
    if w == 32 {
        Single::from_bits(x as u128 & 0xffff_ffff).convert(&mut lost).value
    } else {
        Double::from_bits(x as u128).convert(&mut lost).value
    }
}

fn from_quad(q: Quad, w: u32, r: Rnd) -> u64 {
    let mut lost = false;
    if w == 32 {
        let s: Single = q.convert_r(r.round(), &mut lost).value;
        s.to_bits() as u64
    } else {
        let d: Double = q.convert_r(r.round(), &mut lost).value;
        d.to_bits() as u64
    }
}

/// An IEEE operation of the native width in rounding mode `r`.
fn ieee(op: &str, w: u32, r: Rnd, v: &[u64]) -> u64 {
    fn run<F: Float>(op: &str, r: Round, v: &[F]) -> F {
        match op {
            "add" => v[0].add_r(v[1], r).value,
            "sub" => v[0].sub_r(v[1], r).value,
            "mul" => v[0].mul_r(v[1], r).value,
            "div" => v[0].div_r(v[1], r).value,
            "fma" => v[0].mul_add_r(v[1], v[2], r).value,
            _ => unreachable!("unknown operation {op}"),
        }
    }
    if w == 32 {
        let v: Vec<Single> = v.iter().map(|x| Single::from_bits(*x as u128 & 0xffff_ffff)).collect();
        run(op, r.round(), &v).to_bits() as u64
    } else {
        let v: Vec<Double> = v.iter().map(|x| Double::from_bits(*x as u128)).collect();
        run(op, r.round(), &v).to_bits() as u64
    }
}

/// The next larger value of a non-negative finite value.
fn next_up(x: u64, w: u32) -> u64 {
    (x + 1) & mask(w)
}

/// IEEE square root in rounding mode `r`: the largest value whose square is at most `x`,
/// found by exact squaring in binary128, then rounded as the mode says.
pub fn sqrt(x: u64, w: u32, r: Rnd) -> u64 {
    let x = x & mask(w);
    if is_nan(x, w) {
        return x;
    }
    let v = to_f64(x, w);
    if v == 0.0 {
        return x;
    }
    if v < 0.0 {
        return nan_result(w, &[]);
    }
    if is_inf(x, w) {
        return x;
    }
    let qx = quad(x, w);
    let sq = |c: u64| {
        let q = quad(c, w);
        q.mul_r(q, Round::NearestTiesToEven).value
    };
    let mut lo = if w == 32 { ((v.sqrt()) as f32).to_bits() as u64 } else { v.sqrt().to_bits() };
    while sq(lo).partial_cmp(&qx) == Some(Ordering::Greater) {
        lo -= 1;
    }
    while sq(next_up(lo, w)).partial_cmp(&qx) != Some(Ordering::Greater) {
        lo = next_up(lo, w);
    }
    if sq(lo).partial_cmp(&qx) == Some(Ordering::Equal) {
        return lo;
    }
    match r {
        Rnd::Rz | Rnd::Rm => lo,
        Rnd::Rp => next_up(lo, w),
        Rnd::Rn => {
            // The midpoint between lo and its successor, squared exactly.
            let two = quad(0x4000_0000, 32);
            let mid = quad(lo, w).add_r(quad(next_up(lo, w), w), Round::NearestTiesToEven).value.div_r(two, Round::NearestTiesToEven).value;
            if qx.partial_cmp(&mid.mul_r(mid, Round::NearestTiesToEven).value) == Some(Ordering::Greater) {
                next_up(lo, w)
            } else {
                lo
            }
        }
    }
}

/// `add sub mul div fma` (and `sqrt`, `rcp`) with `.rnd .ftz .sat`.
pub fn arith(op: &str, w: u32, r: Rnd, ftz: bool, sat: bool, v: &[u64]) -> u64 {
    let v: Vec<u64> = v.iter().map(|x| flush_if(ftz, *x, w)).collect();
    let res = match op {
        "sqrt" => sqrt(v[0], w, r),
        "rcp" => ieee("div", w, r, &[if w == 32 { 0x3f80_0000 } else { 1f64.to_bits() }, v[0]]),
        _ => ieee(op, w, r, &v),
    };
    let res = flush_if(ftz, res, w);
    let res = if is_nan(res, w) { nan_result(w, &nan_order(op, &v)) } else { res };
    if sat {
        saturate(res, w)
    } else {
        res
    }
}

/// sm_1x `mad.f32` (ISA 1.4): the exact product with its mantissa truncated to 24 bits (the
/// exponent kept), plus `c`, rounded to nearest once; `c == ±0`: `mul` then `add`. Inputs
/// and result flushed.
pub fn legacy_mad(a: u64, b: u64, c: u64, sat: bool) -> u64 {
    let (a, b, c) = (flush(a, 32), flush(b, 32), flush(c, 32));
    let res = if to_f64(c, 32) == 0.0 {
        let p = flush(ieee("mul", 32, Rnd::Rn, &[a, b]), 32);
        ieee("add", 32, Rnd::Rn, &[p, c])
    } else {
        let p = to_f64(a, 32) * to_f64(b, 32); // exact
        let p = if p.is_finite() { f64::from_bits(p.to_bits() & !((1 << 29) - 1)) } else { p };
        // p + c exactly (binary128 toward zero, then rounded to odd), then to nearest in f32.
        let mut lost = false;
        let pq: Quad = Double::from_bits(p.to_bits() as u128).convert(&mut lost).value;
        let sum = pq.add_r(quad(c, 32), Round::TowardZero);
        let bits = sum.value.to_bits();
        let odd = if sum.status == Status::OK || sum.value.is_nan() || sum.value.is_infinite() { bits } else { bits | 1 };
        from_quad(Quad::from_bits(odd), 32, Rnd::Rn)
    };
    let res = flush(res, 32);
    let res = if is_nan(res, 32) { nan_result(32, &[]) } else { res };
    if sat {
        saturate(res, 32)
    } else {
        res
    }
}

/// `min`/`max` (ISA pseudocode: `min_num`/`min_nan`, `.abs`, `.xorsign`, a third input).
pub fn min_max(max: bool, w: u32, ftz: bool, nan: bool, abs: bool, xorsign: bool, v: &[u64]) -> u64 {
    let v: Vec<u64> = v.iter().map(|x| flush_if(ftz, *x, w)).collect();
    let xor = (v[0] ^ v[1]) & sign_bit(w);
    let v: Vec<u64> = v.iter().map(|x| if abs { x & !sign_bit(w) } else { *x }).collect();
    // -0.0 < +0.0 here: order by value, then by sign.
    let key = |x: u64| (to_f64(x, w), if x & sign_bit(w) != 0 { 0 } else { 1 });
    let pick = |x: u64, y: u64| -> u64 {
        match (is_nan(x, w), is_nan(y, w)) {
            (true, _) | (_, true) if nan => {
                if w == 32 {
                    0x7fff_ffff
                } else {
                    0x7fff_ffff_ffff_ffff
                }
            }
            (true, true) => nan_result(w, &[y, x]),
            (true, false) => y,
            (false, true) => x,
            _ => {
                let (kx, ky) = (key(x), key(y));
                let x_first = if max { kx > ky } else { kx < ky };
                if x_first {
                    x
                } else {
                    y
                }
            }
        }
    };
    let mut d = pick(v[0], v[1]);
    if let Some(&c) = v.get(2) {
        d = pick(d, c);
    }
    if xorsign && !is_nan(d, w) {
        d = (d & !sign_bit(w)) | xor;
    }
    d
}

pub fn testp(class: &str, x: u64, w: u32) -> u64 {
    let (nan, inf, sub) = (is_nan(x, w), is_inf(x, w), is_subnormal(x, w));
    (match class {
        "finite" => !nan && !inf,
        "infinite" => inf,
        "number" => !nan,
        "notanumber" => nan,
        "normal" => !nan && !inf && !sub,
        _ => sub,
    }) as u64
}

/// `copysign d, a, b`: `b` with the sign of `a`.
pub fn copysign(a: u64, b: u64, w: u32) -> u64 {
    (a & sign_bit(w)) | (b & mask(w) & !sign_bit(w))
}

/// `neg`: a NaN gives the canonical NaN (`.f32`) or itself (`.f64`).
pub fn neg(x: u64, w: u32, ftz: bool) -> u64 {
    let x = flush_if(ftz, x, w);
    match (is_nan(x, w), w) {
        (true, 32) => 0x7fff_ffff,
        (true, _) => x,
        _ => x ^ sign_bit(w),
    }
}

/// `abs`: a NaN gives the canonical NaN (`.f32`) or itself quieted (`.f64`, sign kept).
pub fn abs(x: u64, w: u32, ftz: bool) -> u64 {
    let x = flush_if(ftz, x, w);
    match (is_nan(x, w), w) {
        (true, 32) => 0x7fff_ffff,
        (true, _) => x | 1 << 51,
        _ => x & !sign_bit(w),
    }
}

/// The distance in units in the last place between two finite values of a format (through
/// the monotonic integer order of the bit patterns).
pub fn ulp_distance(x: u64, y: u64, w: u32) -> u64 {
    let ord = |v: u64| -> i128 {
        let v = v & mask(w);
        if v & sign_bit(w) != 0 {
            -((v & !sign_bit(w)) as i128)
        } else {
            v as i128
        }
    };
    (ord(x) - ord(y)).unsigned_abs() as u64
}

/// The bits of an f64 rounded to nearest in the format of width `w`.
pub fn round_f64(v: f64, w: u32) -> u64 {
    if w == 32 {
        (v as f32).to_bits() as u64
    } else {
        v.to_bits()
    }
}

/// `.f32x2`: `arith` on each `.f32` lane of the `.b64` operands (lane 0 in the low bits).
pub fn arith_f32x2(op: &str, r: Rnd, ftz: bool, v: &[u64]) -> u64 {
    let lane = |i: u32| {
        let lanes: Vec<u64> = v.iter().map(|x| (x >> (32 * i)) & 0xffff_ffff).collect();
        arith(op, 32, r, ftz, false, &lanes)
    };
    lane(0) | (lane(1) << 32)
}

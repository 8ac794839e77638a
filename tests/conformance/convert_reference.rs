//! Reference model of `cvt`, `cvt.pack` and the float comparisons, written from the ISA 9.2
//! text (§9.7.9.21 `cvt`, §9.7.9.22 `cvt.pack`, §9.7.6 comparison and selection). IEEE
//! rounding comes from `rustc_apfloat`; the formats without infinity and NaN (e2m3, e3m2,
//! e2m1) are rounded by searching their (few) finite values. Values pass through `Quad`,
//! which holds every source value exactly.

use rustc_apfloat::ieee::{BFloat, Double, Float8E4M3FN, Float8E5M2, Half, IeeeFloat, Quad, Semantics, Single};
use rustc_apfloat::{Float, FloatConvert, Round};

/// tf32: f32's exponent with 10 fraction bits (kept in the upper 19 bits of an f32 pattern).
pub struct Tf32S;
impl Semantics for Tf32S {
    const BITS: usize = 19;
    const EXP_BITS: usize = 8;
}
type Tf32 = IeeeFloat<Tf32S>;

/// A floating-point format of `cvt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fmt {
    F16,
    BF16,
    F32,
    F64,
    Tf32,
    E4m3,
    E5m2,
    E2m3,
    E3m2,
    E2m1,
}

impl Fmt {
    pub fn name(self) -> &'static str {
        match self {
            Fmt::F16 => "f16",
            Fmt::BF16 => "bf16",
            Fmt::F32 => "f32",
            Fmt::F64 => "f64",
            Fmt::Tf32 => "tf32",
            Fmt::E4m3 => "e4m3",
            Fmt::E5m2 => "e5m2",
            Fmt::E2m3 => "e2m3",
            Fmt::E3m2 => "e3m2",
            Fmt::E2m1 => "e2m1",
        }
    }

    /// (exponent bits, fraction bits).
    fn layout(self) -> (u32, u32) {
        match self {
            Fmt::F16 => (5, 10),
            Fmt::BF16 => (8, 7),
            Fmt::F32 => (8, 23),
            Fmt::F64 => (11, 52),
            Fmt::Tf32 => (8, 10),
            Fmt::E4m3 => (4, 3),
            Fmt::E5m2 => (5, 2),
            Fmt::E2m3 => (2, 3),
            Fmt::E3m2 => (3, 2),
            Fmt::E2m1 => (2, 1),
        }
    }

    pub fn width(self) -> u32 {
        let (e, f) = self.layout();
        1 + e + f
    }

    pub fn sign_bit(self) -> u64 {
        1 << (self.width() - 1)
    }

    fn magnitude(self, bits: u64) -> u64 {
        bits & (self.sign_bit() - 1)
    }

    /// Formats with neither infinity nor NaN.
    fn finite_only(self) -> bool {
        matches!(self, Fmt::E2m3 | Fmt::E3m2 | Fmt::E2m1)
    }

    pub fn is_nan(self, bits: u64) -> bool {
        let (e, f) = self.layout();
        let mag = self.magnitude(bits);
        match self {
            Fmt::E4m3 => mag == 0x7f,
            _ if self.finite_only() => false,
            _ => mag >> f == (1 << e) - 1 && mag & ((1 << f) - 1) != 0,
        }
    }

    /// The canonical NaN (what `.relu` gives for NaN).
    pub fn canonical_nan(self) -> u64 {
        match self {
            Fmt::E4m3 | Fmt::E5m2 => 0x7f,
            _ => self.sign_bit() - 1,
        }
    }

    pub fn max_finite(self) -> u64 {
        let (e, f) = self.layout();
        match self {
            Fmt::E4m3 => 0x7e,
            _ if self.finite_only() => self.sign_bit() - 1,
            _ => (((1 << e) - 1) << f) - 1,
        }
    }

    fn inf(self) -> Option<u64> {
        let (e, f) = self.layout();
        (!self.finite_only() && self != Fmt::E4m3).then(|| ((1 << e) - 1) << f)
    }

    fn one(self) -> u64 {
        let (e, f) = self.layout();
        ((1 << (e - 1)) - 1) << f
    }

    /// The exact value of an encoding (NaN for NaN encodings).
    pub fn value(self, bits: u64) -> Quad {
        let b = bits as u128;
        let lossless = |q: rustc_apfloat::StatusAnd<Quad>| q.value;
        let mut lost = false;
        match self {
            Fmt::F16 => lossless(Half::from_bits(b).convert_r(Round::NearestTiesToEven, &mut lost)),
            Fmt::BF16 => lossless(BFloat::from_bits(b).convert_r(Round::NearestTiesToEven, &mut lost)),
            Fmt::F32 => lossless(Single::from_bits(b).convert_r(Round::NearestTiesToEven, &mut lost)),
            Fmt::F64 => lossless(Double::from_bits(b).convert_r(Round::NearestTiesToEven, &mut lost)),
            Fmt::Tf32 => lossless(Tf32::from_bits(b).convert_r(Round::NearestTiesToEven, &mut lost)),
            Fmt::E4m3 => lossless(Float8E4M3FN::from_bits(b).convert_r(Round::NearestTiesToEven, &mut lost)),
            Fmt::E5m2 => lossless(Float8E5M2::from_bits(b).convert_r(Round::NearestTiesToEven, &mut lost)),
            Fmt::E2m3 | Fmt::E3m2 | Fmt::E2m1 => {
                let (e, f) = self.layout();
                let bias = (1i32 << (e - 1)) - 1;
                let mag = self.magnitude(bits);
                let (exp, frac) = ((mag >> f) as i32, mag & ((1 << f) - 1));
                let (sig, scale) = if exp == 0 { (frac, 1 - bias - f as i32) } else { (frac | (1 << f), exp - bias - f as i32) };
                let v = Quad::from_u128(sig as u128).value.scalbn(scale);
                if bits & self.sign_bit() != 0 {
                    -v
                } else {
                    v
                }
            }
        }
    }
}

/// A rounding of `cvt` (`.rn .rna .rz .rm .rp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    Rn,
    Rna,
    Rz,
    Rm,
    Rp,
}

impl Rnd {
    pub fn name(self) -> &'static str {
        match self {
            Rnd::Rn => "rn",
            Rnd::Rna => "rna",
            Rnd::Rz => "rz",
            Rnd::Rm => "rm",
            Rnd::Rp => "rp",
        }
    }

    fn apfloat(self) -> Round {
        match self {
            Rnd::Rn => Round::NearestTiesToEven,
            Rnd::Rna => Round::NearestTiesToAway,
            Rnd::Rz => Round::TowardZero,
            Rnd::Rm => Round::TowardNegative,
            Rnd::Rp => Round::TowardPositive,
        }
    }
}

/// What a result must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Want {
    Bits(u64),
    /// Any NaN of the destination format (the ISA does not fix the encoding).
    AnyNan,
    /// +0 or -0 (the ISA does not say which sign a clamped negative zero keeps).
    AnyZero,
}

/// Compares a result (the low `fmt.width()` bits of `actual`, or all of a packed result
/// when `fmt` is `None`) with what the model wants.
pub fn judge(want: Want, fmt: Fmt, actual: u64) -> Result<(), String> {
    let ok = match want {
        Want::Bits(b) => actual == b,
        Want::AnyNan => fmt.is_nan(actual),
        Want::AnyZero => fmt.magnitude(actual) == 0 && actual >> fmt.width() == 0,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("expected {want:x?}"))
    }
}

fn bits_of(fmt: Fmt, q: Quad, rnd: Round) -> u64 {
    let mut lost = false;
    (match fmt {
        Fmt::F16 => FloatConvert::<Half>::convert_r(q, rnd, &mut lost).value.to_bits(),
        Fmt::BF16 => FloatConvert::<BFloat>::convert_r(q, rnd, &mut lost).value.to_bits(),
        Fmt::F32 => FloatConvert::<Single>::convert_r(q, rnd, &mut lost).value.to_bits(),
        Fmt::F64 => FloatConvert::<Double>::convert_r(q, rnd, &mut lost).value.to_bits(),
        Fmt::Tf32 => FloatConvert::<Tf32>::convert_r(q, rnd, &mut lost).value.to_bits(),
        Fmt::E4m3 => FloatConvert::<Float8E4M3FN>::convert_r(q, rnd, &mut lost).value.to_bits(),
        Fmt::E5m2 => FloatConvert::<Float8E5M2>::convert_r(q, rnd, &mut lost).value.to_bits(),
        Fmt::E2m3 | Fmt::E3m2 | Fmt::E2m1 => unreachable!("rounded by search"),
    }) as u64
}

/// Rounds a finite value to a format without infinity and NaN by finding the two
/// representable neighbours; values beyond the largest one saturate (`.satfinite` is
/// mandatory for these formats).
fn round_by_search(fmt: Fmt, q: Quad, rnd: Rnd) -> u64 {
    let negative = q.is_negative();
    let mag = q.abs();
    let max = fmt.max_finite();
    // Magnitudes increase with the encoding.
    let mut below = 0u64;
    for e in 0..=max {
        if fmt.value(e) <= mag {
            below = e;
        }
    }
    let exact = fmt.value(below) == mag;
    let result = if exact || below == max && mag > fmt.value(max) {
        below
    } else {
        let above = below + 1;
        let (lo, hi) = (fmt.value(below), fmt.value(above));
        let (dlo, dhi) = ((mag - lo).value, (hi - mag).value);
        match rnd {
            Rnd::Rz => below,
            Rnd::Rm => {
                if negative {
                    above
                } else {
                    below
                }
            }
            Rnd::Rp => {
                if negative {
                    below
                } else {
                    above
                }
            }
            Rnd::Rn | Rnd::Rna => {
                if dlo < dhi {
                    below
                } else if dhi < dlo {
                    above
                } else if rnd == Rnd::Rna || below & 1 == 1 {
                    above
                } else {
                    below
                }
            }
        }
    };
    if negative {
        result | fmt.sign_bit()
    } else {
        result
    }
}

/// Float-to-float rounding with the ISA's modifiers: `.relu` (negative results become +0,
/// NaN the canonical NaN), `.satfinite` (infinities and overflow become the largest finite
/// value of the sign; NaN stays NaN, or becomes +MAX_NORM for formats without NaN).
pub fn round_float(q: Quad, to: Fmt, rnd: Rnd, relu: bool, satfinite: bool) -> Want {
    if q.is_nan() {
        return if to.finite_only() {
            Want::Bits(to.max_finite())
        } else if relu {
            Want::Bits(to.canonical_nan())
        } else {
            Want::AnyNan
        };
    }
    let saturating = satfinite || to.finite_only() || to == Fmt::E4m3;
    let mut bits = if q.is_infinite() {
        match to.inf() {
            Some(inf) if !saturating => inf,
            _ => to.max_finite(),
        }
    } else if to.finite_only() {
        round_by_search(to, q, rnd) & (to.sign_bit() - 1)
    } else {
        let b = bits_of(to, q, rnd.apfloat()) & (to.sign_bit() - 1);
        // Overflow: IEEE gives infinity (or max for directed modes; apfloat's e4m3 gives
        // NaN); the saturating modes give the largest finite value.
        if saturating && (Some(b) == to.inf() || to.is_nan(b)) {
            to.max_finite()
        } else {
            b
        }
    };
    if q.is_negative() {
        bits |= to.sign_bit();
    }
    if relu && bits & to.sign_bit() != 0 {
        return if to.magnitude(bits) == 0 { Want::AnyZero } else { Want::Bits(0) };
    }
    Want::Bits(bits)
}

/// `.rs` stochastic rounding of `q` to `to` with the `n` random bits `rbits`: the discarded
/// fraction of an ulp, taken to `n` bits below the last kept place, plus `rbits` carrying
/// out of `n` bits rounds away from zero, otherwise the value is truncated. Magnitudes at or
/// beyond the largest finite value plus one ulp, and carries past it, overflow: infinity, or
/// the largest finite value with `satfinite`. NaN and `relu` as in `round_float`.
pub fn round_stochastic(q: Quad, to: Fmt, rbits: u64, n: u32, relu: bool, satfinite: bool) -> Want {
    if q.is_nan() {
        return round_float(q, to, Rnd::Rn, relu, satfinite);
    }
    let frac_bits = to.layout().1;
    let mut bits = if q.is_infinite() {
        match to.inf() {
            Some(inf) if !satfinite => inf,
            _ => to.max_finite(),
        }
    } else {
        let mag = q.abs();
        let truncated = if to.finite_only() { round_by_search(to, mag, Rnd::Rz) } else { bits_of(to, mag, Round::TowardZero) };
        // apfloat's e4m3 may give NaN for a truncated overflow: the largest finite value, and
        // the remainder then reaches an ulp.
        let truncated = if to.is_nan(truncated) { to.max_finite() } else { truncated };
        // The ulp at the truncated value: the step from the first encoding of its binade.
        let binade = truncated & !mask(frac_bits);
        let ulp = (to.value(binade | 1) - to.value(binade)).value;
        let rem = (mag - to.value(truncated)).value;
        let scaled = (rem / ulp).value.scalbn(n as i32);
        let mut lost = false;
        let discarded = scaled.to_u128_r(128, Round::TowardZero, &mut lost).value;
        let beyond = rem >= ulp;
        let carry = discarded.saturating_add(rbits as u128) >= 1u128 << n;
        let rounded = truncated + carry as u64;
        if beyond || rounded > to.max_finite() {
            match to.inf() {
                Some(inf) if !satfinite => inf,
                _ => to.max_finite(),
            }
        } else {
            rounded
        }
    };
    if q.is_negative() {
        bits |= to.sign_bit();
    }
    if relu && bits & to.sign_bit() != 0 {
        return if to.magnitude(bits) == 0 { Want::AnyZero } else { Want::Bits(0) };
    }
    Want::Bits(bits)
}

/// `.ue8m0` (`2^(e - 127)`, `0xff` NaN; no sign, no zero) of `q`, rounded toward zero or
/// up. The choices the ISA leaves open: the magnitude is converted (the sign is ignored);
/// zero and magnitudes below 2^-127 give `0x00` toward zero; rounding up gives `0x00` for
/// zero. Infinity and magnitudes rounding past 2^127 give NaN, or 2^127 with `satfinite`.
pub fn to_ue8m0(q: Quad, up: bool, satfinite: bool) -> u64 {
    let big = if satfinite { 0xfe } else { 0xff };
    if q.is_nan() {
        return 0xff;
    }
    if q.is_infinite() {
        return big;
    }
    let mag = q.abs();
    let pow = |e: u64| Quad::from_u128(1).value.scalbn(e as i32 - 127);
    if up {
        (0..0xff).find(|&e| pow(e) >= mag).unwrap_or(big)
    } else {
        (0..0xff).rev().find(|&e| pow(e) <= mag).unwrap_or(0)
    }
}

/// `2^(sf - 127)` for a `.ue8m0` scale factor; `None` for its NaN (`0xff`).
fn ue8m0_scale(sf: u64) -> Option<i32> {
    (sf & 0xff != 0xff).then(|| (sf & 0xff) as i32 - 127)
}

/// `.s2f6` (two's complement `k × 2^-6`, k in [-128, 127]) of `q / 2^(sf - 127)`, rounded to
/// nearest even and saturated; NaN (also from a NaN scale factor) gives +1.984375 (`0x7f`),
/// `relu` makes negative results +0.
pub fn to_s2f6(q: Quad, sf: u64, relu: bool) -> u64 {
    let Some(scale) = ue8m0_scale(sf).filter(|_| !q.is_nan()) else { return 0x7f };
    let x = q.scalbn(6 - scale);
    let k = if x.is_infinite() {
        if x.is_negative() {
            -128
        } else {
            127
        }
    } else {
        let mut lost = false;
        x.to_i128_r(32, Round::NearestTiesToEven, &mut lost).value.clamp(-128, 127)
    };
    let k = if relu { k.max(0) } else { k };
    (k as u64) & 0xff
}

/// An `.s2f6` encoding times `2^(sf - 127)` rounded to `to`.
pub fn from_s2f6(k: u64, sf: u64, to: Fmt, relu: bool, satfinite: bool) -> Want {
    let k = k as u8 as i8 as i128;
    let q = match ue8m0_scale(sf) {
        Some(scale) => Quad::from_i128(k).value.scalbn(scale - 6),
        None => Quad::NAN,
    };
    round_float(q, to, Rnd::Rn, relu, satfinite)
}

/// A value of format `from` (its encoding `bits`) times `2^(sf - 127)` rounded to `to`.
pub fn scaled_float(from: Fmt, bits: u64, sf: u64, to: Fmt, relu: bool, satfinite: bool) -> Want {
    let q = match ue8m0_scale(sf) {
        Some(scale) => from.value(bits & mask(from.width())).scalbn(scale),
        None => Quad::NAN,
    };
    round_float(q, to, Rnd::Rn, relu, satfinite)
}

/// A `.ue8m0` encoding's value in a float format (exact for bf16).
pub fn from_ue8m0(e: u64, to: Fmt) -> Want {
    if e & 0xff == 0xff {
        return Want::AnyNan;
    }
    round_float(Quad::from_u128(1).value.scalbn((e & 0xff) as i32 - 127), to, Rnd::Rn, false, false)
}

/// `.sat` of a float result: [0, 1], NaN → +0 (a negative zero may keep its sign).
pub fn saturate(want: Want, fmt: Fmt) -> Want {
    match want {
        Want::AnyNan => Want::Bits(0),
        Want::Bits(b) if fmt.is_nan(b) => Want::Bits(0),
        Want::Bits(b) if b == fmt.sign_bit() => Want::AnyZero,
        Want::Bits(b) if b & fmt.sign_bit() != 0 => Want::Bits(0),
        Want::Bits(b) if b > fmt.one() => Want::Bits(fmt.one()),
        w => w,
    }
}

/// `.ftz` of an f32 value: subnormals become zeros of their sign.
pub fn flush_f32(bits: u64) -> u64 {
    if bits & 0x7f80_0000 == 0 {
        bits & 0x8000_0000
    } else {
        bits
    }
}

/// An integer type: width and signedness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Int {
    pub bits: u32,
    pub signed: bool,
}

impl Int {
    pub fn name(self) -> String {
        format!("{}{}", if self.signed { 's' } else { 'u' }, self.bits)
    }

    pub fn value(self, raw: u64) -> i128 {
        let x = raw & mask(self.bits);
        if self.signed && self.bits < 128 && x >> (self.bits - 1) & 1 == 1 {
            x as i128 - (1i128 << self.bits)
        } else {
            x as i128
        }
    }

    pub fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    pub fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }

    /// The bits of `v` (in range) in a register of `reg_bits`, extended by this type's sign.
    pub fn in_register(self, v: i128, reg_bits: u32) -> u64 {
        let chopped = (v as u64) & mask(self.bits);
        (self.value(chopped) as u64) & mask(reg_bits)
    }
}

pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// Integer rounding of `cvt` (`.rni .rzi .rmi .rpi`).
pub fn integral(q: Quad, rnd: Rnd) -> Quad {
    q.round_to_integral(rnd.apfloat()).value
}

/// Float to integer: rounded with `rnd`, clamped to the range; NaN gives 0, except from
/// `.f64` or into a 64-bit type, where it gives `1 << (w - 1)`.
pub fn float_to_int(q: Quad, from_f64: bool, to: Int, rnd: Rnd) -> i128 {
    if q.is_nan() {
        return if from_f64 || to.bits == 64 { to.value(1u64 << (to.bits - 1)) } else { 0 };
    }
    let r = integral(q, rnd);
    if r < Quad::from_i128(to.min()).value {
        to.min()
    } else if r > Quad::from_i128(to.max()).value {
        to.max()
    } else {
        let mut exact = false;
        r.to_i128_r(128, Round::TowardZero, &mut exact).value
    }
}

/// Integer to integer: without `.sat` the source value is chopped to the destination width;
/// with it, clamped to the destination range.
pub fn int_to_int(v: i128, to: Int, sat: bool) -> i128 {
    if sat {
        v.clamp(to.min(), to.max())
    } else {
        to.value(v as u64)
    }
}

pub fn int_value(v: i128) -> Quad {
    Quad::from_i128(v).value
}

/// `cvt.pack.sat`: `a` and `b` clamped to `bits`-wide `signed` ranges, `b` in the low bits,
/// `a` above, the rest from the low bits of `c`.
pub fn pack_sat(a: u64, b: u64, c: u64, bits: u32, signed: bool) -> u64 {
    let t = Int { bits, signed };
    let clamp = |x: u64| ((x as u32 as i32 as i128).clamp(t.min(), t.max()) as u64) & mask(bits);
    let low = clamp(b) | clamp(a) << bits;
    if 2 * bits >= 32 {
        low & 0xffff_ffff
    } else {
        (low | c << (2 * bits)) & 0xffff_ffff
    }
}

/// A float comparison of `setp`/`set` (`ftz`: f32 subnormals compare as zeros).
pub fn compare(cmp: &str, a: Quad, b: Quad) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    let ordered = |f: fn(std::cmp::Ordering) -> bool| !unordered && a.partial_cmp(&b).is_some_and(f);
    match cmp {
        "eq" => ordered(|o| o.is_eq()),
        "ne" => ordered(|o| o.is_ne()),
        "lt" => ordered(|o| o.is_lt()),
        "le" => ordered(|o| o.is_le()),
        "gt" => ordered(|o| o.is_gt()),
        "ge" => ordered(|o| o.is_ge()),
        "equ" => unordered || ordered(|o| o.is_eq()),
        "neu" => unordered || ordered(|o| o.is_ne()),
        "ltu" => unordered || ordered(|o| o.is_lt()),
        "leu" => unordered || ordered(|o| o.is_le()),
        "gtu" => unordered || ordered(|o| o.is_gt()),
        "geu" => unordered || ordered(|o| o.is_ge()),
        "num" => !unordered,
        "nan" => unordered,
        _ => panic!("unknown comparison {cmp}"),
    }
}

pub const FLOAT_COMPARISONS: [&str; 14] = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"];

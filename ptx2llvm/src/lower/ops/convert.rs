//! `cvt` and `cvt.pack`: conversions between integer and floating-point types.
//!
//! Conversions the hardware does exactly in every rounding mode (integer → f32/f64,
//! f64 → f32, f32 → f64) use LLVM's conversions through `FnCx::rounded`. Every conversion
//! into a format the CPU has no rounding instruction for (f16, bf16, tf32, the 8/6/4-bit
//! formats), from any source (integers and f64 included: no double rounding), goes through
//! one branch-free integer routine: the source is unpacked into sign, a normalized 64-bit
//! significand and an exponent (`Unpacked`), which `round_to_layout` rounds to the destination
//! layout in any rounding mode (`.rs` stochastic rounding included) with the ISA's
//! `.satfinite` and `.relu` rules. `.s2f6` (fixed point) is rounded through a float layout
//! and clamped; `.ue8m0` (exponent only) has its own two small routines.

use crate::ir::{CvtRounding, FloatFormat, Operand, RegId, Rounding, ScalarType};
use crate::lower::ops::half_bits::Half;
use crate::lower::ops::rounding::RoundedOp;
use crate::lower::thread::FnCx;
use crate::lower::R;
use inkwell::types::IntType;
use inkwell::values::{FloatValue, IntValue};
use inkwell::IntPredicate as P;

/// Bit layout of a floating-point format.
#[derive(Debug, Clone, Copy)]
struct Layout {
    exp_bits: u32,
    frac_bits: u32,
    bias: i64,
    /// IEEE encodings: exponent all ones is infinity (fraction 0) or NaN.
    ieee_specials: bool,
    /// The (positive, canonical) NaN encoding, for formats that have NaN.
    nan: Option<u64>,
}

impl Layout {
    const fn ieee(exp_bits: u32, frac_bits: u32) -> Layout {
        let nan = ((1u64 << (exp_bits + frac_bits)) - 1) as u64;
        Layout { exp_bits, frac_bits, bias: (1 << (exp_bits - 1)) - 1, ieee_specials: true, nan: Some(nan) }
    }

    fn width(self) -> u32 {
        1 + self.exp_bits + self.frac_bits
    }

    fn magnitude_mask(self) -> u64 {
        (1u64 << (self.width() - 1)) - 1
    }

    fn inf(self) -> Option<u64> {
        self.ieee_specials.then(|| ((1u64 << self.exp_bits) - 1) << self.frac_bits)
    }

    /// The largest finite magnitude (e4m3 keeps its top encoding for NaN).
    fn max_finite(self) -> u64 {
        match (self.inf(), self.nan) {
            (Some(inf), _) => inf - 1,
            (None, Some(nan)) => nan - 1,
            (None, None) => self.magnitude_mask(),
        }
    }

    /// The encoding of 1.0.
    fn one(self) -> u64 {
        (self.bias as u64) << self.frac_bits
    }
}

const F16: Layout = Layout::ieee(5, 10);
const BF16: Layout = Layout::ieee(8, 7);
const F32: Layout = Layout::ieee(8, 23);
const F64: Layout = Layout::ieee(11, 52);

fn format_layout(f: FloatFormat) -> Layout {
    match f {
        FloatFormat::F16 => F16,
        FloatFormat::BF16 => BF16,
        FloatFormat::F32 => F32,
        // Rounded as a format with f32's exponent and 10 fraction bits, then placed in the
        // upper 19 bits of an f32 bit pattern.
        FloatFormat::Tf32 => Layout { nan: Some(0x3_ffff), ..Layout::ieee(8, 10) },
        // No infinity; S.1111.111 is NaN, so the largest finite value is 448.
        FloatFormat::E4m3 => Layout { exp_bits: 4, frac_bits: 3, bias: 7, ieee_specials: false, nan: Some(0x7f) },
        FloatFormat::E5m2 => Layout::ieee(5, 2),
        // Neither infinity nor NaN.
        FloatFormat::E2m3 => Layout { exp_bits: 2, frac_bits: 3, bias: 1, ieee_specials: false, nan: None },
        FloatFormat::E3m2 => Layout { exp_bits: 3, frac_bits: 2, bias: 3, ieee_specials: false, nan: None },
        FloatFormat::E2m1 => Layout { exp_bits: 2, frac_bits: 1, bias: 1, ieee_specials: false, nan: None },
        // Has no sign bit: conversions to and from it are special-cased (`to_ue8m0`,
        // `ue8m0_to_bf16`); the layout only gives the element's 8 bits.
        FloatFormat::Ue8m0 => Layout { exp_bits: 7, frac_bits: 0, bias: 127, ieee_specials: false, nan: None },
        // Rounded as sign and magnitude `k × 2^-6` with magnitudes up to 255 (the encodings up
        // to 128 are `k` itself; above that they exceed the range), then clamped to
        // [-128, 127] and made two's complement (`fixed_s2f6`).
        FloatFormat::S2f6 => Layout { exp_bits: 2, frac_bits: 6, bias: 1, ieee_specials: false, nan: None },
    }
}

fn scalar_layout(t: ScalarType) -> Layout {
    match t {
        ScalarType::F16 => F16,
        ScalarType::BF16 => BF16,
        ScalarType::F64 => F64,
        _ => F32,
    }
}

/// A rounding of a value to a float format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Even,
    Away,
    Zero,
    Down,
    Up,
    /// `.rs`: away from zero when the random bits added to the discarded bits carry out.
    Stochastic,
}

fn mode(r: Rounding) -> Mode {
    match r {
        Rounding::NearestEven => Mode::Even,
        Rounding::TowardZero => Mode::Zero,
        Rounding::Down => Mode::Down,
        Rounding::Up => Mode::Up,
    }
}

fn cvt_mode(r: CvtRounding) -> Mode {
    match r {
        CvtRounding::Float(r) | CvtRounding::Integer(r) => mode(r),
        CvtRounding::NearestAway => Mode::Away,
        CvtRounding::Stochastic => Mode::Stochastic,
    }
}

/// A value split for rounding: finite nonzero values are `sig × 2^(exp - 63)` with bit 63 of
/// `sig` set. Flags (`i1`) mark NaN, infinity and zero; `exp` is an `i32`, `sig` an `i64`.
#[derive(Clone, Copy)]
struct Unpacked<'ctx> {
    sign: IntValue<'ctx>,
    nan: IntValue<'ctx>,
    inf: IntValue<'ctx>,
    zero: IntValue<'ctx>,
    exp: IntValue<'ctx>,
    sig: IntValue<'ctx>,
}

impl<'ctx> FnCx<'ctx, '_> {
    #[allow(clippy::too_many_arguments)]
    pub fn cvt(
        &self,
        dst_ty: ScalarType,
        src_ty: ScalarType,
        rnd: Option<CvtRounding>,
        ftz: bool,
        sat: bool,
        relu: bool,
        satfinite: bool,
        dst: RegId,
        src: Operand,
    ) -> R<()> {
        // `.ftz` only concerns `.f32` inputs and results. NVIDIA silicon (sm_90) does not
        // flush a subnormal `.f32` input converted to `.f16`: `cvt.rp.ftz.f16.f32` of the
        // smallest positive subnormal is 0x0001.
        let ftz_in = ftz && src_ty == ScalarType::F32 && dst_ty != ScalarType::F16;
        let ftz_out = ftz && dst_ty == ScalarType::F32;
        if !dst_ty.is_float() {
            let v = if src_ty.is_float() {
                let x = self.read_float_source(src, src_ty, ftz_in)?;
                let r = match rnd {
                    Some(CvtRounding::Integer(r)) | Some(CvtRounding::Float(r)) => r,
                    _ => Rounding::TowardZero,
                };
                self.float_to_int(x, r, dst_ty, src_ty == ScalarType::F64)?
            } else {
                let v = self.read(src, src_ty)?;
                self.int_to_int(v, src_ty, dst_ty, sat)?
            };
            return self.write(dst, v, dst_ty);
        }

        let out = scalar_layout(dst_ty);
        // `.f32` <-> `.f64` at round-to-nearest (no `.ftz` on the widening): the CPUs' own
        // conversions (x86-64 `cvtss2sd`/`cvtsd2ss`, AArch64 `fcvt` with FPCR.DN clear, as
        // Linux leaves it) give a NaN as the silicon does (see `silicon_nan`: sign kept, the
        // payload's high bits at the top of the new fraction, quieted), and so does LLVM's
        // constant folding (APFloat). But LLVM folds a conversion pair (`fptrunc (fpext x)`
        // to `x`) without quieting a signalling NaN: the result is quieted again here
        // (`fp_quieted`), a compare and a blend instead of the payload's reconstruction in
        // integers. (Rodinia's hotspot, six conversions around its `.f64` arithmetic per
        // cell: 111 -> 8x ms.)
        let hardware_nan = match (dst_ty, src_ty) {
            (ScalarType::F64, ScalarType::F32) => !ftz,
            (ScalarType::F32, ScalarType::F64) => matches!(rnd, None | Some(CvtRounding::Float(Rounding::NearestEven))),
            _ => false,
        };
        let bits = if src_ty.is_int() {
            let v = self.read(src, src_ty)?;
            let r = match rnd {
                Some(CvtRounding::Float(r)) => r,
                _ => Rounding::NearestEven,
            };
            if matches!(dst_ty, ScalarType::F32 | ScalarType::F64) {
                let op = if src_ty.is_signed() { RoundedOp::FromSigned } else { RoundedOp::FromUnsigned };
                let f = self.rounded(op, r, &[v.into()], self.float_ty(dst_ty).into())?.into_float_value();
                self.float_bits(f)?
            } else {
                let u = self.split_int(v, src_ty.is_signed())?;
                self.round_to_layout(u, out, mode(r), satfinite, relu)?
            }
        } else if let Some(CvtRounding::Integer(r)) = rnd {
            // Same-size float to an integral value of the same format.
            let x = self.read_float_source(src, src_ty, ftz_in)?;
            let y = self.round_integral(x, r)?;
            let y = self.float_bits(y)?;
            if matches!(dst_ty, ScalarType::F16 | ScalarType::BF16) {
                // Integral values of a 16-bit format are exact in it.
                let u = self.split_float(y, F32)?;
                self.round_to_layout(u, out, Mode::Zero, false, false)?
            } else {
                y
            }
        } else {
            let r = match rnd {
                Some(CvtRounding::Float(r)) => r,
                _ => Rounding::NearestEven,
            };
            let src_bits = self.read(src, src_ty)?;
            let src_bits = if ftz_in { self.flush_subnormal(src_bits, F32)? } else { src_bits };
            match (dst_ty, src_ty) {
                (ScalarType::F32, ScalarType::F64) => {
                    let x = self.b.build_bit_cast(src_bits, self.cx.f64_type(), "")?.into_float_value();
                    let f = self.rounded(RoundedOp::Narrow, r, &[x.into()], self.cx.f32_type().into())?.into_float_value();
                    let f = if hardware_nan { self.fp_quieted(f)? } else { f };
                    self.float_bits(f)?
                }
                (ScalarType::F64, ScalarType::F32) => {
                    let x = self.b.build_bit_cast(src_bits, self.cx.f32_type(), "")?.into_float_value();
                    let f = self.b.build_float_ext(x, self.cx.f64_type(), "")?;
                    let f = if hardware_nan { self.fp_quieted(f)? } else { f };
                    self.float_bits(f)?
                }
                _ if dst_ty == src_ty => src_bits,
                (ScalarType::F16 | ScalarType::BF16, ScalarType::F32) if r == Rounding::NearestEven && !satfinite && !relu => {
                    let fmt = if dst_ty == ScalarType::F16 { Half::F16 } else { Half::BF16 };
                    let h = self.f32_to_half_rn(fmt, src_bits)?;
                    self.resize(h, scalar_bits(out), false)?
                }
                _ => {
                    let u = self.split_float(src_bits, scalar_layout(src_ty))?;
                    self.round_to_layout(u, out, mode(r), satfinite, relu)?
                }
            }
        };
        // NaN results of the hardware conversions carry payloads that differ between CPUs;
        // give the canonical NaN, as the software path does.
        // An integer source gives no NaN: nothing to canonicalize (the test would stay in
        // the code, as LLVM does not know an integer conversion's result is never NaN).
        let bits = if hardware_nan || src_ty.is_int() {
            bits
        } else {
            let bits = self.canonical_nan(bits, out)?;
            self.silicon_nan(src, src_ty, dst_ty, ftz, bits)?
        };
        let bits = if ftz_out { self.flush_subnormal(bits, F32)? } else { bits };
        let bits = if sat { self.saturate_unit(bits, out)? } else { bits };
        self.write(dst, bits, dst_ty)
    }

    /// `cvt` with packed or narrow float formats (see `Op::CvtPacked`).
    #[allow(clippy::too_many_arguments)]
    pub fn cvt_packed(
        &self,
        to: FloatFormat,
        from: FloatFormat,
        lanes: u32,
        rnd: CvtRounding,
        relu: bool,
        satfinite: bool,
        dst: RegId,
        src: &[Operand],
    ) -> R<()> {
        let (in_layout, out_layout) = (format_layout(from), format_layout(to));
        let in_bits = from.container_bits();
        let out_bits = to.container_bits();
        let total = lanes * out_bits;
        let it = self.int_ty(total.max(8));
        let mut packed = it.const_zero();
        // After the elements: `rbits` for `.rs` (see `rbits_field`), else the scale factors.
        let n_elements = if from == FloatFormat::F32 { lanes as usize } else { 1 };
        let (rbits, scales) = match (rnd, src.get(n_elements)) {
            (CvtRounding::Stochastic, Some(&r)) => (Some(self.read(r, ScalarType::B32)?), None),
            (_, Some(&sf)) => (None, Some(self.read(sf, ScalarType::B16)?)),
            _ => (None, None),
        };
        // Lane `lane`'s encoding at its place in the packed result (lane 0 is the upper one).
        let place = |packed: IntValue<'ctx>, enc: IntValue<'ctx>, lane: u32| -> R<IntValue<'ctx>> {
            let enc = self.resize(enc, total.max(8), false)?;
            let enc = self.b.build_left_shift(enc, it.const_int(((lanes - 1 - lane) * out_bits) as u64, false), "")?;
            Ok(self.b.build_or(packed, enc, "")?)
        };
        for lane in 0..lanes {
            // Lane 0 is the upper element.
            let element = if from == FloatFormat::F32 {
                self.read(src[lane as usize], ScalarType::B32)?
            } else {
                let word = self.read(src[0], bits_type(lanes * in_bits))?;
                let word = self.resize(word, 64, false)?;
                let shifted = self.b.build_right_shift(word, self.i64(((lanes - 1 - lane) * in_bits) as u64), false, "")?;
                let width = in_layout.width().min(in_bits);
                let masked = self.b.build_and(shifted, self.i64((1u64 << width) - 1), "")?;
                self.resize(masked, in_layout.width().max(8), false)?
            };
            if to == FloatFormat::Ue8m0 || from == FloatFormat::Ue8m0 {
                let enc = if to == FloatFormat::Ue8m0 { self.to_ue8m0(element, from, cvt_mode(rnd), satfinite)? } else { self.ue8m0_to_bf16(element)? };
                packed = place(packed, enc, lane)?;
                continue;
            }
            if from == FloatFormat::F32
                && matches!(to, FloatFormat::F16 | FloatFormat::BF16)
                && rnd == CvtRounding::Float(Rounding::NearestEven)
                && !relu
                && !satfinite
            {
                // The common `cvt.rn.f16x2.f32` / `.bf16x2`: the short form (`f32_to_half_rn`).
                let fmt = if to == FloatFormat::F16 { Half::F16 } else { Half::BF16 };
                let enc = self.f32_to_half_rn(fmt, self.resize(element, 32, false)?)?;
                packed = place(packed, enc, lane)?;
                continue;
            }
            let u = if from == FloatFormat::S2f6 {
                let k = self.b.build_int_truncate(self.resize(element, 32, false)?, self.cx.i8_type(), "")?;
                let u = self.split_int(k, true)?;
                Unpacked { exp: self.b.build_int_sub(u.exp, self.i32(6), "")?, ..u }
            } else {
                self.split_float(element, in_layout)?
            };
            // Scaling by 2^(sf - 127) moves the exponent (exact; rounded once below). A NaN
            // scale factor (0xff) makes the value NaN.
            let u = match scales {
                Some(sf) => {
                    let sf = self.b.build_and(
                        self.b.build_right_shift(sf, sf.get_type().const_int(((lanes - 1 - lane) * 8) as u64, false), false, "")?,
                        sf.get_type().const_int(0xff, false),
                        "",
                    )?;
                    let sf = self.resize(sf, 32, false)?;
                    let nan = self.b.build_or(u.nan, self.icmp(P::EQ, sf, self.i32(0xff))?, "")?;
                    let by = self.b.build_int_sub(sf, self.i32(127), "")?;
                    // Inputs to `.s2f6` are divided, everything else multiplied.
                    let exp = if to == FloatFormat::S2f6 { self.b.build_int_sub(u.exp, by, "")? } else { self.b.build_int_add(u.exp, by, "")? };
                    Unpacked { nan, exp, ..u }
                }
                None => u,
            };
            let lane_rbits = match rbits {
                Some(r) => {
                    let (at, width) = rbits_field(to, lanes, lane);
                    let field = self.b.build_right_shift(r, self.i32(at as u64), false, "")?;
                    let field = self.b.build_and(field, self.i32((1u64 << width) - 1), "")?;
                    Some((self.b.build_int_z_extend(field, self.cx.i64_type(), "")?, width))
                }
                None => None,
            };
            let enc = self.round_to_layout_with(u, out_layout, cvt_mode(rnd), satfinite, relu, lane_rbits)?;
            let enc = if to == FloatFormat::S2f6 { self.fixed_s2f6(enc)? } else { enc };
            let enc = if to == FloatFormat::Tf32 { self.b.build_left_shift(self.resize(enc, 32, false)?, self.i32(13), "")? } else { enc };
            let enc = if to == FloatFormat::Tf32 && from == FloatFormat::F32 && rnd == CvtRounding::NearestAway {
                self.tf32_rna_specials(element, satfinite, enc)?
            } else {
                enc
            };
            packed = place(packed, enc, lane)?;
        }
        self.write(dst, packed, bits_type(total.max(8)))
    }

    /// `cvt.rna{.satfinite}.tf32.f32` of an infinity or NaN as NVIDIA silicon (sm_90) gives
    /// it: without `.satfinite` a NaN keeps its sign and top payload bits (the low 13 bits
    /// cleared, not quieted); with `.satfinite` every input whose exponent is all ones
    /// (infinities and NaNs) gives its truncated encoding minus one tf32 unit
    /// (`0x7f800000` gives the largest finite value `0x7f7fe000`, `0xffffffff` gives
    /// `0xffffc000`).
    fn tf32_rna_specials(&self, element: IntValue<'ctx>, satfinite: bool, enc: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let x = self.resize(element, 32, false)?;
        let exp = self.b.build_and(x, self.i32(0x7f80_0000), "")?;
        let special = self.icmp(P::EQ, exp, self.i32(0x7f80_0000))?;
        let trunc = self.b.build_and(x, self.i32(0xffff_e000), "")?;
        let enc = self.resize(enc, 32, false)?;
        if satfinite {
            let v = self.b.build_int_sub(trunc, self.i32(0x2000), "")?;
            return self.select(special, v, enc);
        }
        let frac = self.b.build_and(x, self.i32(0x007f_ffff), "")?;
        let nan = self.b.build_and(special, self.icmp(P::NE, frac, self.i32(0))?, "")?;
        self.select(nan, trunc, enc)
    }

    /// An `.f32` or `.bf16` element (`from`) to `.ue8m0` (an `i32`), rounded toward zero
    /// (`Mode::Zero`) or up (otherwise; `.rz`/`.rp` are the only roundings). The format has
    /// no sign and no zero, which the ISA leaves open; we convert the magnitude (the sign is
    /// ignored) and zero and magnitudes below 2^-127 give the smallest value 2^-127 (`0x00`)
    /// when rounding toward zero; rounding up gives `0x00` up to 2^-127 and `0x01` above it.
    /// Infinity gives NaN (`0xff`), or the largest value 2^127 (`0xfe`) with `satfinite`, as
    /// does rounding up past 2^127. NaN gives NaN.
    fn to_ue8m0(&self, element: IntValue<'ctx>, from: FloatFormat, mode: Mode, satfinite: bool) -> R<IntValue<'ctx>> {
        let x = self.resize(element, 32, false)?;
        // bf16 is the upper half of an f32 pattern.
        let x = if from == FloatFormat::BF16 { self.b.build_left_shift(x, self.i32(16), "")? } else { x };
        let exp = self.b.build_and(self.b.build_right_shift(x, self.i32(23), false, "")?, self.i32(0xff), "")?;
        let frac = self.b.build_and(x, self.i32(0x7f_ffff), "")?;
        let up = if mode == Mode::Zero {
            self.bool_const(false)
        } else {
            // Above 2^-127 among the subnormals (exponent field 0) means a fraction above 2^22.
            let inexact = self.icmp(P::NE, frac, self.i32(0))?;
            let subnormal = self.icmp(P::EQ, exp, self.i32(0))?;
            let at_most_min = self.b.build_and(subnormal, self.icmp(P::ULE, frac, self.i32(0x40_0000))?, "")?;
            self.b.build_and(inexact, self.b.build_not(at_most_min, "")?, "")?
        };
        let special = self.icmp(P::EQ, exp, self.i32(0xff))?;
        let rounded = self.b.build_int_add(exp, self.b.build_int_z_extend(up, self.cx.i32_type(), "")?, "")?;
        // 0xff here is an overflow (or infinity when `special`).
        let overflow = self.icmp(P::EQ, rounded, self.i32(0xff))?;
        let big = self.i32(if satfinite { 0xfe } else { 0xff });
        let v = self.select(overflow, big, rounded)?;
        let infinite = self.b.build_and(special, self.icmp(P::EQ, frac, self.i32(0))?, "")?;
        let nan = self.b.build_and(special, self.b.build_not(infinite, "")?, "")?;
        let v = self.select(infinite, big, v)?;
        self.select(nan, self.i32(0xff), v)
    }

    /// The `.s2f6` encoding of `enc`, a sign and magnitude rounded to the `S2f6` layout:
    /// magnitudes clamp to 127 (+1.984375) or, negative, 128 (-2.0); NaN arrives as the
    /// positive largest magnitude and so gives +1.984375 (the ISA's `.satfinite` rule).
    fn fixed_s2f6(&self, enc: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let x = self.resize(enc, 32, false)?;
        let negative = self.icmp(P::NE, self.b.build_and(x, self.i32(0x100), "")?, self.i32(0))?;
        let mag = self.b.build_and(x, self.i32(0xff), "")?;
        let limit = self.select(negative, self.i32(128), self.i32(127))?;
        let mag = self.call_intrinsic("llvm.umin", &[self.cx.i32_type().into()], &[mag.into(), limit.into()])?.into_int_value();
        let k = self.select(negative, self.b.build_int_sub(self.i32(0), mag, "")?, mag)?;
        Ok(self.b.build_and(k, self.i32(0xff), "")?)
    }

    /// A `.ue8m0` element to `.bf16` (exact): `0x00` is the subnormal 2^-127, NaN the
    /// canonical bf16 NaN.
    fn ue8m0_to_bf16(&self, element: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let e = self.b.build_and(self.resize(element, 32, false)?, self.i32(0xff), "")?;
        let normal = self.b.build_left_shift(e, self.i32(7), "")?;
        let v = self.select(self.icmp(P::EQ, e, self.i32(0))?, self.i32(0x40), normal)?;
        let nan = self.i32(BF16.nan.unwrap_or(0x7fff));
        self.select(self.icmp(P::EQ, e, self.i32(0xff))?, nan, v)
    }

    /// `cvt.pack.sat` (see `Op::CvtPackSat`).
    pub fn cvt_pack_sat(&self, bits: u32, signed: bool, dst: RegId, a: Operand, b: Operand, c: Option<Operand>) -> R<()> {
        let (lo, hi) = if signed { (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1) } else { (0, (1i64 << bits) - 1) };
        let clamp = |x: Operand| -> R<IntValue<'ctx>> {
            let v = self.read(x, ScalarType::S32)?;
            let v = self.call_intrinsic("llvm.smax", &[v.get_type().into()], &[v.into(), self.i32(lo as u64 & 0xffff_ffff).into()])?.into_int_value();
            let v = self.call_intrinsic("llvm.smin", &[v.get_type().into()], &[v.into(), self.i32(hi as u64).into()])?.into_int_value();
            Ok(self.b.build_and(v, self.i32((1u64 << bits) - 1), "")?)
        };
        let (ta, tb) = (clamp(a)?, clamp(b)?);
        let mut d = self.b.build_or(tb, self.b.build_left_shift(ta, self.i32(bits as u64), "")?, "")?;
        if let Some(c) = c {
            if 2 * bits < 32 {
                let c = self.read(c, ScalarType::B32)?;
                d = self.b.build_or(d, self.b.build_left_shift(c, self.i32(2 * bits as u64), "")?, "")?;
            }
        }
        self.write(dst, d, ScalarType::B32)
    }

    /// A float source as an LLVM `f32`/`f64` value: `.f16`/`.bf16` are widened to `f32`
    /// (exactly), `.f32` subnormals flushed with `ftz`.
    fn read_float_source(&self, src: Operand, ty: ScalarType, ftz: bool) -> R<FloatValue<'ctx>> {
        let bits = self.read(src, ty)?;
        let bits = match ty {
            ScalarType::F16 | ScalarType::BF16 => {
                let u = self.split_float(bits, scalar_layout(ty))?;
                self.round_to_layout(u, F32, Mode::Zero, false, false)?
            }
            ScalarType::F32 if ftz => self.flush_subnormal(bits, F32)?,
            _ => bits,
        };
        let ft = if ty == ScalarType::F64 { self.cx.f64_type() } else { self.cx.f32_type() };
        Ok(self.b.build_bit_cast(bits, ft, "")?.into_float_value())
    }

    fn float_bits(&self, f: FloatValue<'ctx>) -> R<IntValue<'ctx>> {
        let w = f.get_type().get_bit_width();
        Ok(self.b.build_bit_cast(f, self.int_ty(w), "")?.into_int_value())
    }

    /// Float to integer: round to an integral value, then clamp to the destination range.
    /// NaN gives 0, except from `.f64` or into a 64-bit integer, where it gives `1 << (w-1)`.
    fn float_to_int(&self, x: FloatValue<'ctx>, r: Rounding, dst_ty: ScalarType, from_f64: bool) -> R<IntValue<'ctx>> {
        let x = self.round_integral(x, r)?;
        let w = dst_ty.bits();
        let it = self.int_ty(w);
        let v = self.float_to_int_saturating(x, it, dst_ty.is_signed())?;
        if from_f64 || w == 64 {
            let nan = self.b.build_float_compare(inkwell::FloatPredicate::UNO, x, x, "")?;
            self.select(nan, it.const_int(1u64 << (w - 1), false), v)
        } else {
            Ok(v)
        }
    }

    /// `x` (integral) converted to the integer type `it`, clamped to its range; NaN gives 0
    /// (LLVM's `fptosi.sat`/`fptoui.sat`). Written as a conversion of the value in range
    /// and two selects: x86 code generation has no vector form of the intrinsics and turns
    /// a vectorized one into a scalar conversion per lane (a thread loop converting
    /// coordinates with `cvt.rzi.s32.f32`: sixteen of them per vector of threads).
    pub(crate) fn float_to_int_saturating(&self, x: FloatValue<'ctx>, it: IntType<'ctx>, signed: bool) -> R<IntValue<'ctx>> {
        let w = it.get_bit_width();
        let ft = x.get_type();
        // The range's ends are powers of two: exact in every float type used here.
        let (lo, hi) = if signed { (-(2f64.powi(w as i32 - 1)), 2f64.powi(w as i32 - 1)) } else { (0.0, 2f64.powi(w as i32)) };
        let (lo_f, hi_f) = (ft.const_float(lo), ft.const_float(hi));
        let at_least_lo = self.b.build_float_compare(inkwell::FloatPredicate::OGE, x, lo_f, "")?;
        let below_hi = self.b.build_float_compare(inkwell::FloatPredicate::OLT, x, hi_f, "")?;
        let in_range = self.b.build_and(at_least_lo, below_hi, "")?;
        // Out of range or NaN: convert 0 instead (a conversion out of range is poison).
        let safe = self.b.build_select(in_range, x, ft.const_zero(), "")?.into_float_value();
        let v = if signed { self.b.build_float_to_signed_int(safe, it, "")? } else { self.b.build_float_to_unsigned_int(safe, it, "")? };
        let (min, max) =
            if signed { (it.const_int(1u64 << (w - 1), false), it.const_int((1u64 << (w - 1)) - 1, false)) } else { (it.const_zero(), it.const_all_ones()) };
        let too_big = self.b.build_float_compare(inkwell::FloatPredicate::OGE, x, hi_f, "")?;
        let too_small = self.b.build_float_compare(inkwell::FloatPredicate::OLT, x, lo_f, "")?;
        let v = self.select(too_big, max, v)?;
        self.select(too_small, min, v)
    }

    /// Integer to integer: sign- or zero-extend by the source type, keep the destination's
    /// width; with `sat`, clamp to the destination range first.
    fn int_to_int(&self, v: IntValue<'ctx>, src_ty: ScalarType, dst_ty: ScalarType, sat: bool) -> R<IntValue<'ctx>> {
        if !sat {
            return self.resize(v, dst_ty.bits(), src_ty.is_signed());
        }
        let wide = self.resize(v, 128, src_ty.is_signed())?;
        let t = self.cx.i128_type();
        let w = dst_ty.bits();
        let (lo, hi): (i128, i128) = if dst_ty.is_signed() { (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1) } else { (0, (1i128 << w) - 1) };
        let c = |x: i128| t.const_int_arbitrary_precision(&[x as u64, (x >> 64) as u64]);
        let clamped = self.call_intrinsic("llvm.smax", &[t.into()], &[wide.into(), c(lo).into()])?.into_int_value();
        let clamped = self.call_intrinsic("llvm.smin", &[t.into()], &[clamped.into(), c(hi).into()])?.into_int_value();
        self.resize(clamped, w, false)
    }

    fn round_integral(&self, x: FloatValue<'ctx>, r: Rounding) -> R<FloatValue<'ctx>> {
        let name = match r {
            Rounding::NearestEven => "llvm.roundeven",
            Rounding::TowardZero => "llvm.trunc",
            Rounding::Down => "llvm.floor",
            Rounding::Up => "llvm.ceil",
        };
        Ok(self.call_intrinsic(name, &[x.get_type().into()], &[x.into()])?.into_float_value())
    }

    /// Subnormal values of `l` become zeros of their sign.
    fn flush_subnormal(&self, bits: IntValue<'ctx>, l: Layout) -> R<IntValue<'ctx>> {
        let t = bits.get_type();
        let exp_mask = t.const_int(((1u64 << l.exp_bits) - 1) << l.frac_bits, false);
        let exp = self.b.build_and(bits, exp_mask, "")?;
        let tiny = self.icmp(P::EQ, exp, t.const_zero())?;
        let sign = self.b.build_and(bits, t.const_int(1u64 << (l.width() - 1), false), "")?;
        self.select(tiny, sign, bits)
    }

    /// NaN results of float-to-float `cvt` as NVIDIA silicon (sm_90) gives them, in place of
    /// the canonical NaN: conversions from or to `.f64` (also `.f64` to an integral `.f64`)
    /// keep the sign and the payload's high bits (moved to the new fraction's top) and quiet
    /// the NaN, except `cvt.ftz.f64.f32`, which gives the canonical `.f32` NaN widened
    /// (`0x7fffffffe0000000`); `cvt.f32.bf16` keeps the bits as they are (a signalling NaN
    /// stays signalling), `cvt.ftz.f32.bf16` gives the canonical NaN. The other pairs (`.f32`
    /// to `.f16`/`.bf16`, `.f16` to `.f32`, ...) give the canonical NaN.
    fn silicon_nan(&self, src: Operand, src_ty: ScalarType, dst_ty: ScalarType, ftz: bool, bits: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        use ScalarType as S;
        let quiet = match (src_ty, dst_ty) {
            (S::F64, S::F32 | S::F16 | S::BF16 | S::F64) | (S::F16 | S::BF16, S::F64) => true,
            (S::F32, S::F64) if !ftz => true,
            (S::F32, S::F64) => {
                let t = bits.get_type();
                let mag = self.b.build_and(bits, t.const_int(F64.magnitude_mask(), false), "")?;
                let is_nan = self.icmp(P::UGT, mag, t.const_int(F64.inf().unwrap_or(u64::MAX), false))?;
                return self.select(is_nan, t.const_int(0x7fff_ffff_e000_0000, false), bits);
            }
            (S::BF16, S::F32) if !ftz => false,
            _ => return Ok(bits),
        };
        let (from, to) = (scalar_layout(src_ty), scalar_layout(dst_ty));
        let x = self.resize(self.read(src, src_ty)?, 64, false)?;
        let mag = self.b.build_and(x, self.i64(from.magnitude_mask()), "")?;
        let is_nan = self.icmp(P::UGT, mag, self.i64(from.inf().unwrap_or(u64::MAX)))?;
        let frac = self.b.build_and(x, self.i64((1u64 << from.frac_bits) - 1), "")?;
        let frac = if to.frac_bits >= from.frac_bits {
            self.b.build_left_shift(frac, self.i64((to.frac_bits - from.frac_bits) as u64), "")?
        } else {
            self.b.build_right_shift(frac, self.i64((from.frac_bits - to.frac_bits) as u64), false, "")?
        };
        let frac = if quiet { self.b.build_or(frac, self.i64(1u64 << (to.frac_bits - 1)), "")? } else { frac };
        let sign = self.b.build_right_shift(x, self.i64((from.width() - 1) as u64), false, "")?;
        let sign = self.b.build_left_shift(sign, self.i64((to.width() - 1) as u64), "")?;
        let v = self.b.build_or(sign, self.i64(to.inf().unwrap_or(0)), "")?;
        let v = self.b.build_or(v, frac, "")?;
        let v = self.b.build_int_truncate_or_bit_cast(v, bits.get_type(), "")?;
        self.select(is_nan, v, bits)
    }

    /// Any NaN of layout `l` becomes its canonical NaN.
    fn canonical_nan(&self, bits: IntValue<'ctx>, l: Layout) -> R<IntValue<'ctx>> {
        let (Some(inf), Some(nan)) = (l.inf(), l.nan) else { return Ok(bits) };
        let t = bits.get_type();
        let mag = self.b.build_and(bits, t.const_int(l.magnitude_mask(), false), "")?;
        let is_nan = self.icmp(P::UGT, mag, t.const_int(inf, false))?;
        self.select(is_nan, t.const_int(nan, false), bits)
    }

    /// `.sat` of a float result: clamped to [+0, 1]; NaN and negative values give +0.
    fn saturate_unit(&self, bits: IntValue<'ctx>, l: Layout) -> R<IntValue<'ctx>> {
        let t = bits.get_type();
        let mag = t.const_int(l.magnitude_mask(), false);
        let inf = t.const_int(l.inf().unwrap_or(l.magnitude_mask()), false);
        let negative = self.icmp(P::UGT, bits, mag)?;
        let nan = self.icmp(P::UGT, bits, inf)?;
        let one = t.const_int(l.one(), false);
        let above = self.icmp(P::UGT, bits, one)?;
        let v = self.select(above, one, bits)?;
        let zero_it = self.b.build_or(negative, nan, "")?;
        self.select(zero_it, t.const_zero(), v)
    }

    fn bool_const(&self, v: bool) -> IntValue<'ctx> {
        self.cx.bool_type().const_int(v as u64, false)
    }

    /// Normalizes `raw` (an `i64` magnitude) so that its top bit is set: `(sig, shift)`.
    fn normalize(&self, raw: IntValue<'ctx>) -> R<(IntValue<'ctx>, IntValue<'ctx>)> {
        let lz = self.call_intrinsic("llvm.ctlz", &[self.cx.i64_type().into()], &[raw.into(), self.bool_const(false).into()])?.into_int_value();
        // A zero keeps shift 63 (a shift by 64 would be poison); its flag makes it zero anyway.
        let lz = self.call_intrinsic("llvm.umin", &[self.cx.i64_type().into()], &[lz.into(), self.i64(63).into()])?.into_int_value();
        let sig = self.b.build_left_shift(raw, lz, "")?;
        Ok((sig, self.b.build_int_truncate(lz, self.cx.i32_type(), "")?))
    }

    /// Splits the bits of a value of layout `l`.
    fn split_float(&self, bits: IntValue<'ctx>, l: Layout) -> R<Unpacked<'ctx>> {
        let x = self.resize(bits, 64, false)?;
        let (m, w) = (l.frac_bits, l.width());
        let c = |v: u64| self.i64(v);
        let sign = self.icmp(P::NE, self.b.build_and(x, c(1u64 << (w - 1)), "")?, c(0))?;
        let e = self.b.build_and(self.b.build_right_shift(x, c(m as u64), false, "")?, c((1u64 << l.exp_bits) - 1), "")?;
        let frac = self.b.build_and(x, c((1u64 << m) - 1), "")?;
        let exp_zero = self.icmp(P::EQ, e, c(0))?;
        let frac_zero = self.icmp(P::EQ, frac, c(0))?;
        let (nan, inf) = if l.ieee_specials {
            let all_ones = self.icmp(P::EQ, e, c((1u64 << l.exp_bits) - 1))?;
            (self.b.build_and(all_ones, self.b.build_not(frac_zero, "")?, "")?, self.b.build_and(all_ones, frac_zero, "")?)
        } else if let Some(nan) = l.nan {
            let mag = self.b.build_and(x, c(l.magnitude_mask()), "")?;
            (self.icmp(P::EQ, mag, c(nan))?, self.bool_const(false))
        } else {
            (self.bool_const(false), self.bool_const(false))
        };
        let zero = self.b.build_and(exp_zero, frac_zero, "")?;
        let with_one = self.b.build_or(frac, c(1u64 << m), "")?;
        let raw = self.select(exp_zero, frac, with_one)?;
        let e32 = self.b.build_int_truncate(e, self.cx.i32_type(), "")?;
        let biased = self.select(exp_zero, self.i32(1), e32)?;
        // Exponent of bit 63 after normalization: biased - bias - m + 63 - shift.
        let (sig, shift) = self.normalize(raw)?;
        let exp = self.b.build_int_add(biased, self.i32((63 - m as i64 - l.bias) as u64 & 0xffff_ffff), "")?;
        let exp = self.b.build_int_sub(exp, shift, "")?;
        Ok(Unpacked { sign, nan, inf, zero, exp, sig })
    }

    /// Splits an integer (`signed`: two's complement).
    fn split_int(&self, v: IntValue<'ctx>, signed: bool) -> R<Unpacked<'ctx>> {
        let x = self.resize(v, 64, signed)?;
        let sign = if signed { self.icmp(P::SLT, x, self.i64(0))? } else { self.bool_const(false) };
        let neg = self.b.build_int_sub(self.i64(0), x, "")?;
        let mag = self.select(sign, neg, x)?;
        let zero = self.icmp(P::EQ, mag, self.i64(0))?;
        let (sig, shift) = self.normalize(mag)?;
        let exp = self.b.build_int_sub(self.i32(63), shift, "")?;
        Ok(Unpacked { sign, nan: self.bool_const(false), inf: self.bool_const(false), zero, exp, sig })
    }

    /// Rounds `u` to layout `l` with `mode`; the encoding as an integer of `l`'s width.
    /// Overflow gives infinity or the largest finite value as IEEE rounding does; with
    /// `satfinite` (and always for formats without infinity) it and infinite inputs give the
    /// largest finite value. NaN gives the canonical NaN (or +max for formats without NaN).
    /// `relu` turns negative results (not NaN) into +0.
    fn round_to_layout(&self, u: Unpacked<'ctx>, l: Layout, mode: Mode, satfinite: bool, relu: bool) -> R<IntValue<'ctx>> {
        self.round_to_layout_with(u, l, mode, satfinite, relu, None)
    }

    /// `round_to_layout` with the random bits of `Mode::Stochastic`: an `i64` holding `n`
    /// random bits. They are added to the top `n` of the discarded bits (those just below
    /// the last kept place); a carry out of the discarded bits rounds away from zero. From
    /// `.f32` to a normal f16 or any bf16 result these are exactly the discarded bits of the
    /// input, as the ISA describes; for f16 subnormal results, where more bits are
    /// discarded, the ISA leaves the alignment open and we keep the random bits aligned
    /// below the last kept place, so the probability of rounding away stays proportional to
    /// the discarded fraction. Overflow (the truncated or carried value beyond the largest
    /// finite one) gives infinity, or the largest finite value with `satfinite`.
    fn round_to_layout_with(
        &self,
        u: Unpacked<'ctx>,
        l: Layout,
        mode: Mode,
        satfinite: bool,
        relu: bool,
        rbits: Option<(IntValue<'ctx>, u32)>,
    ) -> R<IntValue<'ctx>> {
        let i32t = self.cx.i32_type();
        let i64t = self.cx.i64_type();
        let m = l.frac_bits;
        let emin = 1 - l.bias;
        // The result's exponent: at least the smallest normal one (subnormal results).
        let e = self.call_intrinsic("llvm.smax", &[i32t.into()], &[u.exp.into(), self.i32(emin as u64 & 0xffff_ffff).into()])?.into_int_value();
        // Bits of `sig` below the kept significand.
        let shift = self.b.build_int_add(self.b.build_int_sub(e, u.exp, "")?, self.i32(63 - m as u64), "")?;
        let tiny = self.icmp(P::UGT, shift, self.i32(64))?;
        let s = self.call_intrinsic("llvm.umin", &[i32t.into()], &[shift.into(), self.i32(64).into()])?.into_int_value();
        let s = self.b.build_int_z_extend(s, i64t, "")?;
        let all_dropped = self.icmp(P::EQ, s, self.i64(64))?;
        let s_low = self.b.build_and(s, self.i64(63), "")?;
        let q = self.select(all_dropped, self.i64(0), self.b.build_right_shift(u.sig, s_low, false, "")?)?;
        let kept = self.b.build_left_shift(q, s_low, "")?;
        let rem = self.b.build_int_sub(u.sig, kept, "")?;
        // Far below the last place: less than half an ulp but not zero.
        let rem = self.select(tiny, self.i64(1), rem)?;
        let half = self.b.build_left_shift(self.i64(1), self.b.build_int_sub(s, self.i64(1), "")?, "")?;
        let inexact = self.icmp(P::NE, rem, self.i64(0))?;
        let positive = self.b.build_not(u.sign, "")?;
        let inc = match mode {
            Mode::Even => {
                let above = self.icmp(P::UGT, rem, half)?;
                let tie = self.icmp(P::EQ, rem, half)?;
                let odd = self.b.build_int_truncate(q, self.cx.bool_type(), "")?;
                self.b.build_or(above, self.b.build_and(tie, odd, "")?, "")?
            }
            Mode::Away => self.icmp(P::UGE, rem, half)?,
            Mode::Zero => self.bool_const(false),
            Mode::Up => self.b.build_and(positive, inexact, "")?,
            Mode::Down => self.b.build_and(u.sign, inexact, "")?,
            Mode::Stochastic => match rbits {
                // The top `n` discarded bits, `floor(rem / ulp * 2^n)`, plus the random bits
                // carry out of `n` bits. `shift` is at least 63 - m >= n; far below the last
                // place (`tiny`) nothing is kept and the whole of `sig` is discarded.
                Some((r, n)) => {
                    let discarded = self.select(tiny, u.sig, rem)?;
                    let below_top = self.b.build_int_z_extend(self.b.build_int_sub(shift, self.i32(n as u64), "")?, i64t, "")?;
                    let out_of_window = self.icmp(P::UGE, below_top, self.i64(64))?;
                    let below_top = self.b.build_and(below_top, self.i64(63), "")?;
                    let top = self.b.build_right_shift(discarded, below_top, false, "")?;
                    let top = self.select(out_of_window, self.i64(0), top)?;
                    let sum = self.b.build_int_add(top, r, "")?;
                    self.icmp(P::UGE, sum, self.i64(1u64 << n))?
                }
                None => self.bool_const(false),
            },
        };
        let q = self.b.build_int_add(q, self.b.build_int_z_extend(inc, i64t, "")?, "")?;
        // A carry out of the significand moves into the exponent field by itself.
        let e_field = self.b.build_int_s_extend(self.b.build_int_add(e, self.i32((l.bias - 1) as u64 & 0xffff_ffff), "")?, i64t, "")?;
        let enc = self.b.build_int_add(self.b.build_left_shift(e_field, self.i64(m as u64), "")?, q, "")?;

        let max = self.i64(l.max_finite());
        let overflow = self.icmp(P::UGT, enc, max)?;
        let (to_inf, inf_in) = match l.inf().filter(|_| !satfinite) {
            Some(inf) => {
                let to_inf = match mode {
                    Mode::Even | Mode::Away | Mode::Stochastic => self.bool_const(true),
                    Mode::Zero => self.bool_const(false),
                    Mode::Up => positive,
                    Mode::Down => u.sign,
                };
                (self.select(to_inf, self.i64(inf), max)?, self.i64(inf))
            }
            None => (max, max),
        };
        let enc = self.select(overflow, to_inf, enc)?;
        let enc = self.select(u.zero, self.i64(0), enc)?;
        let enc = self.select(u.inf, inf_in, enc)?;
        let sign_bit = self.b.build_left_shift(self.b.build_int_z_extend(u.sign, i64t, "")?, self.i64((l.width() - 1) as u64), "")?;
        let mut v = self.b.build_or(enc, sign_bit, "")?;
        if relu {
            v = self.select(u.sign, self.i64(0), v)?;
        }
        let nan = self.i64(l.nan.unwrap_or(l.max_finite()));
        let v = self.select(u.nan, nan, v)?;
        self.resize(v, scalar_bits(l), false)
    }
}

/// Where the random bits of element `lane` (0 = `a`) sit in `rbits` for `.rs`: (lowest
/// bit, width).
/// - f16x2/bf16x2: the upper half rounds `a`, the lower half `b`; for f16 only the 13 low
///   bits of each half are random bits (the ISA has the 3 upper ones zero; they are ignored).
/// - e4m3x4/e5m2x4/e2m3x4/e3m2x4: the upper half serves `a, b` and the lower half `e, f`;
///   the ISA's text does not split a half between its two elements, we give the upper byte
///   of each half to the first of them: `a` bits 31-24, `b` 23-16, `e` 15-8, `f` 7-0.
/// - e2m1x4: the upper bytes of both halves serve `a, b` and the lower bytes `e, f`
///   (ISA text): `a` bits 31-24, `b` 15-8, `e` 23-16, `f` 7-0.
fn rbits_field(to: FloatFormat, lanes: u32, lane: u32) -> (u32, u32) {
    match (to, lanes) {
        (FloatFormat::F16, _) => (16 * (1 - lane), 13),
        (FloatFormat::BF16, _) => (16 * (1 - lane), 16),
        (FloatFormat::E2m1, _) => ([24, 8, 16, 0][lane as usize & 3], 8),
        _ => (8 * (3 - lane), 8),
    }
}

/// The register width of a layout's encoding (16 for f16/bf16, 32 for f32 and tf32's
/// rounding layout, 64 for f64, 8 for the narrow formats).
fn scalar_bits(l: Layout) -> u32 {
    match l.width() {
        w if w <= 8 => 8,
        w if w <= 16 => 16,
        w if w <= 32 => 32,
        _ => 64,
    }
}

fn bits_type(bits: u32) -> ScalarType {
    match bits {
        0..=8 => ScalarType::B8,
        9..=16 => ScalarType::B16,
        17..=32 => ScalarType::B32,
        _ => ScalarType::B64,
    }
}

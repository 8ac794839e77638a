//! Half-precision arithmetic and comparisons (`.f16 .f16x2 .bf16 .bf16x2`, ISA 9.2 §9.7.4,
//! §9.7.7) and the mixed-precision `.f32` forms with half sources (§9.7.5).
//!
//! Everything is straight-line code on the bits of each 16-bit lane (the `x2` types run the
//! same code on both lanes of the `.b32`), so the thread loops vectorize it.
//!
//! Exactness. Operands are widened exactly to f64 and the operation is done there with
//! one rounding to nearest even, then rounded once more to the half format
//! (`f64_to_half_rn`, written on the bits so that no libgcc conversion call is needed):
//! - `mul`: a product of two half values has at most 2×11 significant bits: exact in f64.
//! - `add`/`sub`: f64 has 53 ≥ 2p + 2 bits for both formats (p = 11, 8), and the half
//!   exponent ranges lie far inside f64's normal range, so the double rounding is innocuous
//!   (Figueroa, "When is double rounding innocuous?", 1995): the result is the correctly
//!   rounded half sum.
//! - `fma`: `a*b` is exact in f64, but `a*b + c` is not a p-bit operation, so rounding it to
//!   nearest in f64 could create a false tie in the half format. It is rounded to *odd*
//!   instead: the f64 sum `s` and its exact error `e` (Knuth's TwoSum, exact because nothing
//!   overflows f64) give the sticky bit; if `e ≠ 0` and `s` has an even last bit, `s` moves
//!   one ulp towards the exact value. A round-to-odd value with ≥ p + 2 bits rounds to
//!   nearest correctly in the narrower format (Boldo & Melquiond, 2008), and 53 ≥ 13.
//!
//! NaN results are the canonical NaN `0x7fff` (the ISA leaves them unspecified, except
//! `fma.relu` and `min/max.NaN`, which ask for the canonical one); `neg`/`abs` of a NaN flip or
//! clear its sign bit, as IEEE 754 does.

use crate::ir::{BoolOp, CmpOp, HalfMods, HalfOp, MixedOp, Operand, PredRef, RegId, Rounding, ScalarType};
use crate::lower::ops::half_bits::Half;
use crate::lower::ops::rounding::RoundedOp;
use crate::lower::thread::FnCx;
use crate::lower::{LowerError, R};
use inkwell::values::{FloatValue, IntValue};
use inkwell::{FloatPredicate as F, IntPredicate as I};

/// The canonical NaN of both 16-bit formats.
const CANONICAL_NAN: u64 = 0x7fff;
/// The NaN that tensor loads write for out-of-bounds elements (`fma.oob` treats it as 0).
const OOB_NAN: u64 = 0x7fff;

/// The lane format and lane count of a half instruction type.
fn lanes_of(ty: ScalarType) -> R<(Half, u32)> {
    Ok(match ty {
        ScalarType::F16 => (Half::F16, 1),
        ScalarType::F16x2 => (Half::F16, 2),
        ScalarType::BF16 => (Half::BF16, 1),
        ScalarType::BF16x2 => (Half::BF16, 2),
        _ => return Err(LowerError::Internal(format!("`{}` is not a half-precision type", ty.name()))),
    })
}

/// Field layout of a 16-bit format.
struct Layout {
    frac_bits: u32,
    exp_mask: u64,
    bias: i64,
    one: u64,
}

fn layout(fmt: Half) -> Layout {
    match fmt {
        Half::F16 => Layout { frac_bits: 10, exp_mask: 0x7c00, bias: 15, one: 0x3c00 },
        Half::BF16 => Layout { frac_bits: 7, exp_mask: 0x7f80, bias: 127, one: 0x3f80 },
    }
}

impl<'ctx> FnCx<'ctx, '_> {
    fn half_i16(&self, v: u64) -> IntValue<'ctx> {
        self.cx.i16_type().const_int(v, false)
    }

    fn half_f64_const(&self, v: f64) -> FloatValue<'ctx> {
        self.cx.f64_type().const_float(v)
    }

    /// The 16-bit lanes of an operand of half type `ty` (lane 0 = bits 0-15).
    fn half_read_lanes(&self, op: Operand, ty: ScalarType) -> R<Vec<IntValue<'ctx>>> {
        let (_, n) = lanes_of(ty)?;
        let v = self.read(op, ty)?;
        self.half_split_lanes(v, n)
    }

    fn half_split_lanes(&self, v: IntValue<'ctx>, n: u32) -> R<Vec<IntValue<'ctx>>> {
        let i16t = self.cx.i16_type();
        let mut out = vec![];
        for i in 0..n {
            let shifted = if i == 0 { v } else { self.b.build_right_shift(v, v.get_type().const_int(16 * i as u64, false), false, "")? };
            out.push(self.b.build_int_truncate(shifted, i16t, "")?);
        }
        Ok(out)
    }

    /// Packs 16-bit lanes into one value (lane 0 in the low bits).
    fn half_join_lanes(&self, lanes: &[IntValue<'ctx>]) -> R<IntValue<'ctx>> {
        if lanes.len() == 1 {
            return Ok(lanes[0]);
        }
        let t = self.int_ty(16 * lanes.len() as u32);
        let mut acc = t.const_zero();
        for (i, l) in lanes.iter().enumerate() {
            let w = self.b.build_int_z_extend(*l, t, "")?;
            let w = self.b.build_left_shift(w, t.const_int(16 * i as u64, false), "")?;
            acc = self.b.build_or(acc, w, "")?;
        }
        Ok(acc)
    }

    fn half_is_nan(&self, fmt: Half, h: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let abs = self.b.build_and(h, self.half_i16(0x7fff), "")?;
        self.icmp(I::UGT, abs, self.half_i16(layout(fmt).exp_mask))
    }

    /// `.ftz`: a subnormal becomes the zero of its sign.
    fn half_flush(&self, fmt: Half, h: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let exp = self.b.build_and(h, self.half_i16(layout(fmt).exp_mask), "")?;
        let tiny = self.icmp(I::EQ, exp, self.half_i16(0))?;
        let zero = self.b.build_and(h, self.half_i16(0x8000), "")?;
        self.select(tiny, zero, h)
    }

    /// The exact f64 value of a lane.
    pub(crate) fn half_to_f64(&self, fmt: Half, h: IntValue<'ctx>) -> R<FloatValue<'ctx>> {
        let x = self.half_to_f32(fmt, h)?;
        Ok(self.b.build_float_ext(x, self.cx.f64_type(), "")?)
    }

    /// An f64 rounded to nearest even in a 16-bit format; NaN gives the canonical NaN.
    pub(crate) fn f64_to_half_rn(&self, fmt: Half, x: FloatValue<'ctx>) -> R<IntValue<'ctx>> {
        let b = &self.b;
        let i64t = self.cx.i64_type();
        let l = layout(fmt);
        let bits = b.build_bit_cast(x, i64t, "")?.into_int_value();
        let sign = b.build_and(b.build_right_shift(bits, self.i64(48), false, "")?, self.i64(0x8000), "")?;
        let abs = b.build_and(bits, self.i64(0x7fff_ffff_ffff_ffff), "")?;
        let is_nan = self.icmp(I::UGT, abs, self.i64(0x7ff0_0000_0000_0000))?;
        // Normal range: drop 52 - F fraction bits, ties to even (a carry moves into the
        // exponent, as it should), then rebias the exponent.
        let shift = 52 - l.frac_bits as u64;
        let lsb = b.build_and(b.build_right_shift(abs, self.i64(shift), false, "")?, self.i64(1), "")?;
        let rounded = b.build_int_add(abs, b.build_int_add(self.i64((1 << (shift - 1)) - 1), lsb, "")?, "")?;
        let rounded = b.build_right_shift(rounded, self.i64(shift), false, "")?;
        let normal = b.build_int_sub(rounded, self.i64(((1023 - l.bias) as u64) << l.frac_bits), "")?;
        let overflow = self.icmp(I::SGE, normal, self.i64(l.exp_mask))?;
        let normal = self.select(overflow, self.i64(l.exp_mask), normal)?;
        // Below the smallest normal 2^(1-bias): |x| + 2^(1-bias-F+52) rounds |x| to a multiple
        // of the subnormal quantum 2^(1-bias-F) in one hardware rounding; the difference of
        // the bits is the subnormal's encoding (2^F: the smallest normal, also right).
        let e_min = 1 - l.bias;
        let magic = 2f64.powi((e_min - l.frac_bits as i64 + 52) as i32);
        let absf = b.build_bit_cast(abs, self.cx.f64_type(), "")?.into_float_value();
        let sum = b.build_float_add(absf, self.half_f64_const(magic), "")?;
        let sum = b.build_bit_cast(sum, i64t, "")?.into_int_value();
        let sub = b.build_int_sub(sum, self.i64(magic.to_bits()), "")?;
        let is_sub = self.icmp(I::ULT, abs, self.i64(2f64.powi(e_min as i32).to_bits()))?;
        let finite = b.build_or(self.select(is_sub, sub, normal)?, sign, "")?;
        let r = self.select(is_nan, self.i64(CANONICAL_NAN), finite)?;
        Ok(b.build_int_truncate(r, self.cx.i16_type(), "")?)
    }

    /// `a*b + c` rounded to odd in f64 (see the module comment).
    fn half_fma_round_to_odd(&self, a: FloatValue<'ctx>, b_: FloatValue<'ctx>, c: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        let b = &self.b;
        let i64t = self.cx.i64_type();
        let p = b.build_float_mul(a, b_, "")?; // exact
        let s = b.build_float_add(p, c, "")?;
        // TwoSum: err = (p - (s - bb)) + (c - bb) with bb = s - p, exactly p + c - s.
        let bb = b.build_float_sub(s, p, "")?;
        let e1 = b.build_float_sub(p, b.build_float_sub(s, bb, "")?, "")?;
        let e2 = b.build_float_sub(c, bb, "")?;
        let err = b.build_float_add(e1, e2, "")?;
        // Inexact (a NaN error, from infinite operands, is not: `one` is false for NaN).
        let inexact = b.build_float_compare(F::ONE, err, self.half_f64_const(0.0), "")?;
        let s_bits = b.build_bit_cast(s, i64t, "")?.into_int_value();
        let even = self.icmp(I::EQ, b.build_and(s_bits, self.i64(1), "")?, self.i64(0))?;
        // Moving away from zero adds one to the magnitude's bits, towards zero subtracts one.
        let err_bits = b.build_bit_cast(err, i64t, "")?.into_int_value();
        let same_sign = self.icmp(I::SGE, b.build_xor(err_bits, s_bits, "")?, self.i64(0))?;
        let step = self.select(same_sign, self.i64(1), self.i64(u64::MAX))?;
        let adjust = b.build_and(inexact, even, "")?;
        let moved = b.build_int_add(s_bits, step, "")?;
        let r = self.select(adjust, moved, s_bits)?;
        Ok(b.build_bit_cast(r, self.cx.f64_type(), "")?.into_float_value())
    }

    /// `.sat`: [+0.0, 1.0], NaN → +0.0; `.relu`: negative (and -0.0) → +0.0, NaN kept.
    fn half_clamp(&self, fmt: Half, r: IntValue<'ctx>, sat: bool, relu: bool) -> R<IntValue<'ctx>> {
        let mut r = r;
        if sat || relu {
            let nan = self.half_is_nan(fmt, r)?;
            let negative = self.icmp(I::UGE, r, self.half_i16(0x8000))?;
            let to_zero = self.b.build_and(negative, self.b.build_not(nan, "")?, "")?;
            let to_zero = if sat { self.b.build_or(to_zero, nan, "")? } else { to_zero };
            r = self.select(to_zero, self.half_i16(0), r)?;
        }
        if sat {
            // Now +0.0 ..= +inf: positive values order as their bits.
            let above = self.icmp(I::UGT, r, self.half_i16(layout(fmt).one))?;
            r = self.select(above, self.half_i16(layout(fmt).one), r)?;
        }
        Ok(r)
    }

    /// `min`/`max` of one lane (ISA pseudocode of §9.7.4.7/8).
    pub(crate) fn half_min_max(&self, fmt: Half, max: bool, mods: HalfMods, a: IntValue<'ctx>, b_: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let b = &self.b;
        let (mut x, mut y) = (a, b_);
        let sign = b.build_and(b.build_xor(x, y, "")?, self.half_i16(0x8000), "")?;
        if mods.xorsign_abs {
            x = b.build_and(x, self.half_i16(0x7fff), "")?;
            y = b.build_and(y, self.half_i16(0x7fff), "")?;
        }
        let (nx, ny) = (self.half_is_nan(fmt, x)?, self.half_is_nan(fmt, y)?);
        // A key whose unsigned order is the numeric order of non-NaN values, -0.0 < +0.0.
        let key = |v: IntValue<'ctx>| -> R<IntValue<'ctx>> {
            let neg = self.icmp(I::UGE, v, self.half_i16(0x8000))?;
            self.select(neg, b.build_not(v, "")?, b.build_or(v, self.half_i16(0x8000), "")?)
        };
        let x_first = self.icmp(if max { I::UGT } else { I::ULT }, key(x)?, key(y)?)?;
        let pick = self.select(x_first, x, y)?;
        let pick = self.select(ny, x, pick)?;
        let pick = self.select(nx, y, pick)?;
        let both = b.build_and(nx, ny, "")?;
        let nan_result = if mods.nan { b.build_or(nx, ny, "")? } else { both };
        let r = if mods.xorsign_abs { b.build_or(b.build_and(pick, self.half_i16(0x7fff), "")?, sign, "")? } else { pick };
        self.select(nan_result, self.half_i16(CANONICAL_NAN), r)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn half(&self, op: HalfOp, ty: ScalarType, mods: HalfMods, dst: RegId, a: Operand, b: Option<Operand>, c: Option<Operand>) -> R<()> {
        let (fmt, _) = lanes_of(ty)?;
        let operand = |o: Option<Operand>| -> R<Vec<IntValue<'ctx>>> {
            match o {
                Some(o) => self.half_read_lanes(o, ty),
                None => Err(LowerError::Internal(format!("half `{op:?}` is missing an operand"))),
            }
        };
        let xs = self.half_read_lanes(a, ty)?;
        let ys = if matches!(op, HalfOp::Add | HalfOp::Sub | HalfOp::Mul | HalfOp::Fma | HalfOp::Min | HalfOp::Max) { operand(b)? } else { vec![] };
        let zs = if op == HalfOp::Fma { operand(c)? } else { vec![] };
        let mut out = vec![];
        for (i, &x0) in xs.iter().enumerate() {
            let raw = [Some(x0), ys.get(i).copied(), zs.get(i).copied()];
            let mut v = raw;
            if mods.ftz {
                for x in v.iter_mut().flatten() {
                    *x = self.half_flush(fmt, *x)?;
                }
            }
            let wide = |k: usize| -> R<FloatValue<'ctx>> {
                match v[k] {
                    Some(x) => self.half_to_f64(fmt, x),
                    None => Err(LowerError::Internal("missing lane operand".into())),
                }
            };
            let x = v[0].ok_or_else(|| LowerError::Internal("missing lane operand".into()))?;
            let mut r = match op {
                HalfOp::Add => self.f64_to_half_rn(fmt, self.b.build_float_add(wide(0)?, wide(1)?, "")?)?,
                HalfOp::Sub => self.f64_to_half_rn(fmt, self.b.build_float_sub(wide(0)?, wide(1)?, "")?)?,
                HalfOp::Mul => self.f64_to_half_rn(fmt, self.b.build_float_mul(wide(0)?, wide(1)?, "")?)?,
                HalfOp::Fma => self.f64_to_half_rn(fmt, self.half_fma_round_to_odd(wide(0)?, wide(1)?, wide(2)?)?)?,
                HalfOp::Neg | HalfOp::Abs => {
                    let v = if op == HalfOp::Neg { self.b.build_xor(x, self.half_i16(0x8000), "")? } else { self.b.build_and(x, self.half_i16(0x7fff), "")? };
                    // A NaN gives the canonical NaN 0x7fff (NVIDIA silicon, sm_90; f16 and
                    // bf16, packed lanes too).
                    let nan = self.half_is_nan(fmt, x)?;
                    self.select(nan, self.half_i16(0x7fff), v)?
                }
                HalfOp::Min | HalfOp::Max => {
                    let y = v[1].ok_or_else(|| LowerError::Internal("missing lane operand".into()))?;
                    self.half_min_max(fmt, op == HalfOp::Max, mods, x, y)?
                }
                HalfOp::Tanh => self.f64_to_half_rn(fmt, self.tanh_f64(wide(0)?)?)?,
                HalfOp::Ex2 => self.f64_to_half_rn(fmt, self.ex2_f64(wide(0)?, 300.0)?)?,
            };
            if mods.ftz {
                r = self.half_flush(fmt, r)?;
            }
            r = self.half_clamp(fmt, r, mods.sat, mods.relu)?;
            if mods.oob {
                let mut hit = self.cx.bool_type().const_zero();
                for x in raw.iter().flatten() {
                    hit = self.b.build_or(hit, self.icmp(I::EQ, *x, self.half_i16(OOB_NAN))?, "")?;
                }
                r = self.select(hit, self.half_i16(0), r)?;
            }
            out.push(r);
        }
        let v = self.half_join_lanes(&out)?;
        self.write(dst, v, ty)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn mixed(&self, op: MixedOp, src_ty: ScalarType, rnd: Rounding, sat: bool, dst: RegId, a: Operand, b: Option<Operand>, c: Operand) -> R<()> {
        let (fmt, _) = lanes_of(src_ty)?;
        let f32t = self.cx.f32_type();
        let x = self.half_to_f32(fmt, self.read(a, src_ty)?)?;
        let z = self.read_float(c, ScalarType::F32)?;
        let v = match op {
            MixedOp::Add => self.rounded(RoundedOp::Add, rnd, &[x.into(), z.into()], f32t.into())?,
            MixedOp::Sub => self.rounded(RoundedOp::Sub, rnd, &[x.into(), z.into()], f32t.into())?,
            MixedOp::Fma => {
                let b = b.ok_or_else(|| LowerError::Internal("mixed fma without `b`".into()))?;
                let y = self.half_to_f32(fmt, self.read(b, src_ty)?)?;
                // The converted operands are exact, so the f32 fma is the ISA's
                // infinitely precise a*b + c with one rounding.
                self.rounded(RoundedOp::Fma, rnd, &[x.into(), y.into(), z.into()], f32t.into())?
            }
        };
        let bits = self.b.build_bit_cast(v, self.cx.i32_type(), "")?.into_int_value();
        let abs = self.b.build_and(bits, self.i32(0x7fff_ffff), "")?;
        let nan = self.icmp(I::UGT, abs, self.i32(0x7f80_0000))?;
        let r = if sat {
            let negative = self.icmp(I::UGE, bits, self.i32(0x8000_0000))?;
            let zero = self.b.build_or(negative, nan, "")?;
            let r = self.select(zero, self.i32(0), bits)?;
            let above = self.icmp(I::UGT, r, self.i32(0x3f80_0000))?;
            self.select(above, self.i32(0x3f80_0000), r)?
        } else {
            // The hardware's default NaN differs between x86-64 and AArch64: one encoding.
            self.select(nan, self.i32(0x7fff_ffff), bits)?
        };
        self.write(dst, r, ScalarType::F32)
    }

    /// `a cmp b` per lane of half type `ty` (`i1` per lane).
    fn half_compare_lanes(&self, cmp: CmpOp, ty: ScalarType, ftz: bool, a: Operand, b: Operand) -> R<Vec<IntValue<'ctx>>> {
        let (fmt, _) = lanes_of(ty)?;
        let (xs, ys) = (self.half_read_lanes(a, ty)?, self.half_read_lanes(b, ty)?);
        let mut out = vec![];
        for (x, y) in xs.into_iter().zip(ys) {
            let (x, y) = if ftz { (self.half_flush(fmt, x)?, self.half_flush(fmt, y)?) } else { (x, y) };
            let (x, y) = (self.half_to_f32(fmt, x)?, self.half_to_f32(fmt, y)?);
            out.push(self.b.build_float_compare(crate::lower::ops::compare::float_predicate(cmp), x, y, "")?);
        }
        Ok(out)
    }

    fn half_combine(&self, t: IntValue<'ctx>, combine: Option<(BoolOp, PredRef)>) -> R<IntValue<'ctx>> {
        match combine {
            None => Ok(t),
            Some((op, c)) => {
                let c = self.read_pred(c)?;
                self.bool_op(op, t, c)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn half_setp(
        &self,
        cmp: CmpOp,
        ty: ScalarType,
        ftz: bool,
        dst: RegId,
        dst_hi: Option<RegId>,
        a: Operand,
        b: Operand,
        combine: Option<(BoolOp, PredRef)>,
    ) -> R<()> {
        let t = self.half_compare_lanes(cmp, ty, ftz, a, b)?;
        for (lane, d) in [Some(dst), dst_hi].into_iter().enumerate() {
            if let (Some(d), Some(t)) = (d, t.get(lane)) {
                let v = self.half_combine(*t, combine)?;
                self.write(d, v, ScalarType::Pred)?;
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub fn half_set(
        &self,
        cmp: CmpOp,
        dst_ty: ScalarType,
        src_ty: ScalarType,
        ftz: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
        combine: Option<(BoolOp, PredRef)>,
    ) -> R<()> {
        let half_src = lanes_of(src_ty).is_ok();
        let t = if half_src { self.half_compare_lanes(cmp, src_ty, ftz, a, b)? } else { vec![self.compare(cmp, src_ty, ftz, a, b)?] };
        let mut lanes = vec![];
        for t in t.iter() {
            lanes.push(self.half_combine(*t, combine)?);
        }
        let v = match lanes_of(dst_ty) {
            // 1.0 or 0.0 in the half format, per lane.
            Ok((fmt, _)) => {
                let mut out = vec![];
                for l in &lanes {
                    out.push(self.select(*l, self.half_i16(layout(fmt).one), self.half_i16(0))?);
                }
                self.half_join_lanes(&out)?
            }
            // Integer destination: all ones per 16-bit lane of an `x2` source, else all ones
            // of the destination width.
            Err(_) if lanes.len() == 2 => {
                let mut out = vec![];
                for l in &lanes {
                    out.push(self.select(*l, self.half_i16(0xffff), self.half_i16(0))?);
                }
                self.half_join_lanes(&out)?
            }
            Err(_) => {
                let t = self.int_ty(dst_ty.bits());
                self.select(lanes[0], t.const_all_ones(), t.const_zero())?
            }
        };
        self.write(dst, v, dst_ty)
    }
}

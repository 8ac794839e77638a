//! `.f32`/`.f64` floating-point arithmetic (ISA 9.2 §9.7.3): rounding modes, `.ftz`, `.sat`,
//! NaN results, the approximate instructions and `testp`/`copysign`/`min`/`max`.
//!
//! Everything on the `.rn` and `.ftz` paths is straight-line code (compares, selects and bit
//! operations) that LLVM can vectorize; only directed rounding calls the helpers of
//! `rounding.rs`. The approximate transcendental instructions (`sin cos lg2 ex2 tanh`) are
//! polynomials evaluated in f64 with plain IEEE additions and multiplications (no libm, no
//! fused operations), so x86-64 and AArch64 give the same bits.
//!
//! Rules shared by the instructions (documented on `ir::Op::FloatBinary`):
//! - `.ftz` flushes subnormal inputs to a zero of the same sign before the operation, and a
//!   result whose IEEE rounding (with gradual underflow) is subnormal to a zero of its sign.
//! - `.sat` clamps to [+0.0, 1.0]; NaN and -0.0 become +0.0.
//! - `.f32` NaN results are the canonical NaN `0x7fffffff` (what NVIDIA GPUs produce), also
//!   for `abs` and `neg` of a NaN. `.f64` NaN results follow NVIDIA silicon (sm_90): a NaN
//!   operand's payload, quieted, where the operand that wins is `b`, then `a` for two
//!   operands (`a`, then `b` for `div`) and `b`, then `c`, then `a` for `fma`/`mad` (`add.f64` of two NaNs gives `b`'s);
//!   invalid operations (`inf - inf`, `0 * inf`, `sqrt` of a negative number) give
//!   `0xfff8000000000000`; `neg.f64` leaves a NaN unchanged and `abs.f64` quiets it (sign
//!   kept). A fixed choice keeps the result the same on every host, whatever the hardware's
//!   NaN propagation and LLVM's operand order.

use crate::ir::{FloatBinOp, FloatClass, FloatUnOp, Op, Operand, RegId, Rounding, ScalarType};
use crate::lower::ops::rounding::RoundedOp;
use crate::lower::thread::FnCx;
use crate::lower::R;
use inkwell::types::FloatType;
use inkwell::values::{FloatValue, IntValue};
use inkwell::{FloatPredicate, IntPredicate};

const F32_CANONICAL_NAN: u64 = 0x7fff_ffff;
/// The NaN of invalid `.f64` operations (NVIDIA silicon, sm_90).
const F64_CANONICAL_NAN: u64 = 0xfff8_0000_0000_0000;
/// The NaN of the `.f64` "gross" approximations (`rcp/rsqrt.approx.ftz.f64`).
const F64_GROSS_NAN: u64 = 0x7fff_ffff_0000_0000;

/// Terms of the Taylor polynomial of `ex2_f64` (degree 9).
const EX2_TERMS: usize = 10;

/// Taylor coefficients 1/n! (n = 0..=14), for the polynomials below.
const INV_FACTORIAL: [f64; 15] = [
    1.0,
    1.0,
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40320.0,
    1.0 / 362880.0,
    1.0 / 3628800.0,
    1.0 / 39916800.0,
    1.0 / 479001600.0,
    1.0 / 6227020800.0,
    1.0 / 87178291200.0,
];

/// Adding and subtracting this rounds an f64 of magnitude below 2^51 to an integer, and
/// leaves that integer (two's complement, modulo 2^32) in the low bits of the sum.
const ROUNDING_MAGIC: f64 = 6755399441055744.0; // 1.5 * 2^52

impl<'ctx> FnCx<'ctx, '_> {
    /// `.f64` instructions of a `map_f64_to_f32` target run in single precision.
    fn fp_runs_as_f32(&self, ty: ScalarType) -> bool {
        ty == ScalarType::F64 && self.ml.ir.targets.iter().any(|t| t == "map_f64_to_f32")
    }

    /// An operand in the working format of `ty`.
    fn fp_read_work(&self, op: Operand, ty: ScalarType) -> R<FloatValue<'ctx>> {
        let x = self.read_float(op, ty)?;
        if self.fp_runs_as_f32(ty) {
            return Ok(self.b.build_float_trunc(x, self.cx.f32_type(), "")?);
        }
        Ok(x)
    }

    fn fp_write_work(&self, dst: RegId, v: FloatValue<'ctx>, ty: ScalarType) -> R<()> {
        let v = if self.fp_runs_as_f32(ty) { self.b.build_float_ext(v, self.cx.f64_type(), "")? } else { v };
        self.write_float(dst, v, ty)
    }

    fn fp_bits_of(&self, x: FloatValue<'ctx>) -> R<IntValue<'ctx>> {
        let w = x.get_type().get_bit_width();
        Ok(self.b.build_bit_cast(x, self.int_ty(w), "")?.into_int_value())
    }

    fn fp_float_of(&self, bits: IntValue<'ctx>, t: FloatType<'ctx>) -> R<FloatValue<'ctx>> {
        Ok(self.b.build_bit_cast(bits, t, "")?.into_float_value())
    }

    fn fp_fconst(&self, t: FloatType<'ctx>, v: f64) -> FloatValue<'ctx> {
        t.const_float(v)
    }

    fn fp_fbits_const(&self, t: FloatType<'ctx>, bits: u64) -> R<FloatValue<'ctx>> {
        let w = t.get_bit_width();
        self.fp_float_of(self.int_ty(w).const_int(bits, false), t)
    }

    fn fp_fcmp(&self, p: FloatPredicate, a: FloatValue<'ctx>, b: FloatValue<'ctx>) -> R<IntValue<'ctx>> {
        Ok(self.b.build_float_compare(p, a, b, "")?)
    }

    fn fp_fselect(&self, c: IntValue<'ctx>, a: FloatValue<'ctx>, b: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        Ok(self.b.build_select(c, a, b, "")?.into_float_value())
    }

    fn fp_is_nan(&self, x: FloatValue<'ctx>) -> R<IntValue<'ctx>> {
        self.fp_fcmp(FloatPredicate::UNO, x, x)
    }

    fn fp_fabs(&self, x: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        Ok(self.call_intrinsic("llvm.fabs", &[x.get_type().into()], &[x.into()])?.into_float_value())
    }

    /// (exponent mask, sign mask, quiet bit) of a format.
    fn fp_masks(t: FloatType<'ctx>) -> (u64, u64, u64) {
        if t.get_bit_width() == 64 {
            (0x7ff0_0000_0000_0000, 1 << 63, 1 << 51)
        } else {
            (0x7f80_0000, 1 << 31, 1 << 22)
        }
    }

    /// A subnormal `x` becomes a zero of the same sign (compare of the exponent bits + select).
    fn fp_flush(&self, x: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        let t = x.get_type();
        let it = self.int_ty(t.get_bit_width());
        let (exp, sign, _) = Self::fp_masks(t);
        let bits = self.fp_bits_of(x)?;
        let e = self.b.build_and(bits, it.const_int(exp, false), "")?;
        let tiny = self.icmp(IntPredicate::EQ, e, it.const_zero())?;
        let signed_zero = self.b.build_and(bits, it.const_int(sign, false), "")?;
        self.fp_float_of(self.select(tiny, signed_zero, bits)?, t)
    }

    fn fp_flush_if(&self, ftz: bool, x: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        if ftz {
            self.fp_flush(x)
        } else {
            Ok(x)
        }
    }

    /// The NaN rule of the module doc: `r` unless it is NaN.
    fn fp_fix_nan(&self, r: FloatValue<'ctx>, inputs: &[FloatValue<'ctx>]) -> R<FloatValue<'ctx>> {
        let t = r.get_type();
        let nan = if t.get_bit_width() == 32 {
            self.fp_fbits_const(t, F32_CANONICAL_NAN)?
        } else {
            // The operand that wins is folded in last: `b` over `a`; `b` over `c` over `a`.
            let order: Vec<FloatValue<'ctx>> = match inputs {
                [a, b] => vec![*a, *b],
                [a, b, c] => vec![*a, *c, *b],
                _ => inputs.to_vec(),
            };
            let mut nan = self.fp_fbits_const(t, F64_CANONICAL_NAN)?;
            for x in order.iter() {
                nan = self.fp_fselect(self.fp_is_nan(*x)?, self.fp_quiet(*x)?, nan)?;
            }
            nan
        };
        self.fp_fselect(self.fp_is_nan(r)?, nan, r)
    }

    /// `x` with its quiet bit set (a NaN `x` quieted).
    pub(crate) fn fp_quiet(&self, x: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        let t = x.get_type();
        let (_, _, quiet) = Self::fp_masks(t);
        let bits = self.b.build_or(self.fp_bits_of(x)?, self.int_ty(t.get_bit_width()).const_int(quiet, false), "")?;
        self.fp_float_of(bits, t)
    }

    /// `x`, quieted if it is a NaN.
    pub(crate) fn fp_quieted(&self, x: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        self.fp_fselect(self.fp_is_nan(x)?, self.fp_quiet(x)?, x)
    }

    /// `.sat`: clamp to [+0.0, 1.0]; NaN and -0.0 give +0.0.
    fn fp_saturate(&self, r: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        let t = r.get_type();
        let above_zero = self.fp_fcmp(FloatPredicate::OGT, r, self.fp_fconst(t, 0.0))?;
        let r = self.fp_fselect(above_zero, r, self.fp_fconst(t, 0.0))?;
        let below_one = self.fp_fcmp(FloatPredicate::OLT, r, self.fp_fconst(t, 1.0))?;
        self.fp_fselect(below_one, r, self.fp_fconst(t, 1.0))
    }

    /// The common tail of an arithmetic result: `.ftz` flush, NaN rule, `.sat`.
    fn fp_finish(&self, r: FloatValue<'ctx>, ftz: bool, sat: bool, inputs: &[FloatValue<'ctx>]) -> R<FloatValue<'ctx>> {
        let r = self.fp_flush_if(ftz, r)?;
        let r = self.fp_fix_nan(r, inputs)?;
        if sat {
            self.fp_saturate(r)
        } else {
            Ok(r)
        }
    }

    fn fp_rounded_float(&self, op: RoundedOp, rnd: Rounding, args: &[FloatValue<'ctx>]) -> R<FloatValue<'ctx>> {
        let t = args[0].get_type();
        let args: Vec<_> = args.iter().map(|a| (*a).into()).collect();
        Ok(self.rounded(op, rnd, &args, t.into())?.into_float_value())
    }

    /// The operands lane by lane: one lane, or for `.f32x2` the two `.f32` halves of each
    /// `.b64` operand (lane 0 in the low bits).
    fn fp_lanes(&self, ops: &[Operand], ty: ScalarType, packed: bool) -> R<Vec<Vec<FloatValue<'ctx>>>> {
        if !packed {
            return Ok(vec![ops.iter().map(|o| self.fp_read_work(*o, ty)).collect::<R<Vec<_>>>()?]);
        }
        let i32t = self.cx.i32_type();
        let f32t = self.cx.f32_type();
        let words = ops.iter().map(|o| self.read(*o, ScalarType::B64)).collect::<R<Vec<_>>>()?;
        (0..2u64)
            .map(|lane| {
                words
                    .iter()
                    .map(|w| {
                        let shifted = self.b.build_right_shift(*w, self.i64(32 * lane), false, "")?;
                        self.fp_float_of(self.b.build_int_truncate(shifted, i32t, "")?, f32t)
                    })
                    .collect()
            })
            .collect()
    }

    fn fp_write_lanes(&self, dst: RegId, lanes: &[FloatValue<'ctx>], ty: ScalarType, packed: bool) -> R<()> {
        if !packed {
            return self.fp_write_work(dst, lanes[0], ty);
        }
        let i64t = self.int_ty(64);
        let lo = self.b.build_int_z_extend(self.fp_bits_of(lanes[0])?, i64t, "")?;
        let hi = self.b.build_int_z_extend(self.fp_bits_of(lanes[1])?, i64t, "")?;
        let hi = self.b.build_left_shift(hi, self.i64(32), "")?;
        self.write(dst, self.b.build_or(lo, hi, "")?, ScalarType::B64)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn float_binary(&self, op: FloatBinOp, ty: ScalarType, rnd: Rounding, ftz: bool, sat: bool, packed: bool, dst: RegId, a: Operand, b: Operand) -> R<()> {
        let lanes = self.fp_lanes(&[a, b], ty, packed)?;
        let results = lanes.iter().map(|l| self.fp_binary_value(op, rnd, ftz, sat, l[0], l[1])).collect::<R<Vec<_>>>()?;
        self.fp_write_lanes(dst, &results, ty, packed)
    }

    fn fp_binary_value(&self, op: FloatBinOp, rnd: Rounding, ftz: bool, sat: bool, x: FloatValue<'ctx>, y: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        if op == FloatBinOp::CopySign {
            // A bit operation: NaNs keep their payload.
            let it = self.int_ty(x.get_type().get_bit_width());
            let (_, sign, _) = Self::fp_masks(x.get_type());
            let s = self.b.build_and(self.fp_bits_of(x)?, it.const_int(sign, false), "")?;
            let m = self.b.build_and(self.fp_bits_of(y)?, it.const_int(!sign & (sign | (sign - 1)), false), "")?;
            return self.fp_float_of(self.b.build_or(s, m, "")?, x.get_type());
        }
        let (x, y) = (self.fp_flush_if(ftz, x)?, self.fp_flush_if(ftz, y)?);
        let r = match op {
            FloatBinOp::Add => self.fp_rounded_float(RoundedOp::Add, rnd, &[x, y])?,
            FloatBinOp::Sub => self.fp_rounded_float(RoundedOp::Sub, rnd, &[x, y])?,
            FloatBinOp::Mul => self.fp_rounded_float(RoundedOp::Mul, rnd, &[x, y])?,
            FloatBinOp::Div | FloatBinOp::DivFull => self.fp_rounded_float(RoundedOp::Div, rnd, &[x, y])?,
            FloatBinOp::DivApprox => {
                // a * (1/b), with the reciprocal of |b| > 2^126 a signed zero (ISA: the
                // quotient is then a signed zero, or NaN for an infinite `a`).
                // The reciprocal and the product in f64: a subnormal divisor (no `.ftz`) has a
                // finite reciprocal there, so `0 / tiny` is a zero, as on the GPU.
                let t = x.get_type();
                let f64t = self.cx.f64_type();
                let wide = |v: FloatValue<'ctx>| -> R<FloatValue<'ctx>> {
                    if t.get_bit_width() == 64 {
                        Ok(v)
                    } else {
                        Ok(self.b.build_float_ext(v, f64t, "")?)
                    }
                };
                let (xw, yw) = (wide(x)?, wide(y)?);
                let recip = self.b.build_float_div(self.fp_fconst(f64t, 1.0), yw, "")?;
                let huge = self.fp_fcmp(FloatPredicate::OGT, self.fp_fabs(y)?, self.fp_fconst(t, 2f64.powi(126)))?;
                let zero = self.fp_float_of(self.b.build_and(self.fp_bits_of(recip)?, self.int_ty(64).const_int(1 << 63, false), "")?, f64t)?;
                let recip = self.fp_fselect(huge, zero, recip)?;
                let q = self.b.build_float_mul(xw, recip, "")?;
                if t.get_bit_width() == 64 {
                    q
                } else {
                    self.b.build_float_trunc(q, t, "")?
                }
            }
            FloatBinOp::CopySign => unreachable!("handled above"),
        };
        // `div.f64` of two NaNs gives `a`'s (the other binary operations `b`'s).
        let nan_order = if matches!(op, FloatBinOp::Div | FloatBinOp::DivFull) { [y, x] } else { [x, y] };
        self.fp_finish(r, ftz, sat, &nan_order)
    }

    pub fn float_unary(&self, op: FloatUnOp, ty: ScalarType, rnd: Rounding, ftz: bool, dst: RegId, a: Operand) -> R<()> {
        let x = self.fp_read_work(a, ty)?;
        let t = x.get_type();
        let is_f64 = t.get_bit_width() == 64;
        if is_f64 && ftz && matches!(op, FloatUnOp::RcpApprox | FloatUnOp::RsqrtApprox) {
            let v = self.fp_gross_f64(op == FloatUnOp::RsqrtApprox, x)?;
            return self.fp_write_work(dst, v, ty);
        }
        let x = self.fp_flush_if(ftz, x)?;
        let f64t = self.cx.f64_type();
        let v = match op {
            FloatUnOp::Neg | FloatUnOp::Abs => {
                let v = if op == FloatUnOp::Neg { self.b.build_float_neg(x, "")? } else { self.fp_fabs(x)? };
                // A NaN: `.f32` gives the canonical NaN, `neg.f64` the NaN unchanged and
                // `abs.f64` the NaN quieted with its sign (NVIDIA silicon, sm_90).
                let nan = if !is_f64 {
                    self.fp_fbits_const(t, F32_CANONICAL_NAN)?
                } else if op == FloatUnOp::Neg {
                    x
                } else {
                    let quiet = self.b.build_or(self.fp_bits_of(x)?, self.int_ty(64).const_int(Self::fp_masks(t).2, false), "")?;
                    self.fp_float_of(quiet, t)?
                };
                self.fp_fselect(self.fp_is_nan(x)?, nan, v)?
            }
            FloatUnOp::Sqrt => self.fp_finish(self.fp_rounded_float(RoundedOp::Sqrt, rnd, &[x])?, ftz, false, &[x])?,
            FloatUnOp::Rcp => self.fp_finish(self.fp_rounded_float(RoundedOp::Div, rnd, &[self.fp_fconst(t, 1.0), x])?, ftz, false, &[x])?,
            // The approximations below are at least as accurate as the ISA's bounds.
            FloatUnOp::SqrtApprox => self.fp_finish(self.fp_rounded_float(RoundedOp::Sqrt, Rounding::NearestEven, &[x])?, ftz, false, &[x])?,
            FloatUnOp::RcpApprox => self.fp_finish(self.b.build_float_div(self.fp_fconst(t, 1.0), x, "")?, ftz, false, &[x])?,
            // `.f32`: a correctly rounded square root and division in f32, each within half
            // a unit: together a relative error below 2^-23 (the ISA allows 2^-22.9), the
            // same bits on every CPU, and single-precision vector operations (in f64, twice
            // the vector registers and the slowest divisions).
            FloatUnOp::RsqrtApprox => {
                let s = self.call_intrinsic("llvm.sqrt", &[x.get_type().into()], &[x.into()])?.into_float_value();
                let r = self.b.build_float_div(self.fp_fconst(t, 1.0), s, "")?;
                self.fp_finish(r, ftz, false, &[x])?
            }
            FloatUnOp::Ex2 if !is_f64 => self.fp_finish(self.ex2_f32(x)?, ftz, false, &[x])?,
            FloatUnOp::Sin | FloatUnOp::Cos | FloatUnOp::Lg2 | FloatUnOp::Ex2 | FloatUnOp::Tanh => {
                let wide = if is_f64 { x } else { self.b.build_float_ext(x, f64t, "")? };
                let r = match op {
                    FloatUnOp::Sin => self.fp_sin_cos_f64(wide, false)?,
                    FloatUnOp::Cos => self.fp_sin_cos_f64(wide, true)?,
                    FloatUnOp::Lg2 => self.fp_lg2_f64(wide)?,
                    FloatUnOp::Ex2 => self.ex2_f64(wide, 160.0)?,
                    _ => self.tanh_f64(wide)?,
                };
                let r = if is_f64 { r } else { self.b.build_float_trunc(r, t, "")? };
                self.fp_finish(r, ftz, false, &[x])?
            }
        };
        self.fp_write_work(dst, v, ty)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn fma(&self, ty: ScalarType, rnd: Rounding, ftz: bool, sat: bool, fused: bool, packed: bool, dst: RegId, a: Operand, b: Operand, c: Operand) -> R<()> {
        let in_binade = if ty == ScalarType::F32 && fused && !packed && rnd != Rounding::NearestEven { DirectedFmaInBinade::find(self, a, b, c) } else { None };
        let mut results = vec![];
        for lane in self.fp_lanes(&[a, b, c], ty, packed)? {
            let (x, y, z) = (self.fp_flush_if(ftz, lane[0])?, self.fp_flush_if(ftz, lane[1])?, self.fp_flush_if(ftz, lane[2])?);
            if let Some(f) = &in_binade {
                // A normal value, never NaN: nothing to flush or canonicalize.
                let r = f.emit(self, if f.unit_operand == 0 { x } else { y }, rnd)?;
                results.push(if sat { self.fp_saturate(r)? } else { r });
                continue;
            }
            let r = if fused || x.get_type().get_bit_width() != 32 {
                self.fp_rounded_float(RoundedOp::Fma, rnd, &[x, y, z])?
            } else {
                self.fp_legacy_mad_f32(x, y, z, ftz)?
            };
            results.push(self.fp_finish(r, ftz, sat, &[x, y, z])?);
        }
        self.fp_write_lanes(dst, &results, ty, packed)
    }

    /// Whether operand `op` is a `.f32` value in [0, 1]: the result of `cvt.sat.f32.f32`
    /// (saturation gives [+0, 1], a NaN +0), its only definition.
    fn fp_in_unit_interval(&self, op: Operand) -> bool {
        matches!(self.only_definition(op), Some(Op::Cvt { dst_ty: ScalarType::F32, src_ty: ScalarType::F32, sat: true, .. }))
    }

    /// The `.f32` constant operand `op` is: an immediate, or a register whose only
    /// definition moves one into it.
    fn fp_constant_f32(&self, op: Operand) -> Option<f32> {
        let bits = match op {
            Operand::Imm(v) => v,
            _ => match self.only_definition(op)? {
                Op::Mov { ty, src: Operand::Imm(v), .. } if ty.bits() == 32 => *v,
                _ => return None,
            },
        };
        Some(f32::from_bits(bits as u32))
    }

    /// sm_1x `mad.f32` (ISA 1.4 `mad`): the product of `a` and `b` in double precision with
    /// its mantissa truncated to 24 bits (the exponent is not clamped), then `+ c` rounded to
    /// nearest once; with `c == ±0` it is `mul.rn` followed by `add.rn`.
    fn fp_legacy_mad_f32(&self, a: FloatValue<'ctx>, b: FloatValue<'ctx>, c: FloatValue<'ctx>, ftz: bool) -> R<FloatValue<'ctx>> {
        let f32t = a.get_type();
        let f64t = self.cx.f64_type();
        let i64t = self.int_ty(64);
        let (wa, wb, wc) = (self.b.build_float_ext(a, f64t, "")?, self.b.build_float_ext(b, f64t, "")?, self.b.build_float_ext(c, f64t, "")?);
        // Exact: two 24-bit mantissas fit in 53 bits.
        let p = self.b.build_float_mul(wa, wb, "")?;
        let pbits = self.fp_bits_of(p)?;
        let truncated = self.b.build_and(pbits, i64t.const_int(!((1u64 << 29) - 1), false), "")?;
        // Infinities and NaNs keep their bits (masking could turn a NaN into an infinity).
        let finite = self.fp_fcmp(FloatPredicate::OLT, self.fp_fabs(p)?, self.fp_fconst(f64t, f64::INFINITY))?;
        let p = self.fp_float_of(self.select(finite, truncated, pbits)?, f64t)?;
        // p + c to nearest with one rounding: the f64 sum rounded to odd, then narrowed.
        let s = self.b.build_float_add(p, wc, "")?;
        let bv = self.b.build_float_sub(s, p, "")?;
        let av = self.b.build_float_sub(s, bv, "")?;
        let err = self.b.build_float_add(self.b.build_float_sub(p, av, "")?, self.b.build_float_sub(wc, bv, "")?, "")?;
        let sbits = self.fp_bits_of(s)?;
        let inexact = self.fp_fcmp(FloatPredicate::ONE, err, self.fp_fconst(f64t, 0.0))?;
        let even = self.icmp(IntPredicate::EQ, self.b.build_and(sbits, i64t.const_int(1, false), "")?, i64t.const_zero())?;
        // Move to the odd neighbour on the side of the exact sum.
        let same_sign = self.b.build_not(
            self.b.build_xor(
                self.fp_fcmp(FloatPredicate::OLT, s, self.fp_fconst(f64t, 0.0))?,
                self.fp_fcmp(FloatPredicate::OLT, err, self.fp_fconst(f64t, 0.0))?,
                "",
            )?,
            "",
        )?;
        let step = self.select(same_sign, i64t.const_int(1, false), i64t.const_all_ones())?;
        let odd = self.b.build_int_add(sbits, step, "")?;
        let adjust = self.b.build_and(inexact, even, "")?;
        let s = self.fp_float_of(self.select(adjust, odd, sbits)?, f64t)?;
        let general = self.b.build_float_trunc(s, f32t, "")?;
        // c == ±0: separate mul and add.
        let product = self.fp_flush_if(ftz, self.b.build_float_mul(a, b, "")?)?;
        let separate = self.b.build_float_add(product, c, "")?;
        let c_zero = self.fp_fcmp(FloatPredicate::OEQ, c, self.fp_fconst(f32t, 0.0))?;
        self.fp_fselect(c_zero, separate, general)
    }

    pub fn float_min_max(&self, op: &Op) -> R<()> {
        let &Op::FloatMinMax { max, ty, ftz, nan, abs, xorsign, dst, a, b, c } = op else { unreachable!("float_min_max is called with Op::FloatMinMax") };
        let x = self.fp_flush_if(ftz, self.fp_read_work(a, ty)?)?;
        let y = self.fp_flush_if(ftz, self.fp_read_work(b, ty)?)?;
        let z = match c {
            Some(c) => Some(self.fp_flush_if(ftz, self.fp_read_work(c, ty)?)?),
            None => None,
        };
        let t = x.get_type();
        let it = self.int_ty(t.get_bit_width());
        let (_, sign, _) = Self::fp_masks(t);
        let sign_of = |v: FloatValue<'ctx>| -> R<IntValue<'ctx>> { Ok(self.b.build_and(self.fp_bits_of(v)?, it.const_int(sign, false), "")?) };
        let xor_sign = if xorsign { Some(self.b.build_xor(sign_of(x)?, sign_of(y)?, "")?) } else { None };
        let mag = |v: FloatValue<'ctx>| if abs { self.fp_fabs(v) } else { Ok(v) };
        let (x, y) = (mag(x)?, mag(y)?);
        let mut r = self.fp_min_max_pair(max, nan, x, y)?;
        if let Some(z) = z {
            r = self.fp_min_max_pair(max, nan, r, mag(z)?)?;
        }
        if let Some(s) = xor_sign {
            let cleared = self.b.build_and(self.fp_bits_of(r)?, it.const_int(!sign & (sign | (sign - 1)), false), "")?;
            let signed = self.fp_float_of(self.b.build_or(cleared, s, "")?, t)?;
            r = self.fp_fselect(self.fp_is_nan(r)?, r, signed)?;
        }
        self.fp_write_work(dst, r, ty)
    }

    /// Two-input `min`/`max` with -0.0 < +0.0 and the ISA's NaN rules (branch-free).
    fn fp_min_max_pair(&self, max: bool, nan_wins: bool, x: FloatValue<'ctx>, y: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        let t = x.get_type();
        let (xb, yb) = (self.fp_bits_of(x)?, self.fp_bits_of(y)?);
        // Equal values have equal bits except ±0: min takes the sign if either has it, max not.
        let tie = if max { self.b.build_and(xb, yb, "")? } else { self.b.build_or(xb, yb, "")? };
        let tie = self.fp_float_of(tie, t)?;
        // `x` where it wins, else `y`: one `maxps`/`minps` on x86 (which gives its second
        // operand for a NaN); then `x` where `y` is a NaN, and the tie where they are equal.
        // A NaN `x` loses to any number `y`; two NaNs give `x`, then the module's NaN rule.
        let wins = if max { FloatPredicate::OGT } else { FloatPredicate::OLT };
        let r = self.fp_fselect(self.fp_fcmp(wins, x, y)?, x, y)?;
        if nan_wins {
            let any = self.b.build_or(self.fp_is_nan(x)?, self.fp_is_nan(y)?, "")?;
            let r = self.fp_fselect(self.fp_fcmp(FloatPredicate::OEQ, x, y)?, tie, r)?;
            let canonical = if t.get_bit_width() == 32 { F32_CANONICAL_NAN } else { F64_CANONICAL_NAN };
            return self.fp_fselect(any, self.fp_fbits_const(t, canonical)?, r);
        }
        let r = self.fp_fselect(self.fp_is_nan(y)?, x, r)?;
        let r = self.fp_fselect(self.fp_fcmp(FloatPredicate::OEQ, x, y)?, tie, r)?;
        // Both NaN: the NaN rule of the module doc.
        self.fp_fix_nan(r, &[x, y])
    }

    pub fn testp(&self, class: FloatClass, ty: ScalarType, dst: RegId, a: Operand) -> R<()> {
        let x = self.read_float(a, ty)?;
        let t = x.get_type();
        let it = self.int_ty(t.get_bit_width());
        let (exp, _, _) = Self::fp_masks(t);
        let e = self.b.build_and(self.fp_bits_of(x)?, it.const_int(exp, false), "")?;
        let abs = self.fp_fabs(x)?;
        let inf = self.fp_fconst(t, f64::INFINITY);
        let exp_zero = self.icmp(IntPredicate::EQ, e, it.const_zero())?;
        let nonzero = self.fp_fcmp(FloatPredicate::ONE, abs, self.fp_fconst(t, 0.0))?;
        let v = match class {
            FloatClass::Finite => self.fp_fcmp(FloatPredicate::OLT, abs, inf)?,
            FloatClass::Infinite => self.fp_fcmp(FloatPredicate::OEQ, abs, inf)?,
            FloatClass::Number => self.fp_fcmp(FloatPredicate::ORD, x, x)?,
            FloatClass::NotANumber => self.fp_fcmp(FloatPredicate::UNO, x, x)?,
            // Normal numbers and ±0.
            FloatClass::Normal => {
                self.b.build_and(self.fp_fcmp(FloatPredicate::OLT, abs, inf)?, self.b.build_not(self.b.build_and(exp_zero, nonzero, "")?, "")?, "")?
            }
            FloatClass::Subnormal => self.b.build_and(exp_zero, nonzero, "")?,
        };
        self.write(dst, v, ScalarType::Pred)
    }

    /// `rcp.approx.ftz.f64` / `rsqrt.approx.ftz.f64`: the upper 32 bits of `x` (1.11.20)
    /// flushed if subnormal, the reciprocal (square root) rounded to nearest in that
    /// format, a subnormal result flushed, the low 32 bits zero; NaN → `0x7fffffff00000000`.
    fn fp_gross_f64(&self, rsqrt: bool, x: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        let f64t = x.get_type();
        let i64t = self.int_ty(64);
        let high_mask = i64t.const_int(0xffff_ffff_0000_0000, false);
        let upper = self.fp_float_of(self.b.build_and(self.fp_bits_of(x)?, high_mask, "")?, f64t)?;
        let upper = self.fp_flush(upper)?;
        let base = if rsqrt { self.call_intrinsic("llvm.sqrt", &[f64t.into()], &[upper.into()])?.into_float_value() } else { upper };
        let r = self.b.build_float_div(self.fp_fconst(f64t, 1.0), base, "")?;
        // Round the mantissa to 20 bits, to nearest even (a carry may reach the exponent).
        let bits = self.fp_bits_of(r)?;
        let lsb = self.b.build_and(self.b.build_right_shift(bits, i64t.const_int(32, false), false, "")?, i64t.const_int(1, false), "")?;
        let bias = self.b.build_int_add(i64t.const_int(0x7fff_ffff, false), lsb, "")?;
        let rounded = self.b.build_and(self.b.build_int_add(bits, bias, "")?, high_mask, "")?;
        let is_inf = self.fp_fcmp(FloatPredicate::OEQ, self.fp_fabs(r)?, self.fp_fconst(f64t, f64::INFINITY))?;
        let rounded = self.select(is_inf, bits, rounded)?;
        let v = self.fp_flush(self.fp_float_of(rounded, f64t)?)?;
        self.fp_fselect(self.fp_is_nan(r)?, self.fp_fbits_const(f64t, F64_GROSS_NAN)?, v)
    }

    /// Horner evaluation of `Σ coeffs[i] x^i` with separate multiply and add.
    fn fp_poly(&self, x: FloatValue<'ctx>, coeffs: &[f64]) -> R<FloatValue<'ctx>> {
        let t = x.get_type();
        let mut acc = self.fp_fconst(t, *coeffs.last().unwrap_or(&0.0));
        for &c in coeffs.iter().rev().skip(1) {
            acc = self.b.build_float_add(self.b.build_float_mul(acc, x, "")?, self.fp_fconst(t, c), "")?;
        }
        Ok(acc)
    }

    /// `select(x > hi, hi, select(x < lo, lo, x))`; a NaN stays NaN.
    fn fp_clamp(&self, x: FloatValue<'ctx>, lo: f64, hi: f64) -> R<FloatValue<'ctx>> {
        let t = x.get_type();
        let x = self.fp_fselect(self.fp_fcmp(FloatPredicate::OGT, x, self.fp_fconst(t, hi))?, self.fp_fconst(t, hi), x)?;
        self.fp_fselect(self.fp_fcmp(FloatPredicate::OLT, x, self.fp_fconst(t, lo))?, self.fp_fconst(t, lo), x)
    }

    /// `x` rounded to the nearest integer (`|x| < 2^51`), and that integer's low 32 bits.
    fn fp_round_to_int(&self, x: FloatValue<'ctx>) -> R<(FloatValue<'ctx>, IntValue<'ctx>)> {
        let t = x.get_type();
        let magic = self.fp_fconst(t, ROUNDING_MAGIC);
        let shifted = self.b.build_float_add(x, magic, "")?;
        let k = self.b.build_float_sub(shifted, magic, "")?;
        let low = self.b.build_int_truncate(self.fp_bits_of(shifted)?, self.cx.i32_type(), "")?;
        Ok((k, low))
    }

    /// 2^x in f64 for `x` in [-limit, limit] (clamped; a NaN stays NaN): 2^k · e^(f·ln 2)
    /// with `k` the nearest integer and a Taylor polynomial of `EX2_TERMS` terms. Every
    /// caller rounds the result to f32 or narrower (`tanh.approx`, the half forms;
    /// `ex2.approx.f32` has its own f32 evaluation, `ex2_f32`): for |f·ln 2| ≤ 0.35 the
    /// remainder is below 1e-11 relative, far under half an f32 ulp (3e-8).
    pub(crate) fn ex2_f64(&self, x: FloatValue<'ctx>, limit: f64) -> R<FloatValue<'ctx>> {
        let t = x.get_type();
        let x = self.fp_clamp(x, -limit, limit)?;
        let (k, kbits) = self.fp_round_to_int(x)?;
        let f = self.b.build_float_sub(x, k, "")?;
        let g = self.b.build_float_mul(f, self.fp_fconst(t, std::f64::consts::LN_2), "")?;
        let p = self.fp_poly(g, &INV_FACTORIAL[..EX2_TERMS])?;
        // 2^k with k in [-limit, limit] (|k| < 1023) built from its exponent bits.
        let i64t = self.int_ty(64);
        let k64 = self.b.build_int_s_extend(kbits, i64t, "")?;
        let e = self.b.build_left_shift(self.b.build_int_add(k64, i64t.const_int(1023, false), "")?, i64t.const_int(52, false), "")?;
        let scale = self.fp_float_of(e, t)?;
        Ok(self.b.build_float_mul(p, scale, "")?)
    }

    /// `ex2.approx.f32` in f32 arithmetic (twice the vector lanes of `ex2_f64`, where thread
    /// loops vectorize): 2^x = 2^k · 2^f with `k` the nearest integer (x clamped to
    /// [-152, 130], beyond which the result rounds to 0 or overflows anyway; a NaN stays
    /// NaN) and f = x - k in [-0.5, 0.5] (exact), 2^f by its Taylor polynomial in f·ln 2 to
    /// the 7th power (remainder below 6e-9, 0.1 ulp), evaluated with separate multiplies
    /// and adds (the same bits on every CPU; below 1 ulp with their roundings), then scaled
    /// by 2^k as two powers of two that are both normal, so that only the last multiply
    /// rounds (into the subnormals or to infinity). Within 2 ulp of 2^x everywhere, as the
    /// ISA requires (checked against a double-precision 2^x for every f32 input, with and
    /// without ftz: at most 1.16 ulp).
    fn ex2_f32(&self, x: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        let t = x.get_type();
        let i32t = self.cx.i32_type();
        let x = self.fp_clamp(x, -152.0, 130.0)?;
        // 1.5 · 2^23: adding it rounds |x| < 2^22 to an integer in the low mantissa bits.
        let magic = 12_582_912.0f32;
        let shifted = self.b.build_float_add(x, self.fp_fconst(t, magic as f64), "")?;
        let k = self.b.build_float_sub(shifted, self.fp_fconst(t, magic as f64), "")?;
        let k_int = self.b.build_int_sub(self.fp_bits_of(shifted)?, i32t.const_int(magic.to_bits() as u64, false), "")?;
        let f = self.b.build_float_sub(x, k, "")?;
        let coeffs: Vec<f64> = (0..8).map(|n| (std::f64::consts::LN_2.powi(n as i32) * INV_FACTORIAL[n]) as f32 as f64).collect();
        let p = self.fp_poly(f, &coeffs)?;
        let k1 = self.b.build_right_shift(k_int, i32t.const_int(1, false), true, "")?;
        let k2 = self.b.build_int_sub(k_int, k1, "")?;
        let power = |e: IntValue<'ctx>| -> R<FloatValue<'ctx>> {
            let biased = self.b.build_int_add(e, i32t.const_int(127, false), "")?;
            self.fp_float_of(self.b.build_left_shift(biased, i32t.const_int(23, false), "")?, t)
        };
        let scaled = self.b.build_float_mul(p, power(k1)?, "")?;
        Ok(self.b.build_float_mul(scaled, power(k2)?, "")?)
    }

    /// log2(x) in f64 for an f64 `x` widened from f32 (so never subnormal): x = 2^e · m
    /// with m in [√½, √2), log2 m = 2·atanh(s)/ln 2 with s = (m-1)/(m+1), |s| < 0.172.
    fn fp_lg2_f64(&self, x: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        let t = x.get_type();
        let i64t = self.int_ty(64);
        let bits = self.fp_bits_of(x)?;
        let biased = self.b.build_right_shift(bits, i64t.const_int(52, false), false, "")?;
        let biased = self.b.build_and(biased, i64t.const_int(0x7ff, false), "")?;
        let frac = self.b.build_and(bits, i64t.const_int((1 << 52) - 1, false), "")?;
        let m = self.fp_float_of(self.b.build_or(frac, i64t.const_int(1023 << 52, false), "")?, t)?;
        let big = self.fp_fcmp(FloatPredicate::OGT, m, self.fp_fconst(t, std::f64::consts::SQRT_2))?;
        let m = self.fp_fselect(big, self.b.build_float_mul(m, self.fp_fconst(t, 0.5), "")?, m)?;
        let e = self.b.build_int_sub(biased, i64t.const_int(1023, false), "")?;
        let e = self.b.build_int_add(e, self.b.build_int_z_extend(big, i64t, "")?, "")?;
        let e = self.b.build_signed_int_to_float(e, t, "")?;
        let one = self.fp_fconst(t, 1.0);
        let s = self.b.build_float_div(self.b.build_float_sub(m, one, "")?, self.b.build_float_add(m, one, "")?, "")?;
        let s2 = self.b.build_float_mul(s, s, "")?;
        let odd: Vec<f64> = (0..10).map(|i| 1.0 / (2 * i + 1) as f64).collect();
        let atanh = self.b.build_float_mul(s, self.fp_poly(s2, &odd)?, "")?;
        let l = self.b.build_float_mul(atanh, self.fp_fconst(t, 2.0 * std::f64::consts::LOG2_E), "")?;
        let r = self.b.build_float_add(e, l, "")?;
        // Special values: -x → NaN, ±0 → -inf, +inf → +inf, NaN → NaN.
        let r = self.fp_fselect(self.fp_fcmp(FloatPredicate::OEQ, x, self.fp_fconst(t, f64::INFINITY))?, x, r)?;
        let r = self.fp_fselect(self.fp_fcmp(FloatPredicate::OEQ, x, self.fp_fconst(t, 0.0))?, self.fp_fconst(t, f64::NEG_INFINITY), r)?;
        let invalid = self.fp_fcmp(FloatPredicate::ULT, x, self.fp_fconst(t, 0.0))?;
        self.fp_fselect(invalid, self.fp_fbits_const(t, F64_CANONICAL_NAN)?, r)
    }

    /// sin or cos in f64: x = k·π/2 + r (two-part π/2), |r| ≤ π/4, Taylor polynomials to
    /// degree 13/14 (error below 1e-13), picked by k mod 4. Beyond |x| ≈ 2^50 the
    /// reduction is meaningless (the ISA gives no bound there); the result stays in [-1, 1].
    fn fp_sin_cos_f64(&self, x: FloatValue<'ctx>, cos: bool) -> R<FloatValue<'ctx>> {
        let t = x.get_type();
        let i32t = self.cx.i32_type();
        // π/2 = PIO2_HI + PIO2_LO, PIO2_HI with 33 significant bits (k · PIO2_HI is exact
        // for |k| < 2^20).
        const PIO2_HI: f64 = 1.570_796_326_734_125_614_166_259_765_625;
        const PIO2_LO: f64 = 6.077_100_506_506_192_601_475_2e-11;
        let (k, kbits) = self.fp_round_to_int(self.b.build_float_mul(x, self.fp_fconst(t, std::f64::consts::FRAC_2_PI), "")?)?;
        let r = self.b.build_float_sub(x, self.b.build_float_mul(k, self.fp_fconst(t, PIO2_HI), "")?, "")?;
        let r = self.b.build_float_sub(r, self.b.build_float_mul(k, self.fp_fconst(t, PIO2_LO), "")?, "")?;
        let r = self.fp_clamp(r, -1.0, 1.0)?;
        let r2 = self.b.build_float_mul(r, r, "")?;
        let sin_coeffs: Vec<f64> = (0..7).map(|i| if i % 2 == 0 { INV_FACTORIAL[2 * i + 1] } else { -INV_FACTORIAL[2 * i + 1] }).collect();
        let cos_coeffs: Vec<f64> = (0..8).map(|i| if i % 2 == 0 { INV_FACTORIAL[2 * i] } else { -INV_FACTORIAL[2 * i] }).collect();
        // r · (1 - r²/3! + …) keeps the sign of a zero r.
        let s = self.b.build_float_mul(r, self.fp_poly(r2, &sin_coeffs)?, "")?;
        let c = self.fp_poly(r2, &cos_coeffs)?;
        let q = self.b.build_and(kbits, i32t.const_int(3, false), "")?;
        let q = if cos { self.b.build_int_add(q, i32t.const_int(1, false), "")? } else { q };
        let q = self.b.build_and(q, i32t.const_int(3, false), "")?;
        let odd = self.icmp(IntPredicate::NE, self.b.build_and(q, i32t.const_int(1, false), "")?, i32t.const_zero())?;
        let negate = self.icmp(IntPredicate::NE, self.b.build_and(q, i32t.const_int(2, false), "")?, i32t.const_zero())?;
        let v = self.fp_fselect(odd, c, s)?;
        let v = self.fp_fselect(negate, self.b.build_float_neg(v, "")?, v)?;
        let v = self.fp_clamp(v, -1.0, 1.0)?;
        // ±inf and NaN give NaN.
        let finite = self.fp_fcmp(FloatPredicate::OLT, self.fp_fabs(x)?, self.fp_fconst(t, f64::INFINITY))?;
        self.fp_fselect(finite, v, self.fp_fbits_const(t, F64_CANONICAL_NAN)?)
    }

    /// tanh in f64: x itself for |x| < 2^-12 (error below 2^-25), else
    /// sign(x)·(1 - 2/(e^{2|x|} + 1)) with |x| clamped to 20 (tanh 20 rounds to 1).
    pub(crate) fn tanh_f64(&self, x: FloatValue<'ctx>) -> R<FloatValue<'ctx>> {
        let t = x.get_type();
        let ax = self.fp_fabs(x)?;
        let two_log2e = self.fp_fconst(t, 2.0 * std::f64::consts::LOG2_E);
        let e = self.ex2_f64(self.b.build_float_mul(self.fp_clamp(ax, 0.0, 20.0)?, two_log2e, "")?, 64.0)?;
        let one = self.fp_fconst(t, 1.0);
        let q = self.b.build_float_div(self.fp_fconst(t, 2.0), self.b.build_float_add(e, one, "")?, "")?;
        let m = self.b.build_float_sub(one, q, "")?;
        let neg = self.fp_fcmp(FloatPredicate::OLT, x, self.fp_fconst(t, 0.0))?;
        let v = self.fp_fselect(neg, self.b.build_float_neg(m, "")?, m)?;
        let small = self.fp_fcmp(FloatPredicate::ULT, ax, self.fp_fconst(t, 2f64.powi(-12)))?;
        // Small values and NaN pass through.
        self.fp_fselect(small, x, v)
    }
}

/// `fma.{rm,rp,rz}.f32 d, a, b, c` where one factor lies in [0, 1] (`cvt.sat.f32.f32`) and
/// the other factor `b` and the addend `c` are constants such that every `a * b + c` lies
/// in the binade of `c` (CUDA's `expf` and `exp2f`: `fma.rm.f32 d, sat(t), 252.0,
/// 12582913.0`, the exponent's bits in an integer-valued float). There the `.f32` values are
/// the multiples of one unit `u`, `c` among them, so the result is `c + u * N(a * b / u)`
/// with `N` the mode's rounding to an integer (floor down, ceiling up, toward `c`'s side of
/// zero for `.rz`): in f64 `a * (b / u)` is exact, its integer part too, and the sum is a
/// value of the binade, exact in f32. A handful of operations where the general directed
/// rounding (`rounding::directed_f32_inline`: the exact sum in f64 by TwoSum, its rounding
/// error's sign, a step of one unit) takes about forty at half the vector width.
pub(crate) struct DirectedFmaInBinade {
    /// Which of the two factors (0: `a`, 1: `b`) is the one in [0, 1].
    unit_operand: usize,
    /// The other factor divided by the unit (exact: a power of two).
    scaled_factor: f64,
    unit: f32,
    addend: f32,
}

impl DirectedFmaInBinade {
    fn find(fc: &FnCx<'_, '_>, a: Operand, b: Operand, c: Operand) -> Option<Self> {
        let addend = fc.fp_constant_f32(c)?;
        let (unit_operand, factor) = if fc.fp_in_unit_interval(a) {
            (0, fc.fp_constant_f32(b)?)
        } else if fc.fp_in_unit_interval(b) {
            (1, fc.fp_constant_f32(a)?)
        } else {
            return None;
        };
        Self::for_constants(factor, addend).map(|(scaled_factor, unit)| DirectedFmaInBinade { unit_operand, scaled_factor, unit, addend })
    }

    /// For `x * factor + addend` over x in [0, 1]: `(factor / u, u)` with `u` the unit of
    /// the binade of `addend` when all those values lie in it (its upper end included: it
    /// is a multiple of `u` too), and `u` is a normal value.
    fn for_constants(factor: f32, addend: f32) -> Option<(f64, f32)> {
        if !factor.is_finite() || !addend.is_normal() {
            return None;
        }
        let (f, c) = (factor as f64, addend as f64);
        // The values' range (exact in f64), and the binade [2^k, 2^(k+1)] of |c|.
        let (lo, hi) = (c + f.min(0.0), c + f.max(0.0));
        let (lo, hi) = if c > 0.0 { (lo, hi) } else { (-hi, -lo) };
        let k = ((addend.to_bits() >> 23) & 0xff) as i32 - 127;
        let binade = 2f64.powi(k);
        // The unit 2^(k - 23) normal, and no value beyond f32's range.
        if k - 23 < -126 || k + 1 > 127 || lo < binade || hi > 2.0 * binade {
            return None;
        }
        let unit = 2f64.powi(k - 23);
        Some((f / unit, unit as f32))
    }

    fn emit<'ctx>(&self, fc: &FnCx<'ctx, '_>, x: FloatValue<'ctx>, rnd: Rounding) -> R<FloatValue<'ctx>> {
        let (f32t, f64t) = (fc.cx.f32_type(), fc.cx.f64_type());
        let b = &fc.b;
        let q = b.build_float_mul(b.build_float_ext(x, f64t, "")?, f64t.const_float(self.scaled_factor), "fma.in_binade")?;
        let to_integer = match rnd {
            Rounding::Down => "llvm.floor",
            Rounding::Up => "llvm.ceil",
            // Toward zero: the values have the addend's sign.
            _ if self.addend > 0.0 => "llvm.floor",
            _ => "llvm.ceil",
        };
        let n = fc.call_intrinsic(to_integer, &[f64t.into()], &[q.into()])?.into_float_value();
        // |n| <= 2^24: exact in f32, as are n * u and the sum.
        let n = b.build_float_trunc(n, f32t, "")?;
        let step = b.build_float_mul(n, f32t.const_float(self.unit as f64), "")?;
        Ok(b.build_float_add(step, f32t.const_float(self.addend as f64), "")?)
    }
}

#[cfg(test)]
mod tests {
    use super::DirectedFmaInBinade;

    /// `v` as `m * 2^e` with an integer `m` (|m| < 2^53).
    fn decompose(v: f64) -> (i128, i32) {
        let bits = v.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i32;
        let frac = (bits & ((1 << 52) - 1)) as i128;
        let (m, e) = if exp == 0 { (frac, -1074) } else { (frac | 1 << 52, exp - 1075) };
        normalize((if v < 0.0 { -m } else { m }, e))
    }

    /// `a - b` exactly (with no trailing zero bits in its integer), for values whose
    /// integers have no trailing zero bits and lie at most 60 binades apart.
    fn sub_exact(a: (i128, i32), b: (i128, i32)) -> (i128, i32) {
        let e = a.1.min(b.1);
        let fits = |v: (i128, i32)| v.0 == 0 || 128 - v.0.unsigned_abs().leading_zeros() as i32 + v.1 - e <= 125;
        assert!(fits(a) && fits(b), "too far apart for the test's arithmetic: {a:?} {b:?}");
        normalize(((a.0 << (a.1 - e)) - (b.0 << (b.1 - e)), e))
    }

    fn normalize(v: (i128, i32)) -> (i128, i32) {
        if v.0 == 0 {
            return v;
        }
        let z = v.0.trailing_zeros();
        (v.0 >> z, v.1 + z as i32)
    }

    /// The sign of `a - b`, exactly.
    fn compare(a: (i128, i32), b: (i128, i32)) -> std::cmp::Ordering {
        if a.0 == 0 || b.0 == 0 {
            return a.0.signum().cmp(&b.0.signum());
        }
        if a.0.signum() != b.0.signum() {
            return a.0.signum().cmp(&b.0.signum());
        }
        // Same sign: magnitudes more than 60 binades apart are ordered by the larger one.
        let top = |v: (i128, i32)| v.1 + 128 - v.0.unsigned_abs().leading_zeros() as i32;
        if top(a) > top(b) + 60 {
            return a.0.signum().cmp(&0);
        }
        if top(b) > top(a) + 60 {
            return 0.cmp(&b.0.signum());
        }
        sub_exact(a, b).0.cmp(&0)
    }

    /// `x * factor + addend` rounded down (mode 0), up (1) or toward zero (2), exactly.
    fn exact_directed(x: f32, factor: f32, addend: f32, mode: u8) -> f32 {
        // The product of two f32 is exact in f64.
        let p = decompose(x as f64 * factor as f64);
        // Whether candidate v is at most (below) or at least (above) p + addend: the sign
        // of p - (v - addend).
        let side = |v: f32| compare(p, sub_exact(decompose(v as f64), decompose(addend as f64)));
        // The result is within one unit of the nearest-even rounding of the f64 sum.
        let r = ((x as f64 * factor as f64) + addend as f64) as f32;
        let candidates = [f32::from_bits(r.to_bits() - 1), r, f32::from_bits(r.to_bits() + 1)];
        let below = candidates.iter().copied().filter(|v| side(*v).is_ge()).fold(f32::NEG_INFINITY, f32::max);
        let above = candidates.iter().copied().filter(|v| side(*v).is_le()).fold(f32::INFINITY, f32::min);
        match mode {
            0 => below,
            1 => above,
            _ if addend > 0.0 => below,
            _ => above,
        }
    }

    /// The formula `emit` lowers, evaluated here.
    fn fast(x: f32, factor: f32, addend: f32, mode: u8) -> Option<f32> {
        let (scaled, unit) = DirectedFmaInBinade::for_constants(factor, addend)?;
        let q = x as f64 * scaled;
        let n = match mode {
            0 => q.floor(),
            1 => q.ceil(),
            _ if addend > 0.0 => q.floor(),
            _ => q.ceil(),
        };
        Some((n as f32) * unit + addend)
    }

    #[test]
    fn directed_fma_in_one_binade_is_exact() {
        // CUDA's expf and exp2f constants, others in one binade, and ones that leave it.
        let cases: &[(f32, f32, bool)] = &[
            (252.0, 12582913.0, true),
            (-252.0, 12582913.0, true),
            (252.0, -12582913.0, true),
            (3.0, 1.5, false),
            (-1.0, -1.0, true),
            (1.0, -2.0, false),
            (0.25, 1.0, true),
            (0.75, -1.0, false),
            (1.0, 1.0, true),
            (2.0, 1.0, false),
            (-0.5, 1.0, false),
            (-0.5, 1.5, true),
            (1e-3, 3e-30, false),
            (1e-33, 3e-30, true),
            (1e30, 3e38, false),
        ];
        let mut xs: Vec<f32> = (0..=4096).map(|i| i as f32 / 4096.0).collect();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            xs.push(f32::from_bits((seed as u32) % 0x3f80_0001));
        }
        xs.extend([0.0, 1.0, f32::MIN_POSITIVE, 1e-45, 0.5 - f32::EPSILON / 4.0]);
        for &(factor, addend, fits) in cases {
            assert_eq!(DirectedFmaInBinade::for_constants(factor, addend).is_some(), fits, "{factor} * x + {addend}");
            for &x in xs.iter().filter(|_| fits) {
                for mode in 0..3 {
                    let want = exact_directed(x, factor, addend, mode);
                    let got = fast(x, factor, addend, mode).unwrap();
                    assert_eq!(got.to_bits(), want.to_bits(), "{x:e} * {factor} + {addend}, mode {mode}");
                }
            }
        }
    }
}

//! binary16 and bfloat16 ↔ binary32 conversions as integer IR.
//!
//! LLVM lowers `half`/`bfloat` conversions on x86-64 without F16C to libgcc calls
//! (`__truncsfbf2` is missing from GCC 12's libgcc, and calls block vectorization), so
//! these are written out on the bits: exact widening, and narrowing that rounds to
//! nearest even (overflow to infinity, gradual underflow to subnormals, NaN payloads kept
//! and made quiet).

use super::thread::FnCx;
use super::R;
use inkwell::values::{FloatValue, IntValue};
use inkwell::IntPredicate;

/// A 16-bit float format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Half {
    F16,
    BF16,
}

impl<'ctx> FnCx<'ctx, '_> {
    /// The exact f32 value of 16-bit float bits (`i16`).
    pub fn half_to_f32(&self, fmt: Half, h: IntValue<'ctx>) -> R<FloatValue<'ctx>> {
        let b = &self.b;
        let i32t = self.cx.i32_type();
        let f32t = self.cx.f32_type();
        let w = b.build_int_z_extend(h, i32t, "")?;
        if fmt == Half::BF16 {
            let bits = b.build_left_shift(w, self.i32(16), "")?;
            return Ok(b.build_bit_cast(bits, f32t, "")?.into_float_value());
        }
        let sign = b.build_left_shift(b.build_and(w, self.i32(0x8000), "")?, self.i32(16), "")?;
        let exp = b.build_and(w, self.i32(0x7c00), "")?;
        let frac = b.build_and(w, self.i32(0x03ff), "")?;
        // Normal numbers and inf/NaN: move the fields and rebias the exponent (15 → 127);
        // an all-ones exponent stays all ones.
        let moved = b.build_left_shift(b.build_or(exp, frac, "")?, self.i32(13), "")?;
        let rebiased = b.build_int_add(moved, self.i32(112 << 23), "")?;
        let special = self.icmp(IntPredicate::EQ, exp, self.i32(0x7c00))?;
        let special_bits = b.build_or(moved, self.i32(0x7f80_0000), "")?;
        let normal = self.select(special, special_bits, rebiased)?;
        // Zeros and subnormals: frac × 2^-24, exact in f32.
        let tiny = b.build_float_mul(b.build_unsigned_int_to_float(frac, f32t, "")?, f32t.const_float(2f64.powi(-24)), "")?;
        let tiny = b.build_bit_cast(tiny, i32t, "")?.into_int_value();
        let is_tiny = self.icmp(IntPredicate::EQ, exp, self.i32(0))?;
        let magnitude = self.select(is_tiny, tiny, normal)?;
        let bits = b.build_or(magnitude, sign, "")?;
        Ok(b.build_bit_cast(bits, f32t, "")?.into_float_value())
    }

    /// f32 rounded to nearest even in a 16-bit float format (`i16` bits).
    pub fn f32_to_half_rn(&self, fmt: Half, x: FloatValue<'ctx>) -> R<IntValue<'ctx>> {
        let b = &self.b;
        let i32t = self.cx.i32_type();
        let f32t = self.cx.f32_type();
        let i16t = self.cx.i16_type();
        let bits = b.build_bit_cast(x, i32t, "")?.into_int_value();
        let sign16 = b.build_right_shift(b.build_and(bits, self.i32(0x8000_0000), "")?, self.i32(16), false, "")?;
        let abs = b.build_and(bits, self.i32(0x7fff_ffff), "")?;
        let is_nan = self.icmp(IntPredicate::UGT, abs, self.i32(0x7f80_0000))?;
        let result = match fmt {
            Half::BF16 => {
                // Same exponent range: round the low 16 bits away, ties to even; carries
                // reach the exponent and overflow to infinity by themselves.
                let lsb = b.build_and(b.build_right_shift(abs, self.i32(16), false, "")?, self.i32(1), "")?;
                let rounded = b.build_int_add(abs, b.build_int_add(self.i32(0x7fff), lsb, "")?, "")?;
                let magnitude = b.build_right_shift(rounded, self.i32(16), false, "")?;
                let nan = b.build_or(b.build_right_shift(abs, self.i32(16), false, "")?, self.i32(0x0040), "")?;
                self.select(is_nan, nan, magnitude)?
            }
            Half::F16 => {
                // Normal range: drop 13 fraction bits with round-to-nearest-even, rebias.
                let lsb = b.build_and(b.build_right_shift(abs, self.i32(13), false, "")?, self.i32(1), "")?;
                let rounded = b.build_int_add(abs, b.build_int_add(self.i32(0x0fff), lsb, "")?, "")?;
                let normal = b.build_int_sub(b.build_right_shift(rounded, self.i32(13), false, "")?, self.i32(112 << 10), "")?;
                // Values of 65520 and more round to infinity.
                let overflow = self.icmp(IntPredicate::UGE, abs, self.i32(0x477f_f000))?;
                let normal = self.select(overflow, self.i32(0x7c00), normal)?;
                // Below 2^-14: a subnormal (or zero) with fraction round(|x| × 2^24); the
                // scaling is exact and the rounding is the hardware's nearest-even.
                let absf = b.build_bit_cast(abs, f32t, "")?.into_float_value();
                let scaled = b.build_float_mul(absf, f32t.const_float(2f64.powi(24)), "")?;
                let rounded = self.call_intrinsic("llvm.roundeven", &[f32t.into()], &[scaled.into()])?.into_float_value();
                let sub = b.build_float_to_unsigned_int(rounded, i32t, "")?;
                let is_sub = self.icmp(IntPredicate::ULT, abs, self.i32(0x3880_0000))?;
                let finite = self.select(is_sub, sub, normal)?;
                // NaN: keep the top payload bits, quiet.
                let nan = b.build_or(b.build_right_shift(abs, self.i32(13), false, "")?, self.i32(0x7e00), "")?;
                let nan = b.build_and(nan, self.i32(0x7fff), "")?;
                self.select(is_nan, nan, finite)?
            }
        };
        let with_sign = b.build_or(result, sign16, "")?;
        Ok(b.build_int_truncate(with_sign, i16t, "")?)
    }
}

//! binary16 and bfloat16 → binary32 widening as integer IR, and the narrowing of binary32
//! to them with rounding to nearest even (`f32_to_half_rn`; other roundings and sources go
//! through `convert`'s general rounding, f64 results of half arithmetic through
//! `half::f64_to_half_rn`).
//!
//! LLVM lowers `half`/`bfloat` conversions on x86-64 without F16C to libgcc calls
//! (`__truncsfbf2` is missing from GCC 12's libgcc, and calls block vectorization), so
//! the conversion is written out on the bits; it is exact.

use crate::lower::thread::FnCx;
use crate::lower::R;
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

    /// binary32 bits (`i32`) rounded to nearest even in a 16-bit format (`i16`): overflow
    /// gives infinity, NaN the canonical NaN `0x7fff` (NVIDIA silicon's for `cvt.rn` from
    /// `.f32`). About 20 instructions, where the general rounding of `convert` takes 60.
    ///
    /// bf16 keeps f32's exponent range: adding `0x7fff` plus the last kept bit rounds the 16
    /// dropped bits to nearest even, a carry moving into the exponent (the largest finite
    /// values round to infinity, as they should); subnormals round the same way.
    ///
    /// f16: at or above 2^-14 (normal results) the exponent is rebiased and 13 bits are
    /// dropped the same way, with results beyond the largest finite value clamped to
    /// infinity. Below it, `|x| + 0.5` rounds |x| to a multiple of 2^-24 (the subnormal
    /// quantum: the ulp of 0.5 in f32) in one hardware rounding to nearest even, and its
    /// bits minus those of 0.5 are the f16 encoding (0x400 when it rounds up to the
    /// smallest normal, also right).
    pub fn f32_to_half_rn(&self, fmt: Half, x: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let b = &self.b;
        let i16t = self.cx.i16_type();
        let abs = b.build_and(x, self.i32(0x7fff_ffff), "")?;
        let is_nan = self.icmp(IntPredicate::UGT, abs, self.i32(0x7f80_0000))?;
        let r = match fmt {
            Half::BF16 => {
                let lsb = b.build_and(b.build_right_shift(x, self.i32(16), false, "")?, self.i32(1), "")?;
                let rounded = b.build_int_add(x, b.build_int_add(lsb, self.i32(0x7fff), "")?, "")?;
                b.build_right_shift(rounded, self.i32(16), false, "")?
            }
            Half::F16 => {
                let lsb = b.build_and(b.build_right_shift(abs, self.i32(13), false, "")?, self.i32(1), "")?;
                // (15 - 127) << 23 rebiases the exponent; 0xfff + lsb rounds.
                let rebias = (((15i64 - 127) << 23) + 0xfff) as u64 & 0xffff_ffff;
                let rounded = b.build_int_add(abs, b.build_int_add(lsb, self.i32(rebias), "")?, "")?;
                let normal = b.build_right_shift(rounded, self.i32(13), false, "")?;
                let normal = self.call_intrinsic("llvm.umin", &[self.cx.i32_type().into()], &[normal.into(), self.i32(0x7c00).into()])?.into_int_value();
                let f32t = self.cx.f32_type();
                let absf = b.build_bit_cast(abs, f32t, "")?.into_float_value();
                let sum = b.build_float_add(absf, f32t.const_float(0.5), "")?;
                let sum = b.build_bit_cast(sum, self.cx.i32_type(), "")?.into_int_value();
                let sub = b.build_int_sub(sum, self.i32(0.5f32.to_bits() as u64), "")?;
                let is_sub = self.icmp(IntPredicate::ULT, abs, self.i32(113 << 23))?;
                let magnitude = self.select(is_sub, sub, normal)?;
                let sign = b.build_and(b.build_right_shift(x, self.i32(16), false, "")?, self.i32(0x8000), "")?;
                b.build_or(magnitude, sign, "")?
            }
        };
        let r = b.build_int_truncate(r, i16t, "")?;
        self.select(is_nan, i16t.const_int(0x7fff, false), r)
    }
}

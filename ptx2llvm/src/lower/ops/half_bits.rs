//! binary16 and bfloat16 → binary32 widening as integer IR (narrowing, which rounds, is
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
}

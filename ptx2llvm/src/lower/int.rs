//! Integer arithmetic and logic: exact PTX semantics, never LLVM poison or a CPU trap.

use super::thread::FnCx;
use super::R;
use crate::ir::{IntBinOp, IntUnOp, MulMode, Operand, RegId, ScalarType};
use inkwell::values::IntValue;
use inkwell::IntPredicate as P;

impl<'ctx> FnCx<'ctx, '_> {
    pub fn int_binary(&self, op: IntBinOp, ty: ScalarType, dst: RegId, a: Operand, b: Operand) -> R<()> {
        let signed = ty.is_signed();
        let w = ty.bits();
        let x = self.read(a, ty)?;
        let v = match op {
            IntBinOp::Shl | IntBinOp::Shr => {
                let amount = self.read(b, ScalarType::U32)?;
                self.shift(op == IntBinOp::Shl, signed, x, amount)?
            }
            _ => {
                let y = self.read(b, ty)?;
                let bb = &self.b;
                match op {
                    IntBinOp::Add => bb.build_int_add(x, y, "")?,
                    IntBinOp::Sub => bb.build_int_sub(x, y, "")?,
                    IntBinOp::MulLo => bb.build_int_mul(x, y, "")?,
                    IntBinOp::MulHi => {
                        let p = self.wide_product(x, y, signed)?;
                        let hi = bb.build_right_shift(p, p.get_type().const_int(w as u64, false), false, "")?;
                        bb.build_int_truncate(hi, self.int_ty(w), "")?
                    }
                    IntBinOp::Div | IntBinOp::Rem => self.div_rem(op == IntBinOp::Div, signed, x, y)?,
                    IntBinOp::And => bb.build_and(x, y, "")?,
                    IntBinOp::Or => bb.build_or(x, y, "")?,
                    IntBinOp::Xor => bb.build_xor(x, y, "")?,
                    IntBinOp::Min | IntBinOp::Max => {
                        let pred = match (op == IntBinOp::Min, signed) {
                            (true, true) => P::SLT,
                            (true, false) => P::ULT,
                            (false, true) => P::SGT,
                            (false, false) => P::UGT,
                        };
                        let c = self.icmp(pred, x, y)?;
                        self.select(c, x, y)?
                    }
                    IntBinOp::Shl | IntBinOp::Shr => unreachable!("handled above"),
                }
            }
        };
        self.write(dst, v, ty)
    }

    /// Shifts by an unsigned 32-bit amount; amounts ≥ the width give 0 (or the sign fill).
    fn shift(&self, left: bool, arithmetic: bool, x: IntValue<'ctx>, amount: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let w = x.get_type().get_bit_width();
        let limit = self.i32(w as u64 - 1);
        let too_big = self.icmp(P::UGT, amount, limit)?;
        let clamped = self.select(too_big, limit, amount)?;
        let amt = self.resize(clamped, w, false)?;
        Ok(if left {
            let s = self.b.build_left_shift(x, amt, "")?;
            self.select(too_big, x.get_type().const_zero(), s)?
        } else if arithmetic {
            // Shifting by width-1 already gives the sign fill.
            self.b.build_right_shift(x, amt, true, "")?
        } else {
            let s = self.b.build_right_shift(x, amt, false, "")?;
            self.select(too_big, x.get_type().const_zero(), s)?
        })
    }

    fn wide_product(&self, x: IntValue<'ctx>, y: IntValue<'ctx>, signed: bool) -> R<IntValue<'ctx>> {
        let w = x.get_type().get_bit_width();
        let xe = self.resize(x, 2 * w, signed)?;
        let ye = self.resize(y, 2 * w, signed)?;
        Ok(self.b.build_int_mul(xe, ye, "")?)
    }

    /// Division and remainder. The ISA leaves x/0 and MIN/-1 unspecified; we return what
    /// NVIDIA GPUs return where known and never trap: x/0 = all ones (unsigned and signed),
    /// x%0 = x, MIN/-1 = MIN, MIN%-1 = 0.
    fn div_rem(&self, div: bool, signed: bool, x: IntValue<'ctx>, y: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let t = x.get_type();
        let zero = t.const_zero();
        let ones = t.const_all_ones();
        let y_zero = self.icmp(P::EQ, y, zero)?;
        let mut bad = y_zero;
        if signed {
            let min = t.const_int(1u64 << (t.get_bit_width() - 1), false);
            let x_min = self.icmp(P::EQ, x, min)?;
            let y_m1 = self.icmp(P::EQ, y, ones)?;
            let overflow = self.b.build_and(x_min, y_m1, "")?;
            bad = self.b.build_or(bad, overflow, "")?;
        }
        let one = t.const_int(1, false);
        let safe_y = self.select(bad, one, y)?;
        let q = match (div, signed) {
            (true, true) => self.b.build_int_signed_div(x, safe_y, "")?,
            (true, false) => self.b.build_int_unsigned_div(x, safe_y, "")?,
            (false, true) => self.b.build_int_signed_rem(x, safe_y, "")?,
            (false, false) => self.b.build_int_unsigned_rem(x, safe_y, "")?,
        };
        // With safe_y = 1: MIN/1 = MIN and MIN%1 = 0 are already the wanted overflow results.
        let on_zero = if div { ones } else { x };
        self.select(y_zero, on_zero, q)
    }

    pub fn mul_wide(&self, ty: ScalarType, dst: RegId, a: Operand, b: Operand) -> R<()> {
        let (x, y) = (self.read(a, ty)?, self.read(b, ty)?);
        let p = self.wide_product(x, y, ty.is_signed())?;
        let wide = ScalarType::int(ty.bits() * 2, ty.is_signed()).expect("checked");
        self.write(dst, p, wide)
    }

    pub fn mad(&self, mode: MulMode, ty: ScalarType, dst: RegId, a: Operand, b: Operand, c: Operand) -> R<()> {
        let signed = ty.is_signed();
        let (x, y) = (self.read(a, ty)?, self.read(b, ty)?);
        let w = ty.bits();
        let (prod, rty) = match mode {
            MulMode::Lo => (self.b.build_int_mul(x, y, "")?, ty),
            MulMode::Hi => {
                let p = self.wide_product(x, y, signed)?;
                let hi = self.b.build_right_shift(p, p.get_type().const_int(w as u64, false), false, "")?;
                (self.b.build_int_truncate(hi, self.int_ty(w), "")?, ty)
            }
            MulMode::Wide => (self.wide_product(x, y, signed)?, ScalarType::int(2 * w, signed).expect("checked")),
        };
        let z = self.read(c, rty)?;
        let v = self.b.build_int_add(prod, z, "")?;
        self.write(dst, v, rty)
    }

    pub fn int_unary(&self, op: IntUnOp, ty: ScalarType, dst: RegId, a: Operand) -> R<()> {
        let x = self.read(a, ty)?;
        let t = x.get_type();
        let (v, rty) = match op {
            IntUnOp::Not => (self.b.build_not(x, "")?, ty),
            IntUnOp::Neg => (self.b.build_int_neg(x, "")?, ty),
            IntUnOp::Abs => {
                let neg = self.icmp(P::SLT, x, t.const_zero())?;
                let n = self.b.build_int_neg(x, "")?;
                (self.select(neg, n, x)?, ty)
            }
            IntUnOp::CNot => {
                let z = self.icmp(P::EQ, x, t.const_zero())?;
                (self.b.build_int_z_extend(z, t, "")?, ty)
            }
            IntUnOp::Popc => {
                let c = self.call_intrinsic("llvm.ctpop", &[t.into()], &[x.into()])?.into_int_value();
                (self.resize(c, 32, false)?, ScalarType::U32)
            }
            IntUnOp::Clz => {
                let f = self.cx.bool_type().const_zero();
                let c = self.call_intrinsic("llvm.ctlz", &[t.into()], &[x.into(), f.into()])?.into_int_value();
                (self.resize(c, 32, false)?, ScalarType::U32)
            }
            IntUnOp::Brev => (self.call_intrinsic("llvm.bitreverse", &[t.into()], &[x.into()])?.into_int_value(), ty),
        };
        self.write(dst, v, rty)
    }
}

//! Floating-point arithmetic (round-to-nearest-even forms).

use super::thread::FnCx;
use super::R;
use super::rounding::RoundedOp;
use crate::ir::{FloatBinOp, FloatUnOp, Operand, RegId, Rounding, ScalarType};

impl<'ctx> FnCx<'ctx, '_> {
    pub fn float_binary(&self, op: FloatBinOp, ty: ScalarType, rnd: Rounding, dst: RegId, a: Operand, b: Operand) -> R<()> {
        let (x, y) = (self.read_float(a, ty)?, self.read_float(b, ty)?);
        let rounded = |op| -> R<_> { Ok(self.rounded(op, rnd, &[x.into(), y.into()], x.get_type().into())?.into_float_value()) };
        let v = match op {
            FloatBinOp::Add => rounded(RoundedOp::Add)?,
            FloatBinOp::Sub => rounded(RoundedOp::Sub)?,
            FloatBinOp::Mul => rounded(RoundedOp::Mul)?,
            FloatBinOp::Div => rounded(RoundedOp::Div)?,
            // minnum/maxnum: a NaN operand yields the other operand, as in PTX.
            FloatBinOp::Min | FloatBinOp::Max => {
                let name = if op == FloatBinOp::Min { "llvm.minnum" } else { "llvm.maxnum" };
                self.call_intrinsic(name, &[x.get_type().into()], &[x.into(), y.into()])?.into_float_value()
            }
        };
        self.write_float(dst, v, ty)
    }

    pub fn float_unary(&self, op: FloatUnOp, ty: ScalarType, dst: RegId, a: Operand) -> R<()> {
        let x = self.read_float(a, ty)?;
        let t = x.get_type();
        let v = match op {
            FloatUnOp::Neg => self.b.build_float_neg(x, "")?,
            FloatUnOp::Abs => self.call_intrinsic("llvm.fabs", &[t.into()], &[x.into()])?.into_float_value(),
            FloatUnOp::Sqrt => self.call_intrinsic("llvm.sqrt", &[t.into()], &[x.into()])?.into_float_value(),
            FloatUnOp::Rcp => self.b.build_float_div(t.const_float(1.0), x, "")?,
        };
        self.write_float(dst, v, ty)
    }

    pub fn fma(&self, ty: ScalarType, dst: RegId, a: Operand, b: Operand, c: Operand) -> R<()> {
        let (x, y, z) = (self.read_float(a, ty)?, self.read_float(b, ty)?, self.read_float(c, ty)?);
        let v = self.call_intrinsic("llvm.fma", &[x.get_type().into()], &[x.into(), y.into(), z.into()])?.into_float_value();
        self.write_float(dst, v, ty)
    }
}

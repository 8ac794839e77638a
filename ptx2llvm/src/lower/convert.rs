//! `cvt`: conversions between integer and floating-point types.

use super::thread::FnCx;
use super::R;
use crate::ir::{CvtRounding, Operand, RegId, Rounding, ScalarType};

impl<'ctx> FnCx<'ctx, '_> {
    pub fn cvt(&self, dst_ty: ScalarType, src_ty: ScalarType, rnd: Option<CvtRounding>, dst: RegId, src: Operand) -> R<()> {
        match (dst_ty.is_float(), src_ty.is_float()) {
            (false, false) => {
                // Extend by the source's signedness, then keep the destination's width.
                let v = self.read(src, src_ty)?;
                let v = self.resize(v, dst_ty.bits(), src_ty.is_signed())?;
                self.write(dst, v, dst_ty)
            }
            (true, false) => {
                let v = self.read(src, src_ty)?;
                let ft = self.float_ty(dst_ty);
                let f = if src_ty.is_signed() {
                    self.b.build_signed_int_to_float(v, ft, "")?
                } else {
                    self.b.build_unsigned_int_to_float(v, ft, "")?
                };
                self.write_float(dst, f, dst_ty)
            }
            (false, true) => {
                // Round to an integral value, then convert with saturation; NaN gives 0.
                let x = self.read_float(src, src_ty)?;
                let r = match rnd {
                    Some(CvtRounding::Integer(r)) | Some(CvtRounding::Float(r)) => r,
                    None => Rounding::TowardZero,
                };
                let x = self.round_integral(x, r)?;
                let it = self.int_ty(dst_ty.bits());
                let name = if dst_ty.is_signed() { "llvm.fptosi.sat" } else { "llvm.fptoui.sat" };
                let v = self.call_intrinsic(name, &[it.into(), x.get_type().into()], &[x.into()])?.into_int_value();
                self.write(dst, v, dst_ty)
            }
            (true, true) => {
                let x = self.read_float(src, src_ty)?;
                let ft = self.float_ty(dst_ty);
                let x = match dst_ty.bits().cmp(&src_ty.bits()) {
                    std::cmp::Ordering::Greater => self.b.build_float_ext(x, ft, "")?,
                    std::cmp::Ordering::Less => self.b.build_float_trunc(x, ft, "")?,
                    std::cmp::Ordering::Equal => x,
                };
                let x = match rnd {
                    Some(CvtRounding::Integer(r)) => self.round_integral(x, r)?,
                    _ => x,
                };
                self.write_float(dst, x, dst_ty)
            }
        }
    }

    fn round_integral(&self, x: inkwell::values::FloatValue<'ctx>, r: Rounding) -> R<inkwell::values::FloatValue<'ctx>> {
        let name = match r {
            Rounding::NearestEven => "llvm.roundeven",
            Rounding::TowardZero => "llvm.trunc",
            Rounding::Down => "llvm.floor",
            Rounding::Up => "llvm.ceil",
        };
        Ok(self.call_intrinsic(name, &[x.get_type().into()], &[x.into()])?.into_float_value())
    }
}

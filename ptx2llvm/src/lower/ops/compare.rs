//! Comparisons and predicate logic (`setp`, `and/or/xor/not.pred`).

use crate::ir::{BoolOp, CmpOp, Operand, PredRef, RegId, ScalarType};
use crate::lower::thread::FnCx;
use crate::lower::R;
use inkwell::values::IntValue;
use inkwell::{FloatPredicate as F, IntPredicate as I};

/// The LLVM predicate of a floating-point comparison (ordered forms are false, unordered
/// forms true, when an operand is NaN).
pub(crate) fn float_predicate(cmp: CmpOp) -> F {
    match cmp {
        CmpOp::Eq => F::OEQ,
        CmpOp::Ne => F::ONE,
        CmpOp::Lt => F::OLT,
        CmpOp::Le => F::OLE,
        CmpOp::Gt => F::OGT,
        CmpOp::Ge => F::OGE,
        CmpOp::Equ => F::UEQ,
        CmpOp::Neu => F::UNE,
        CmpOp::Ltu => F::ULT,
        CmpOp::Leu => F::ULE,
        CmpOp::Gtu => F::UGT,
        CmpOp::Geu => F::UGE,
        CmpOp::Num => F::ORD,
        CmpOp::Nan => F::UNO,
        CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs => unreachable!("rejected by the checker"),
    }
}

impl<'ctx> FnCx<'ctx, '_> {
    #[allow(clippy::too_many_arguments)]
    #[allow(clippy::too_many_arguments)]
    pub fn setp(
        &self,
        cmp: CmpOp,
        ty: ScalarType,
        ftz: bool,
        dst: RegId,
        dst_not: Option<RegId>,
        a: Operand,
        b: Operand,
        combine: Option<(BoolOp, PredRef)>,
    ) -> R<()> {
        if let Some(&known) = self.known_preds.get(&dst) {
            // A guard the thread loop's bounds already applied (`guards`).
            let t = self.cx.bool_type().const_int(known as u64, false);
            self.write(dst, t, ScalarType::Pred)?;
            if let Some(d) = dst_not {
                self.write(d, self.b.build_not(t, "")?, ScalarType::Pred)?;
            }
            // The register the guard compared, as the no-wrap sum the loop's bounds proved
            // (`GuardedIndex`): later addresses from it are affine in the loop for LLVM.
            if let (Some(g), Some(thread)) = (self.guarded_indices.get(&dst), self.thread) {
                let tid = thread.tid[g.dim];
                let b = &self.b;
                let v = match (g.negated, g.signed) {
                    (false, true) => b.build_int_nsw_add(g.base, tid, "")?,
                    (false, false) => b.build_int_nuw_add(g.base, tid, "")?,
                    (true, true) => b.build_int_nsw_sub(g.base, tid, "")?,
                    (true, false) => b.build_int_nuw_sub(g.base, tid, "")?,
                };
                self.write(g.reg, v, ScalarType::B32)?;
            }
            return Ok(());
        }
        let t = self.compare(cmp, ty, ftz, a, b)?;
        let f = self.b.build_not(t, "")?;
        let (t, f) = match combine {
            None => (t, f),
            Some((op, c)) => {
                let c = self.read_pred(c)?;
                (self.bool_op(op, t, c)?, self.bool_op(op, f, c)?)
            }
        };
        self.write(dst, t, ScalarType::Pred)?;
        if let Some(d) = dst_not {
            self.write(d, f, ScalarType::Pred)?;
        }
        Ok(())
    }

    /// `a cmp b` as an `i1`, for integer and f32/f64 operands of type `ty` (`ftz`: `.f32`
    /// subnormal inputs compare as zeros of their sign).
    pub fn compare(&self, cmp: CmpOp, ty: ScalarType, ftz: bool, a: Operand, b: Operand) -> R<IntValue<'ctx>> {
        Ok(if ty.is_float() {
            let flush = |v: IntValue<'ctx>| -> R<IntValue<'ctx>> {
                if !(ftz && ty == ScalarType::F32) {
                    return Ok(v);
                }
                let exp = self.b.build_and(v, self.i32(0x7f80_0000), "")?;
                let tiny = self.icmp(I::EQ, exp, self.i32(0))?;
                let signed_zero = self.b.build_and(v, self.i32(0x8000_0000), "")?;
                self.select(tiny, signed_zero, v)
            };
            let x = flush(self.read(a, ty)?)?;
            let y = flush(self.read(b, ty)?)?;
            let x = self.b.build_bit_cast(x, self.float_ty(ty), "")?.into_float_value();
            let y = self.b.build_bit_cast(y, self.float_ty(ty), "")?.into_float_value();
            self.b.build_float_compare(float_predicate(cmp), x, y, "")?
        } else {
            let (x, y) = (self.read(a, ty)?, self.read(b, ty)?);
            let s = ty.is_signed();
            let p = match cmp {
                CmpOp::Eq => I::EQ,
                CmpOp::Ne => I::NE,
                CmpOp::Lt => {
                    if s {
                        I::SLT
                    } else {
                        I::ULT
                    }
                }
                CmpOp::Le => {
                    if s {
                        I::SLE
                    } else {
                        I::ULE
                    }
                }
                CmpOp::Gt => {
                    if s {
                        I::SGT
                    } else {
                        I::UGT
                    }
                }
                CmpOp::Ge => {
                    if s {
                        I::SGE
                    } else {
                        I::UGE
                    }
                }
                CmpOp::Lo => I::ULT,
                CmpOp::Ls => I::ULE,
                CmpOp::Hi => I::UGT,
                CmpOp::Hs => I::UGE,
                _ => unreachable!("rejected by the checker"),
            };
            self.icmp(p, x, y)?
        })
    }

    pub(crate) fn bool_op(&self, op: BoolOp, a: IntValue<'ctx>, b: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        Ok(match op {
            BoolOp::And => self.b.build_and(a, b, "")?,
            BoolOp::Or => self.b.build_or(a, b, "")?,
            BoolOp::Xor => self.b.build_xor(a, b, "")?,
        })
    }

    pub fn pred_logic(&self, op: Option<BoolOp>, dst: RegId, a: PredRef, b: Option<PredRef>) -> R<()> {
        let x = self.read_pred(a)?;
        let v = match (op, b) {
            (Some(op), Some(b)) => {
                let y = self.read_pred(b)?;
                self.bool_op(op, x, y)?
            }
            _ => self.b.build_not(x, "")?,
        };
        self.write(dst, v, ScalarType::Pred)
    }
}

//! Video instructions (ISA 9.2 §9.7.18): scalar `vadd vsub vabsdiff vmin vmax vshl vshr vset`,
//! `vmad`, and the SIMD forms on two 16-bit or four 8-bit lanes.
//!
//! Scalar forms compute in `i64`: operands extended to 33 bits, primary results of at most 34
//! bits, so every intermediate value of the ISA pseudocode is exact. `vmad` computes in `i128`
//! as its pseudocode does (`tmp[127:0]`).
//!
//! Choices where the text leaves room (both also made by the reference model of the tests):
//! - `vshl` can shift a 33-bit value by up to 32 places; the text declares the primary result
//!   a signed 34-bit value, so the shifted value is wrapped to 34 bits (sign-extended from bit
//!   33) before saturation.
//! - The secondary `.min`/`.max` compare the (possibly negative) 34-bit intermediate with `c`
//!   extended by the destination's signedness, as signed numbers, as the pseudocode's `MIN`/`MAX`
//!   on `.s33`/`.s34` values do.
//! - SIMD merge takes unmasked lanes from `c`, as the Semantics do (the Description of
//!   `vset2`/`vset4` says `b`).

use crate::lower::thread::FnCx;
use crate::lower::{LowerError, R};
use crate::ir::{CmpOp, Op, ScalarType, Selector, VideoOp, VideoSecondary};
use inkwell::values::IntValue;
use inkwell::IntPredicate as P;

impl<'ctx> FnCx<'ctx, '_> {
    fn c64(&self, v: i64) -> IntValue<'ctx> {
        self.cx.i64_type().const_int(v as u64, true)
    }

    /// The selected part of a 32-bit operand, sign- or zero-extended to `bits` bits.
    fn select_part(&self, x: IntValue<'ctx>, sel: Selector, signed: bool, bits: u32) -> R<IntValue<'ctx>> {
        let (width, index) = match sel {
            Selector::Word => (32, 0),
            Selector::Half(i) => (16, i as u32),
            Selector::Byte(i) => (8, i as u32),
        };
        let shifted = self.b.build_right_shift(x, self.i32((width * index) as u64), false, "")?;
        let part = self.b.build_int_truncate(shifted, self.int_ty(width), "")?;
        self.resize(part, bits, signed)
    }

    /// Clamps an `i64` to `lo..=hi`.
    fn clamp64(&self, v: IntValue<'ctx>, lo: i64, hi: i64) -> R<IntValue<'ctx>> {
        let v = self.int_intrinsic("llvm.smax", &[v, self.c64(lo)])?;
        self.int_intrinsic("llvm.smin", &[v, self.c64(hi)])
    }

    /// `|x - y|`, `min`, `max`, `+`, `-` and comparisons of exact (sign-extended) values.
    fn video_primary(&self, op: VideoOp, x: IntValue<'ctx>, y: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let t = x.get_type();
        Ok(match op {
            VideoOp::Add => self.b.build_int_add(x, y, "")?,
            VideoOp::Sub => self.b.build_int_sub(x, y, "")?,
            VideoOp::AbsDiff => {
                let d = self.b.build_int_sub(x, y, "")?;
                self.int_intrinsic("llvm.abs", &[d, self.cx.bool_type().const_zero()])?
            }
            VideoOp::Min => self.int_intrinsic("llvm.smin", &[x, y])?,
            VideoOp::Max => self.int_intrinsic("llvm.smax", &[x, y])?,
            VideoOp::Avg => {
                // (s + 1) >> 1 for s >= 0, s >> 1 otherwise (arithmetic shifts).
                let s = self.b.build_int_add(x, y, "")?;
                let nonneg = self.icmp(P::SGE, s, t.const_zero())?;
                let round = self.b.build_int_z_extend(nonneg, t, "")?;
                let s = self.b.build_int_add(s, round, "")?;
                self.b.build_right_shift(s, t.const_int(1, false), true, "")?
            }
            VideoOp::Set(cmp) => {
                let p = match cmp {
                    CmpOp::Eq => P::EQ,
                    CmpOp::Ne => P::NE,
                    CmpOp::Lt => P::SLT,
                    CmpOp::Le => P::SLE,
                    CmpOp::Gt => P::SGT,
                    _ => P::SGE,
                };
                self.b.build_int_z_extend(self.icmp(p, x, y)?, t, "")?
            }
            VideoOp::Shl | VideoOp::Shr => return Err(LowerError::Internal("video shift in video_primary".into())),
        })
    }

    pub fn video(&self, op: &Op) -> R<()> {
        let &Op::Video { op, d_signed, a_signed, b_signed, asel, bsel, dsel, sat, shift_clamp, second, dst, a, b, c } = op else {
            return Err(LowerError::Internal("not a scalar video op".into()));
        };
        let x = self.read(a, ScalarType::B32)?;
        let y = self.read(b, ScalarType::B32)?;
        let ta = self.select_part(x, asel, a_signed, 64)?;
        let tmp = match op {
            VideoOp::Shl | VideoOp::Shr => {
                // The amount is unsigned whatever `.btype` says (the checker requires `.u32`).
                let tb = self.select_part(y, bsel, false, 64)?;
                let n = if shift_clamp { self.int_intrinsic("llvm.umin", &[tb, self.c64(32)])? } else { self.b.build_and(tb, self.c64(31), "")? };
                if op == VideoOp::Shl {
                    // ta has 33 significant bits and n <= 32: wrap the shifted value to 34 bits.
                    let s = self.b.build_left_shift(ta, n, "")?;
                    let s = self.b.build_left_shift(s, self.c64(30), "")?;
                    self.b.build_right_shift(s, self.c64(30), true, "")?
                } else {
                    self.b.build_right_shift(ta, n, true, "")?
                }
            }
            _ => {
                let tb = self.select_part(y, bsel, b_signed, 64)?;
                self.video_primary(op, ta, tb)?
            }
        };
        let tmp = if sat {
            let (lo, hi) = match (dsel, d_signed) {
                (Selector::Byte(_), true) => (i8::MIN as i64, i8::MAX as i64),
                (Selector::Byte(_), false) => (0, u8::MAX as i64),
                (Selector::Half(_), true) => (i16::MIN as i64, i16::MAX as i64),
                (Selector::Half(_), false) => (0, u16::MAX as i64),
                (Selector::Word, true) => (i32::MIN as i64, i32::MAX as i64),
                (Selector::Word, false) => (0, u32::MAX as i64),
            };
            self.clamp64(tmp, lo, hi)?
        } else {
            tmp
        };
        let result = match (c, second, dsel) {
            (Some(c), Some(second), _) => {
                let cv = self.resize(self.read(c, ScalarType::B32)?, 64, d_signed)?;
                match second {
                    VideoSecondary::Add => self.b.build_int_add(tmp, cv, "")?,
                    VideoSecondary::Min => self.int_intrinsic("llvm.smin", &[tmp, cv])?,
                    VideoSecondary::Max => self.int_intrinsic("llvm.smax", &[tmp, cv])?,
                }
            }
            (Some(c), None, Selector::Byte(_) | Selector::Half(_)) => {
                let (bits, index) = match dsel {
                    Selector::Byte(i) => (8u32, i as u32),
                    Selector::Half(i) => (16, i as u32),
                    Selector::Word => (32, 0),
                };
                let shift = (bits * index) as u64;
                let field = ((1u64 << bits) - 1) << shift;
                let cv = self.resize(self.read(c, ScalarType::B32)?, 64, false)?;
                let part = self.b.build_left_shift(tmp, self.i64(shift), "")?;
                let part = self.b.build_and(part, self.i64(field), "")?;
                let rest = self.b.build_and(cv, self.i64(!field & 0xffff_ffff), "")?;
                self.b.build_or(part, rest, "")?
            }
            _ => tmp,
        };
        let v = self.b.build_int_truncate(result, self.cx.i32_type(), "")?;
        self.write(dst, v, ScalarType::B32)
    }

    pub fn video_mad(&self, op: &Op) -> R<()> {
        let &Op::VideoMad { a_signed, b_signed, asel, bsel, neg_product, neg_c, plus_one, scale, sat, dst, a, b, c } = op else {
            return Err(LowerError::Internal("not vmad".into()));
        };
        let i128t = self.cx.i128_type();
        let ta = self.select_part(self.read(a, ScalarType::B32)?, asel, a_signed, 128)?;
        let tb = self.select_part(self.read(b, ScalarType::B32)?, bsel, b_signed, 128)?;
        let mut cv = self.read(c, ScalarType::B32)?;
        let signed_final = a_signed || b_signed || neg_product || neg_c;
        let mut tmp = self.b.build_int_mul(ta, tb, "")?;
        let lsb = plus_one || neg_product || neg_c;
        if !plus_one && neg_product {
            tmp = self.b.build_not(tmp, "")?;
        } else if !plus_one && neg_c {
            cv = self.b.build_not(cv, "")?;
        }
        let c128 = self.resize(cv, 128, signed_final)?;
        tmp = self.b.build_int_add(tmp, c128, "")?;
        if lsb {
            tmp = self.b.build_int_add(tmp, i128t.const_int(1, false), "")?;
        }
        if scale > 0 {
            tmp = self.b.build_right_shift(tmp, i128t.const_int(scale as u64, false), signed_final, "")?;
        }
        let mut result = self.b.build_int_truncate(tmp, self.cx.i64_type(), "")?;
        if sat {
            result = if signed_final {
                self.clamp64(result, i32::MIN as i64, i32::MAX as i64)?
            } else {
                self.int_intrinsic("llvm.umin", &[result, self.i64(u32::MAX as u64)])?
            };
        }
        let v = self.b.build_int_truncate(result, self.cx.i32_type(), "")?;
        self.write(dst, v, ScalarType::B32)
    }

    pub fn video_simd(&self, op: &Op) -> R<()> {
        let &Op::VideoSimd { op, lanes, d_signed, a_signed, b_signed, asel, bsel, sat, accumulate, mask, dst, a, b, c } = op else {
            return Err(LowerError::Internal("not a SIMD video op".into()));
        };
        let bits = 32 / lanes;
        let x = self.resize(self.read(a, ScalarType::B32)?, 64, false)?;
        let y = self.resize(self.read(b, ScalarType::B32)?, 64, false)?;
        let cv = self.read(c, ScalarType::B32)?;
        // The eight bytes (four half-words) of {b, a}.
        let pair = self.b.build_or(x, self.b.build_left_shift(y, self.i64(32), "")?, "")?;
        let pick = |sel: u8, signed: bool| -> R<IntValue<'ctx>> {
            let s = self.b.build_right_shift(pair, self.i64((bits * sel as u32) as u64), false, "")?;
            let t = self.b.build_int_truncate(s, self.int_ty(bits), "")?;
            self.resize(t, 32, signed)
        };
        let (lo, hi) = match (bits, d_signed) {
            (16, true) => (i16::MIN as i64, i16::MAX as i64),
            (16, false) => (0, u16::MAX as i64),
            (_, true) => (i8::MIN as i64, i8::MAX as i64),
            (_, false) => (0, u8::MAX as i64),
        };
        let lane_mask = (1u64 << bits) - 1;
        let mut out = if accumulate { cv } else { self.i32(0) };
        for i in 0..lanes {
            let va = pick(asel[i as usize], a_signed)?;
            let vb = pick(bsel[i as usize], b_signed)?;
            // Lane values have at most 17 significant bits: i32 arithmetic is exact.
            let mut t = self.video_primary(op, va, vb)?;
            if sat {
                t = self.int_intrinsic("llvm.smax", &[t, self.i32(lo as u64)])?;
                t = self.int_intrinsic("llvm.smin", &[t, self.i32(hi as u64)])?;
            }
            let selected = mask >> i & 1 == 1;
            out = if accumulate {
                if selected {
                    self.b.build_int_add(out, t, "")?
                } else {
                    out
                }
            } else {
                let shift = (bits * i) as u64;
                let v = if selected {
                    let t = self.b.build_and(t, self.i32(lane_mask), "")?;
                    self.b.build_left_shift(t, self.i32(shift), "")?
                } else {
                    self.b.build_and(cv, self.i32(lane_mask << shift), "")?
                };
                self.b.build_or(out, v, "")?
            };
        }
        self.write(dst, out, ScalarType::B32)
    }
}

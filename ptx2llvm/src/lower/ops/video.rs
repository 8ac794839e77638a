//! Video instructions (ISA 9.2 §9.7.18): scalar `vadd vsub vabsdiff vmin vmax vshl vshr vset`,
//! `vmad`, and the SIMD forms on two 16-bit or four 8-bit lanes.
//!
//! The scalar forms follow NVIDIA silicon (sm_90, whose driver emulates the video
//! instructions; measured with the GPU-recorded vectors of `tests/silicon`), which differs
//! from the ISA's pseudocode in these rules:
//! - Secondary operation (`.add .min .max`), arithmetic forms: the intermediate wraps before
//!   it meets `c`: to a signed 32-bit value for a signed dtype (`vadd.s32.s32.s32.min` whose
//!   `a + b` overflows gives `c` where the exact sum would win), except `vabsdiff`, whose
//!   32-bit difference stays non-negative; to an unsigned 33-bit value for an unsigned
//!   dtype (a negative difference compares above every `c`). `c` is extended by the dtype.
//! - `vset` has no dtype: the sign of `c` follows `.atype`.
//! - Shifts meet `c` with their exact value (`vshl.s32.s32.u32.clamp.max` of `x.h1 << 32`
//!   gives the low 32 bits of the shifted value, 0, where a wrap would give `c`).
//! - `.sat` with a byte or half-word destination (arithmetic forms): the 32-bit result is
//!   limited, as an unsigned number, to the field's maximum (0x7f/0x7fff signed, 0xff/0xffff
//!   unsigned), so a negative result saturates to the maximum. Shifts ignore the field and
//!   saturate to the 32-bit range of the dtype; `vshl` saturates its result wrapped to a
//!   signed 34-bit value, and in a secondary min/max a saturated unsigned shift result of
//!   2^31 or more compares above every `c`.
//! - Merge into `.h1`: bits 16-31 of the result stay where they are and bits 0-15 come from
//!   `c` (the result's low half is not moved up: `vset.u32.u32.ne d.h1, 0, 0x7fff0000, 8`
//!   is 8). `.h0` and `.b0`-`.b3` merge as the ISA says.
//!
//! `vmad` differs from its pseudocode too (operand extension, shift and `.sat`; see
//! `video_mad`). SIMD merge takes unmasked lanes from `c`, as the Semantics do (the
//! Description of `vset2`/`vset4` says `b`).

use crate::ir::{CmpOp, Op, ScalarType, Selector, VideoOp, VideoSecondary};
use crate::lower::thread::FnCx;
use crate::lower::{LowerError, R};
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

    /// A scalar video instruction, as NVIDIA silicon computes it (sm_90, where the driver
    /// emulates the video instructions; the ISA's pseudocode differs in the places listed
    /// in the module doc). Everything is computed in `i128`, so every intermediate value is
    /// exact until a rule below cuts it.
    pub fn video(&self, op: &Op) -> R<()> {
        let &Op::Video { op, d_signed, a_signed, b_signed, asel, bsel, dsel, sat, shift_clamp, second, dst, a, b, c } = op else {
            return Err(LowerError::Internal("not a scalar video op".into()));
        };
        let t = self.cx.i128_type();
        // Constants of the rules below (all within the range of an i64).
        let k = |v: i128| t.const_int(v as i64 as u64, v < 0);
        let x = self.read(a, ScalarType::B32)?;
        let y = self.read(b, ScalarType::B32)?;
        let ta = self.select_part(x, asel, a_signed, 128)?;
        let shift = matches!(op, VideoOp::Shl | VideoOp::Shr);
        // The signedness of the result and of `c`: dtype's; `vset` has none and takes atype's.
        let signed = if matches!(op, VideoOp::Set(_)) { a_signed } else { d_signed };
        let mut tmp = if shift {
            // The amount is unsigned whatever `.btype` says (the checker requires `.u32`).
            let tb = self.select_part(y, bsel, false, 128)?;
            let n = if shift_clamp { self.int_intrinsic("llvm.umin", &[tb, k(32)])? } else { self.b.build_and(tb, k(31), "")? };
            if op == VideoOp::Shl {
                let s = self.b.build_left_shift(ta, n, "")?;
                if sat {
                    // Saturation sees the shifted value wrapped to a signed 34-bit value.
                    let s = self.b.build_left_shift(s, k(94), "")?;
                    self.b.build_right_shift(s, k(94), true, "")?
                } else {
                    s
                }
            } else {
                self.b.build_right_shift(ta, n, true, "")?
            }
        } else {
            let tb = self.select_part(y, bsel, b_signed, 128)?;
            self.video_primary(op, ta, tb)?
        };
        let mut huge = None;
        if sat {
            tmp = match (dsel, shift, signed) {
                // Sub-word saturation of the arithmetic forms compares unsigned: the 32-bit
                // result, as an unsigned number, is limited to the field's maximum (a
                // negative result gives that maximum).
                (Selector::Byte(_) | Selector::Half(_), false, _) => {
                    let hi = match (dsel, signed) {
                        (Selector::Byte(_), true) => 0x7f,
                        (Selector::Byte(_), false) => 0xff,
                        (_, true) => 0x7fff,
                        _ => 0xffff,
                    };
                    let w = self.b.build_and(tmp, k(0xffff_ffff), "")?;
                    self.int_intrinsic("llvm.umin", &[w, k(hi)])?
                }
                // Shifts saturate to the 32-bit range whatever the destination selector.
                (_, _, true) => {
                    let v = self.int_intrinsic("llvm.smax", &[tmp, k(i32::MIN as i128)])?;
                    self.int_intrinsic("llvm.smin", &[v, k(i32::MAX as i128)])?
                }
                (_, shift, false) => {
                    if shift {
                        // In a secondary min/max, a saturated unsigned shift result of 2^31
                        // or more compares above every `c`.
                        huge = Some(self.icmp(P::SGE, tmp, k(1 << 31))?);
                    }
                    let v = self.int_intrinsic("llvm.smax", &[tmp, k(0)])?;
                    self.int_intrinsic("llvm.smin", &[v, k(u32::MAX as i128)])?
                }
            };
        }
        let result = match (c, second, dsel) {
            (Some(c), Some(second), _) => {
                let cv = self.resize(self.read(c, ScalarType::B32)?, 128, signed)?;
                // The value the secondary operation sees: shifts keep the exact value; the
                // arithmetic forms wrap to 32 bits (signed: sign-extended, except `vabsdiff`,
                // which stays non-negative) or, unsigned, to 33 bits.
                let tv = if shift {
                    match huge {
                        Some(h) => self.select(h, self.b.build_or(tmp, k(1 << 40), "")?, tmp)?,
                        None => tmp,
                    }
                } else if signed && op != VideoOp::AbsDiff {
                    let s = self.b.build_left_shift(tmp, k(96), "")?;
                    self.b.build_right_shift(s, k(96), true, "")?
                } else if signed {
                    self.b.build_and(tmp, k(0xffff_ffff), "")?
                } else {
                    self.b.build_and(tmp, k((1 << 33) - 1), "")?
                };
                match second {
                    VideoSecondary::Add => self.b.build_int_add(tv, cv, "")?,
                    VideoSecondary::Min => self.int_intrinsic("llvm.smin", &[tv, cv])?,
                    VideoSecondary::Max => self.int_intrinsic("llvm.smax", &[tv, cv])?,
                }
            }
            (Some(c), None, Selector::Byte(_) | Selector::Half(_)) => {
                let cv = self.resize(self.read(c, ScalarType::B32)?, 128, false)?;
                let (part, field) = match dsel {
                    // `.h1` keeps bits 16-31 of the result where they are (the low half is
                    // not moved up) and bits 0-15 of `c`.
                    Selector::Half(1) => (tmp, 0xffff_0000u64),
                    Selector::Byte(i) => (self.b.build_left_shift(tmp, k(8 * i as i128), "")?, 0xffu64 << (8 * i as u64)),
                    Selector::Half(i) => (self.b.build_left_shift(tmp, k(16 * i as i128), "")?, 0xffffu64 << (16 * i as u64)),
                    Selector::Word => (tmp, 0xffff_ffff),
                };
                let part = self.b.build_and(part, k(field as i128), "")?;
                let rest = self.b.build_and(cv, k((!field & 0xffff_ffff) as i128), "")?;
                self.b.build_or(part, rest, "")?
            }
            _ => tmp,
        };
        let v = self.b.build_int_truncate(result, self.cx.i32_type(), "")?;
        self.write(dst, v, ScalarType::B32)
    }

    /// `vmad` as NVIDIA silicon computes it (sm_90's driver emulation, fitted to every
    /// GPU-recorded vector of `tests/silicon`), not the ISA pseudocode:
    /// - a full 32-bit `a` or `b` is sign-extended whatever its type; a byte or half-word
    ///   selected with `.b0`-`.b3`/`.h0`/`.h1` is extended by its type (`.u32`: zero);
    /// - `c` (after `~c` for `-c`) is always sign-extended;
    /// - `tmp = ±(ta * tb) + c + lsb` is exact in 64 bits; `.shr7`/`.shr15` shift it
    ///   arithmetically when the result is signed (`signedFinal`), else logically as a 64-bit
    ///   value (a negative unsigned `tmp` becomes a huge positive one);
    /// - `.sat` clamps that 64-bit value as a *signed* number, to the `s32` range when
    ///   signed, else to `0..=u32::MAX` (a negative unshifted unsigned result gives 0).
    pub fn video_mad(&self, op: &Op) -> R<()> {
        let &Op::VideoMad { a_signed, b_signed, asel, bsel, neg_product, neg_c, plus_one, scale, sat, dst, a, b, c } = op else {
            return Err(LowerError::Internal("not vmad".into()));
        };
        let word = |sel: Selector| matches!(sel, Selector::Word);
        let ta = self.select_part(self.read(a, ScalarType::B32)?, asel, a_signed || word(asel), 64)?;
        let tb = self.select_part(self.read(b, ScalarType::B32)?, bsel, b_signed || word(bsel), 64)?;
        let mut cv = self.read(c, ScalarType::B32)?;
        let signed_final = a_signed || b_signed || neg_product || neg_c;
        // |ta * tb| <= 2^62: exact in i64, and so is the sum below.
        let mut tmp = self.b.build_int_mul(ta, tb, "")?;
        let lsb = plus_one || neg_product || neg_c;
        if !plus_one && neg_product {
            tmp = self.b.build_not(tmp, "")?;
        } else if !plus_one && neg_c {
            cv = self.b.build_not(cv, "")?;
        }
        let c64 = self.resize(cv, 64, true)?;
        tmp = self.b.build_int_add(tmp, c64, "")?;
        if lsb {
            tmp = self.b.build_int_add(tmp, self.i64(1), "")?;
        }
        if scale > 0 {
            tmp = self.b.build_right_shift(tmp, self.i64(scale as u64), signed_final, "")?;
        }
        let mut result = tmp;
        if sat {
            result = if signed_final { self.clamp64(result, i32::MIN as i64, i32::MAX as i64)? } else { self.clamp64(result, 0, u32::MAX as i64)? };
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

//! Integer arithmetic and logic: exact PTX semantics, never LLVM poison or a CPU trap.

use crate::ir::{BoolOp, CarryOp, CmpOp, IntBinOp, IntUnOp, LaneOp, MulMode, Operand, PredRef, PrmtMode, RegId, ScalarType};
use crate::lower::thread::FnCx;
use crate::lower::LowerError;
use crate::lower::R;
use inkwell::values::{BasicValueEnum, IntValue};
use inkwell::IntPredicate as P;

impl<'ctx> FnCx<'ctx, '_> {
    /// `sat` (only `add/sub.s32`): the result is clamped to `i32::MIN..=i32::MAX`.
    pub fn int_binary(&self, op: IntBinOp, ty: ScalarType, sat: bool, dst: RegId, a: Operand, b: Operand) -> R<()> {
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
                    IntBinOp::Add if sat => self.int_intrinsic("llvm.sadd.sat", &[x, y])?,
                    IntBinOp::Sub if sat => self.int_intrinsic("llvm.ssub.sat", &[x, y])?,
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
                        let name = match (op == IntBinOp::Min, signed) {
                            (true, true) => "llvm.smin",
                            (true, false) => "llvm.umin",
                            (false, true) => "llvm.smax",
                            (false, false) => "llvm.umax",
                        };
                        self.int_intrinsic(name, &[x, y])?
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
        // A zero divisor gives all ones for `div` and, as on NVIDIA silicon (sm_90, every
        // width and signedness), for `rem` too; the ISA leaves both unspecified.
        self.select(y_zero, ones, q)
    }

    pub fn mul_wide(&self, ty: ScalarType, dst: RegId, a: Operand, b: Operand) -> R<()> {
        let (x, y) = (self.read(a, ty)?, self.read(b, ty)?);
        let p = self.wide_product(x, y, ty.is_signed())?;
        let wide = ScalarType::int(ty.bits() * 2, ty.is_signed()).expect("checked");
        self.write(dst, p, wide)
    }

    /// `sat` only with `.hi.s32`: a saturating 32-bit addition.
    pub fn mad(&self, mode: MulMode, ty: ScalarType, sat: bool, dst: RegId, a: Operand, b: Operand, c: Operand) -> R<()> {
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
        let v = if sat { self.int_intrinsic("llvm.sadd.sat", &[prod, z])? } else { self.b.build_int_add(prod, z, "")? };
        self.write(dst, v, rty)
    }

    pub fn int_unary(&self, op: IntUnOp, ty: ScalarType, dst: RegId, a: Operand) -> R<()> {
        let x = self.read(a, ty)?;
        let t = x.get_type();
        let (v, rty) = match op {
            IntUnOp::Not => (self.b.build_not(x, "")?, ty),
            IntUnOp::Neg => (self.b.build_int_neg(x, "")?, ty),
            // abs(MIN) = MIN (the int-min-is-poison flag is false).
            IntUnOp::Abs => (self.call_intrinsic("llvm.abs", &[t.into()], &[x.into(), self.cx.bool_type().const_zero().into()])?.into_int_value(), ty),
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
            IntUnOp::Bfind | IntUnOp::BfindShiftAmt => (self.bfind(x, ty.is_signed(), op == IntUnOp::BfindShiftAmt)?, ScalarType::U32),
        };
        self.write(dst, v, rty)
    }
}

/// Bit-manipulation, extended-precision, funnel-shift, permute and selection instructions.
/// Everything is straight-line code: shift amounts are clamped before LLVM shifts (a shift by
/// the width or more is poison in LLVM), and no operation can trap.
impl<'ctx> FnCx<'ctx, '_> {
    /// Calls an overloaded integer intrinsic whose overload type is that of the first argument.
    pub(crate) fn int_intrinsic(&self, name: &str, args: &[IntValue<'ctx>]) -> R<IntValue<'ctx>> {
        let t = args[0].get_type();
        let args: Vec<_> = args.iter().map(|a| (*a).into()).collect();
        Ok(self.call_intrinsic(name, &[t.into()], &args)?.into_int_value())
    }

    fn int_const(&self, like: IntValue<'ctx>, v: u64) -> IntValue<'ctx> {
        like.get_type().const_int(v, false)
    }

    /// `x << n` for any `n` (an integer of `x`'s type): 0 when `n` ≥ the width.
    pub(crate) fn shl_any(&self, x: IntValue<'ctx>, n: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let w = self.int_const(x, x.get_type().get_bit_width() as u64);
        let big = self.icmp(P::UGE, n, w)?;
        let safe = self.select(big, self.int_const(x, 0), n)?;
        let s = self.b.build_left_shift(x, safe, "")?;
        self.select(big, self.int_const(x, 0), s)
    }

    /// Logical `x >> n` for any `n`: 0 when `n` ≥ the width.
    pub(crate) fn lshr_any(&self, x: IntValue<'ctx>, n: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let w = self.int_const(x, x.get_type().get_bit_width() as u64);
        let big = self.icmp(P::UGE, n, w)?;
        let safe = self.select(big, self.int_const(x, 0), n)?;
        let s = self.b.build_right_shift(x, safe, false, "")?;
        self.select(big, self.int_const(x, 0), s)
    }

    /// A mask of the `n` low bits (all ones when `n` ≥ the width), in the type of `n`.
    fn low_mask(&self, n: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let ones = n.get_type().const_all_ones();
        let shifted = self.shl_any(ones, n)?;
        Ok(self.b.build_not(shifted, "")?)
    }

    /// `bfind`: `msb - clz(a')` with `a' = ~a` for negative signed inputs, or `clz(a')` for
    /// `.shiftamt`; `0xffffffff` when `a'` is 0.
    pub(crate) fn bfind(&self, x: IntValue<'ctx>, signed: bool, shiftamt: bool) -> R<IntValue<'ctx>> {
        let t = x.get_type();
        let w = t.get_bit_width() as u64;
        let v = if signed {
            let neg = self.icmp(P::SLT, x, t.const_zero())?;
            let inv = self.b.build_not(x, "")?;
            self.select(neg, inv, x)?
        } else {
            x
        };
        let clz = self.int_intrinsic("llvm.ctlz", &[v, self.cx.bool_type().const_zero()])?;
        let clz = self.resize(clz, 32, false)?;
        let found = if shiftamt { clz } else { self.b.build_int_sub(self.i32(w - 1), clz, "")? };
        let zero = self.icmp(P::EQ, v, t.const_zero())?;
        self.select(zero, self.i32(0xffff_ffff), found)
    }

    pub fn lanes(&self, op: LaneOp, lane: ScalarType, relu: bool, dst: RegId, a: Operand, b: Operand) -> R<()> {
        let n = 32 / lane.bits();
        let (x, y) = (self.read(a, ScalarType::B32)?, self.read(b, ScalarType::B32)?);
        let vt = self.int_ty(lane.bits()).vec_type(n);
        let (vx, vy) = if n == 1 { (x.into(), y.into()) } else { (self.b.build_bit_cast(x, vt, "")?, self.b.build_bit_cast(y, vt, "")?) };
        let vt_any: inkwell::types::BasicTypeEnum = if n == 1 { x.get_type().into() } else { vt.into() };
        let call = |name: &str, p: BasicValueEnum<'ctx>, q: BasicValueEnum<'ctx>| self.call_intrinsic(name, &[vt_any], &[p, q]);
        let signed = lane.is_signed();
        let r: BasicValueEnum = match op {
            LaneOp::Add if n == 1 => self.b.build_int_add(vx.into_int_value(), vy.into_int_value(), "")?.into(),
            LaneOp::Add => self.b.build_int_add(vx.into_vector_value(), vy.into_vector_value(), "")?.into(),
            LaneOp::Min => call(if signed { "llvm.smin" } else { "llvm.umin" }, vx, vy)?,
            LaneOp::Max => call(if signed { "llvm.smax" } else { "llvm.umax" }, vx, vy)?,
        };
        let r = if relu {
            let zero = match vt_any {
                inkwell::types::BasicTypeEnum::VectorType(v) => v.const_zero().into(),
                _ => x.get_type().const_zero().into(),
            };
            call("llvm.smax", r, zero)?
        } else {
            r
        };
        let bits = self.b.build_bit_cast(r, self.cx.i32_type(), "")?.into_int_value();
        self.write(dst, bits, ScalarType::B32)
    }

    /// The low 24 bits of a 32-bit value, sign- or zero-extended to 64 bits.
    fn low24(&self, x: IntValue<'ctx>, signed: bool) -> R<IntValue<'ctx>> {
        let t = self.b.build_int_truncate(x, self.int_ty(24), "")?;
        self.resize(t, 64, signed)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn mul24(&self, hi: bool, ty: ScalarType, sat: bool, dst: RegId, a: Operand, b: Operand, c: Option<Operand>) -> R<()> {
        let signed = ty.is_signed();
        let x = self.low24(self.read(a, ty)?, signed)?;
        let y = self.low24(self.read(b, ty)?, signed)?;
        // |product| < 2^47: exact in 64 bits.
        let t = self.b.build_int_mul(x, y, "")?;
        let part = if hi { self.b.build_right_shift(t, self.i64(16), false, "")? } else { t };
        let part = self.b.build_int_truncate(part, self.cx.i32_type(), "")?;
        let v = match c {
            None => part,
            Some(c) => {
                let z = self.read(c, ty)?;
                if sat {
                    self.int_intrinsic("llvm.sadd.sat", &[part, z])?
                } else {
                    self.b.build_int_add(part, z, "")?
                }
            }
        };
        self.write(dst, v, ty)
    }

    pub fn sad(&self, ty: ScalarType, dst: RegId, a: Operand, b: Operand, c: Operand) -> R<()> {
        let (x, y, z) = (self.read(a, ty)?, self.read(b, ty)?, self.read(c, ty)?);
        let less = self.icmp(if ty.is_signed() { P::SLT } else { P::ULT }, x, y)?;
        let d1 = self.b.build_int_sub(y, x, "")?;
        let d2 = self.b.build_int_sub(x, y, "")?;
        let diff = self.select(less, d1, d2)?;
        let v = self.b.build_int_add(z, diff, "")?;
        self.write(dst, v, ty)
    }

    /// `pos`/`len` operands of `bfe`/`bfi`: the low 8 bits, zero-extended to the width `w`.
    /// A position or length operand of `bfe`/`bfi`: the ISA takes bits 0-7. NVIDIA silicon
    /// (sm_90) does so for the 32-bit forms only; the 64-bit forms use the whole unsigned
    /// 32-bit value (`bfe.u64 d, 8, 0x101, 31` is 0: position 257 is past the msb).
    fn field_operand(&self, op: Operand, w: u32) -> R<IntValue<'ctx>> {
        let v = self.read(op, ScalarType::U32)?;
        let v = if w == 64 { v } else { self.b.build_and(v, self.i32(0xff), "")? };
        self.resize(v, w, false)
    }

    pub fn bfe(&self, ty: ScalarType, dst: RegId, a: Operand, pos: Operand, len: Operand) -> R<()> {
        let w = ty.bits();
        let x = self.read(a, ty)?;
        let t = x.get_type();
        let pos = self.field_operand(pos, w)?;
        let len = self.field_operand(len, w)?;
        let wc = t.const_int(w as u64, false);
        // Bits of the field that lie inside the source: k = min(len, w - min(pos, w)).
        let pos_in = self.int_intrinsic("llvm.umin", &[pos, wc])?;
        let room = self.b.build_int_sub(wc, pos_in, "")?;
        let k = self.int_intrinsic("llvm.umin", &[len, room])?;
        let field = self.lshr_any(x, pos)?;
        let keep = self.low_mask(k)?;
        let bits = self.b.build_and(field, keep, "")?;
        let v = if ty.is_signed() {
            // Sign bit a[min(pos + len - 1, msb)] (pos + len - 1 < 2^33: no overflow), 0 if len = 0.
            let last = self.b.build_int_add(pos, len, "")?;
            let last = self.b.build_int_sub(last, t.const_int(1, false), "")?;
            let last = self.int_intrinsic("llvm.umin", &[last, t.const_int(w as u64 - 1, false)])?;
            let sbit = self.b.build_right_shift(x, last, false, "")?;
            let sbit = self.b.build_and(sbit, t.const_int(1, false), "")?;
            let len_zero = self.icmp(P::EQ, len, t.const_zero())?;
            let sbit = self.select(len_zero, t.const_zero(), sbit)?;
            // sbit ? ~keep : 0, as (0 - sbit) & ~keep.
            let fill = self.b.build_int_neg(sbit, "")?;
            let fill = self.b.build_and(fill, self.b.build_not(keep, "")?, "")?;
            self.b.build_or(bits, fill, "")?
        } else {
            bits
        };
        self.write(dst, v, ty)
    }

    pub fn bfi(&self, ty: ScalarType, dst: RegId, a: Operand, b: Operand, pos: Operand, len: Operand) -> R<()> {
        let w = ty.bits();
        let (x, y) = (self.read(a, ty)?, self.read(b, ty)?);
        let pos = self.field_operand(pos, w)?;
        let len = self.field_operand(len, w)?;
        // Field bits past the msb fall off the shifts; pos ≥ w leaves `b` unchanged.
        let m = self.shl_any(self.low_mask(len)?, pos)?;
        let ins = self.shl_any(x, pos)?;
        let ins = self.b.build_and(ins, m, "")?;
        let kept = self.b.build_and(y, self.b.build_not(m, "")?, "")?;
        let v = self.b.build_or(kept, ins, "")?;
        self.write(dst, v, ty)
    }

    /// Position of the `r`-th set bit (1-based, from bit 0) of `x`, assuming `r ≤ popc(x)`:
    /// a branch-free binary search over halves, quarters, ... of the word.
    fn nth_set_bit(&self, x: IntValue<'ctx>, r: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let (mut x, mut r, mut p) = (x, r, self.i32(0));
        for s in [16u64, 8, 4, 2, 1] {
            let low = self.b.build_and(x, self.i32((1 << s) - 1), "")?;
            let cnt = self.int_intrinsic("llvm.ctpop", &[low])?;
            let above = self.icmp(P::UGT, r, cnt)?;
            let r2 = self.b.build_int_sub(r, cnt, "")?;
            r = self.select(above, r2, r)?;
            let x2 = self.b.build_right_shift(x, self.i32(s), false, "")?;
            x = self.select(above, x2, x)?;
            let p2 = self.b.build_int_add(p, self.i32(s), "")?;
            p = self.select(above, p2, p)?;
        }
        Ok(p)
    }

    pub fn fns(&self, dst: RegId, mask: Operand, base: Operand, offset: Operand) -> R<()> {
        let m = self.read(mask, ScalarType::B32)?;
        let base = self.read(base, ScalarType::U32)?;
        let off = self.read(offset, ScalarType::S32)?;
        let none = self.i32(0xffff_ffff);
        // Candidate bits: base and above (offset > 0), base and below (offset < 0), base only (0).
        let above = self.b.build_and(m, self.shl_any(self.i32(0xffff_ffff), base)?, "")?;
        let base1 = self.b.build_int_add(base, self.i32(1), "")?;
        let below = self.b.build_and(m, self.low_mask(base1)?, "")?;
        let up = self.icmp(P::SGT, off, self.i32(0))?;
        let cand = self.select(up, above, below)?;
        let count = self.int_intrinsic("llvm.ctpop", &[cand])?;
        let n = self.int_intrinsic("llvm.abs", &[off, self.cx.bool_type().const_zero()])?; // |MIN| = 2^31 as unsigned
        let r_down = self.b.build_int_sub(count, n, "")?;
        let r_down = self.b.build_int_add(r_down, self.i32(1), "")?;
        let r = self.select(up, n, r_down)?;
        let pos = self.nth_set_bit(cand, r)?;
        let enough = self.icmp(P::ULE, n, count)?;
        let searched = self.select(enough, pos, none)?;
        // offset == 0: base itself if mask[base] is set (bits past 31 read as 0).
        let bit = self.lshr_any(m, base)?;
        let bit = self.b.build_and(bit, self.i32(1), "")?;
        let set = self.icmp(P::NE, bit, self.i32(0))?;
        let at_base = self.select(set, base, none)?;
        let off_zero = self.icmp(P::EQ, off, self.i32(0))?;
        let v = self.select(off_zero, at_base, searched)?;
        // base > 31: the search never starts.
        let in_range = self.icmp(P::ULT, base, self.i32(32))?;
        let v = self.select(in_range, v, none)?;
        // offset = i32::MIN (|offset| is not an s32): NVIDIA silicon (sm_90) gives 0 for
        // every mask and base (even past 31), where the ISA's loop finds nothing.
        let off_min = self.icmp(P::EQ, off, self.i32(0x8000_0000))?;
        let v = self.select(off_min, self.i32(0), v)?;
        self.write(dst, v, ScalarType::B32)
    }

    pub fn szext(&self, clamp: bool, signed: bool, dst: RegId, a: Operand, b: Operand) -> R<()> {
        let ty = if signed { ScalarType::S32 } else { ScalarType::U32 };
        let x = self.read(a, ty)?;
        let n = self.read(b, ScalarType::U32)?;
        let b1 = self.b.build_and(n, self.i32(31), "")?;
        let too_large = if clamp { self.icmp(P::UGE, n, self.i32(32))? } else { self.cx.bool_type().const_zero() };
        // mask = too_large ? 0 : ~0 << b1 (b1 < 32).
        let mask = self.b.build_left_shift(self.i32(0xffff_ffff), b1, "")?;
        let mask = self.select(too_large, self.i32(0), mask)?;
        let v = self.b.build_and(x, self.b.build_not(mask, "")?, "")?;
        let v = if signed {
            let sign_pos = self.b.build_int_sub(b1, self.i32(1), "")?;
            let sign_pos = self.b.build_and(sign_pos, self.i32(31), "")?;
            let bit = self.b.build_right_shift(x, sign_pos, false, "")?;
            let bit = self.b.build_and(bit, self.i32(1), "")?;
            let b1_zero = self.icmp(P::EQ, b1, self.i32(0))?;
            let no_sign = self.b.build_or(b1_zero, too_large, "")?;
            let bit = self.select(no_sign, self.i32(0), bit)?;
            let fill = self.b.build_and(self.b.build_int_neg(bit, "")?, mask, "")?;
            self.b.build_or(v, fill, "")?
        } else {
            v
        };
        self.write(dst, v, ty)
    }

    pub fn bmsk(&self, clamp: bool, dst: RegId, a: Operand, b: Operand) -> R<()> {
        let x = self.read(a, ScalarType::U32)?;
        let y = self.read(b, ScalarType::U32)?;
        let ones = self.i32(0xffff_ffff);
        let a1 = self.b.build_and(x, self.i32(31), "")?;
        let b1 = self.b.build_and(y, self.i32(31), "")?;
        let mut mask0 = self.b.build_left_shift(ones, a1, "")?;
        let sum = self.b.build_int_add(a1, b1, "")?;
        let mut overflow = self.icmp(P::UGE, sum, self.i32(32))?;
        if clamp {
            let pos_over = self.icmp(P::UGE, x, self.i32(32))?;
            let width_over = self.icmp(P::UGE, y, self.i32(32))?;
            mask0 = self.select(pos_over, self.i32(0), mask0)?;
            overflow = self.b.build_or(overflow, pos_over, "")?;
            overflow = self.b.build_or(overflow, width_over, "")?;
        }
        let mask1 = self.shl_any(ones, sum)?;
        let b1_zero = self.icmp(P::EQ, b1, self.i32(0))?;
        let mask1 = self.select(b1_zero, ones, mask1)?;
        let mask1 = self.select(overflow, self.i32(0), mask1)?;
        let v = self.b.build_and(mask0, self.b.build_not(mask1, "")?, "")?;
        self.write(dst, v, ScalarType::B32)
    }

    /// Lane `i` (of `bits` bits) of a 32-bit value, sign- or zero-extended to 32 bits.
    pub(crate) fn lane(&self, x: IntValue<'ctx>, bits: u32, i: u32, signed: bool) -> R<IntValue<'ctx>> {
        let s = self.b.build_right_shift(x, x.get_type().const_int((bits * i) as u64, false), false, "")?;
        let t = self.b.build_int_truncate(s, self.int_ty(bits), "")?;
        self.resize(t, x.get_type().get_bit_width(), signed)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn dot(&self, half: Option<bool>, a_signed: bool, b_signed: bool, dst: RegId, a: Operand, b: Operand, c: Operand) -> R<()> {
        let (x, y, mut acc) = (self.read(a, ScalarType::B32)?, self.read(b, ScalarType::B32)?, self.read(c, ScalarType::B32)?);
        let (n, a_bits, b_first) = match half {
            None => (4, 8, 0),
            Some(hi) => (2, 16, if hi { 2 } else { 0 }),
        };
        for i in 0..n {
            let p = self.lane(x, a_bits, i, a_signed)?;
            let q = self.lane(y, 8, b_first + i, b_signed)?;
            acc = self.b.build_int_add(acc, self.b.build_int_mul(p, q, "")?, "")?;
        }
        let ty = if a_signed || b_signed { ScalarType::S32 } else { ScalarType::U32 };
        self.write(dst, acc, ty)
    }

    /// `v + extra` with the unsigned carry-out, `extra` being `i1` or of `v`'s type.
    fn add_carry(&self, v: IntValue<'ctx>, extra: IntValue<'ctx>, sub: bool) -> R<(IntValue<'ctx>, IntValue<'ctx>)> {
        let extra = self.resize(extra, v.get_type().get_bit_width(), false)?;
        let name = if sub { "llvm.usub.with.overflow" } else { "llvm.uadd.with.overflow" };
        let r = self.call_intrinsic(name, &[v.get_type().into()], &[v.into(), extra.into()])?.into_struct_value();
        let sum = self.b.build_extract_value(r, 0, "")?.into_int_value();
        let carry = self.b.build_extract_value(r, 1, "")?.into_int_value();
        Ok((sum, carry))
    }

    #[allow(clippy::too_many_arguments)]
    pub fn carry(
        &self,
        op: CarryOp,
        ty: ScalarType,
        carry_in: bool,
        carry_out: bool,
        cc: RegId,
        dst: RegId,
        a: Operand,
        b: Operand,
        c: Option<Operand>,
    ) -> R<()> {
        let (x, y) = (self.read(a, ty)?, self.read(b, ty)?);
        let w = ty.bits();
        let (first, second, sub) = match op {
            CarryOp::Add => (x, y, false),
            CarryOp::Sub => (x, y, true),
            CarryOp::MadLo | CarryOp::MadHi => {
                let z = self.read(c.ok_or_else(|| LowerError::Internal("mad.cc without c".into()))?, ty)?;
                let p = self.wide_product(x, y, ty.is_signed())?;
                let part = if op == CarryOp::MadHi { self.b.build_right_shift(p, p.get_type().const_int(w as u64, false), false, "")? } else { p };
                (self.b.build_int_truncate(part, self.int_ty(w), "")?, z, false)
            }
        };
        let (mut v, mut cf) = self.add_carry(first, second, sub)?;
        if carry_in {
            let cin = self.load_reg(cc)?;
            let (v2, c2) = self.add_carry(v, cin, sub)?;
            v = v2;
            // At most one of the two steps can carry (or borrow).
            cf = self.b.build_or(cf, c2, "")?;
        }
        self.write(dst, v, ty)?;
        if carry_out {
            self.write(cc, cf, ScalarType::Pred)?;
        }
        Ok(())
    }

    pub fn funnel_shift(&self, left: bool, clamp: bool, dst: RegId, a: Operand, b: Operand, c: Operand) -> R<()> {
        let (lo, hi) = (self.read(a, ScalarType::B32)?, self.read(b, ScalarType::B32)?);
        let c = self.read(c, ScalarType::U32)?;
        let n = if clamp { self.int_intrinsic("llvm.umin", &[c, self.i32(32)])? } else { self.b.build_and(c, self.i32(31), "")? };
        // fshl/fshr take the amount modulo 32; a clamped amount of 32 moves a whole word.
        let name = if left { "llvm.fshl" } else { "llvm.fshr" };
        let v = self.int_intrinsic(name, &[hi, lo, n])?;
        let v = if clamp {
            let whole = self.icmp(P::EQ, n, self.i32(32))?;
            self.select(whole, if left { lo } else { hi }, v)?
        } else {
            v
        };
        self.write(dst, v, ScalarType::B32)
    }

    pub fn prmt(&self, mode: Option<PrmtMode>, dst: RegId, a: Operand, b: Operand, c: Operand) -> R<()> {
        let (x, y, c) = (self.read(a, ScalarType::B32)?, self.read(b, ScalarType::B32)?, self.read(c, ScalarType::B32)?);
        let src = self.b.build_or(self.resize(x, 64, false)?, self.b.build_left_shift(self.resize(y, 64, false)?, self.i64(32), "")?, "")?;
        // Selector nibbles for d.b0..d.b3; the special modes look theirs up by c[1:0] in a
        // table of four 16-bit rows (row k = selectors for c[1:0] = k, d.b0 in the low nibble).
        let (ctl, sign_ext) = match mode {
            None => (c, true),
            Some(m) => {
                let rows: [[u64; 4]; 4] = match m {
                    PrmtMode::F4e => [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],
                    PrmtMode::B4e => [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],
                    PrmtMode::Rc8 => [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
                    PrmtMode::Ecl => [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],
                    PrmtMode::Ecr => [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],
                    PrmtMode::Rc16 => [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]],
                };
                let table = rows.iter().enumerate().fold(0u64, |t, (k, row)| t | row.iter().enumerate().fold(0u64, |r, (i, s)| r | s << (4 * i)) << (16 * k));
                let k = self.b.build_and(c, self.i32(3), "")?;
                let shift = self.resize(self.b.build_left_shift(k, self.i32(4), "")?, 64, false)?;
                let row = self.b.build_right_shift(self.i64(table), shift, false, "")?;
                (self.b.build_int_truncate(row, self.cx.i32_type(), "")?, false)
            }
        };
        let mut out = self.i32(0);
        for i in 0..4u64 {
            let nib = self.b.build_right_shift(ctl, self.i32(4 * i), false, "")?;
            let sel = self.b.build_and(nib, self.i32(7), "")?;
            let shift = self.resize(self.b.build_left_shift(sel, self.i32(3), "")?, 64, false)?;
            let byte = self.b.build_int_truncate(self.b.build_right_shift(src, shift, false, "")?, self.cx.i8_type(), "")?;
            let byte = if sign_ext {
                // Selector bit 3: replicate the byte's sign bit over the byte.
                let rep = self.b.build_and(nib, self.i32(8), "")?;
                let rep = self.icmp(P::NE, rep, self.i32(0))?;
                let sign = self.b.build_right_shift(byte, self.cx.i8_type().const_int(7, false), true, "")?;
                self.select(rep, sign, byte)?
            } else {
                byte
            };
            let byte = self.b.build_left_shift(self.resize(byte, 32, false)?, self.i32(8 * i), "")?;
            out = self.b.build_or(out, byte, "")?;
        }
        self.write(dst, out, ScalarType::B32)
    }

    pub fn lop3(&self, lut: u8, dst: Option<RegId>, a: Operand, b: Operand, c: Operand, pred: Option<(BoolOp, RegId, PredRef)>) -> R<()> {
        let (x, y, z) = (self.read(a, ScalarType::B32)?, self.read(b, ScalarType::B32)?, self.read(c, ScalarType::B32)?);
        let (nx, ny, nz) = (self.b.build_not(x, "")?, self.b.build_not(y, "")?, self.b.build_not(z, "")?);
        // Sum of the minterms of the table (bit 4a+2b+c); LLVM simplifies the expression.
        let mut v = self.i32(0);
        for m in 0..8u32 {
            if lut >> m & 1 == 1 {
                let p = if m & 4 != 0 { x } else { nx };
                let q = if m & 2 != 0 { y } else { ny };
                let r = if m & 1 != 0 { z } else { nz };
                let term = self.b.build_and(self.b.build_and(p, q, "")?, r, "")?;
                v = self.b.build_or(v, term, "")?;
            }
        }
        if let Some(d) = dst {
            self.write(d, v, ScalarType::B32)?;
        }
        if let Some((op, p, q)) = pred {
            let nz = self.icmp(P::NE, v, self.i32(0))?;
            let q = self.read_pred(q)?;
            let r = match op {
                BoolOp::And => self.b.build_and(nz, q, "")?,
                BoolOp::Or => self.b.build_or(nz, q, "")?,
                BoolOp::Xor => self.b.build_xor(nz, q, "")?,
            };
            self.write(p, r, ScalarType::Pred)?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub fn set(
        &self,
        cmp: CmpOp,
        ty: ScalarType,
        ftz: bool,
        float_result: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
        combine: Option<(BoolOp, PredRef)>,
    ) -> R<()> {
        let mut t = self.compare(cmp, ty, ftz, a, b)?;
        if let Some((op, c)) = combine {
            let c = self.read_pred(c)?;
            t = match op {
                BoolOp::And => self.b.build_and(t, c, "")?,
                BoolOp::Or => self.b.build_or(t, c, "")?,
                BoolOp::Xor => self.b.build_xor(t, c, "")?,
            };
        }
        let yes = if float_result { self.i32(1.0f32.to_bits() as u64) } else { self.i32(0xffff_ffff) };
        let v = self.select(t, yes, self.i32(0))?;
        self.write(dst, v, ScalarType::B32)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn slct(&self, ty: ScalarType, c_ty: ScalarType, ftz: bool, dst: RegId, a: Operand, b: Operand, c: Operand) -> R<()> {
        let (x, y) = (self.read(a, ty)?, self.read(b, ty)?);
        let cv = self.read(c, c_ty)?;
        let take_a = if c_ty == ScalarType::F32 {
            let f = self.b.build_bit_cast(cv, self.cx.f32_type(), "")?.into_float_value();
            let ge = self.b.build_float_compare(inkwell::FloatPredicate::OGE, f, self.cx.f32_type().const_zero(), "")?;
            if ftz {
                // A subnormal c is flushed to a (signed) zero, which is >= 0.
                let exp = self.b.build_and(cv, self.i32(0x7f80_0000), "")?;
                let tiny = self.icmp(P::EQ, exp, self.i32(0))?;
                self.b.build_or(ge, tiny, "")?
            } else {
                ge
            }
        } else {
            self.icmp(P::SGE, cv, self.i32(0))?
        };
        let v = self.select(take_a, x, y)?;
        self.write(dst, v, ty)
    }

    pub fn pack(&self, ty: ScalarType, dst: RegId, src: &[Operand]) -> R<()> {
        let w = ty.bits();
        let eb = w / src.len() as u32;
        let et = ScalarType::from_name(&format!(".b{eb}")).ok_or_else(|| LowerError::Internal("bad vector element".into()))?;
        let mut v = self.int_ty(w).const_zero();
        for (i, s) in src.iter().enumerate() {
            let e = self.resize(self.read(*s, et)?, w, false)?;
            let e = self.b.build_left_shift(e, self.int_ty(w).const_int(eb as u64 * i as u64, false), "")?;
            v = self.b.build_or(v, e, "")?;
        }
        self.write(dst, v, ty)
    }

    pub fn unpack(&self, ty: ScalarType, dst: &[Option<RegId>], src: Operand) -> R<()> {
        let w = ty.bits();
        let eb = w / dst.len() as u32;
        let et = ScalarType::from_name(&format!(".b{eb}")).ok_or_else(|| LowerError::Internal("bad vector element".into()))?;
        let v = self.read(src, ty)?;
        for (i, d) in dst.iter().enumerate() {
            if let Some(d) = d {
                let e = self.b.build_right_shift(v, self.int_ty(w).const_int(eb as u64 * i as u64, false), false, "")?;
                let e = self.b.build_int_truncate(e, self.int_ty(eb), "")?;
                self.write(*d, e, et)?;
            }
        }
        Ok(())
    }
}

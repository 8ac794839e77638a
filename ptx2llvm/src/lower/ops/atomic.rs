//! Atomics (`atom`, `red`) and fences (`membar`, `fence`).
//!
//! Blocks run on several CPU cores at once, so global and generic atomics are LLVM
//! `atomicrmw`/`cmpxchg` with the instruction's ordering. A block's shared memory is only
//! touched by the one CPU thread that runs the block, so shared-space atomics are plain
//! read-modify-write sequences (which LLVM may keep in registers and vectorize around).

use crate::ir::{Address, AtomicOp, MemOrder, MemScope, Operand, RegId, ScalarType, StateSpace};
use crate::lower::thread::FnCx;
use crate::lower::{LowerError, R};
use inkwell::values::{BasicValue, IntValue, PointerValue};
use inkwell::{AtomicOrdering, AtomicRMWBinOp, IntPredicate};

pub(crate) fn ordering(o: MemOrder) -> AtomicOrdering {
    match o {
        MemOrder::Relaxed => AtomicOrdering::Monotonic,
        MemOrder::Acquire => AtomicOrdering::Acquire,
        MemOrder::Release => AtomicOrdering::Release,
        MemOrder::AcqRel => AtomicOrdering::AcquireRelease,
        MemOrder::SeqCst => AtomicOrdering::SequentiallyConsistent,
    }
}

/// The ordering of a failed compare-and-swap (it has no store, so no release part).
fn failure_ordering(o: MemOrder) -> AtomicOrdering {
    match o {
        MemOrder::Relaxed | MemOrder::Release => AtomicOrdering::Monotonic,
        MemOrder::Acquire | MemOrder::AcqRel => AtomicOrdering::Acquire,
        MemOrder::SeqCst => AtomicOrdering::SequentiallyConsistent,
    }
}

impl<'ctx> FnCx<'ctx, '_> {
    /// `atom`/`red`: one atomic per element (`b.len()` elements of `ty` at `addr`).
    #[allow(clippy::too_many_arguments)]
    pub fn atomic(
        &self,
        op: AtomicOp,
        ty: ScalarType,
        space: StateSpace,
        order: MemOrder,
        dst: &[Option<RegId>],
        addr: Address,
        b: &[Operand],
        c: Option<Operand>,
    ) -> R<()> {
        let base = self.address(space, addr)?;
        let c = match c {
            Some(c) => Some(self.read(c, ty)?),
            None => None,
        };
        for (i, operand) in b.iter().enumerate() {
            let ptr = if i == 0 {
                base
            } else {
                // SAFETY of the GEP: the vector's elements are adjacent in memory.
                unsafe { self.b.build_gep(self.cx.i8_type(), base, &[self.i64(i as u64 * ty.bytes() as u64)], "")? }
            };
            let b = self.read(*operand, ty)?;
            let old = if space == StateSpace::Shared {
                // Shared memory, like a plain `.shared` access: never the context area or
                // global memory (lets LLVM keep thread-loop state in registers across it).
                let old = self.b.build_load(self.int_ty(ty.bits()), ptr, "")?;
                if let Some(inst) = old.as_instruction_value() {
                    crate::lower::exec::alias::tag_ptx_access(self.cx, inst, StateSpace::Shared);
                }
                let old = old.into_int_value();
                let new = self.atomic_result(op, ty, space, old, b, c)?;
                let st = self.b.build_store(ptr, new)?;
                crate::lower::exec::alias::tag_ptx_access(self.cx, st, StateSpace::Shared);
                old
            } else {
                self.atomic_in_memory(op, ty, space, order, ptr, b, c)?
            };
            if let Some(Some(d)) = dst.get(i) {
                self.write(*d, old, ty)?;
            }
        }
        Ok(())
    }

    /// A real atomic on memory other blocks may touch; returns the old value.
    #[allow(clippy::too_many_arguments)]
    fn atomic_in_memory(
        &self,
        op: AtomicOp,
        ty: ScalarType,
        space: StateSpace,
        order: MemOrder,
        ptr: PointerValue<'ctx>,
        b: IntValue<'ctx>,
        c: Option<IntValue<'ctx>>,
    ) -> R<IntValue<'ctx>> {
        let ord = ordering(order);
        let rmw = |bin: AtomicRMWBinOp| -> R<IntValue<'ctx>> { Ok(self.b.build_atomicrmw(bin, ptr, b, ord)?) };
        let signed = ty.is_signed();
        match op {
            AtomicOp::Cas => {
                let c = c.ok_or_else(|| LowerError::Internal("atom.cas without its third operand".into()))?;
                let pair = self.b.build_cmpxchg(ptr, b, c, ord, failure_ordering(order))?;
                Ok(self.b.build_extract_value(pair, 0, "")?.into_int_value())
            }
            // A compare-and-swap loop around the exact PTX sum (f32 on global memory
            // flushes subnormals, which `atomicrmw fadd` would not).
            AtomicOp::Add | AtomicOp::Min | AtomicOp::Max if ty.is_float() => {
                self.cas_loop(ty, order, ptr, |old| self.atomic_result(op, ty, space, old, b, None))
            }
            AtomicOp::Add => rmw(AtomicRMWBinOp::Add),
            AtomicOp::And => rmw(AtomicRMWBinOp::And),
            AtomicOp::Or => rmw(AtomicRMWBinOp::Or),
            AtomicOp::Xor => rmw(AtomicRMWBinOp::Xor),
            AtomicOp::Exch => rmw(AtomicRMWBinOp::Xchg),
            AtomicOp::Inc => rmw(AtomicRMWBinOp::UIncWrap),
            AtomicOp::Dec => rmw(AtomicRMWBinOp::UDecWrap),
            AtomicOp::Min => rmw(if signed { AtomicRMWBinOp::Min } else { AtomicRMWBinOp::UMin }),
            AtomicOp::Max => rmw(if signed { AtomicRMWBinOp::Max } else { AtomicRMWBinOp::UMax }),
        }
    }

    /// `old = *p; do { new = f(old) } while (!cas(p, old, new))`; returns the old value.
    fn cas_loop(&self, ty: ScalarType, order: MemOrder, ptr: PointerValue<'ctx>, f: impl Fn(IntValue<'ctx>) -> R<IntValue<'ctx>>) -> R<IntValue<'ctx>> {
        let it = self.int_ty(ty.bits());
        let first = self.b.build_load(it, ptr, "")?.into_int_value();
        first
            .as_instruction_value()
            .ok_or_else(|| LowerError::Internal("load is not an instruction".into()))?
            .set_atomic_ordering(AtomicOrdering::Monotonic)
            .map_err(|e| LowerError::Internal(e.to_string()))?;
        first
            .as_instruction_value()
            .ok_or_else(|| LowerError::Internal("load is not an instruction".into()))?
            .set_alignment(ty.bytes())
            .map_err(|e| LowerError::Internal(e.to_string()))?;
        let entry = self.b.get_insert_block().ok_or_else(|| LowerError::Internal("no insert block".into()))?;
        let looping = self.new_block("atom.cas.loop");
        let done = self.new_block("atom.cas.done");
        self.b.build_unconditional_branch(looping)?;
        self.b.position_at_end(looping);
        let old = self.b.build_phi(it, "old")?;
        old.add_incoming(&[(&first, entry)]);
        let old_v = old.as_basic_value().into_int_value();
        let new = f(old_v)?;
        let pair = self.b.build_cmpxchg(ptr, old_v, new, ordering(order), failure_ordering(order))?;
        let seen = self.b.build_extract_value(pair, 0, "")?.into_int_value();
        let ok = self.b.build_extract_value(pair, 1, "")?.into_int_value();
        let here = self.b.get_insert_block().ok_or_else(|| LowerError::Internal("no insert block".into()))?;
        old.add_incoming(&[(&seen, here)]);
        self.b.build_conditional_branch(ok, done, looping)?;
        self.b.position_at_end(done);
        Ok(old_v)
    }

    /// The value an atomic stores, from the old value and its operands (PTX semantics).
    fn atomic_result(
        &self,
        op: AtomicOp,
        ty: ScalarType,
        space: StateSpace,
        old: IntValue<'ctx>,
        b: IntValue<'ctx>,
        c: Option<IntValue<'ctx>>,
    ) -> R<IntValue<'ctx>> {
        let bld = &self.b;
        let it = self.int_ty(ty.bits());
        let signed = ty.is_signed();
        Ok(match op {
            AtomicOp::And => bld.build_and(old, b, "")?,
            AtomicOp::Or => bld.build_or(old, b, "")?,
            AtomicOp::Xor => bld.build_xor(old, b, "")?,
            AtomicOp::Exch => b,
            AtomicOp::Cas => {
                let c = c.ok_or_else(|| LowerError::Internal("atom.cas without its third operand".into()))?;
                let eq = self.icmp(IntPredicate::EQ, old, b)?;
                self.select(eq, c, old)?
            }
            AtomicOp::Add | AtomicOp::Min | AtomicOp::Max if matches!(ty, ScalarType::F16 | ScalarType::BF16) => self.half_atomic_result(op, ty, old, b)?,
            AtomicOp::Add | AtomicOp::Min | AtomicOp::Max if matches!(ty, ScalarType::F16x2 | ScalarType::BF16x2) => {
                // Each 16-bit half on its own.
                let lane_ty = if ty == ScalarType::F16x2 { ScalarType::F16 } else { ScalarType::BF16 };
                let i16t = self.cx.i16_type();
                let half = |v: IntValue<'ctx>, hi: bool| -> R<IntValue<'ctx>> {
                    let v = if hi { bld.build_right_shift(v, it.const_int(16, false), false, "")? } else { v };
                    Ok(bld.build_int_truncate(v, i16t, "")?)
                };
                let lo = self.half_atomic_result(op, lane_ty, half(old, false)?, half(b, false)?)?;
                let hi = self.half_atomic_result(op, lane_ty, half(old, true)?, half(b, true)?)?;
                let lo = bld.build_int_z_extend(lo, it, "")?;
                let hi = bld.build_left_shift(bld.build_int_z_extend(hi, it, "")?, it.const_int(16, false), "")?;
                bld.build_or(lo, hi, "")?
            }
            AtomicOp::Add if ty.is_float() => {
                let ft = self.float_ty(ty);
                let flush = ty == ScalarType::F32 && space != StateSpace::Shared;
                let ftz = |v: IntValue<'ctx>| if flush { self.flush_f32_subnormal(v) } else { Ok(v) };
                let x = bld.build_bit_cast(ftz(old)?, ft, "")?.into_float_value();
                let y = bld.build_bit_cast(ftz(b)?, ft, "")?.into_float_value();
                let sum = bld.build_float_add(x, y, "")?;
                let sum = ftz(bld.build_bit_cast(sum, it, "")?.into_int_value())?;
                // NaN results as NVIDIA silicon (sm_90) gives them: `.f32` the canonical NaN;
                // `.f64` in shared memory the memory's NaN, else the operand's, quieted; `.f64`
                // elsewhere (the global atomic unit) the operand's NaN, else the memory's,
                // both as they are (a signalling NaN stays signalling).
                let is_nan = |v: IntValue<'ctx>| -> R<IntValue<'ctx>> {
                    let f = bld.build_bit_cast(v, ft, "")?.into_float_value();
                    Ok(bld.build_float_compare(inkwell::FloatPredicate::UNO, f, f, "")?)
                };
                let sum_nan = is_nan(sum)?;
                if ty == ScalarType::F32 {
                    self.select(sum_nan, it.const_int(0x7fff_ffff, false), sum)?
                } else {
                    let (first, second, q) = if space == StateSpace::Shared { (b, old, 1u64 << 51) } else { (old, b, 0) };
                    let qc = it.const_int(q, false);
                    let mut nan = self.select(is_nan(first)?, bld.build_or(first, qc, "")?, bld.build_or(sum, qc, "")?)?;
                    nan = self.select(is_nan(second)?, bld.build_or(second, qc, "")?, nan)?;
                    self.select(sum_nan, nan, sum)?
                }
            }
            AtomicOp::Add => bld.build_int_add(old, b, "")?,
            AtomicOp::Inc => {
                let wrap = self.icmp(IntPredicate::UGE, old, b)?;
                let next = bld.build_int_add(old, it.const_int(1, false), "")?;
                self.select(wrap, it.const_zero(), next)?
            }
            AtomicOp::Dec => {
                let zero = self.icmp(IntPredicate::EQ, old, it.const_zero())?;
                let above = self.icmp(IntPredicate::UGT, old, b)?;
                let reload = bld.build_or(zero, above, "")?;
                let prev = bld.build_int_sub(old, it.const_int(1, false), "")?;
                self.select(reload, b, prev)?
            }
            AtomicOp::Min | AtomicOp::Max => {
                let name = match (op == AtomicOp::Min, signed) {
                    (true, true) => "llvm.smin",
                    (true, false) => "llvm.umin",
                    (false, true) => "llvm.smax",
                    (false, false) => "llvm.umax",
                };
                self.call_intrinsic(name, &[it.into()], &[old.into(), b.into()])?.into_int_value()
            }
        })
    }

    /// `.add/.min/.max.noftz` on one `.f16`/`.bf16` (`i16` bits), with the half-precision
    /// instructions' own lowering: the exact sum (in f64) rounded once to nearest even,
    /// subnormals kept; `min`/`max` as the `min`/`max.f16` instructions.
    fn half_atomic_result(&self, op: AtomicOp, ty: ScalarType, old: IntValue<'ctx>, b: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        use crate::lower::ops::half_bits::Half;
        let fmt = if ty == ScalarType::F16 { Half::F16 } else { Half::BF16 };
        if op == AtomicOp::Add {
            let sum = self.b.build_float_add(self.half_to_f64(fmt, old)?, self.half_to_f64(fmt, b)?, "")?;
            return self.f64_to_half_rn(fmt, sum);
        }
        self.half_min_max(fmt, op == AtomicOp::Max, Default::default(), old, b)
    }

    /// f32 bits with a subnormal value replaced by a zero of the same sign.
    pub fn flush_f32_subnormal(&self, bits: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let i32t = self.cx.i32_type();
        let exp = self.b.build_and(bits, i32t.const_int(0x7F80_0000, false), "")?;
        let is_sub = self.icmp(IntPredicate::EQ, exp, i32t.const_zero())?;
        let sign = self.b.build_and(bits, i32t.const_int(0x8000_0000, false), "")?;
        self.select(is_sub, sign, bits)
    }

    pub fn fence(&self, order: MemOrder, scope: MemScope) -> R<()> {
        // A block runs on one CPU thread: a block-scope fence only has to stop the
        // compiler from moving memory accesses across it.
        let single_thread = scope == MemScope::Cta;
        let ord = match order {
            MemOrder::Relaxed | MemOrder::SeqCst => AtomicOrdering::SequentiallyConsistent,
            MemOrder::Acquire => AtomicOrdering::Acquire,
            MemOrder::Release => AtomicOrdering::Release,
            MemOrder::AcqRel => AtomicOrdering::AcquireRelease,
        };
        self.b.build_fence(ord, single_thread, "")?;
        Ok(())
    }
}

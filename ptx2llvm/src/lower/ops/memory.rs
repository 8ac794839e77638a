//! Loads, stores and address conversion between state-space windows and generic addresses.
//!
//! Generic, global, const and (kernel) param addresses are host addresses. Shared and
//! local addresses are offsets into the block's shared window and the thread's local window.

use crate::ir::{Address, AddressBase, MemOrder, MemScope, Operand, RegId, ScalarType, StateSpace};
use crate::lower::thread::FnCx;
use crate::lower::{LowerError, R};
use inkwell::values::{BasicValue, InstructionValue, PointerValue};
use inkwell::AtomicOrdering;

impl<'ctx> FnCx<'ctx, '_> {
    /// The host pointer of an address operand in a state space.
    pub fn address(&self, space: StateSpace, addr: Address) -> R<PointerValue<'ctx>> {
        let i8t = self.cx.i8_type();
        let gep = |base: PointerValue<'ctx>, off: inkwell::values::IntValue<'ctx>| -> R<PointerValue<'ctx>> {
            // SAFETY (of the generated code): PTX addresses are in bounds of their window by contract.
            Ok(unsafe { self.b.build_gep(i8t, base, &[off], "")? })
        };
        let off = self.i64(addr.offset as u64);
        match addr.base {
            AddressBase::Var(v) if self.frame_vars.contains_key(&v) => gep(self.frame_vars[&v], off),
            AddressBase::Var(v) => {
                let var = &self.ml.ir.vars[v.0 as usize];
                match var.space {
                    StateSpace::Shared => gep(self.uni.shared, self.i64(self.ml.layout.shared_offset(v).wrapping_add(addr.offset as u64))),
                    StateSpace::Local => self.local_var_ptr(v, addr.offset),
                    StateSpace::Param if self.ml.layout.per_thread_param(v) => self.local_var_ptr(v, addr.offset),
                    _ => {
                        let g = self.ml.global_ptr(v).ok_or_else(|| LowerError::Unsupported(format!("access to `{}`", var.name)))?;
                        gep(g, off)
                    }
                }
            }
            AddressBase::Param(i) => gep(self.uni.params[i as usize], off),
            AddressBase::Return(i) => {
                let p = *self.uni.returns.get(i as usize).ok_or_else(|| LowerError::Internal(format!("return parameter {i} out of range")))?;
                gep(p, off)
            }
            AddressBase::Reg(r) => {
                let v = self.load_reg(r)?;
                let v = if space == StateSpace::Local { self.local_address_to_64(v)? } else { self.resize(v, 64, false)? };
                let v = self.b.build_int_add(v, off, "")?;
                self.window_pointer(space, v)
            }
            AddressBase::Absolute => self.window_pointer(space, off),
        }
    }

    /// A 64-bit address value of `space` as a host pointer.
    fn window_pointer(&self, space: StateSpace, v: inkwell::values::IntValue<'ctx>) -> R<PointerValue<'ctx>> {
        let i8t = self.cx.i8_type();
        Ok(match space {
            // SAFETY (of the generated code): in-window offsets by the PTX memory model.
            StateSpace::Shared => unsafe { self.b.build_gep(i8t, self.uni.shared, &[v], "")? },
            // An address that may lie in another allocation than the window (a stack
            // allocation): computed as an integer, so that LLVM does not take it to be
            // derived from (and only alias) the window.
            StateSpace::Local if self.ml.layout.stack_allocations => {
                let base = self.b.build_ptr_to_int(self.local_base()?, self.cx.i64_type(), "")?;
                let a = self.b.build_int_add(base, v, "")?;
                self.b.build_int_to_ptr(a, self.ptr_ty(), "")?
            }
            StateSpace::Local => unsafe { self.b.build_gep(i8t, self.local_base()?, &[v], "")? },
            _ => self.b.build_int_to_ptr(v, self.ptr_ty(), "")?,
        })
    }

    /// The address of element `i` of a vector access starting at `base`.
    fn element_pointer(&self, base: PointerValue<'ctx>, i: usize, size: u64) -> R<PointerValue<'ctx>> {
        if i == 0 {
            return Ok(base);
        }
        // SAFETY (of the generated code): a vector access covers all of its elements.
        Ok(unsafe { self.b.build_gep(self.cx.i8_type(), base, &[self.i64(size * i as u64)], "")? })
    }

    /// Marks a load or store as `.volatile` and/or atomic with the instruction's ordering.
    /// Volatile accesses are also single-copy atomic (monotonic), as a `.volatile` access
    /// of the GPU is never torn.
    fn set_access_kind(&self, inst: InstructionValue<'ctx>, volatile: bool, order: Option<MemOrder>) -> R<()> {
        let internal = |e: inkwell::values::InstructionValueError| LowerError::Internal(e.to_string());
        if volatile {
            inst.set_volatile(true).map_err(internal)?;
        }
        match order {
            Some(o) => inst.set_atomic_ordering(crate::lower::ops::atomic::ordering(o)).map_err(internal)?,
            None if volatile => inst.set_atomic_ordering(AtomicOrdering::Monotonic).map_err(internal)?,
            None => {}
        }
        Ok(())
    }

    /// One element of a `.volatile`/ordered access: a single atomic access up to 64 bits;
    /// a 128-bit element is two 64-bit atomic halves (LLVM has no lock-free 128-bit atomic
    /// access on every target), low half first.
    fn load_element(
        &self,
        space: StateSpace,
        p: PointerValue<'ctx>,
        bits: u32,
        align: u32,
        volatile: bool,
        order: Option<MemOrder>,
    ) -> R<inkwell::values::IntValue<'ctx>> {
        let internal = |e: inkwell::values::InstructionValueError| LowerError::Internal(e.to_string());
        let synchronized = volatile || order.is_some();
        if bits == 128 && synchronized {
            let i128t = self.cx.i128_type();
            let lo = self.load_element(space, p, 64, align.min(8), volatile, order)?;
            let hi = self.load_element(space, self.element_pointer(p, 1, 8)?, 64, 8, volatile, order)?;
            let lo = self.b.build_int_z_extend(lo, i128t, "")?;
            let hi = self.b.build_int_z_extend(hi, i128t, "")?;
            let hi = self.b.build_left_shift(hi, i128t.const_int(64, false), "")?;
            return Ok(self.b.build_or(lo, hi, "")?);
        }
        let v = self.b.build_load(self.int_ty(bits), p, "")?;
        let inst = v.as_instruction_value().ok_or_else(|| LowerError::Internal("a load is an instruction".into()))?;
        inst.set_alignment(align).map_err(internal)?;
        self.set_access_kind(inst, volatile, order)?;
        crate::lower::exec::alias::tag_ptx_access(self.cx, inst, space);
        if !synchronized && thread_private_space(space) {
            self.tag_thread_access(inst);
        }
        Ok(v.into_int_value())
    }

    fn store_element(
        &self,
        space: StateSpace,
        p: PointerValue<'ctx>,
        v: inkwell::values::IntValue<'ctx>,
        align: u32,
        volatile: bool,
        order: Option<MemOrder>,
    ) -> R<()> {
        let internal = |e: inkwell::values::InstructionValueError| LowerError::Internal(e.to_string());
        let bits = v.get_type().get_bit_width();
        if bits == 128 && (volatile || order.is_some()) {
            let i64t = self.cx.i64_type();
            let lo = self.b.build_int_truncate(v, i64t, "")?;
            let hi = self.b.build_right_shift(v, self.cx.i128_type().const_int(64, false), false, "")?;
            let hi = self.b.build_int_truncate(hi, i64t, "")?;
            self.store_element(space, p, lo, align.min(8), volatile, order)?;
            return self.store_element(space, self.element_pointer(p, 1, 8)?, hi, 8, volatile, order);
        }
        let st = self.b.build_store(p, v)?;
        st.set_alignment(align).map_err(internal)?;
        crate::lower::exec::alias::tag_ptx_access(self.cx, st, space);
        if !(volatile || order.is_some()) && thread_private_space(space) {
            self.tag_thread_access(st);
        }
        self.set_access_kind(st, volatile, order)
    }

    /// `ld`: vector elements are separate accesses, in element order (the memory model
    /// treats a vector access as a set of scalar accesses in unspecified order).
    pub fn load(
        &mut self,
        space: StateSpace,
        ty: ScalarType,
        volatile: bool,
        order: Option<(MemOrder, MemScope)>,
        dst: &[Option<RegId>],
        addr: Address,
    ) -> R<()> {
        let base = self.address(space, addr)?;
        let size = ty.bytes() as u64;
        self.check_access(space, base, size * dst.len() as u64, false)?;
        let order = order.map(|(o, _)| o);
        for (i, d) in dst.iter().enumerate() {
            let p = self.element_pointer(base, i, size)?;
            let align = if i == 0 { (size * dst.len() as u64) as u32 } else { size as u32 };
            let v = self.load_element(space, p, ty.bits(), align, volatile, order)?;
            let plain = !volatile && order.is_none();
            if plain && space == StateSpace::Param && matches!(addr.base, AddressBase::Param(_)) && self.f.kind == crate::ir::FunctionKind::Entry {
                // Kernel parameters cannot change during a launch: lets LLVM hoist their
                // loads out of the thread loops, which keeps those loops vectorizable.
                let kind = self.cx.get_kind_id("invariant.load");
                if let Some(inst) = v.as_instruction() {
                    inst.set_metadata(self.cx.metadata_node(&[]), kind).map_err(|e| LowerError::Internal(e.to_string()))?;
                }
            }
            if let Some(d) = d {
                self.write(*d, v, ty)?;
            }
        }
        Ok(())
    }

    pub fn store(&mut self, space: StateSpace, ty: ScalarType, volatile: bool, order: Option<(MemOrder, MemScope)>, src: &[Operand], addr: Address) -> R<()> {
        let base = self.address(space, addr)?;
        let size = ty.bytes() as u64;
        self.check_access(space, base, size * src.len() as u64, true)?;
        let order = order.map(|(o, _)| o);
        for (i, s) in src.iter().enumerate() {
            let p = self.element_pointer(base, i, size)?;
            let align = if i == 0 { (size * src.len() as u64) as u32 } else { size as u32 };
            let v = self.read(*s, ty)?;
            self.store_element(space, p, v, align, volatile, order)?;
        }
        Ok(())
    }

    /// `prefetch`/`prefetchu`: LLVM's prefetch (a hint that never faults), for reading,
    /// into all cache levels.
    pub fn prefetch(&self, space: StateSpace, addr: Address, write: bool) -> R<()> {
        let p = self.address(space, addr)?;
        let i32t = self.cx.i32_type();
        let args = [p.into(), i32t.const_int(u64::from(write), false).into(), i32t.const_int(3, false).into(), i32t.const_int(1, false).into()];
        let f = self.ml.intrinsic("llvm.prefetch", &[self.ptr_ty().into()])?;
        self.b.build_call(f, &args, "")?;
        Ok(())
    }

    /// `isspacep`: generic addresses are host addresses; shared and local memory are the
    /// block's windows, `.const` variables and kernel parameters are known objects, and
    /// everything else is global memory.
    pub fn is_space(&self, space: StateSpace, dst: RegId, a: Operand) -> R<()> {
        let i64t = self.cx.i64_type();
        let addr = self.read(a, ScalarType::U64)?;
        let within = |lo: inkwell::values::IntValue<'ctx>, bytes: inkwell::values::IntValue<'ctx>| -> R<inkwell::values::IntValue<'ctx>> {
            let off = self.b.build_int_sub(addr, lo, "")?;
            Ok(self.b.build_int_compare(inkwell::IntPredicate::ULT, off, bytes, "")?)
        };
        let ptr_int = |p: PointerValue<'ctx>| self.b.build_ptr_to_int(p, i64t, "");
        let shared_bytes = {
            let dynamic = self.b.build_int_z_extend(self.uni.dynamic_shared, i64t, "")?;
            self.b.build_int_add(dynamic, self.i64(self.ml.layout.static_shared_aligned()), "")?
        };
        let in_shared = within(ptr_int(self.uni.shared)?, shared_bytes)?;
        let local_bytes = {
            let n = self.b.build_int_z_extend(self.uni.nthreads, i64t, "")?;
            self.b.build_int_mul(n, self.i64(self.ml.layout.local_bytes), "")?
        };
        // Any thread's window in the block's local buffer, or this thread's own window (a
        // fiber kernel keeps it in the thread's stack).
        let in_local =
            self.b.build_or(within(ptr_int(self.uni.local)?, local_bytes)?, within(ptr_int(self.local_base()?)?, self.i64(self.ml.layout.local_bytes))?, "")?;
        let mut in_const = self.cx.bool_type().const_zero();
        for (i, v) in self.ml.ir.vars.iter().enumerate() {
            if v.space == StateSpace::Const {
                if let Some(g) = self.ml.global_ptr(crate::ir::VarId(i as u32)) {
                    let hit = within(ptr_int(g)?, self.i64(v.size))?;
                    in_const = self.b.build_or(in_const, hit, "")?;
                }
            }
        }
        let mut in_param = self.cx.bool_type().const_zero();
        for (p, decl) in self.uni.params.iter().zip(&self.f.params) {
            let hit = within(ptr_int(*p)?, self.i64(decl.size as u64))?;
            in_param = self.b.build_or(in_param, hit, "")?;
        }
        let v = match space {
            StateSpace::Shared => in_shared,
            StateSpace::Local => in_local,
            StateSpace::Const => in_const,
            StateSpace::Param => in_param,
            _ => {
                let elsewhere = self.b.build_or(self.b.build_or(in_shared, in_local, "")?, self.b.build_or(in_const, in_param, "")?, "")?;
                self.b.build_not(elsewhere, "")?
            }
        };
        self.write(dst, v, ScalarType::Pred)
    }

    /// `alloca`: an LLVM dynamic allocation in the function's frame (on the thread's fiber
    /// stack: kernels that use the stack run as fibers), as a `.local` address relative to
    /// the thread's window. In a fiber kernel the window is in the same stack, so the
    /// offset also fits a 32-bit address (`.local` addresses sign-extend).
    pub fn alloca(&self, ty: ScalarType, dst: RegId, size: Operand, align: u32) -> R<()> {
        let bytes = self.read(size, ty)?;
        let slot = self.b.build_array_alloca(self.cx.i8_type(), bytes, "alloca")?;
        slot.as_instruction()
            .ok_or_else(|| LowerError::Internal("alloca is not an instruction".into()))?
            .set_alignment(align)
            .map_err(|e| LowerError::Internal(e.to_string()))?;
        let offset = self.local_offset_of(slot)?;
        self.write(dst, self.resize(offset, ty.bits(), false)?, ty)
    }

    pub fn stack_save(&self, ty: ScalarType, dst: RegId) -> R<()> {
        let save = self.ml.intrinsic("llvm.stacksave", &[self.ptr_ty().into()])?;
        let sp = self.b.build_call(save, &[], "sp")?.try_as_basic_value().basic().ok_or_else(|| LowerError::Internal("stacksave returns a pointer".into()))?;
        let offset = self.local_offset_of(sp.into_pointer_value())?;
        self.write(dst, self.resize(offset, ty.bits(), false)?, ty)
    }

    pub fn stack_restore(&self, ty: ScalarType, a: Operand) -> R<()> {
        let v = self.read(a, ty)?;
        let sp = self.window_pointer(StateSpace::Local, self.local_address_to_64(v)?)?;
        let restore = self.ml.intrinsic("llvm.stackrestore", &[self.ptr_ty().into()])?;
        self.b.build_call(restore, &[sp.into()], "")?;
        Ok(())
    }

    /// A host pointer as a `.local` address (offset from the thread's window).
    fn local_offset_of(&self, p: PointerValue<'ctx>) -> R<inkwell::values::IntValue<'ctx>> {
        let i64t = self.cx.i64_type();
        let a = self.b.build_ptr_to_int(p, i64t, "")?;
        let base = self.b.build_ptr_to_int(self.local_base()?, i64t, "")?;
        Ok(self.b.build_int_sub(a, base, "")?)
    }

    /// A `.local` address register widened to 64 bits: 32-bit local addresses are signed
    /// offsets (stack allocations of a fiber lie below its window).
    pub(crate) fn local_address_to_64(&self, v: inkwell::values::IntValue<'ctx>) -> R<inkwell::values::IntValue<'ctx>> {
        self.resize(v, 64, v.get_type().get_bit_width() < 64)
    }

    pub fn cvta(&self, to_generic: bool, space: StateSpace, ty: ScalarType, dst: RegId, src: Operand) -> R<()> {
        let v = self.read(src, ty)?;
        let v64 = if space == StateSpace::Local && to_generic { self.local_address_to_64(v)? } else { self.resize(v, 64, false)? };
        let base = match space {
            StateSpace::Shared => Some(self.uni.shared),
            StateSpace::Local => Some(self.local_base()?),
            _ => None,
        };
        let out = match base {
            None => v64,
            Some(p) => {
                let b = self.b.build_ptr_to_int(p, self.cx.i64_type(), "")?;
                if to_generic {
                    self.b.build_int_add(v64, b, "")?
                } else {
                    self.b.build_int_sub(v64, b, "")?
                }
            }
        };
        self.write(dst, self.resize(out, ty.bits(), false)?, ty)
    }
}

/// Whether a weak access to `space` is one thread's own unless it races (`exec::alias`):
/// not `.param`, whose call-argument buffers are the block function's, reused by each
/// thread in turn.
fn thread_private_space(space: StateSpace) -> bool {
    matches!(space, StateSpace::Global | StateSpace::Shared | StateSpace::Local | StateSpace::Generic | StateSpace::Const)
}

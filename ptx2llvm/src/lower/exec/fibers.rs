//! The general scheduler: a kernel whose threads run as fibers.
//!
//! Thread loops between sync points (`kernel`) need every sync point of a thread to be in
//! the kernel's own body, where the block function can split it into regions. A barrier or
//! warp collective reached through recursion or an indirect call (a function pointer) has
//! a call stack per thread below it, which a region cannot hold. Such kernels run each
//! thread of the block on its own stack (a fiber, ptxrt's `fibers`): the entry becomes a
//! per-thread function with the `.func` ABI, and a sync point, in the entry or in any
//! `.func`, stores its operands in the thread's context slots, suspends the thread in the
//! runtime (`__ptxrt_fiber_sync`) until the block scheduler (the same one region code
//! uses, with the same sync-point descriptors) completes the point, and reads its results
//! back. Registers stay in the fiber's frame; only a sync point's own operands and results
//! pass through the context area, so every sync point uses the same slots (a thread waits
//! at one point at a time).
//!
//! The compiler picks this per kernel (`FiberNeeds`): the kernel calls, directly but not
//! inlined (recursion) or through a function pointer, a function that may synchronize; or
//! it uses the stack (`alloca`, `stacksave`, `stackrestore`), itself or in a function it
//! calls: each thread then has a real stack, which keeps its allocations across barriers,
//! and its `.local` window lives in that stack, so that stack allocations have small
//! `.local` addresses (32-bit ones too). `--scheduler fibers` forces it for every kernel.

use crate::ir::{self, Callee, Op, Operand, RegId, Terminator};
use crate::lower::abi;
use crate::lower::exec::function::{func_type, lower_thread_fn};
use crate::lower::exec::kernel::{context_elem, sync_point_descriptor, LoweredKernel};
use crate::lower::thread::FnCx;
use crate::lower::{LowerError, ModuleLowerer, R};
use inkwell::basic_block::BasicBlock;
use inkwell::module::Linkage;
use inkwell::IntPredicate as P;
use std::collections::HashSet;

/// How kernels run the threads of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scheduler {
    /// Thread loops between sync points; fibers for the kernels that need them.
    #[default]
    Auto,
    /// Fibers for every kernel.
    Fibers,
}

/// Which kernels need fibers: a kernel that uses the stack, or can reach a sync point or a
/// stack operation through a call that stays a call: a direct call the inliner left
/// (recursion, depth), or an indirect call when some function whose address the module
/// takes may do so. One walk of the module's calls answers for all its kernels.
pub struct FiberNeeds {
    /// Per function: a `.func` that uses the stack or reaches a sync point.
    reaches_sync: Vec<bool>,
    /// Some function whose address is taken does (an indirect call may reach it).
    indirect_reaches_sync: bool,
}

impl FiberNeeds {
    pub fn new(m: &ir::Module) -> FiberNeeds {
        let address_taken = address_taken_functions(m);
        let mut reaches_sync: Vec<bool> = m.functions.iter().map(|f| f.kind == ir::FunctionKind::Func && (uses_stack(f) || f.has_sync_points())).collect();
        let mut indirect_reaches_sync = address_taken.iter().any(|&i| reaches_sync[i]);
        loop {
            let grown: Vec<usize> = m
                .functions
                .iter()
                .enumerate()
                .filter(|&(i, f)| f.kind == ir::FunctionKind::Func && !reaches_sync[i] && Self::calls_sync(&reaches_sync, indirect_reaches_sync, f))
                .map(|(i, _)| i)
                .collect();
            if grown.is_empty() {
                break;
            }
            for i in grown {
                reaches_sync[i] = true;
            }
            indirect_reaches_sync = address_taken.iter().any(|&i| reaches_sync[i]);
        }
        FiberNeeds { reaches_sync, indirect_reaches_sync }
    }

    /// Whether kernel `entry` of `m` (the module this was built from) needs fibers.
    pub fn kernel(&self, m: &ir::Module, entry: usize) -> bool {
        let f = &m.functions[entry];
        uses_stack(f) || Self::calls_sync(&self.reaches_sync, self.indirect_reaches_sync, f)
    }

    fn calls_sync(reaches_sync: &[bool], indirect_reaches_sync: bool, f: &ir::Function) -> bool {
        calls(f).any(|c| match c {
            Callee::Direct(i) => reaches_sync[*i as usize],
            Callee::Indirect { .. } => indirect_reaches_sync,
            Callee::External(_) => false,
        })
    }
}

fn uses_stack(f: &ir::Function) -> bool {
    f.blocks.iter().flat_map(|b| b.insts.iter()).any(|i| matches!(i.op, Op::Alloca { .. } | Op::StackSave { .. } | Op::StackRestore { .. }))
}

fn calls(f: &ir::Function) -> impl Iterator<Item = &Callee> {
    f.blocks.iter().flat_map(|b| b.insts.iter()).filter_map(|i| match &i.op {
        Op::Call { callee, .. } => Some(callee),
        _ => None,
    })
}

/// Functions whose address is taken: in an instruction operand or a variable's initializer.
fn address_taken_functions(m: &ir::Module) -> HashSet<usize> {
    let mut out = HashSet::new();
    for inst in m.functions.iter().flat_map(|f| f.blocks.iter().flat_map(|b| b.insts.iter())) {
        crate::ir::visit::for_each_operand(&inst.op, &mut |o| {
            if let Operand::FuncAddr(i) = o {
                out.insert(*i as usize);
            }
        });
    }
    for r in m.vars.iter().flat_map(|v| v.relocs.iter()) {
        if let ir::RelocTarget::Function(i) = r.target {
            out.insert(i as usize);
        }
    }
    out
}

/// Bytes of every sync-point slot in a fiber kernel's context area.
const SLOT_BYTES: u32 = 8;

/// The context slots of one sync point's registers (operands and results): per register,
/// its per-thread prefix and element size. Threads wait at different points at the same
/// time, so every point uses the same element size: then slot `j` of thread `t` is at
/// `context + nthreads * 8j + 8t` whatever the point, and no two threads' slots overlap.
/// (Sync-point operands are at most 64 bits wide.)
fn point_slots(point: &ir::SyncPoint) -> Vec<(RegId, u64, u32)> {
    let mut regs = vec![];
    point.uses(&mut regs);
    point.defs(&mut regs);
    let mut seen = HashSet::new();
    regs.retain(|r| seen.insert(*r));
    regs.into_iter().enumerate().map(|(j, r)| (r, j as u64 * SLOT_BYTES as u64, SLOT_BYTES)).collect()
}

/// Context bytes per thread a fiber kernel needs: the largest sync point of the module
/// (any `.func` may be called).
fn context_bytes_per_thread(m: &ir::Module) -> u32 {
    m.functions
        .iter()
        .flat_map(|f| {
            f.blocks.iter().filter_map(|b| match &b.term {
                Terminator::Sync { point, .. } => Some(point_slots(point).len() as u32 * SLOT_BYTES),
                _ => None,
            })
        })
        .max()
        .unwrap_or(0)
}

/// Lowers kernel `index` for the fiber scheduler: its per-thread function and a block
/// function that hands it to the runtime.
pub fn lower_entry<'ctx>(ml: &ModuleLowerer<'ctx, '_>, index: usize, f: &ir::Function) -> R<LoweredKernel<'ctx>> {
    let cx = ml.cx;
    let thread_fn = ml.module.add_function(&format!("__ptxrt_thread_{}", abi::ptx_symbol(&f.name)), func_type(ml, 0), Some(Linkage::Internal));
    lower_thread_fn(ml, index, f, thread_fn)?;

    let ptr = cx.ptr_type(inkwell::AddressSpace::default());
    let i32t = cx.i32_type();
    let block_fn = ml.module.add_function(&abi::block_fn_symbol(&f.name), i32t.fn_type(&[ptr.into()], false), Some(Linkage::Internal));
    let run = ml
        .module
        .get_function("__ptxrt_run_fibers")
        .unwrap_or_else(|| ml.module.add_function("__ptxrt_run_fibers", i32t.fn_type(&[ptr.into(), ptr.into()], false), Some(Linkage::External)));
    let b = cx.create_builder();
    b.position_at_end(cx.append_basic_block(block_fn, "entry"));
    let env = block_fn.get_nth_param(0).ok_or_else(|| LowerError::Internal("block function without environment".into()))?;
    let status = b
        .build_call(run, &[env.into(), thread_fn.as_global_value().as_pointer_value().into()], "status")?
        .try_as_basic_value()
        .basic()
        .ok_or_else(|| LowerError::Internal("__ptxrt_run_fibers returns a status".into()))?;
    b.build_return(Some(&status))?;
    Ok(LoweredKernel { block_fn, context_bytes_per_thread: context_bytes_per_thread(ml.ir), fused_x: false })
}

impl<'ctx> FnCx<'ctx, '_> {
    /// A sync point in per-thread code (a fiber kernel's entry, or any `.func`): hand the
    /// operands to the scheduler through the thread's context slots, wait in the runtime
    /// until the point completes, take the results and go on at `next`.
    pub(crate) fn fiber_sync(&mut self, point: &ir::SyncPoint, next: BasicBlock<'ctx>) -> R<()> {
        let slots = point_slots(point);
        if let Some(&(r, _, _)) = slots.iter().find(|(r, _, _)| self.f.regs[r.0 as usize].ty.bits() > 64) {
            return Err(LowerError::Unsupported(format!(
                "a {}-bit register as an operand of a barrier or warp collective",
                self.f.regs[r.0 as usize].ty.bits()
            )));
        }
        let linear = self.thread().linear;
        let mut inputs = vec![];
        point.uses(&mut inputs);
        for &(r, prefix, size) in &slots {
            if inputs.contains(&r) {
                let p = context_elem(self, prefix, size, linear)?;
                let v = self.load_reg(r)?;
                let v = self.resize(v, size * 8, false)?;
                self.b.build_store(p, v)?;
            }
        }
        let descriptor = sync_point_descriptor(self, point, &|r| slots.iter().find(|s| s.0 == r).map(|s| (s.1, s.2)))?;
        let global = self.ml.module.add_global(self.ml.abi.sync_point, None, &format!("ptxrt.fiber_point.{}", self.f.name));
        global.set_initializer(&descriptor);
        global.set_constant(true);
        global.set_linkage(Linkage::Private);

        let i32t = self.cx.i32_type();
        let ptr = self.ptr_ty();
        let wait = self
            .ml
            .module
            .get_function("__ptxrt_fiber_sync")
            .unwrap_or_else(|| self.ml.module.add_function("__ptxrt_fiber_sync", i32t.fn_type(&[ptr.into(), ptr.into()], false), Some(Linkage::External)));
        let status = self
            .b
            .build_call(wait, &[self.uni.env.into(), global.as_pointer_value().into()], "sync")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| LowerError::Internal("__ptxrt_fiber_sync returns a status".into()))?
            .into_int_value();
        // Non-zero: the runtime put an error in the environment; pass it up the call stack.
        let failed = self.b.build_int_compare(P::NE, status, i32t.const_zero(), "")?;
        let fail_bb = self.new_block("sync.failed");
        let cont = self.new_block("sync.done");
        self.b.build_conditional_branch(failed, fail_bb, cont)?;
        self.b.position_at_end(fail_bb);
        self.b.build_return(Some(&status))?;
        self.b.position_at_end(cont);
        if let ir::SyncPoint::Barrier(ir::Barrier { kind: ir::BarrierKind::Sync | ir::BarrierKind::Red { .. }, .. }) = point {
            self.check_barrier()?;
        }
        let mut outputs = vec![];
        point.defs(&mut outputs);
        for &(r, prefix, size) in &slots {
            if outputs.contains(&r) {
                let p = context_elem(self, prefix, size, linear)?;
                let v = self.b.build_load(self.int_ty(size * 8), p, "")?.into_int_value();
                let v = self.resize(v, self.f.regs[r.0 as usize].ty.bits(), false)?;
                self.b.build_store(self.regs[r.0 as usize], v)?;
            }
        }
        self.b.build_unconditional_branch(next)?;
        Ok(())
    }
}

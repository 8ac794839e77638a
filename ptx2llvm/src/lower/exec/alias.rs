//! Alias scopes: facts of the execution model about which memory accesses never overlap,
//! told to LLVM as scoped-noalias metadata (`!alias.scope` / `!noalias`), so that thread
//! loops vectorize without runtime overlap checks that LLVM cannot form or that cost more
//! than the loop:
//!
//! - the context area (registers saved across sync points, thread states, wait words) is
//!   the runtime's: no PTX memory access reaches it;
//! - the context's arrays (one per saved register or state word, `nthreads` elements
//!   each) never overlap one another or the threads' frames (large kernels' other saved
//!   registers, `kernel::ContextLayout`; a frame's slots are constant offsets from one
//!   address, which LLVM tells apart itself);
//! - a `.shared` access and a `.global` access never overlap: PTX leaves a `.global`
//!   access to an address of the shared window undefined (generic accesses may reach
//!   either, so they are only marked as not reaching the context).
//!
//! Accesses without metadata (calls, the scheduler, fiber kernels' context traffic) are
//! assumed by LLVM to overlap anything, which is always correct.
//!
//! A second fact: the threads of a thread loop are independent. Two threads' weak accesses
//! to one location between two sync points, one of them a write, are a data race, which
//! the PTX memory model leaves undefined; atomics, `.volatile` and ordered accesses, fences
//! and calls are what threads may communicate through inside a region. So the weak PTX
//! accesses of a kernel's block function and its accesses to the current thread's own
//! context elements form one access group (`tag_thread_access`), and every thread loop's
//! latch lists that group as `llvm.loop.parallel_accesses` (`parallel_loop_id`). LLVM
//! honours the annotation only when *every* memory access of the loop is in the group: a
//! loop with an atomic, a fence, a call, a volatile access or a read of another thread's
//! context (the warp checks, warp collectives) stays under LLVM's own dependence analysis.
//! Where it applies, a region vectorizes without proving that its shared-memory stores
//! miss its loads (a stencil step reading its neighbours' elements of another buffer: the
//! buffers' indices are not constants). Lockstep silicon does the same for a warp: its
//! lanes' loads of one instruction all happen before their stores.

use crate::ir::StateSpace;
use inkwell::context::Context;
use inkwell::values::{AsValueRef, InstructionValue, MetadataValue};
use std::collections::HashMap;

/// The domain of the memory kinds (context, shared window, global memory).
const MEMORY_DOMAIN: &str = "ptxrt.memory";
/// The domain of the context's arrays (scopes named by their per-thread prefix).
const CONTEXT_DOMAIN: &str = "ptxrt.context";

fn domain<'ctx>(cx: &'ctx Context, name: &str) -> MetadataValue<'ctx> {
    cx.metadata_node(&[cx.metadata_string(name).into()])
}

/// A scope named `name` in `domain` (string-named nodes are uniqued: the same name is the
/// same scope everywhere in the module).
fn scope<'ctx>(cx: &'ctx Context, domain: MetadataValue<'ctx>, name: &str) -> MetadataValue<'ctx> {
    cx.metadata_node(&[cx.metadata_string(name).into(), domain.into()])
}

fn list<'ctx>(cx: &'ctx Context, scopes: &[MetadataValue<'ctx>]) -> MetadataValue<'ctx> {
    let items: Vec<_> = scopes.iter().map(|s| (*s).into()).collect();
    cx.metadata_node(&items)
}

fn memory_scope<'ctx>(cx: &'ctx Context, kind: &str) -> MetadataValue<'ctx> {
    scope(cx, domain(cx, MEMORY_DOMAIN), &format!("{MEMORY_DOMAIN}.{kind}"))
}

fn tag<'ctx>(cx: &'ctx Context, inst: InstructionValue<'ctx>, scopes: Option<MetadataValue<'ctx>>, noalias: Option<MetadataValue<'ctx>>) {
    // Setting metadata fails only on a value that is not an instruction: nothing to mark.
    if let Some(s) = scopes {
        let _ = inst.set_metadata(s, cx.get_kind_id("alias.scope"));
    }
    if let Some(n) = noalias {
        let _ = inst.set_metadata(n, cx.get_kind_id("noalias"));
    }
}

/// Marks a PTX memory access (`ld`, `st`, ... in state space `space`) as never reaching
/// the context area, and a `.shared` or `.global` one as never reaching the other.
pub(crate) fn tag_ptx_access<'ctx>(cx: &'ctx Context, inst: InstructionValue<'ctx>, space: StateSpace) {
    let context = memory_scope(cx, "context");
    let (own, other) = match space {
        StateSpace::Shared => (Some(memory_scope(cx, "shared")), Some(memory_scope(cx, "global"))),
        StateSpace::Global => (Some(memory_scope(cx, "global")), Some(memory_scope(cx, "shared"))),
        _ => (None, None),
    };
    let noalias = match other {
        Some(o) => list(cx, &[context, o]),
        None => list(cx, &[context]),
    };
    tag(cx, inst, own.map(|s| list(cx, &[s])), Some(noalias));
}

/// Whether `inst` is tagged as a `.shared` access (`tag_ptx_access`): its `!alias.scope`
/// list holds the shared window's scope (also after LLVM merged lists).
pub(crate) fn is_shared_access<'ctx>(cx: &'ctx Context, inst: InstructionValue<'ctx>) -> bool {
    has_scope(cx, inst, &[memory_scope(cx, "shared")])
}

/// Whether `inst` is tagged as an access to the shared window or the context area, memory
/// that only the worker running the block touches (`ptx2llvm_abi::WINDOW_GUARD_BYTES`).
pub(crate) fn is_worker_private_access<'ctx>(cx: &'ctx Context, inst: InstructionValue<'ctx>) -> bool {
    has_scope(cx, inst, &[memory_scope(cx, "shared"), memory_scope(cx, "context")])
}

/// Whether `inst`'s `!alias.scope` list holds one of `wanted`.
fn has_scope<'ctx>(cx: &'ctx Context, inst: InstructionValue<'ctx>, wanted: &[MetadataValue<'ctx>]) -> bool {
    let Some(scopes) = inst.get_metadata(cx.get_kind_id("alias.scope")) else { return false };
    // SAFETY: `scopes` is a metadata node (as a value) of `cx`; its operands are read into
    // a buffer of their number.
    unsafe {
        use inkwell::llvm_sys::core::{LLVMGetMDNodeNumOperands, LLVMGetMDNodeOperands};
        let n = LLVMGetMDNodeNumOperands(scopes.as_value_ref()) as usize;
        let mut ops = vec![std::ptr::null_mut(); n];
        LLVMGetMDNodeOperands(scopes.as_value_ref(), ops.as_mut_ptr());
        wanted.iter().any(|w| ops.contains(&w.as_value_ref()))
    }
}

/// The scopes of one kernel's context arrays, keyed by their per-thread prefix, and of its
/// threads' frames (one scope: slots of a frame are told apart by their constant offsets
/// from one address, which LLVM's own analysis sees).
pub(crate) struct ContextScopes<'ctx> {
    /// Per array: its `!alias.scope` list and its `!noalias` list (every other array).
    arrays: HashMap<u64, (MetadataValue<'ctx>, Option<MetadataValue<'ctx>>)>,
    /// The frames' lists, if the kernel has frames.
    frame: Option<(MetadataValue<'ctx>, Option<MetadataValue<'ctx>>)>,
}

impl<'ctx> ContextScopes<'ctx> {
    /// Scopes for the frames (if `frames`) and the arrays at `prefixes` (all of the
    /// kernel's context arrays).
    pub(crate) fn new(cx: &'ctx Context, frames: bool, prefixes: &[u64]) -> Self {
        let context = memory_scope(cx, "context");
        let d = domain(cx, CONTEXT_DOMAIN);
        let mut own: Vec<MetadataValue<'ctx>> = prefixes.iter().map(|p| scope(cx, d, &format!("{CONTEXT_DOMAIN}.{p}"))).collect();
        if frames {
            own.push(scope(cx, d, &format!("{CONTEXT_DOMAIN}.frame")));
        }
        let lists = |i: usize| {
            let others: Vec<_> = own.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, s)| *s).collect();
            (list(cx, &[context, own[i]]), (!others.is_empty()).then(|| list(cx, &others)))
        };
        let arrays = prefixes.iter().enumerate().map(|(i, p)| (*p, lists(i))).collect();
        let frame = frames.then(|| lists(prefixes.len()));
        ContextScopes { arrays, frame }
    }

    /// Marks a load or store of the context array at `prefix` as such. An array without
    /// scopes (none was made for it) stays unmarked.
    pub(crate) fn tag(&self, cx: &'ctx Context, inst: InstructionValue<'ctx>, prefix: u64) {
        if let Some((scopes, noalias)) = self.arrays.get(&prefix) {
            tag(cx, inst, Some(*scopes), *noalias);
        }
    }

    /// Marks a load or store of a slot of a thread's frame as such.
    pub(crate) fn tag_frame(&self, cx: &'ctx Context, inst: InstructionValue<'ctx>) {
        self.frame_scopes().tag(cx, inst);
    }

    /// The frames' scopes, for accesses tagged where the layout is not at hand.
    pub(crate) fn frame_scopes(&self) -> FrameScopes<'ctx> {
        FrameScopes(self.frame)
    }
}

/// The alias scopes of the threads' frames (`ContextScopes::frame_scopes`).
#[derive(Clone, Copy)]
pub struct FrameScopes<'ctx>(Option<(MetadataValue<'ctx>, Option<MetadataValue<'ctx>>)>);

impl<'ctx> FrameScopes<'ctx> {
    pub(crate) fn tag(&self, cx: &'ctx Context, inst: InstructionValue<'ctx>) {
        if let Some((scopes, noalias)) = self.0 {
            tag(cx, inst, Some(scopes), noalias);
        }
    }
}

/// The access group of one thread's memory accesses in a thread loop (see the module
/// documentation). One group serves every loop: the annotation speaks of the iterations of
/// the loop that names it, and only thread loops do.
fn thread_access_group<'ctx>(cx: &'ctx Context) -> MetadataValue<'ctx> {
    cx.metadata_node(&[])
}

/// Puts `inst`, an access of one thread that no other thread of its region may touch
/// without a data race, in the thread loops' access group.
pub(crate) fn tag_thread_access<'ctx>(cx: &'ctx Context, inst: InstructionValue<'ctx>) {
    let _ = inst.set_metadata(thread_access_group(cx), cx.get_kind_id("llvm.access.group"));
}

/// Marks `latch` (the conditional branch back to a thread loop's header) as the latch of a
/// loop whose iterations are independent for the accesses of the threads' access group:
/// `!llvm.loop !{self, !{"llvm.loop.parallel_accesses", group}}`. A loop ID refers to
/// itself (which also keeps two loops' IDs apart); the C API builds that cycle through a
/// temporary node.
pub(crate) fn mark_parallel_loop<'ctx>(cx: &'ctx Context, latch: InstructionValue<'ctx>) {
    mark_loop(cx, latch, false)
}

/// `mark_parallel_loop` for a thread loop over one warp (`warp_runs`), which LLVM must not
/// unroll fully before it vectorizes it: the 32 threads' code, unrolled first, comes out of
/// the SLP vectorizer in pieces of 4 and scalars, where the loop vectorizer makes two
/// full-width vectors of each value (which then stay in registers).
pub(crate) fn mark_warp_loop<'ctx>(cx: &'ctx Context, latch: InstructionValue<'ctx>) {
    mark_loop(cx, latch, true)
}

fn mark_loop<'ctx>(cx: &'ctx Context, latch: InstructionValue<'ctx>, no_unroll: bool) {
    use inkwell::llvm_sys::core::{LLVMMDNodeInContext2, LLVMMetadataAsValue, LLVMSetMetadata, LLVMValueAsMetadata};
    use inkwell::llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
    let parallel = cx.metadata_node(&[cx.metadata_string("llvm.loop.parallel_accesses").into(), thread_access_group(cx).into()]);
    // Not unrolled before it is vectorized; the vectorized loop (two or so iterations) has
    // none of the original loop's attributes, so LLVM unrolls it fully as it does any
    // short loop, after which SROA turns the warp's arrays into registers. (Asking for the
    // full unroll instead makes LLVM warn where a loop does not vectorize.)
    let unroll = cx.metadata_node(&[cx.metadata_string("llvm.loop.unroll.disable").into()]);
    let followup = cx.metadata_node(&[cx.metadata_string("llvm.loop.vectorize.followup_vectorized").into()]);
    // SAFETY: every reference is created in `cx`, which outlives this call; the temporary
    // node is replaced (which deletes it) before the ID is attached.
    unsafe {
        let raw_cx = cx.raw();
        let temp = LLVMTemporaryMDNode(raw_cx, std::ptr::null_mut(), 0);
        let mut ops = vec![temp, LLVMValueAsMetadata(parallel.as_value_ref())];
        if no_unroll {
            ops.push(LLVMValueAsMetadata(unroll.as_value_ref()));
            ops.push(LLVMValueAsMetadata(followup.as_value_ref()));
        }
        let id = LLVMMDNodeInContext2(raw_cx, ops.as_mut_ptr(), ops.len());
        LLVMMetadataReplaceAllUsesWith(temp, id);
        LLVMSetMetadata(latch.as_value_ref(), cx.get_kind_id("llvm.loop"), LLVMMetadataAsValue(raw_cx, id));
    }
}

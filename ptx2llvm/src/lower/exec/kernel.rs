//! Block functions: one `.entry` becomes `i32 __ptxrt_block_<name>(ptxrtBlockEnv*)`, which
//! runs a whole thread block on the calling CPU thread, region by region (see `regions`).
//!
//! Each region is a loop nest over (z, y, x) thread indices with x innermost, so that
//! LLVM can vectorize across threads. A per-thread `state` array in the context area
//! records where each thread stopped (the region after the sync point it reached, or
//! exit); after a region the block function asks the runtime's scheduler
//! (`__ptxrt_schedule`, see ptxrt's `sched`) which threads continue where, and runs that
//! region: densely (every thread, no test) when the whole block continues together, else
//! only for the released threads. The scheduler's common case, the whole block waiting at
//! one plain `bar.sync`, the block function finds by itself (statically, or by a look at
//! the thread states). Kernels without sync points are a single thread loop.

use crate::ir::uniformity::Uniformity;
use crate::ir::{self, BlockId, Terminator};
use crate::lower::abi;
use crate::lower::exec::alias;
use crate::lower::exec::decide;
use crate::lower::exec::fusion;
use crate::lower::exec::guards::{self, Narrowing};
use crate::lower::exec::interchange;
use crate::lower::exec::regions::{self, Regions};
use crate::lower::exec::segments;
use crate::lower::exec::texture_versions;
use crate::lower::exec::warp_runs;
use crate::lower::thread::{FnCx, GuardedIndex, Thread, Uniform};
use crate::lower::{LowerError, ModuleLowerer, R};
use inkwell::basic_block::BasicBlock;
use inkwell::module::Linkage;
use inkwell::values::{BasicValue, FunctionValue, IntValue, PointerValue};
use inkwell::IntPredicate as P;
use std::collections::HashMap;

use crate::lower::abi::sync::{self, SyncKind, WarpOp};

/// A kernel gets one thread loop for all its regions (entered through a switch on the
/// region) instead of a dense and a checked loop per region with its own copy of the
/// region's code when its regions share much of their code: above this many regions, and
/// when the regions' code together is more than `COMPACT_OVERLAP` times the kernel's (code
/// after a branch around a sync point belongs to both regions). Kernels with hundreds of
/// sync points in loops then stay linear in size (each IR block emitted once), at some cost
/// in speed; straight-line sequences of sync points (warp reductions and scans: each region
/// its own few instructions) keep the fast form.
const COMPACT_ABOVE_REGIONS: usize = 12;
const COMPACT_OVERLAP: usize = 4;

/// Whether kernel `f` gets the compact form (`COMPACT_ABOVE_REGIONS`).
fn is_compact(f: &ir::Function, regions: &Regions) -> bool {
    regions.starts.len() > COMPACT_ABOVE_REGIONS && regions.code_size(f) > COMPACT_OVERLAP * f.blocks.iter().map(|b| b.insts.len() + 1).sum::<usize>()
}

/// Above this many regions, a kernel whose regions do not share code (so not compact: a
/// long straight sequence of barriers and lockstep points, as in CUB/b40c scans) gets one
/// thread loop per region that runs every thread or the released ones (a flag), not a dense
/// and a checked copy of each region's code: half the code for LLVM to optimize (measured:
/// thrust's ScanScatterDigits kernels, 105 regions, ~100k lines of IR each), at the cost of
/// a branch on the flag per thread. Where even that is too large for the full pipeline, the
/// kernel gets the compact form (`lower_entry`). The runtime benchmark's kernels have at
/// most 13.
const ONE_LOOP_ABOVE_REGIONS: usize = 32;
// (Below it, a region set fits in `Picks::Some`.)
const _: () = assert!(ONE_LOOP_ABOVE_REGIONS < 64);

/// Which threads a region's thread loop runs.
#[derive(Clone, Copy)]
pub(crate) enum Filter<'ctx> {
    /// Every thread (the entry region, or the scheduler said the whole block continues).
    All,
    /// The threads whose state says the scheduler released them into the region.
    Released,
    /// Every thread if the value is true, else the released ones.
    DenseOrReleased(IntValue<'ctx>),
    /// The threads parked at interchange point `q` (`interchange`).
    Waiting(usize),
}

/// Whether a thread loop writes each thread's state word at the sync point it reaches.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum States {
    Written,
    /// Thread 0's word only: a dense run of a region whose threads all end at the same sync
    /// point or all exit (`Regions::converges`). Every thread writes the point it reached
    /// into thread 0's word (the same value from each), and the block goes on by that word
    /// (`decide::emit_after_converged`), which first sets every thread's word to it where
    /// something reads them all (a thread loop's run then writes one word, not one per
    /// thread: a barrier inside a loop costs no pass over the states).
    Converged,
    /// Not written: a dense run of a region that can only end at one sync point, after
    /// which the block goes on without reading the states (the next region's dense run,
    /// or the completion of a warp collective for every warp, which writes them itself
    /// before it ever hands the block to the scheduler: `decide::emit_whole_completions`).
    /// Whatever reads the states later (the decision after a region, the scheduler, a loop
    /// over released threads) comes after a run that wrote every thread's own.
    Implied,
}

pub struct LoweredKernel<'ctx> {
    pub block_fn: FunctionValue<'ctx>,
    pub context_bytes_per_thread: u32,
    /// The block function runs runs of blocks along x (`fusion`).
    pub fused_x: bool,
}

/// Where a block function goes to run region `k`: for every thread (`dense[k]`), or for
/// the threads the states mark released into it (`released[k]`).
pub(crate) struct RegionEntries<'ctx> {
    pub(crate) dense: Vec<BasicBlock<'ctx>>,
    pub(crate) released: Vec<BasicBlock<'ctx>>,
}

/// Where each saved register lives in the context area (`nthreads * bytes_per_thread`
/// bytes), by a per-thread prefix `p` and an element size `s`:
///
/// - arrays (structure of arrays): thread `t`'s element at `context + nthreads * p + t * s`.
///   Thread loops that vectorize read and write consecutive threads' elements at once, and
///   the runtime's scheduler reads and writes sync-point operands, thread states and wait
///   words this way;
/// - the frame (array of structures, `p < frame_bytes`): thread `t`'s registers together at
///   `context + t * frame_bytes + p`, before the arrays. In large kernels (`LARGE_KERNEL`)
///   the registers that only the block function reads: a region entry that reloads a
///   hundred registers then adds a constant to one address per thread instead of computing
///   a hundred (a multiply by `nthreads`, two adds), a third of such block functions' code
///   and of its compile time.
pub(crate) struct ContextLayout<'ctx> {
    /// Per register (by index): (per-thread byte offset prefix, element size).
    pub(crate) slots: HashMap<ir::RegId, (u64, u32)>,
    /// Prefix of the i32 state array, if the kernel has barriers.
    pub(crate) state: Option<u64>,
    /// Prefix of the i32 array of interchange points threads are parked at (`interchange`).
    pub(crate) wait: Option<u64>,
    bytes_per_thread: u64,
    /// Bytes of each thread's frame (0: no frame).
    pub(crate) frame_bytes: u64,
    /// The kernel's interchanged loops.
    pub(crate) interchange: Option<interchange::State<'ctx>>,
    /// Alias scopes of the arrays (`alias`).
    pub(crate) scopes: alias::ContextScopes<'ctx>,
    /// Saved registers with one value for the whole block (`Regions::block_uniform_saved`):
    /// kept in their array's first element only, read once before a region's thread loop.
    pub(crate) block_uniform: std::collections::BTreeSet<ir::RegId>,
    /// Registers an interchanged loop parks that hold one value for the whole block
    /// (`Uniformity::among_all_threads`): every thread stores its own element, and a dense
    /// pass (every thread parked at the point, in the same pass) reads thread 0's once,
    /// before its thread loop. Then a uniform loop's counters and the addresses made from
    /// them are one value for the vector pass (a broadcast), not a gather per thread.
    pub(crate) pass_uniform: std::collections::BTreeSet<ir::RegId>,
    /// The warps a completion of a warp collective for some warps just released, one bit
    /// per warp (`warps::emit_completion`), all ones when not known: a loop over the
    /// released threads of a one-dimensional block runs only the x range from the first
    /// of them to the last (warp 0 alone through a chain of shuffles after a barrier: its
    /// 32 threads, not a look at every warp's states), and sets it back to all ones.
    pub(crate) released_warps: Option<PointerValue<'ctx>>,
    /// While a warp run's code is emitted (`warp_runs`): the registers it keeps in the
    /// warp's own arrays instead of the context area.
    pub(crate) warp_view: std::cell::RefCell<Option<WarpView<'ctx>>>,
}

/// The registers a warp run keeps for one warp (`warp_runs`): per context slot (by its
/// prefix), the 32 lanes' elements in a function-local array, lane `tid - first`. LLVM
/// promotes those arrays to vector registers, so the run's values stay in registers across
/// its warp collectives instead of going through the context area.
pub(crate) struct WarpView<'ctx> {
    /// Linear index of the warp's lane 0, and its x index.
    pub(crate) first: IntValue<'ctx>,
    pub(crate) x0: IntValue<'ctx>,
    pub(crate) lanes: HashMap<u64, PointerValue<'ctx>>,
}

/// Kernels of more PTX instructions than this are large: their thread loops hold thousands
/// of instructions and do not vectorize (their block functions get LLVM's scalar pipeline
/// at -O1/-O2, `opt::pipeline`), so they keep the registers only the block function reads
/// in a per-thread frame (`ContextLayout`) and interchange only grid-stride loops
/// (`interchange::analyze`). The runtime benchmark's kernels have at most a few hundred.
pub const LARGE_KERNEL: usize = 2_000;

pub(crate) fn context_layout<'ctx>(
    cx: &'ctx inkwell::context::Context,
    f: &ir::Function,
    regions: &Regions,
    plan: Option<&interchange::Plan>,
    frame: bool,
) -> ContextLayout<'ctx> {
    let parked = plan.map(|p| p.saved_regs()).unwrap_or_default();
    let mut saved: std::collections::BTreeSet<ir::RegId> = regions.saved.iter().copied().collect();
    saved.extend(parked.iter().copied());
    // What the scheduler reads and writes (sync-point operands and results) and what an
    // interchanged loop's vector passes park stays in arrays.
    let mut in_arrays = parked;
    for block in &f.blocks {
        if let Terminator::Sync { point, .. } = &block.term {
            let mut regs = vec![];
            point.uses(&mut regs);
            point.defs(&mut regs);
            in_arrays.extend(regs);
        }
    }
    let size = |r: &ir::RegId| f.regs[r.0 as usize].ty.bytes();
    // Larger elements first keeps every element naturally aligned.
    let by_size = |items: &mut Vec<(Option<ir::RegId>, u32)>| items.sort_by_key(|(r, size)| (std::cmp::Reverse(*size), r.map(|r| r.0)));
    let mut framed: Vec<(Option<ir::RegId>, u32)> = saved.iter().filter(|r| frame && !in_arrays.contains(r)).map(|r| (Some(*r), size(r))).collect();
    by_size(&mut framed);
    let mut items: Vec<(Option<ir::RegId>, u32)> = saved.iter().filter(|r| !frame || in_arrays.contains(r)).map(|r| (Some(*r), size(r))).collect();
    if regions.has_sync_points() {
        items.push((None, 4));
    }
    // The wait array: one byte per thread (`interchange::WAIT_BYTES`), last (the smallest
    // elements sort after the others).
    let wait_key = ir::RegId(u32::MAX);
    if plan.is_some() {
        items.push((Some(wait_key), interchange::WAIT_BYTES));
    }
    by_size(&mut items);
    let mut slots = HashMap::new();
    let mut off = 0u64;
    for (r, size) in framed {
        slots.insert(r.expect("framed items are registers"), (off, size));
        off += size as u64;
    }
    // A frame size that keeps the next thread's frame and the arrays after the frames
    // aligned for the largest element.
    let frame_bytes = off.next_multiple_of(16);
    let mut state = None;
    let mut wait = None;
    let mut prefixes = vec![];
    let mut off = frame_bytes;
    for (r, size) in items {
        prefixes.push(off);
        match r {
            Some(r) if r == wait_key => wait = Some(off),
            Some(r) => {
                slots.insert(r, (off, size));
            }
            None => state = Some(off),
        }
        off += size as u64;
    }
    ContextLayout {
        slots,
        state,
        wait,
        bytes_per_thread: off,
        frame_bytes,
        interchange: None,
        scopes: alias::ContextScopes::new(cx, frame_bytes > 0, &prefixes),
        block_uniform: Default::default(),
        pass_uniform: Default::default(),
        released_warps: None,
        warp_view: Default::default(),
    }
}

/// Lowers kernel `f` (`Module::functions[index]`) to its block function, named
/// `__ptxrt_block_<name><suffix>` (`suffix`: a CPU version's, `multiversion`).
pub fn lower_entry<'ctx>(ml: &ModuleLowerer<'ctx, '_>, index: usize, f: &ir::Function, suffix: &str) -> R<LoweredKernel<'ctx>> {
    let regions = regions::analyze(f);
    let compact = is_compact(f, &regions);
    let one_loop = !compact && regions.starts.len() > ONE_LOOP_ABOVE_REGIONS;
    let Some(limit) = ml.exec.scalar_above.filter(|_| one_loop) else {
        return lower_entry_in_form(ml, index, f, suffix, &regions, compact);
    };
    // A kernel of many regions whose one-loop block function gets the scalar pipeline for
    // its size vectorizes nothing in it: it gets the compact form, a fraction of the code
    // for LLVM (thrust's ScanScatterDigits: 105 regions, 16,700 instructions in the one-loop
    // form, 1.6 s of code generation each, 0.5 s compact). Compile time bought with run
    // time: the compact loop dispatches on the region per thread (the runtime tests'
    // `rounds`, four instructions per region, forced: 115 -> 220 ms). Its size is known only
    // once lowered, so the one-loop form is lowered first and dropped for the compact one
    // when it is too large.
    let kernel = lower_entry_in_form(ml, index, f, suffix, &regions, false)?;
    if crate::lower::opt::pipeline::size_after_ssa(kernel.block_fn) <= ONE_LOOP_SIZE_MARGIN * limit {
        return Ok(kernel);
    }
    // SAFETY: the block function was just created and nothing refers to it yet.
    unsafe { kernel.block_fn.delete() };
    // Its private tables (sync points, operands, and the texts those name) stay behind until
    // global dead-code elimination (the driver's, at every level): the texts keep uses in
    // the tables' initializers, constants that LLVM's C API cannot delete.
    lower_entry_in_form(ml, index, f, suffix, &regions, true)
}

/// The one-loop form is dropped for the compact one when its block function is over this
/// many times the scalar pipeline's limit, by `pipeline::size_after_ssa`, which overestimates the
/// size the pipeline sees after SSA construction and instruction combining: by 1.15 to 1.7
/// on the kernels of more than 32 regions measured (the runtime tests' `rounds`: 11,100
/// against 9,600, full pipeline, vectorized loops; thrust's RakingReduction: 12,100 against
/// 9,900; its ScanScatterDigits: 27,700 against 16,700, scalar pipeline), 3.1 on LibreCuda's
/// matmul (146,700 against 47,500).
const ONE_LOOP_SIZE_MARGIN: usize = 2;

/// `lower_entry` in the compact form or not.
fn lower_entry_in_form<'ctx>(
    ml: &ModuleLowerer<'ctx, '_>,
    index: usize,
    f: &ir::Function,
    suffix: &str,
    regions: &Regions,
    compact: bool,
) -> R<LoweredKernel<'ctx>> {
    let cx = ml.cx;
    let size = f.blocks.iter().map(|b| b.insts.len()).sum::<usize>();
    let large = size > ml.exec.large_kernel;
    let plan = interchange::analyze(f, regions, large);
    let uniformity = Uniformity::new(f);
    // A compact kernel's one thread loop runs every region behind a switch and never
    // vectorizes, so its registers gain nothing from arrays either: frames, whatever its size.
    let mut layout = context_layout(cx, f, regions, plan.as_ref(), large || compact);
    // Block-uniform registers kept across sync points have one slot for the whole block,
    // except those an interchanged loop parks with its threads (its resume points reload
    // them per thread).
    let parked = plan.as_ref().map(|p| p.saved_regs()).unwrap_or_default();
    layout.block_uniform = regions.block_uniform_saved(f, &uniformity).into_iter().filter(|r| !parked.contains(r)).collect();
    if !parked.is_empty() {
        // Threads on their way to an `exit` run the passes too.
        let among_all = Uniformity::among_all_threads(f);
        layout.pass_uniform = parked.iter().copied().filter(|r| among_all.is_uniform(*r)).collect();
    }
    let ptr = cx.ptr_type(inkwell::AddressSpace::default());
    let fn_ty = cx.i32_type().fn_type(&[ptr.into()], false);
    let func = ml.module.add_function(&format!("{}{suffix}", abi::block_fn_symbol(&f.name)), fn_ty, Some(Linkage::Internal));
    let nounwind = cx.create_enum_attribute(inkwell::attributes::Attribute::get_named_enum_kind_id("nounwind"), 0);
    func.add_attribute(inkwell::attributes::AttributeLoc::Function, nounwind);
    let b = cx.create_builder();
    let entry = cx.append_basic_block(func, "entry");
    b.position_at_end(entry);

    let uni = load_uniforms(ml, &b, func, Some(f))?;
    let regs = f.regs.iter().map(|r| b.build_alloca(crate::lower::thread::int_type(cx, r.ty.bits()), &r.name)).collect::<Result<Vec<_>, _>>()?;
    let frame_vars = crate::lower::exec::function::frame_vars(ml, &b, index)?;
    let mut fc = FnCx {
        cx,
        module: &ml.module,
        b,
        ml,
        f,
        func,
        regs,
        uni,
        thread: None,
        frame_vars,
        local_override: None,
        on_exit: None,
        known_preds: HashMap::new(),
        guarded_indices: HashMap::new(),
        debug: None,
        at: 0,
        linear_textures: false,
        homes: None,
        defs_cache: std::cell::OnceCell::new(),
    };
    fc.begin_debug()?;
    let fused_x = !regions.has_sync_points() && fusion::fusable_along_x(ml.ir, f);
    if fused_x {
        // One call runs `blocks_x` blocks: its x loop covers their threads (see `fusion`),
        // and so does the context area (an interchanged loop's per-thread words).
        let t = &ml.abi;
        let p = fc.b.build_struct_gep(t.block_env, fc.uni.env, abi::env::BLOCKS_X, "")?;
        let blocks_x = fc.b.build_load(cx.i32_type(), p, "blocks_x")?.into_int_value();
        fc.uni.x_extent = fc.b.build_int_nuw_mul(fc.uni.ntid[0], blocks_x, "x_extent")?;
        let rows = fc.b.build_int_nuw_mul(fc.uni.ntid[1], fc.uni.ntid[2], "")?;
        fc.uni.nthreads = fc.b.build_int_nuw_mul(fc.uni.x_extent, rows, "run_threads")?;
    }
    if let Some(plan) = plan {
        layout.interchange = Some(interchange::State::new(&fc, layout.wait.expect("a plan has wait words"), plan)?);
    }
    if regions.has_sync_points() {
        let p = fc.b.build_alloca(cx.i32_type(), "released_warps")?;
        fc.b.build_store(p, cx.i32_type().const_all_ones())?;
        layout.released_warps = Some(p);
    }
    let done = fc.new_block("done");

    if !regions.has_sync_points() {
        let after = interchange::emit_dispatch(&mut fc, regions, &layout, done)?;
        // Interchanged loops need every thread's context: no narrowing.
        let narrowing = guards::analyze(f).filter(|_| layout.interchange.is_none());
        let thread_loop = |fc: &mut FnCx<'ctx, '_>| match &narrowing {
            Some(narrowing) => emit_narrowed_loop(fc, regions, &layout, 0, narrowing, None, States::Written, after, after),
            None => emit_region_loop(fc, regions, &layout, RegionSel::One(0), Filter::All, States::Written, None, after),
        };
        let start = match texture_versions::linear_fetch_handles(f) {
            Some(handles) => {
                fc.linear_textures = true;
                let linear = thread_loop(&mut fc)?;
                fc.linear_textures = false;
                let general = thread_loop(&mut fc)?;
                let pick = fc.new_block("textures");
                fc.b.position_at_end(pick);
                let all_linear = texture_versions::emit_all_linear(&mut fc, &handles)?;
                fc.b.build_conditional_branch(all_linear, linear, general)?;
                pick
            }
            None => thread_loop(&mut fc)?,
        };
        fc.b.position_at_end(entry);
        fc.b.build_unconditional_branch(start)?;
    } else {
        let i32t = cx.i32_type();
        let points = sync_point_table(&fc, regions, &layout)?;
        // The scheduler's per-block scratch (barrier arrivals, round-robin cursor).
        let arrivals = fc.b.build_alloca(i32t.array_type(sync::SCRATCH_WORDS), "arrivals")?;
        fc.b.build_store(arrivals, i32t.array_type(sync::SCRATCH_WORDS).const_zero())?;
        let schedule = fc.new_block("schedule");
        let failed = fc.new_block("failed");
        let dispatch = fc.new_block("dispatch");
        // Ask the scheduler which region runs next (and whether densely).
        fc.b.position_at_end(schedule);
        let state_ptr = context_elem(&fc, layout.state.expect("kernel with sync points has a state array"), 4, i32t.const_zero())?;
        let ptr = cx.ptr_type(inkwell::AddressSpace::default());
        let sched_fn = ml.module.get_function("__ptxrt_schedule").unwrap_or_else(|| {
            let ty = i32t.fn_type(&[ptr.into(), i32t.into(), ptr.into(), ptr.into(), ptr.into(), i32t.into(), ptr.into()], false);
            ml.module.add_function("__ptxrt_schedule", ty, Some(Linkage::External))
        });
        let args = [
            fc.uni.env.into(),
            fc.uni.nthreads.into(),
            state_ptr.into(),
            fc.uni.context.into(),
            points.into(),
            i32t.const_int(regions.starts.len() as u64, false).into(),
            arrivals.into(),
        ];
        let r =
            fc.b.build_call(sched_fn, &args, "next")?
                .try_as_basic_value()
                .basic()
                .ok_or_else(|| LowerError::Internal("schedule returns a value".into()))?
                .into_int_value();
        let k = fc.b.build_and(r, i32t.const_int(0xFFFF, false), "region")?;
        let dense_bit = fc.b.build_and(r, i32t.const_int(sync::DENSE, false), "")?;
        let is_dense = fc.b.build_int_compare(P::NE, dense_bit, i32t.const_zero(), "dense")?;
        let finished = fc.b.build_int_compare(P::EQ, r, i32t.const_all_ones(), "")?;
        let not_done = fc.new_block("not_done");
        fc.b.build_conditional_branch(finished, done, not_done)?;
        fc.b.position_at_end(not_done);
        let negative = fc.b.build_int_compare(P::SLT, r, i32t.const_zero(), "")?;
        fc.b.build_conditional_branch(negative, failed, dispatch)?;
        // Region loops end in the interchange dispatcher (if any: parked threads run
        // first), then the decision of what runs next: the block function's own
        // (`decide`), else the scheduler's.
        let n = regions.starts.len();
        let points = regions.points(f);
        let streak = decide::streak_counter(&fc)?;
        // The decision, the completions of warp collectives for every warp (`whole`) and
        // for some warps (`some`) per region.
        let decision =
            |fc: &FnCx<'ctx, '_>, entries: &RegionEntries<'ctx>| -> R<(BasicBlock<'ctx>, Vec<Option<BasicBlock<'ctx>>>, Vec<Option<BasicBlock<'ctx>>>)> {
                let whole = decide::emit_whole_completions(fc, &layout, &points, entries, schedule)?;
                let some = decide::emit_some_completions(fc, &layout, &points, entries, schedule)?;
                Ok((decide::emit_decision(fc, &layout, &points, &whole, &some, streak, entries, schedule, done)?, whole, some))
            };

        if compact {
            if size > ml.exec.large_kernel / 2 {
                // The one loop of a kernel of a thousand instructions and more holds all of
                // it behind a switch: nothing for the vectorizers, and the loop passes cost
                // more than they gain, whatever the block function's size (`pipeline`).
                // Smaller compact kernels keep the full pipeline (cheap at their size).
                crate::lower::opt::pipeline::mark_scalar(cx, fc.func);
            }
            // One thread loop for all regions: the entry region densely, then whichever is
            // picked (every thread when dense, else the released ones).
            let shared = fc.new_block("regions");
            fc.b.position_at_end(shared);
            let k_phi = fc.b.build_phi(i32t, "picked")?;
            let dense_phi = fc.b.build_phi(cx.bool_type(), "picked.dense")?;
            let picked = (k_phi.as_basic_value().into_int_value(), dense_phi.as_basic_value().into_int_value());
            let enter = |fc: &FnCx<'ctx, '_>, k: usize, dense: bool| -> R<BasicBlock<'ctx>> {
                let bb = fc.new_block(&format!("enter{k}.{}", if dense { "dense" } else { "released" }));
                fc.b.position_at_end(bb);
                fc.b.build_unconditional_branch(shared)?;
                k_phi.add_incoming(&[(&i32t.const_int(k as u64, false), bb)]);
                dense_phi.add_incoming(&[(&cx.bool_type().const_int(dense as u64, false), bb)]);
                Ok(bb)
            };
            let entries = RegionEntries {
                dense: (0..n).map(|k| enter(&fc, k, true)).collect::<R<_>>()?,
                released: (0..n).map(|k| enter(&fc, k, false)).collect::<R<_>>()?,
            };
            let (decided, _, _) = decision(&fc, &entries)?;
            let next = interchange::emit_dispatch(&mut fc, regions, &layout, decided)?;
            let lp = emit_region_loop(
                &mut fc,
                regions,
                &layout,
                RegionSel::Picked(picked.0, Picks::All),
                Filter::DenseOrReleased(picked.1),
                States::Written,
                None,
                next,
            )?;
            fc.b.position_at_end(shared);
            fc.b.build_unconditional_branch(lp)?;
            let first = next_block_first(&mut fc, regions, entries.dense[0])?;
            fc.b.position_at_end(entry);
            fc.b.build_unconditional_branch(first)?;
            fc.b.position_at_end(dispatch);
            // The switch inside the loop sends an unknown region nowhere: check it here.
            let known = fc.b.build_int_compare(P::ULT, k, i32t.const_int(n as u64, false), "")?;
            let scheduled = fc.new_block("scheduled");
            fc.b.build_conditional_branch(known, scheduled, failed)?;
            fc.b.position_at_end(scheduled);
            fc.b.build_unconditional_branch(shared)?;
            k_phi.add_incoming(&[(&k, scheduled)]);
            dense_phi.add_incoming(&[(&is_dense, scheduled)]);
        } else {
            // Each region as a dense and a checked thread loop.
            let entries = RegionEntries {
                dense: (0..n).map(|k| fc.new_block(&format!("region{k}.dense"))).collect(),
                released: (0..n).map(|k| fc.new_block(&format!("region{k}.released"))).collect(),
            };
            // Any run ends in the block function's own decision, else the scheduler's. A
            // dense run of a region that always ends at the same sync point goes on without
            // looking at the states: to the next region's dense loop after a plain barrier,
            // to the completion of a warp collective for every warp (not a region holding an
            // interchanged loop's point, whose parked threads run first).
            let (decided, whole, some) = decision(&fc, &entries)?;
            let next = interchange::emit_dispatch(&mut fc, regions, &layout, decided)?;
            // A run of the released threads of a region that always ends at the same warp
            // collective: the warps that ran wait there, the others where they were, so the
            // completion for some warps comes next (a phase of warp 0 alone: shuffle after
            // shuffle without a look at every state).
            let after_released: Vec<BasicBlock> = (0..n)
                .map(|k| -> R<BasicBlock> {
                    // (Region 0, the entry, has no loop over released threads.)
                    Ok(match regions.sole_successor(f, k).and_then(|j| some[j]) {
                        Some(completion) if k > 0 && layout.interchange.is_none() => decide::emit_streak_gate(&fc, streak, completion, decided)?,
                        _ => next,
                    })
                })
                .collect::<R<_>>()?;
            // Where a dense run of a region whose threads all end at the same point goes:
            // wherever thread 0 went. A run that goes on without a look at the states (to the
            // next region's dense loop, or to a warp collective's completion for every warp)
            // need not write them.
            // (With interchanged loops, a run of a region whose code holds one of their
            // points goes to the dispatcher first, which runs the threads parked there; no
            // thread is parked after a region without points, so it goes on as above: the
            // tree of barriers after a grid-stride loop, say.)
            let parks = |k: usize| {
                layout
                    .interchange
                    .as_ref()
                    .is_some_and(|st| regions.code_of(f, &[regions.starts[k].0 as usize]).iter().any(|&b| st.plan.point_at(BlockId(b as u32)).is_some()))
            };
            let mut after_converged = None;
            let (after_dense, dense_states): (Vec<BasicBlock>, Vec<States>) = (0..n)
                .map(|k| -> R<(BasicBlock, States)> {
                    Ok(match regions.sole_successor(f, k) {
                        _ if parks(k) => (next, States::Written),
                        Some(j) if points[j].is_some_and(regions::is_plain_barrier) => (entries.dense[j], States::Implied),
                        Some(j) => whole[j].map_or((next, States::Written), |bb| (bb, States::Implied)),
                        None if regions.converges(f, &uniformity, k) => match after_converged {
                            Some(bb) => (bb, States::Converged),
                            None => (
                                *after_converged.insert(decide::emit_after_converged(&fc, &layout, &points, &whole, &entries, decided, done)?),
                                States::Converged,
                            ),
                        },
                        None => (next, States::Written),
                    })
                })
                .collect::<R<Vec<_>>>()?
                .into_iter()
                .unzip();
            // Chains of regions joined by warp collectives run warp by warp (`warp_runs`).
            let runs = if n > ONE_LOOP_ABOVE_REGIONS { HashMap::new() } else { warp_runs::plan(f, regions, &layout) };
            let warp_run = |fc: &mut FnCx<'ctx, '_>, k: usize, dense: BasicBlock<'ctx>| -> R<BasicBlock<'ctx>> {
                match runs.get(&k) {
                    Some(run) if run.checked => warp_runs::emit(fc, regions, &layout, run, States::Written, next, dense),
                    Some(run) => {
                        let last = *run.regions.last().expect("a run has regions");
                        warp_runs::emit(fc, regions, &layout, run, dense_states[last], after_dense[last], dense)
                    }
                    None => Ok(dense),
                }
            };
            let mut cases = vec![];
            // The released threads of the regions whose runs end in the decision: one thread
            // loop for all of them, entering the picked region's code through a switch (as a
            // compact kernel's loop does), not a checked copy of each region's code. The
            // scheduler releases threads into a region when the block diverged (some warps at
            // another sync point); blocks that stay converged never run it.
            // (Region 0 has no released threads; one region alone keeps its own loop.)
            let mut released_loop: Option<(BasicBlock<'ctx>, inkwell::values::PhiValue<'ctx>)> = None;
            // (Kernels of more regions run each region's released threads in its one loop.)
            let shared_released: u64 = if n > ONE_LOOP_ABOVE_REGIONS { 0 } else { (1..n).filter(|&k| after_released[k] == next).fold(0, |m, k| m | 1 << k) };
            let shared_released = if shared_released.count_ones() >= 2 { shared_released } else { 0 };
            let step_aheads = crate::lower::exec::prefetch::step_aheads(fc.f, regions);
            for k in 1..n {
                let pick = fc.new_block(&format!("region{k}"));
                // A dense run of a region whose guard sends some threads straight to a plain
                // barrier runs the others alone (`guards::analyze_region`), then the
                // barrier's region densely.
                let guard = match layout.interchange {
                    None => guards::analyze_region(f, regions, k, &layout.block_uniform)
                        .and_then(|g| Some((entries.dense[g.then_region.filter(|j| points[*j].is_some_and(regions::is_plain_barrier))?], g))),
                    Some(_) => None,
                };
                if n > ONE_LOOP_ABOVE_REGIONS {
                    // One loop for both entries; where it goes after depends on the entry.
                    let one = fc.new_block(&format!("region{k}.one"));
                    let leave = fc.new_block(&format!("region{k}.leave"));
                    let dense_entry = match guard {
                        Some(_) => fc.new_block(&format!("region{k}.general")),
                        None => entries.dense[k],
                    };
                    fc.b.position_at_end(one);
                    let flag = fc.b.build_phi(cx.bool_type(), "dense")?;
                    flag.add_incoming(&[(&cx.bool_type().const_int(1, false), dense_entry), (&cx.bool_type().const_zero(), entries.released[k])]);
                    let dense = flag.as_basic_value().into_int_value();
                    let lp = emit_region_loop(&mut fc, regions, &layout, RegionSel::One(k), Filter::DenseOrReleased(dense), States::Written, None, leave)?;
                    fc.b.position_at_end(one);
                    fc.b.build_unconditional_branch(lp)?;
                    fc.b.position_at_end(leave);
                    fc.b.build_conditional_branch(dense, after_dense[k], after_released[k])?;
                    fc.b.position_at_end(dense_entry);
                    fc.b.build_unconditional_branch(one)?;
                    if let Some((then_dense, guard)) = &guard {
                        let narrowed =
                            emit_narrowed_loop(&mut fc, regions, &layout, k, guard, Some(dense_entry), dense_states[k], after_dense[k], *then_dense)?;
                        fc.b.position_at_end(entries.dense[k]);
                        fc.b.build_unconditional_branch(narrowed)?;
                    }
                    fc.b.position_at_end(entries.released[k]);
                    fc.b.build_unconditional_branch(one)?;
                    cases.push((k, pick));
                    continue;
                }
                let dense = match &guard {
                    Some((then_dense, guard)) => emit_narrowed_loop(&mut fc, regions, &layout, k, guard, None, dense_states[k], after_dense[k], *then_dense)?,
                    None => emit_region_loop(&mut fc, regions, &layout, RegionSel::One(k), Filter::All, dense_states[k], None, after_dense[k])?,
                };
                let dense = warp_run(&mut fc, k, dense)?;
                let dense = match &step_aheads[k] {
                    Some(sa) => crate::lower::exec::prefetch::emit_step_ahead(&mut fc, &layout, sa, k, dense)?,
                    None => dense,
                };
                fc.b.position_at_end(entries.dense[k]);
                fc.b.build_unconditional_branch(dense)?;
                let checked = if shared_released >> k & 1 == 1 {
                    let (entry, region) = match released_loop {
                        Some(l) => l,
                        None => {
                            let bb = fc.new_block("released");
                            fc.b.position_at_end(bb);
                            let region = fc.b.build_phi(i32t, "released.region")?;
                            let lp = emit_region_loop(
                                &mut fc,
                                regions,
                                &layout,
                                RegionSel::Picked(region.as_basic_value().into_int_value(), Picks::Some(shared_released)),
                                Filter::Released,
                                States::Written,
                                None,
                                next,
                            )?;
                            fc.b.position_at_end(bb);
                            fc.b.build_unconditional_branch(lp)?;
                            *released_loop.insert((bb, region))
                        }
                    };
                    region.add_incoming(&[(&i32t.const_int(k as u64, false), entries.released[k])]);
                    entry
                } else {
                    emit_region_loop(&mut fc, regions, &layout, RegionSel::One(k), Filter::Released, States::Written, None, after_released[k])?
                };
                fc.b.position_at_end(entries.released[k]);
                fc.b.build_unconditional_branch(checked)?;
                cases.push((k, pick));
            }
            // Region 0 (the entry) runs for every thread.
            let first = emit_region_loop(&mut fc, regions, &layout, RegionSel::One(0), Filter::All, dense_states[0], None, after_dense[0])?;
            let first = warp_run(&mut fc, 0, first)?;
            fc.b.position_at_end(entries.dense[0]);
            fc.b.build_unconditional_branch(first)?;
            fc.b.position_at_end(entries.released[0]);
            fc.b.build_unconditional_branch(failed)?;
            let first = next_block_first(&mut fc, regions, entries.dense[0])?;
            fc.b.position_at_end(entry);
            fc.b.build_unconditional_branch(first)?;
            fc.b.position_at_end(dispatch);
            let switch_cases: Vec<_> = cases.iter().map(|(k, pick)| (i32t.const_int(*k as u64, false), *pick)).collect();
            fc.b.build_switch(k, failed, &switch_cases)?;
            for (k, pick) in &cases {
                fc.b.position_at_end(*pick);
                fc.b.build_conditional_branch(is_dense, entries.dense[*k], entries.released[*k])?;
            }
        }
        fc.b.position_at_end(failed);
        fc.b.build_return(Some(&i32t.const_int(abi::ERROR_LAUNCH_FAILURE, false)))?;
    }
    fc.b.position_at_end(done);
    fc.b.build_return(Some(&cx.i32_type().const_zero()))?;
    Ok(LoweredKernel { block_fn: func, context_bytes_per_thread: layout.bytes_per_thread as u32, fused_x })
}

/// The x range `[lo, hi)` of a loop over released threads (when `released_only`), narrowed
/// to the warps the last completion released (`ContextLayout::released_warps`, at
/// `mask_ptr`) in a one-dimensional block: from the first of them to the last.
fn released_warps_range<'ctx>(
    fc: &FnCx<'ctx, '_>,
    mask_ptr: PointerValue<'ctx>,
    released_only: IntValue<'ctx>,
    (lo, hi): (IntValue<'ctx>, IntValue<'ctx>),
) -> R<(IntValue<'ctx>, IntValue<'ctx>)> {
    let i32t = fc.cx.i32_type();
    let b = &fc.b;
    let mask = b.build_load(i32t, mask_ptr, "released_warps")?.into_int_value();
    let one = i32t.const_int(1, false);
    let one_d = b.build_and(b.build_int_compare(P::EQ, fc.uni.ntid[1], one, "")?, b.build_int_compare(P::EQ, fc.uni.ntid[2], one, "")?, "")?;
    // All ones: not known; zero: nothing released (the loop runs no thread then anyway).
    let known = b.build_and(b.build_int_compare(P::NE, mask, i32t.const_all_ones(), "")?, b.build_int_compare(P::NE, mask, i32t.const_zero(), "")?, "")?;
    let narrow = b.build_and(b.build_and(one_d, known, "")?, released_only, "narrow_to_released")?;
    let false_ = fc.cx.bool_type().const_zero();
    let first = fc.call_intrinsic("llvm.cttz", &[i32t.into()], &[mask.into(), false_.into()])?.into_int_value();
    let leading = fc.call_intrinsic("llvm.ctlz", &[i32t.into()], &[mask.into(), false_.into()])?.into_int_value();
    let b = &fc.b;
    let lanes = i32t.const_int(32, false);
    let x_lo = b.build_int_nuw_mul(first, lanes, "")?;
    let x_hi = b.build_int_nuw_mul(b.build_int_sub(lanes, leading, "")?, lanes, "")?;
    let x_hi = fc.call_intrinsic("llvm.umin", &[i32t.into()], &[x_hi.into(), hi.into()])?.into_int_value();
    let b = &fc.b;
    Ok((b.build_select(narrow, x_lo, lo, "")?.into_int_value(), b.build_select(narrow, x_hi, hi, "")?.into_int_value()))
}

/// Where a block starts, before its first region `first`: prefetching what the next block
/// will access (`prefetch::next_block`), if anything.
fn next_block_first<'ctx>(fc: &mut FnCx<'ctx, '_>, regions: &Regions, first: BasicBlock<'ctx>) -> R<BasicBlock<'ctx>> {
    match crate::lower::exec::prefetch::next_block(fc.f, regions) {
        Some(nb) => crate::lower::exec::prefetch::emit_next_block(fc, &nb, first),
        None => Ok(first),
    }
}

/// The block-uniform values of a kernel: from the block environment (the block function's
/// only argument) and the launch it points to. `.func` functions load the same from the
/// environment their caller passes (`f = None`: parameters are passed separately).
pub(crate) fn load_uniforms<'ctx>(
    ml: &ModuleLowerer<'ctx, '_>,
    b: &inkwell::builder::Builder<'ctx>,
    func: FunctionValue<'ctx>,
    f: Option<&ir::Function>,
) -> R<Uniform<'ctx>> {
    let cx = ml.cx;
    let t = &ml.abi;
    let ptr = cx.ptr_type(inkwell::AddressSpace::default());
    let i32t = cx.i32_type();
    let env = func.get_nth_param(0).expect("one parameter").into_pointer_value();
    let field = |base: PointerValue<'ctx>, st: inkwell::types::StructType<'ctx>, i: u32| b.build_struct_gep(st, base, i, "");
    let launch = b.build_load(ptr, field(env, t.block_env, abi::env::LAUNCH)?, "launch")?.into_pointer_value();
    let dim3 = |base: PointerValue<'ctx>, st, i, name: &str| -> R<[IntValue<'ctx>; 3]> {
        let p = field(base, st, i)?;
        let mut out = [i32t.const_zero(); 3];
        for (k, o) in out.iter_mut().enumerate() {
            let q = b.build_struct_gep(t.dim3, p, k as u32, "")?;
            *o = b.build_load(i32t, q, &format!("{name}.{}", ["x", "y", "z"][k]))?.into_int_value();
        }
        Ok(out)
    };
    // A kernel with `.reqntid` runs only with that block shape (the launch checks it): its
    // thread loops get constant bounds.
    let ntid = match f.and_then(|f| f.reqntid) {
        Some(shape) => shape.map(|n| i32t.const_int(n as u64, false)),
        None => dim3(launch, t.launch_info, abi::launch::BLOCK, "ntid")?,
    };
    // Every launch checks the block shape (ptxrt's `launch::check_configuration`: x, y ≤ 1024,
    // z ≤ 64, none 0): with these ranges LLVM knows that thread indices and their products
    // do not wrap.
    for (n, max) in ntid.iter().zip([1024u64, 1024, 64]) {
        if let Some(load) = n.as_instruction_value() {
            let range = cx.metadata_node(&[i32t.const_int(1, false).into(), i32t.const_int(max + 1, false).into()]);
            let _ = load.set_metadata(range, cx.get_kind_id("range"));
        }
    }
    let nctaid = dim3(launch, t.launch_info, abi::launch::GRID, "nctaid")?;
    let ctaid = dim3(env, t.block_env, abi::env::CTAID, "ctaid")?;
    let load_ptr = |i, name| -> R<PointerValue<'ctx>> { Ok(b.build_load(ptr, field(env, t.block_env, i)?, name)?.into_pointer_value()) };
    let shared = load_ptr(abi::env::SHARED, "shared")?;
    let context = load_ptr(abi::env::CONTEXT, "context")?;
    let local = load_ptr(abi::env::LOCAL, "local")?;
    let worker_index = b.build_load(i32t, field(env, t.block_env, abi::env::WORKER_INDEX)?, "smid")?.into_int_value();
    let num_workers = b.build_load(i32t, field(launch, t.launch_info, abi::launch::NUM_WORKERS)?, "nsmid")?.into_int_value();
    let dynamic_shared = b.build_load(i32t, field(launch, t.launch_info, abi::launch::DYNAMIC_SHARED)?, "dynsmem")?.into_int_value();
    let args = b.build_load(ptr, field(launch, t.launch_info, abi::launch::ARGS)?, "args")?.into_pointer_value();
    let mut params = vec![];
    for (i, p) in f.map_or(&[][..], |f| &f.params[..]).iter().enumerate() {
        // SAFETY (of the generated code): args has one pointer per kernel parameter.
        let slot = unsafe { b.build_in_bounds_gep(ptr, args, &[i32t.const_int(i as u64, false)], "")? };
        let value = b.build_load(ptr, slot, &format!("param{i}"))?;
        // The argument is readable for its whole size and aligned (the launch checks it):
        // lets LLVM hoist parameter loads out of conditional code in thread loops, which
        // keeps addresses computed from them loop-invariant for the vectorizer.
        if let Some(load) = value.as_instruction_value() {
            let i64t = cx.i64_type();
            let md = |v: u64| cx.metadata_node(&[i64t.const_int(v, false).into()]);
            let _ = load.set_metadata(md(p.size.max(1) as u64), cx.get_kind_id("dereferenceable"));
            let _ = load.set_metadata(md(p.align.max(1).next_power_of_two() as u64), cx.get_kind_id("align"));
            let _ = load.set_metadata(cx.metadata_node(&[]), cx.get_kind_id("noundef"));
        }
        params.push(value.into_pointer_value());
    }
    let nxy = b.build_int_nuw_mul(ntid[0], ntid[1], "")?;
    let nthreads = b.build_int_nuw_mul(nxy, ntid[2], "nthreads")?;
    no_signed_wrap(nxy);
    no_signed_wrap(nthreads);
    Ok(Uniform {
        env,
        ntid,
        nctaid,
        ctaid,
        nthreads,
        shared,
        local,
        context,
        params,
        returns: vec![],
        worker_index,
        num_workers,
        dynamic_shared,
        x_extent: ntid[0],
    })
}

/// Marks an `add`/`mul` of thread indices and block dimensions as not wrapping as a
/// signed value either (they stay far below 2^31: see `load_uniforms`).
/// Thread `tid` of the current run, with its linear index `(z * ntid.y + y) * x_extent + x`
/// (also as an i64 without a 32-bit add: `Thread::linear_wide`). The index is below ntid.x
/// * ntid.y * ntid.z (along x, a fused kernel's run of blocks: at most 2^20 + 1024 threads):
/// no wrap, which lets LLVM see context addresses as affine in the x index (vectorizable).
pub(crate) fn thread_at<'ctx>(fc: &FnCx<'ctx, '_>, tid: [IntValue<'ctx>; 3]) -> R<Thread<'ctx>> {
    let b = &fc.b;
    let [x, y, z] = tid;
    let zy = b.build_int_nuw_mul(z, fc.uni.ntid[1], "")?;
    let zy2 = b.build_int_nuw_add(zy, y, "")?;
    let row = b.build_int_nuw_mul(zy2, fc.uni.x_extent, "")?;
    let linear = b.build_int_nuw_add(row, x, "tid")?;
    let i64t = fc.cx.i64_type();
    let wide = b.build_int_nuw_add(b.build_int_z_extend(row, i64t, "")?, b.build_int_z_extend(x, i64t, "")?, "tid.wide")?;
    for v in [zy, zy2, row, linear, wide] {
        no_signed_wrap(v);
    }
    Ok(Thread { tid, linear, linear_wide: Some(wide), warp_lane: None })
}

fn no_signed_wrap(v: IntValue<'_>) {
    if let Some(i) = v.as_instruction_value() {
        let _ = i.set_no_signed_wrap_flag(true);
    }
}

/// Address of thread `tid`'s element in a context array whose per-thread prefix is `prefix`
/// (what the scheduler, warp collectives and fibers read; `ContextLayout::slot_ptr` for
/// any slot).
pub(crate) fn context_elem<'ctx>(fc: &FnCx<'ctx, '_>, prefix: u64, size: u32, tid: IntValue<'ctx>) -> R<PointerValue<'ctx>> {
    let i64t = fc.cx.i64_type();
    let n = fc.b.build_int_z_extend(fc.uni.nthreads, i64t, "")?;
    let base = fc.b.build_int_mul(n, i64t.const_int(prefix, false), "")?;
    let t = wide_index(fc, tid)?;
    let off = fc.b.build_int_mul(t, i64t.const_int(size as u64, false), "")?;
    let off = fc.b.build_int_add(base, off, "")?;
    // SAFETY (of the generated code): context holds bytes_per_thread * nthreads bytes.
    Ok(unsafe { fc.b.build_in_bounds_gep(fc.cx.i8_type(), fc.uni.context, &[off], "")? })
}

/// Context index `tid` as an i64 (the thread loop's own wide index where `tid` is the
/// current thread's: see `Thread::linear_wide`).
fn wide_index<'ctx>(fc: &FnCx<'ctx, '_>, tid: IntValue<'ctx>) -> R<IntValue<'ctx>> {
    match fc.thread.and_then(|t| t.linear_wide.filter(|_| t.linear == tid)) {
        Some(wide) => Ok(wide),
        None => Ok(fc.b.build_int_z_extend(tid, fc.cx.i64_type(), "")?),
    }
}

impl<'ctx> ContextLayout<'ctx> {
    /// Marks a load or store of the slot at `prefix` with its alias scopes (`alias`).
    fn tag(&self, cx: &'ctx inkwell::context::Context, inst: inkwell::values::InstructionValue<'ctx>, prefix: u64) {
        if prefix < self.frame_bytes {
            self.scopes.tag_frame(cx, inst);
        } else {
            self.scopes.tag(cx, inst, prefix);
        }
    }

    /// Address of thread `tid`'s element of the slot at per-thread prefix `prefix`: in the
    /// thread's frame, or in an array (`context_elem`).
    pub(crate) fn slot_ptr(&self, fc: &FnCx<'ctx, '_>, prefix: u64, size: u32, tid: IntValue<'ctx>) -> R<PointerValue<'ctx>> {
        if let Some(view) = self.warp_view.borrow().as_ref() {
            if let Some(&lanes) = view.lanes.get(&prefix) {
                let i64t = fc.cx.i64_type();
                // The current thread's lane from its x index (the loop's induction), not
                // from its linear index, so that LLVM sees lanes 0 to 31 in order.
                let lane = match fc.thread.filter(|t| t.linear == tid) {
                    Some(Thread { warp_lane: Some(lane), .. }) => lane,
                    Some(t) => fc.b.build_int_nuw_sub(t.tid[0], view.x0, "lane")?,
                    None if tid == view.first => return Ok(lanes),
                    None => fc.b.build_int_nuw_sub(tid, view.first, "lane")?,
                };
                let lane = fc.b.build_int_z_extend(lane, i64t, "")?;
                // SAFETY (of the generated code): the view holds the lanes of the warp at `first`.
                return Ok(unsafe { fc.b.build_in_bounds_gep(crate::lower::thread::int_type(fc.cx, size * 8), lanes, &[lane], "")? });
            }
        }
        if prefix >= self.frame_bytes {
            return context_elem(fc, prefix, size, tid);
        }
        let i64t = fc.cx.i64_type();
        let t = wide_index(fc, tid)?;
        let off = fc.b.build_int_nuw_mul(t, i64t.const_int(self.frame_bytes, false), "")?;
        no_signed_wrap(off);
        // SAFETY (of the generated code): the frames are the first nthreads * frame_bytes
        // bytes of the context area.
        let thread = unsafe { fc.b.build_in_bounds_gep(fc.cx.i8_type(), fc.uni.context, &[off], "frame")? };
        Ok(unsafe { fc.b.build_in_bounds_gep(fc.cx.i8_type(), thread, &[i64t.const_int(prefix, false)], "")? })
    }
}

/// Loads thread `tid`'s element (`size` bytes) of the context slot at `prefix` (as `name`).
pub(crate) fn load_context<'ctx>(
    fc: &FnCx<'ctx, '_>,
    layout: &ContextLayout<'ctx>,
    prefix: u64,
    size: u32,
    tid: IntValue<'ctx>,
    name: &str,
) -> R<IntValue<'ctx>> {
    let p = layout.slot_ptr(fc, prefix, size, tid)?;
    let v = fc.b.build_load(crate::lower::thread::int_type(fc.cx, size * 8), p, name)?;
    if let Some(inst) = v.as_instruction_value() {
        layout.tag(fc.cx, inst, prefix);
        if own_element(fc, tid) {
            fc.tag_thread_access(inst);
        }
    }
    Ok(v.into_int_value())
}

/// Stores `v` (of the element's size) as thread `tid`'s element of the context slot at `prefix`.
pub(crate) fn store_context<'ctx>(fc: &FnCx<'ctx, '_>, layout: &ContextLayout<'ctx>, prefix: u64, v: IntValue<'ctx>, tid: IntValue<'ctx>) -> R<()> {
    let size = v.get_type().get_bit_width() / 8;
    let p = layout.slot_ptr(fc, prefix, size, tid)?;
    store_slot(fc, layout, prefix, p, v, own_element(fc, tid))
}

/// Stores `v` at `p`, an element of the context slot at `prefix` (the current thread's own
/// if `own`).
fn store_slot<'ctx>(fc: &FnCx<'ctx, '_>, layout: &ContextLayout<'ctx>, prefix: u64, p: PointerValue<'ctx>, v: IntValue<'ctx>, own: bool) -> R<()> {
    let st = fc.b.build_store(p, v)?;
    layout.tag(fc.cx, st, prefix);
    if own {
        fc.tag_thread_access(st);
    }
    Ok(())
}

/// Whether context index `tid` is the current thread's own (its accesses then belong to
/// the thread loop's iteration: `alias`).
fn own_element(fc: &FnCx<'_, '_>, tid: IntValue<'_>) -> bool {
    fc.thread.is_some_and(|t| t.linear == tid)
}

/// Thread index ranges `[lo, hi)` per dimension (x, y, z) of a narrowed thread loop, none
/// of them empty.
pub(crate) struct LoopBounds<'ctx> {
    pub(crate) lo: [IntValue<'ctx>; 3],
    pub(crate) hi: [IntValue<'ctx>; 3],
    /// One warp: `hi` is `lo + 1` along y and z and `lo + WARP_LANES` along x, `lo` along x
    /// a multiple of `WARP_LANES`, so the loop nest is the x loop alone (a warp run's loop:
    /// LLVM then sees its 32 iterations, counted as lanes).
    pub(crate) one_row: bool,
}

/// A thread loop whose guard bounds the thread indices (`guards`): a barrier-free kernel's
/// entry guard, or the guard at the start of region `k` that sends the threads outside the
/// bounds straight to the region's sole sync point, a plain barrier. Once per run, compute
/// the bounds from the guard's uniform operands (its instructions evaluated with thread
/// index 0), then run the thread loop over them with the guard known, or, if the guard's
/// `±tid + u` could wrap in this block, the ordinary loop.
///
/// The threads outside the bounds keep the state they had (they are at the barrier all the
/// same): nothing reads it before every thread has written its state again. The run goes
/// on with the dense run of the barrier's region, and the state words are read (by the
/// block function's decision or the scheduler) only after a dense run that writes them
/// (`States::Written`: a region that is not narrowed and can end at several points), in
/// which every thread writes its own.
///
/// `general` runs the ordinary loop (`None`: a dense loop of region `k` going on at
/// `after`); the narrowed loop goes on at `after_narrowed` (for a region: the dense run of
/// the region after the sync point every thread then waits at). `states` says whether the
/// runs write the thread states.
#[allow(clippy::too_many_arguments)]
fn emit_narrowed_loop<'ctx>(
    fc: &mut FnCx<'ctx, '_>,
    regions: &Regions,
    layout: &ContextLayout<'ctx>,
    k: usize,
    n: &Narrowing,
    general: Option<BasicBlock<'ctx>>,
    states: States,
    after: BasicBlock<'ctx>,
    after_narrowed: BasicBlock<'ctx>,
) -> R<BasicBlock<'ctx>> {
    let cx = fc.cx;
    let (i32t, i64t) = (cx.i32_type(), cx.i64_type());
    let general = match general {
        Some(bb) => bb,
        None => emit_region_loop(fc, regions, layout, RegionSel::One(k), Filter::All, states, None, after)?,
    };
    let start = fc.new_block(&format!("r{k}.bounds"));
    fc.b.position_at_end(start);
    let zero = i32t.const_zero();
    fc.thread = Some(Thread::first(cx));
    fc.debug_thread()?;
    let f = fc.f;
    // The uniform registers first: the replay may read them (`Regions::replay_reads`), and
    // it writes none of them (those it writes are its own values, not loaded).
    for &r in &n.uniform_loads {
        let (prefix, size) = layout.slots[&r];
        let v = load_context(fc, layout, prefix, size, zero, "uniform")?;
        let v = fc.resize(v, f.regs[r.0 as usize].ty.bits(), false)?;
        fc.b.build_store(fc.regs[r.0 as usize], v)?;
    }
    for &at in &n.replay {
        fc.inst_at(at)?;
    }
    // The path, block by block: where a turn leaves it, the ordinary loop runs.
    for (at, block) in n.path.iter().enumerate() {
        for &at in n.prelude.iter().filter(|(b, _)| b == block) {
            fc.inst_at(at)?;
        }
        if let Some((p, stays_if)) = n.turns[at] {
            let v = fc.read_pred(p)?;
            let stays = if stays_if { v } else { fc.b.build_not(v, "")? };
            let next = fc.new_block(&format!("r{k}.bounds.path"));
            fc.b.build_conditional_branch(stays, next, general)?;
            fc.b.position_at_end(next);
        }
    }
    // What the path leaves in the registers that hold one value for the block.
    let fills: Vec<(ir::RegId, IntValue)> = n.fills.iter().map(|r| Ok((*r, fc.load_reg(*r)?))).collect::<R<_>>()?;
    let uniform_fills: Vec<(ir::RegId, IntValue)> = n.uniform_fills.iter().map(|r| Ok((*r, fc.load_reg(*r)?))).collect::<R<_>>()?;
    let b = &fc.b;
    let mut everyone_exits = cx.bool_type().const_zero();
    for &(reg, exits_if) in &n.uniform_exits {
        let v = fc.load_reg(reg)?;
        let exits = if exits_if { v } else { b.build_not(v, "")? };
        everyone_exits = b.build_or(everyone_exits, exits, "")?;
    }
    // The extent of each thread loop (along x, a fused kernel's run of blocks).
    let extents = [fc.uni.x_extent, fc.uni.ntid[1], fc.uni.ntid[2]];
    let ntid: Vec<IntValue> = extents.iter().map(|n| b.build_int_z_extend(*n, i64t, "")).collect::<Result<_, _>>()?;
    let mut lo = [i64t.const_zero(); 3];
    let mut hi = [ntid[0], ntid[1], ntid[2]];
    let mut exact = cx.bool_type().const_all_ones();
    let mut guarded_indices = HashMap::new();
    let min_max = |name: &str, a: IntValue<'ctx>, c: IntValue<'ctx>| -> R<IntValue<'ctx>> {
        Ok(fc.call_intrinsic(name, &[i64t.into()], &[a.into(), c.into()])?.into_int_value())
    };
    let one = i64t.const_int(1, false);
    for bound in &n.bounds {
        let d = bound.dim as usize;
        let signed = bound.ty.is_signed();
        let widen = |v: IntValue<'ctx>| if signed { b.build_int_s_extend(v, i64t, "") } else { b.build_int_z_extend(v, i64t, "") };
        let v0_32 = fc.read(bound.affine, bound.ty)?;
        let v0 = widen(v0_32)?;
        if let ir::Operand::Reg(reg) = bound.affine {
            if fc.f.regs[reg.0 as usize].ty.bits() == 32 {
                let g = GuardedIndex { reg, base: v0_32, dim: d, negated: bound.negated, signed };
                guarded_indices.insert(bound.pred, g);
            }
        }
        let limit = widen(fc.read(bound.limit, bound.ty)?)?;
        let span = b.build_int_sub(ntid[d], one, "")?;
        // `tid + u` takes the values v0 .. v0 + ntid - 1 without wrapping (`u - tid`:
        // v0 - ntid + 1 .. v0).
        let fits = if bound.negated {
            let min = if signed { i32::MIN as i64 as u64 } else { 0 };
            b.build_int_compare(P::SGE, b.build_int_sub(v0, span, "")?, i64t.const_int(min, true), "")?
        } else {
            let max = if signed { i32::MAX as u64 } else { u32::MAX as u64 };
            b.build_int_compare(P::SLE, b.build_int_add(v0, span, "")?, i64t.const_int(max, false), "")?
        };
        exact = b.build_and(exact, fits, "")?;
        // `tid + u` against `limit` is `tid` against `limit - v0`; `u - tid` against
        // `limit` is `tid` against `v0 - limit` with the comparison mirrored.
        let (diff, survive) =
            if bound.negated { (b.build_int_sub(v0, limit, "")?, guards::mirror(bound.survive)) } else { (b.build_int_sub(limit, v0, "")?, bound.survive) };
        match survive {
            ir::CmpOp::Lt => hi[d] = min_max("llvm.smin", hi[d], diff)?,
            ir::CmpOp::Le => hi[d] = min_max("llvm.smin", hi[d], b.build_int_add(diff, one, "")?)?,
            ir::CmpOp::Gt => lo[d] = min_max("llvm.smax", lo[d], b.build_int_add(diff, one, "")?)?,
            _ => lo[d] = min_max("llvm.smax", lo[d], diff)?,
        }
    }
    fc.thread = None;
    let mut empty = everyone_exits;
    for d in 0..3 {
        empty = b.build_or(empty, b.build_int_compare(P::SGE, lo[d], hi[d], "")?, "")?;
    }
    let to32 = |v: IntValue<'ctx>| b.build_int_truncate(v, i32t, "");
    let bounds = LoopBounds { lo: [to32(lo[0])?, to32(lo[1])?, to32(lo[2])?], hi: [to32(hi[0])?, to32(hi[1])?, to32(hi[2])?], one_row: false };
    // A row of fewer than 32 threads cut to a shorter interval leaves most of each row to
    // the vectorized loop's scalar remainder (hotspot's 16 x 16 blocks: rows of 12 to 14):
    // the ordinary loop, one masked vector per row, is faster there.
    let exact = if n.bounds.iter().any(|bound| bound.dim as usize == 0) {
        let b = &fc.b;
        let wide_rows = b.build_int_compare(P::UGE, fc.uni.x_extent, i32t.const_int(32, false), "wide_rows")?;
        let whole_rows =
            b.build_and(b.build_int_compare(P::SLE, lo[0], i64t.const_zero(), "")?, b.build_int_compare(P::SGE, hi[0], ntid[0], "")?, "whole_rows")?;
        b.build_and(exact, b.build_or(wide_rows, whole_rows, "")?, "")?
    } else {
        exact
    };
    let check_empty = fc.new_block(&format!("r{k}.bounds.exact"));
    fc.b.build_conditional_branch(exact, check_empty, general)?;
    fc.known_preds = n.known_preds.clone();
    fc.guarded_indices = guarded_indices;
    let narrowed = emit_region_loop(fc, regions, layout, RegionSel::One(k), Filter::All, states, Some(&bounds), after_narrowed);
    fc.known_preds.clear();
    fc.guarded_indices.clear();
    let narrowed = narrowed?;
    fc.b.position_at_end(check_empty);
    // The threads that skip get what the path leaves in the registers the sync point keeps
    // (the ones that run store their own, after the loop has read the old values): in
    // their own slots, or, for registers kept once for the block, when no thread runs.
    if !uniform_fills.is_empty() {
        emit_skipped_fill(fc, layout, k, &uniform_fills, &bounds, empty)?;
    }
    if n.tail {
        // Nobody would run the code on the way to the sync point: every thread does.
        fc.b.build_conditional_branch(empty, general, narrowed)?;
    } else if fills.is_empty() {
        fc.b.build_conditional_branch(empty, after_narrowed, narrowed)?;
    } else {
        let nobody = fc.new_block(&format!("r{k}.nobody"));
        fc.b.build_conditional_branch(empty, nobody, narrowed)?;
        fc.b.position_at_end(nobody);
        for (r, v) in fills {
            let (prefix, size) = layout.slots[&r];
            store_context(fc, layout, prefix, fc.resize(v, size * 8, false)?, zero)?;
        }
        fc.b.build_unconditional_branch(after_narrowed)?;
    }
    Ok(start)
}

/// Stores `values` in the slots of the threads outside region `k`'s `bounds` (of every
/// thread if `empty`). Row by row of x (for each y, z): a row outside the bounds gets them
/// in all its slots, a row inside in those before `lo.x` and from `hi.x` on, so that each
/// run of slots is consecutive and its loop stores vectors (a loop over every thread that
/// tests each one's indices cost more than the region's own vectorized loop).
fn emit_skipped_fill<'ctx>(
    fc: &FnCx<'ctx, '_>,
    layout: &ContextLayout<'ctx>,
    k: usize,
    values: &[(ir::RegId, IntValue<'ctx>)],
    bounds: &LoopBounds<'ctx>,
    empty: IntValue<'ctx>,
) -> R<()> {
    let i32t = fc.cx.i32_type();
    let (zero, one) = (i32t.const_zero(), i32t.const_int(1, false));
    let from = fc.b.get_insert_block().expect("positioned");
    let z_head = fc.new_block(&format!("r{k}.skipped.z"));
    let y_head = fc.new_block(&format!("r{k}.skipped.y"));
    let y_next = fc.new_block(&format!("r{k}.skipped.ynext"));
    let z_next = fc.new_block(&format!("r{k}.skipped.znext"));
    let done = fc.new_block(&format!("r{k}.skipped.done"));
    let b = &fc.b;
    b.build_unconditional_branch(z_head)?;
    b.position_at_end(z_head);
    let z = b.build_phi(i32t, "z")?;
    let zv = z.as_basic_value().into_int_value();
    b.build_unconditional_branch(y_head)?;
    b.position_at_end(y_head);
    let y = b.build_phi(i32t, "y")?;
    let yv = y.as_basic_value().into_int_value();
    let mut inside = b.build_not(empty, "")?;
    for (d, v) in [(1, yv), (2, zv)] {
        inside = b.build_and(inside, b.build_int_compare(P::UGE, v, bounds.lo[d], "")?, "")?;
        inside = b.build_and(inside, b.build_int_compare(P::ULT, v, bounds.hi[d], "")?, "")?;
    }
    // The row's hole: [lo.x, hi.x) inside the bounds, nothing outside.
    let hole_lo = b.build_select(inside, bounds.lo[0], zero, "hole.lo")?.into_int_value();
    let hole_hi = b.build_select(inside, bounds.hi[0], zero, "hole.hi")?.into_int_value();
    let row = b.build_int_nuw_mul(b.build_int_nuw_add(b.build_int_nuw_mul(zv, fc.uni.ntid[1], "")?, yv, "")?, fc.uni.x_extent, "row")?;
    let first = |x: IntValue<'ctx>| fc.b.build_int_nuw_add(row, x, "");
    emit_fill_run(fc, layout, k, values, first(zero)?, first(hole_lo)?)?;
    emit_fill_run(fc, layout, k, values, first(hole_hi)?, first(fc.uni.x_extent)?)?;
    let b = &fc.b;
    b.build_unconditional_branch(y_next)?;
    b.position_at_end(y_next);
    let y1 = b.build_int_nuw_add(yv, one, "")?;
    b.build_conditional_branch(b.build_int_compare(P::ULT, y1, fc.uni.ntid[1], "")?, y_head, z_next)?;
    y.add_incoming(&[(&zero, z_head), (&y1, y_next)]);
    b.position_at_end(z_next);
    let z1 = b.build_int_nuw_add(zv, one, "")?;
    b.build_conditional_branch(b.build_int_compare(P::ULT, z1, fc.uni.ntid[2], "")?, z_head, done)?;
    z.add_incoming(&[(&zero, from), (&z1, z_next)]);
    b.position_at_end(done);
    Ok(())
}

/// Stores `values` in the slots of threads `[start, end)` (linear indices; none if
/// `end <= start`); continues after the run.
fn emit_fill_run<'ctx>(
    fc: &FnCx<'ctx, '_>,
    layout: &ContextLayout<'ctx>,
    k: usize,
    values: &[(ir::RegId, IntValue<'ctx>)],
    start: IntValue<'ctx>,
    end: IntValue<'ctx>,
) -> R<()> {
    let i32t = fc.cx.i32_type();
    let from = fc.b.get_insert_block().expect("positioned");
    let body = fc.new_block(&format!("r{k}.skipped.run"));
    let after = fc.new_block(&format!("r{k}.skipped.ran"));
    let b = &fc.b;
    b.build_conditional_branch(b.build_int_compare(P::ULT, start, end, "")?, body, after)?;
    b.position_at_end(body);
    let t = b.build_phi(i32t, "t")?;
    let tv = t.as_basic_value().into_int_value();
    for (r, v) in values {
        let (prefix, size) = layout.slots[r];
        store_context(fc, layout, prefix, fc.resize(*v, size * 8, false)?, tv)?;
    }
    let b = &fc.b;
    let t1 = b.build_int_nuw_add(tv, i32t.const_int(1, false), "")?;
    b.build_conditional_branch(b.build_int_compare(P::ULT, t1, end, "")?, body, after)?;
    t.add_incoming(&[(&start, from), (&t1, body)]);
    b.position_at_end(after);
    Ok(())
}

/// Which region a thread loop runs.
#[derive(Clone, Copy)]
pub(crate) enum RegionSel<'ctx> {
    /// Region `k`, with its own copy of the region's code.
    One(usize),
    /// The region whose index the value holds (the scheduler's pick): one loop for every
    /// region, entering each thread's code through a switch, so that each IR block is
    /// emitted once however many regions reach it.
    Picked(IntValue<'ctx>, Picks),
    /// The threads parked at interchange point `q`, from that point on (`interchange`).
    Point(usize),
}

/// The regions a `RegionSel::Picked` loop holds the code of.
#[derive(Clone, Copy)]
pub(crate) enum Picks {
    All,
    /// Bit `k`: region `k` (kernels of at most 64 regions).
    Some(u64),
}

impl Picks {
    fn regions(self, n: usize) -> Vec<usize> {
        match self {
            Picks::All => (0..n).collect(),
            Picks::Some(mask) => (0..n.min(64)).filter(|k| mask >> k & 1 == 1).collect(),
        }
    }
}

/// Emits the thread loop nest of a region (over every thread index, or over `bounds`);
/// returns its first block. Control continues at `after`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn emit_region_loop<'ctx>(
    fc: &mut FnCx<'ctx, '_>,
    regions: &Regions,
    layout: &ContextLayout<'ctx>,
    region: RegionSel<'ctx>,
    filter: Filter<'ctx>,
    states: States,
    bounds: Option<&LoopBounds<'ctx>>,
    after: BasicBlock<'ctx>,
) -> R<BasicBlock<'ctx>> {
    let cx = fc.cx;
    let i32t = cx.i32_type();
    let k = match region {
        RegionSel::One(k) => k.to_string(),
        RegionSel::Picked(..) => "k".to_string(),
        RegionSel::Point(q) => format!("p{q}"),
    };
    let tag = match filter {
        Filter::All if bounds.is_some() => "n",
        Filter::All => "d",
        Filter::Released => "c",
        Filter::DenseOrReleased(_) => "e",
        Filter::Waiting(_) => "w",
    };
    let pre = fc.new_block(&format!("r{k}{tag}.pre"));
    let zh = fc.new_block(&format!("r{k}{tag}.z"));
    let yh = fc.new_block(&format!("r{k}{tag}.y"));
    let xh = fc.new_block(&format!("r{k}{tag}.x"));
    let xl = fc.new_block(&format!("r{k}{tag}.xnext"));
    let yl = fc.new_block(&format!("r{k}{tag}.ynext"));
    let zl = fc.new_block(&format!("r{k}{tag}.znext"));
    // Block-uniform registers live into the region(s): read once, before the threads run.
    let entered: Vec<usize> = match region {
        RegionSel::One(k) => vec![k],
        RegionSel::Picked(_, picks) => picks.regions(regions.starts.len()),
        RegionSel::Point(_) => vec![],
    };
    fc.b.position_at_end(pre);
    let mut uniform_values = HashMap::new();
    if let (RegionSel::Point(q), Filter::All) = (region, filter) {
        let st = layout.interchange.as_ref().expect("a point implies a plan");
        for r in st.plan.loops[st.plan.points[q].loop_index].saved.iter().filter(|r| layout.pass_uniform.contains(r)) {
            let (prefix, size) = layout.slots[r];
            uniform_values.insert(*r, load_context(fc, layout, prefix, size, i32t.const_zero(), "pass.uniform")?);
        }
    }
    for &j in &entered {
        for r in regions.live_into_region(j).filter(|r| layout.block_uniform.contains(r)) {
            if let std::collections::hash_map::Entry::Vacant(e) = uniform_values.entry(r) {
                let (prefix, size) = layout.slots[&r];
                e.insert(load_context(fc, layout, prefix, size, i32t.const_zero(), "uniform")?);
            }
        }
    }
    // The ranges of thread indices the loop runs.
    let (mut lo, mut hi) = match bounds {
        Some(r) => (r.lo, r.hi),
        None => ([i32t.const_zero(); 3], [fc.uni.x_extent, fc.uni.ntid[1], fc.uni.ntid[2]]),
    };
    // Released threads only: within the warps a completion released, if it said which
    // (`ContextLayout::released_warps`); then all ones again for the next loop.
    let released_only = match filter {
        Filter::Released => Some(cx.bool_type().const_all_ones()),
        Filter::DenseOrReleased(dense) => Some(fc.b.build_not(dense, "")?),
        _ => None,
    };
    let after = match (released_only, layout.released_warps) {
        (Some(released_only), Some(mask_ptr)) => {
            let (x_lo, x_hi) = released_warps_range(fc, mask_ptr, released_only, (lo[0], hi[0]))?;
            (lo[0], hi[0]) = (x_lo, x_hi);
            let reset = fc.new_block(&format!("r{k}{tag}.released_warps"));
            let here = fc.b.get_insert_block().expect("positioned");
            fc.b.position_at_end(reset);
            fc.b.build_store(mask_ptr, i32t.const_all_ones())?;
            fc.b.build_unconditional_branch(after)?;
            fc.b.position_at_end(here);
            reset
        }
        _ => after,
    };
    // A warp run's loop over one warp (`warp_runs`).
    let one_row = bounds.is_some_and(|b| b.one_row);
    // A dense loop whose region has wrapped thread indices runs each row in segments.
    let segments = match (region, filter) {
        // (Not in a warp's loop: its 32 threads are one segment of any lane or warp index.)
        (RegionSel::One(k), Filter::All) if layout.interchange.is_none() && !one_row => segments::analyze(fc.f, regions, k, &layout.block_uniform),
        _ => None,
    };
    let b = &fc.b;
    b.build_unconditional_branch(zh)?;
    b.position_at_end(zh);
    let z = b.build_phi(i32t, "tid.z")?;
    b.build_unconditional_branch(yh)?;
    b.position_at_end(yh);
    let y = b.build_phi(i32t, "tid.y")?;
    let (yv, zv) = (y.as_basic_value().into_int_value(), z.as_basic_value().into_int_value());
    let row = match &segments {
        Some(s) => {
            let header = fc.new_block(&format!("r{k}{tag}.segment"));
            fc.b.build_unconditional_branch(header)?;
            fc.b.position_at_end(header);
            Some(segments::emit_header(fc, s, &uniform_values, header, yv, zv, hi[0])?)
        }
        None => None,
    };
    let b = &fc.b;
    b.build_unconditional_branch(xh)?;
    b.position_at_end(xh);
    let x = b.build_phi(i32t, "tid.x")?;
    // A warp's loop (`one_row`) counts its lanes from 0 to 32, the thread's x index being
    // the warp's first (a multiple of 32, stepped by 32: LLVM knows its low bits are zero)
    // plus the lane, which is below 32 (an assumption LLVM reads): `tid.x >> 5` is then the
    // warp's index, the same for every lane (a warp total's store goes to one address),
    // and `tid.x & 31` the lane itself (a constant in each vector of the unrolled loop).
    let xi = x.as_basic_value().into_int_value();
    let lanes = i32t.const_int(u64::from(crate::lower::exec::WARP_LANES), false);
    let xv = if one_row {
        let below = b.build_int_compare(P::ULT, xi, lanes, "lane.below_32")?;
        let assume = fc.ml.intrinsic("llvm.assume", &[])?;
        fc.b.build_call(assume, &[below.into()], "")?;
        let xv = fc.b.build_int_nuw_add(lo[0], xi, "tid.x.lane")?;
        no_signed_wrap(xv);
        xv
    } else {
        xi
    };
    let b = &fc.b;
    // The next index, computed where it dominates the whole body: a body that computes
    // `tid + 1` itself (a right neighbour's index) then shares it, where with the increment
    // in the latch GVN would make the latch's value a phi of copies on each way to it,
    // which the vectorizer does not recognize as an induction (the loop stays scalar).
    // Each index is below its bound, itself below 2^31: the increment does not wrap.
    let xn = b.build_int_nuw_add(xi, i32t.const_int(1, false), "tid.x.next")?;
    no_signed_wrap(xn);
    let mut thread = thread_at(fc, [xv, yv, zv])?;
    if one_row {
        thread.warp_lane = Some(xi);
    }
    let lin = thread.linear;
    fc.thread = Some(thread);
    fc.debug_thread()?;
    // The thread's state word, addressed once: the stores at its sync points and at its exit
    // then use one pointer, and LLVM merges them into one store of the value each path
    // chose (with an address per path, a vectorized loop would scatter them).
    let state_owner = if states == States::Converged { i32t.const_zero() } else { lin };
    let state_ptr = layout.state.map(|s| layout.slot_ptr(fc, s, 4, state_owner)).transpose()?;
    // The one loop of a compact kernel's regions keeps some registers in their frame slots
    // (`frame_homes`): their storage is the slot, addressed here once per thread.
    let homes: std::collections::HashSet<ir::RegId> = match region {
        RegionSel::Picked(..) if row.is_none() && bounds.is_none() => frame_homes(fc, layout, &uniform_values),
        _ => Default::default(),
    };
    let mut displaced = vec![];
    let mut ordered: Vec<ir::RegId> = homes.iter().copied().collect();
    ordered.sort_unstable();
    for r in ordered {
        let (prefix, size) = layout.slots[&r];
        let p = layout.slot_ptr(fc, prefix, size, lin)?;
        p.set_name(&format!("home.{}", fc.f.regs[r.0 as usize].name));
        displaced.push((r, std::mem::replace(&mut fc.regs[r.0 as usize], p)));
    }
    if !homes.is_empty() {
        fc.homes = Some((homes.clone(), layout.scopes.frame_scopes()));
    }

    let body = fc.new_block(&format!("r{k}{tag}.body"));
    // `exit` (here, or reported by a called `.func`): the thread ends.
    let exit_bb = fc.new_block(&format!("r{k}{tag}.exit"));
    fc.on_exit = Some(exit_bb);
    // Kernels with interchanged loops: every way a thread's run ends that writes its wait
    // word (a park: its point; the other endings of a resumed run: not parked) joins here
    // and stores it once, so that no store is left that another one overwrites, and a
    // vectorized loop stores the word unmasked (`interchange`).
    let wait_join = layout.interchange.as_ref().map(|_| fc.new_block(&format!("r{k}{tag}.wait")));
    // Every way a thread's run ends (its sync points, its exit) writes its state word in one
    // block: were they stores in several blocks, LLVM would merge them into one at their
    // join, and the merged store loses the access-group metadata that lets the thread loop
    // vectorize as parallel (a guarded region's conditional code would then not vectorize).
    // (Kernels with interchanged loops join their run endings at `wait_join` instead.)
    let state_join = match (layout.state, state_ptr, states) {
        (Some(_), Some(_), States::Written | States::Converged) if wait_join.is_none() => {
            let bb = fc.new_block(&format!("r{k}{tag}.state"));
            let here = fc.b.get_insert_block().expect("positioned");
            fc.b.position_at_end(bb);
            let phi = fc.b.build_phi(i32t, "end_state")?;
            fc.b.position_at_end(here);
            Some((bb, phi))
        }
        _ => None,
    };
    // What `emit_leave` writes of the state: nothing where the join does.
    let leave_states = if state_join.is_some() { States::Implied } else { states };
    let mut wait_values: Vec<(BasicBlock<'ctx>, IntValue<'ctx>)> = vec![];
    let mut skipped_warp = None;
    if let Filter::Released | Filter::DenseOrReleased(_) = filter {
        // Only the threads the scheduler released into this region (or every thread when
        // it said the whole block continues here).
        let state = layout.state.expect("kernel with sync points has a state array");
        let released = match region {
            RegionSel::One(k) => i32t.const_int(k as u64 | sync::RELEASED, false),
            RegionSel::Picked(k, _) => fc.b.build_or(k, i32t.const_int(sync::RELEASED, false), "")?,
            // Parked threads run under `Filter::Waiting`; the scheduler never names them.
            RegionSel::Point(_) => return Err(LowerError::Internal("interchange points run their parked threads".into())),
        };
        // In a dense run every thread runs: no state to test (a test per thread and a vector
        // compare per warp otherwise, which the scalar pipeline keeps).
        if let Filter::DenseOrReleased(dense) = filter {
            let check = fc.new_block(&format!("r{k}{tag}.check"));
            fc.b.build_conditional_branch(dense, body, check)?;
            fc.b.position_at_end(check);
        }
        // At the first thread of 32 along x: skip them at once when none is released (a
        // phase of warp 0 alone while the other warps wait at a barrier then costs a vector
        // compare per other warp, not a test per thread).
        let warp_check = fc.new_block(&format!("r{k}{tag}.warp"));
        let thread_check = fc.new_block(&format!("r{k}{tag}.thread"));
        let skip = fc.new_block(&format!("r{k}{tag}.skip"));
        let b = &fc.b;
        let x_hi = hi[0];
        let first_of_32 = b.build_int_compare(P::EQ, b.build_and(xv, i32t.const_int(31, false), "")?, i32t.const_zero(), "")?;
        let x_after = b.build_int_nuw_add(xv, i32t.const_int(32, false), "")?;
        let fits = b.build_int_compare(P::ULE, x_after, x_hi, "")?;
        b.build_conditional_branch(b.build_and(first_of_32, fits, "")?, warp_check, thread_check)?;
        b.position_at_end(warp_check);
        let p = context_elem(fc, state, 4, lin)?;
        let states = b.build_load(i32t.vec_type(32), p, "states")?;
        if let Some(inst) = states.as_instruction_value() {
            let _ = inst.set_alignment(4);
            layout.scopes.tag(fc.cx, inst, state);
        }
        let splat = i32t.vec_type(32).const_zero();
        let splat = b.build_insert_element(splat, released, i32t.const_zero(), "")?;
        let splat = b.build_shuffle_vector(splat, i32t.vec_type(32).get_undef(), i32t.vec_type(32).const_zero(), "")?;
        let hits = b.build_int_compare(P::EQ, states.into_vector_value(), splat, "")?;
        let any = fc.call_intrinsic("llvm.vector.reduce.or", &[hits.get_type().into()], &[hits.into()])?.into_int_value();
        let b = &fc.b;
        b.build_conditional_branch(any, thread_check, skip)?;
        b.position_at_end(skip);
        let x_hi_more = b.build_int_compare(P::ULT, x_after, x_hi, "")?;
        b.build_conditional_branch(x_hi_more, xh, yl)?;
        skipped_warp = Some((x_after, skip));
        b.position_at_end(thread_check);
        let s = load_context(fc, layout, state, 4, lin, "state")?;
        let run = fc.b.build_int_compare(P::EQ, s, released, "")?;
        fc.b.build_conditional_branch(run, body, xl)?;
    } else if let Filter::Waiting(q) = filter {
        let w = load_context(fc, layout, layout.wait.expect("a plan has wait words"), interchange::WAIT_BYTES, lin, "wait")?;
        let run = fc.b.build_int_compare(P::EQ, w, w.get_type().const_int(q as u64 + 1, false), "")?;
        fc.b.build_conditional_branch(run, body, xl)?;
    } else {
        fc.b.build_unconditional_branch(body)?;
    }
    // The per-thread code of the region(s): every IR block reachable from a region's start
    // without crossing a sync point, each emitted once (`bbs`).
    let mut bbs: HashMap<BlockId, BasicBlock<'ctx>> = HashMap::new();
    let mut work: Vec<(BlockId, BasicBlock<'ctx>)> = vec![];
    let mut get = |fc: &FnCx<'ctx, '_>, id: BlockId, work: &mut Vec<(BlockId, BasicBlock<'ctx>)>| -> BasicBlock<'ctx> {
        *bbs.entry(id).or_insert_with(|| {
            let bb = fc.new_block(&format!("r{k}{tag}.b{}", id.0));
            work.push((id, bb));
            bb
        })
    };
    // Interchange points: a thread resumes at its point's own code; every edge (and region
    // start) that reaches a point parks the thread there instead (`interchange`).
    let plan = layout.interchange.as_ref().map(|s| &s.plan);
    let resume_at = match region {
        RegionSel::Point(q) => Some((q, get(fc, plan.expect("a point implies a plan").points[q].block, &mut work))),
        _ => None,
    };
    // Where a resumed thread's run ends when it does not park (it is no longer parked).
    let unpark_join = resume_at.and(wait_join);
    // A run that reached a sync point goes on: to the state join with the point, or on.
    let end_run = |fc: &FnCx<'ctx, '_>, point: IntValue<'ctx>| -> R<()> {
        match state_join {
            Some((join, phi)) => {
                phi.add_incoming(&[(&point, fc.b.get_insert_block().expect("positioned"))]);
                fc.b.build_unconditional_branch(join)?;
            }
            None => {
                fc.b.build_unconditional_branch(unpark_join.unwrap_or(xl))?;
            }
        }
        Ok(())
    };
    let mut parks: Vec<((usize, interchange::Arrival), BasicBlock<'ctx>)> = vec![];
    let mut edge = |fc: &FnCx<'ctx, '_>, from: Option<BlockId>, id: BlockId, work: &mut Vec<(BlockId, BasicBlock<'ctx>)>| -> BasicBlock<'ctx> {
        let Some((plan, q)) = plan.and_then(|p| Some((p, p.point_at(id)?))) else { return get(fc, id, work) };
        let key = (q, plan.arrival(q, from));
        if let Some((_, bb)) = parks.iter().find(|(k, _)| *k == key) {
            return *bb;
        }
        let bb = fc.new_block(&format!("r{k}{tag}.park{q}"));
        parks.push((key, bb));
        bb
    };
    let entries: Vec<(usize, BasicBlock<'ctx>)> = match region {
        RegionSel::One(k) => vec![(k, body)],
        RegionSel::Point(_) => vec![],
        RegionSel::Picked(picked, picks) => {
            let entries: Vec<(usize, BasicBlock<'ctx>)> =
                picks.regions(regions.starts.len()).into_iter().map(|j| (j, fc.new_block(&format!("r{k}{tag}.enter{j}")))).collect();
            fc.b.position_at_end(body);
            let cases: Vec<_> = entries.iter().map(|(j, bb)| (i32t.const_int(*j as u64, false), *bb)).collect();
            fc.b.build_switch(picked, xl, &cases)?;
            entries
        }
    };
    for (j, bb) in entries {
        // Registers live into the region: recomputed from the thread and block indices
        // where they can be (`recompute`), the others from the context area (after the
        // replay, which may overwrite them).
        fc.b.position_at_end(bb);
        let f = fc.f;
        let reload = |fc: &FnCx<'ctx, '_>, r: ir::RegId| -> R<()> {
            let (prefix, size) = layout.slots[&r];
            let v = match uniform_values.get(&r) {
                Some(v) => *v,
                None => load_context(fc, layout, prefix, size, lin, "")?,
            };
            let v = fc.resize(v, fc.f.regs[r.0 as usize].ty.bits(), false)?;
            fc.b.build_store(fc.regs[r.0 as usize], v)?;
            Ok(())
        };
        for &r in regions.replay_reads[j].iter().filter(|r| !homes.contains(r)) {
            reload(fc, r)?;
        }
        for &at in &regions.replay[j] {
            fc.inst_at(at)?;
            if let Some(row) = &row {
                row.override_value(fc, at)?;
            }
        }
        for r in regions.live_into_region(j).filter(|r| !homes.contains(r)) {
            reload(fc, r)?;
        }
        // A sync point of the loop may store registers that this thread's path never wrote
        // (dead there: the same set at every point, see `kept_by_code_from`). They start
        // each thread as poison rather than with the previous thread's or region's value,
        // so they are not live around the thread loop and across the regions (in a kernel
        // with many regions, LLVM would build a phi for each of them at every join).
        let mut replayed = vec![];
        for &(b, i) in &regions.replay[j] {
            crate::ir::visit::defs(&f.blocks[b.0 as usize].insts[i].op, &mut replayed);
        }
        let reloaded: std::collections::BTreeSet<ir::RegId> = regions.live_into_region(j).collect();
        for r in regions.kept_by_code_from(f, &[regions.starts[j]]) {
            if !reloaded.contains(&r) && !replayed.contains(&r) && !homes.contains(&r) {
                let poison = crate::lower::thread::int_type(fc.cx, fc.f.regs[r.0 as usize].ty.bits()).get_poison();
                fc.b.build_store(fc.regs[r.0 as usize], poison)?;
            }
        }
        let start = edge(fc, None, regions.starts[j], &mut work);
        fc.b.build_unconditional_branch(start)?;
    }
    if let Some((q, start)) = resume_at {
        fc.b.position_at_end(body);
        crate::lower::exec::interchange::emit_resume(fc, layout, q, lin, &uniform_values, matches!(filter, Filter::All))?;
        fc.b.build_unconditional_branch(start)?;
    }
    let from: Vec<BlockId> = match region {
        RegionSel::One(k) => vec![regions.starts[k]],
        RegionSel::Picked(_, picks) => picks.regions(regions.starts.len()).into_iter().map(|j| regions.starts[j]).collect(),
        RegionSel::Point(q) => vec![plan.expect("a point implies a plan").points[q].block],
    };
    let mut kept = regions.kept_by_code_from(fc.f, &from);
    // A register whose storage is its slot is always there.
    kept.retain(|r| !homes.contains(r));
    // Registers that certainly hold their slots' values at each point
    // (`Regions::clean_at_points`) need no store. Not where threads also start from an
    // interchange point (their registers come back from elsewhere there).
    let clean = if plan.is_none() && !matches!(region, RegionSel::Point(_)) { Some(regions.clean_at_points(fc.f, &entered)) } else { None };
    if let (RegionSel::One(_), Some(clean)) = (region, &clean) {
        // One region's loop stores the same registers at each of its points (see
        // `kept_by_code_from`): those not clean at one of them.
        kept.retain(|r| clean.iter().flatten().any(|c| !c.contains(r)));
    }
    let mut leave: Option<(BasicBlock<'ctx>, inkwell::values::PhiValue<'ctx>)> = None;
    let mut done = std::collections::HashSet::new();
    while let Some((id, bb)) = work.pop() {
        if !done.insert(id) {
            continue;
        }
        fc.b.position_at_end(bb);
        let block = &fc.f.blocks[id.0 as usize];
        for (i, inst) in block.insts.iter().enumerate() {
            fc.inst(inst).map_err(|e| e.at(&inst.span))?;
            if let Some(row) = &row {
                row.override_value(fc, (id, i))?;
            }
        }
        match &block.term {
            Terminator::Jump(t) => {
                let t = edge(fc, Some(id), *t, &mut work);
                fc.b.build_unconditional_branch(t)?;
            }
            Terminator::Branch { cond, then_, else_ } => {
                let c = fc.read_pred(*cond)?;
                let (t, e) = (edge(fc, Some(id), *then_, &mut work), edge(fc, Some(id), *else_, &mut work));
                fc.b.build_conditional_branch(c, t, e)?;
            }
            Terminator::Sync { .. } => {
                let j = regions.sync_region[id.0 as usize].expect("sync point has a region");
                // Keep what lives across the point (unless the next region recomputes it) and
                // what the scheduler reads; the same registers at every sync point of a
                // region's loop (`Regions::kept_by_code_from`). The loop of every region
                // (compact kernels, which have many) stores what this point needs of them.
                let this_point: Option<std::collections::BTreeSet<ir::RegId>> = match (region, &clean) {
                    (RegionSel::Picked(..), Some(clean)) => {
                        let c = clean[id.0 as usize].as_ref().expect("a reached sync point has a clean set");
                        Some(regions.kept_at(fc.f, id.0 as usize).into_iter().filter(|r| !c.contains(r) && !homes.contains(r)).collect())
                    }
                    _ => None,
                };
                let j = i32t.const_int(j as u64, false);
                let here = fc.b.get_insert_block().expect("positioned");
                match this_point {
                    // The points that store the same registers leave through one block:
                    // one store per register and one of the state, whichever point the
                    // thread reached.
                    None => {
                        let (leave, reached) = *leave.get_or_insert_with(|| {
                            let bb = fc.new_block(&format!("r{k}{tag}.leave"));
                            fc.b.position_at_end(bb);
                            let phi = fc.b.build_phi(i32t, "reached").expect("positioned");
                            fc.b.position_at_end(here);
                            (bb, phi)
                        });
                        reached.add_incoming(&[(&j, here)]);
                        fc.b.build_unconditional_branch(leave)?;
                    }
                    Some(this_point) => {
                        emit_leave(fc, layout, &this_point, leave_states, state_ptr, j, lin)?;
                        if unpark_join.is_some() {
                            wait_values.push((fc.b.get_insert_block().expect("positioned"), i32t.const_zero()));
                        }
                        end_run(fc, j)?;
                    }
                }
            }
            Terminator::Exit | Terminator::Return => {
                fc.b.build_unconditional_branch(exit_bb)?;
            }
        }
    }
    // Parks from inside a loop's body (its back edge, its exits) store the same registers,
    // the ones its body writes: once, in a block they share, not in each (LLVM would merge
    // the copies at their join, and the merged stores lose the access-group and alias-scope
    // metadata that let the pass loops vectorize).
    let mut from_body: Vec<(usize, BasicBlock<'ctx>, inkwell::values::PhiValue<'ctx>)> = vec![];
    for ((q, arrival), bb) in parks {
        fc.b.position_at_end(bb);
        let wait = crate::lower::exec::interchange::emit_park(fc, layout, q, arrival, lin)?;
        let wait = i32t.const_int(wait, false);
        let here = fc.b.get_insert_block().expect("positioned");
        if arrival != crate::lower::exec::interchange::Arrival::FromBody {
            wait_values.push((here, wait));
            fc.b.build_unconditional_branch(wait_join.expect("parks imply a plan"))?;
            continue;
        }
        let l = layout.interchange.as_ref().expect("parks imply a plan").plan.points[q].loop_index;
        let phi = match from_body.iter().find(|(k, _, _)| *k == l) {
            Some((_, shared, phi)) => {
                fc.b.build_unconditional_branch(*shared)?;
                *phi
            }
            None => {
                let shared = fc.new_block(&format!("r{k}{tag}.body_park{l}"));
                fc.b.build_unconditional_branch(shared)?;
                fc.b.position_at_end(shared);
                let phi = fc.b.build_phi(i32t, "parked_at")?;
                from_body.push((l, shared, phi));
                phi
            }
        };
        phi.add_incoming(&[(&wait, here)]);
    }
    for (l, shared, phi) in from_body {
        fc.b.position_at_end(shared);
        crate::lower::exec::interchange::emit_body_park_stores(fc, layout, l, lin)?;
        wait_values.push((fc.b.get_insert_block().expect("positioned"), phi.as_basic_value().into_int_value()));
        fc.b.build_unconditional_branch(wait_join.expect("parks imply a plan"))?;
    }
    if let Some((leave, reached)) = leave {
        fc.b.position_at_end(leave);
        let reached = reached.as_basic_value().into_int_value();
        emit_leave(fc, layout, &kept, leave_states, state_ptr, reached, lin)?;
        if unpark_join.is_some() {
            wait_values.push((fc.b.get_insert_block().expect("positioned"), i32t.const_zero()));
        }
        end_run(fc, reached)?;
    }
    fc.b.position_at_end(exit_bb);
    let exited = i32t.const_int(sync::EXITED, false);
    match (state_join, layout.state, state_ptr) {
        (Some((join, phi)), _, _) => {
            phi.add_incoming(&[(&exited, exit_bb)]);
            fc.b.build_unconditional_branch(join)?;
        }
        (None, state, p) => {
            if let (Some(state), Some(p)) = (state, p) {
                store_slot(fc, layout, state, p, exited, true)?;
            }
            if unpark_join.is_some() {
                wait_values.push((exit_bb, i32t.const_zero()));
            }
            fc.b.build_unconditional_branch(unpark_join.unwrap_or(xl))?;
        }
    }
    if let (Some((join, phi)), Some(state), Some(p)) = (state_join, layout.state, state_ptr) {
        fc.b.position_at_end(join);
        store_slot(fc, layout, state, p, phi.as_basic_value().into_int_value(), true)?;
        fc.b.build_unconditional_branch(xl)?;
    }
    if let Some(join) = wait_join {
        fc.b.position_at_end(join);
        if wait_values.is_empty() {
            fc.b.build_unreachable()?;
        } else {
            let phi = fc.b.build_phi(i32t, "next_wait")?;
            for (bb, v) in &wait_values {
                phi.add_incoming(&[(v, *bb)]);
            }
            let next_wait = phi.as_basic_value().into_int_value();
            // Every thread of a pass writes its word, those that park at the header again
            // too (their word says so already): a masked byte store would be one branch per
            // lane on AVX2, which has no byte-masked store (reduce_shfl's dense pass: 60
            // instructions per 16 threads, the kernel 1.3-1.7x slower on Zen 3), while on
            // AVX-512 it costs what the blend and the plain store cost.
            let word = fc.b.build_int_truncate(next_wait, crate::lower::thread::int_type(fc.cx, interchange::WAIT_BYTES * 8), "")?;
            store_context(fc, layout, layout.wait.expect("a plan has wait words"), word, lin)?;
            fc.b.build_unconditional_branch(xl)?;
        }
    }
    fc.thread = None;
    fc.on_exit = None;
    fc.homes = None;
    for (r, storage) in displaced {
        fc.regs[r.0 as usize] = storage;
    }
    // Loop latches (every dimension, and every range of a narrowed loop, is at least 1:
    // checked at launch, and by `emit_narrowed_loop`).
    let b = &fc.b;
    let one = i32t.const_int(1, false);
    // Each index is below its bound, itself below 2^31: the increments do not wrap.
    b.position_at_end(xl);
    let x_end = match &row {
        Some(r) => r.end,
        None if one_row => lanes,
        None => hi[0],
    };
    let row_end = match &row {
        Some(r) => {
            let next = fc.new_block(&format!("r{k}{tag}.segment.next"));
            let b = &fc.b;
            b.position_at_end(next);
            let more = b.build_int_compare(P::ULT, r.end, hi[0], "")?;
            b.build_conditional_branch(more, r.header, yl)?;
            r.start.add_incoming(&[(&lo[0], yh), (&r.end, next)]);
            b.position_at_end(xl);
            next
        }
        None => yl,
    };
    let b = &fc.b;
    let c = b.build_int_compare(P::ULT, xn, x_end, "")?;
    let latch = b.build_conditional_branch(c, xh, row_end)?;
    if one_row {
        crate::lower::exec::alias::mark_warp_loop(cx, latch);
    } else {
        crate::lower::exec::alias::mark_parallel_loop(cx, latch);
    }
    b.position_at_end(yl);
    if one_row {
        b.build_unconditional_branch(after)?;
        b.position_at_end(zl);
        b.build_unreachable()?;
        z.add_incoming(&[(&lo[2], pre)]);
        y.add_incoming(&[(&lo[1], zh)]);
    } else {
        let yn = b.build_int_nuw_add(yv, one, "")?;
        no_signed_wrap(yn);
        let c = b.build_int_compare(P::ULT, yn, hi[1], "")?;
        b.build_conditional_branch(c, yh, zl)?;
        b.position_at_end(zl);
        let zn = b.build_int_nuw_add(zv, one, "")?;
        no_signed_wrap(zn);
        let c = b.build_int_compare(P::ULT, zn, hi[2], "")?;
        b.build_conditional_branch(c, zh, after)?;
        z.add_incoming(&[(&lo[2], pre), (&zn, zl)]);
        y.add_incoming(&[(&lo[1], zh), (&yn, yl)]);
    }
    match &row {
        Some(r) => x.add_incoming(&[(&r.start.as_basic_value(), r.header), (&xn, xl)]),
        None if one_row => x.add_incoming(&[(&i32t.const_zero(), yh), (&xn, xl)]),
        None => x.add_incoming(&[(&lo[0], yh), (&xn, xl)]),
    }
    if let Some((x_after, skip)) = skipped_warp {
        x.add_incoming(&[(&x_after, skip)]);
    }
    Ok(pre)
}

/// The registers that the one thread loop of a compact kernel with frames (`LARGE_KERNEL`)
/// keeps in their slots in the thread's frame for good, instead of loading them into SSA
/// values at each region's entry and storing them at each sync point: the frame registers
/// (which only the block function reads) that one unguarded instruction defines
/// (`recompute::Defs::single`) and that fill their slots. Such a kernel's regions start with dozens of registers each (a deal.II kernel:
/// ~80 at each of 62 regions), and the loads at every entry, the stores at every sync
/// point and the phis LLVM builds where the entries meet were half of its block function.
/// Only the uses load (LLVM keeps a loaded value within a block), and the single definition
/// stores once: no loop-carried value goes through memory (an accumulator or a counter has
/// two definitions). Not under `-g` (its variables show the registers' stack copies).
fn frame_homes<'ctx>(
    fc: &FnCx<'ctx, '_>,
    layout: &ContextLayout<'ctx>,
    uniform_values: &HashMap<ir::RegId, IntValue<'ctx>>,
) -> std::collections::HashSet<ir::RegId> {
    if layout.frame_bytes == 0 || fc.debug.is_some() || layout.interchange.is_some() || layout.warp_view.borrow().is_some() {
        return Default::default();
    }
    let f = fc.f;
    let defs = crate::lower::exec::recompute::Defs::new(f);
    layout
        .slots
        .iter()
        .filter(|(r, &(prefix, size))| {
            prefix < layout.frame_bytes
                && defs.single(**r).is_some()
                && !layout.block_uniform.contains(r)
                && !uniform_values.contains_key(r)
                && fc.reg_storage(f.regs[r.0 as usize].ty).get_bit_width() == size * 8
        })
        .map(|(r, _)| *r)
        .collect()
}

impl<'ctx> FnCx<'ctx, '_> {
    /// Stores an error code and message in the block environment and returns the code.
    pub fn report_error(&self, message: &str) -> R<()> {
        let t = &self.ml.abi;
        let msg = self.b.build_global_string_ptr(message, "ptxrt.msg")?;
        let code = self.cx.i32_type().const_int(abi::ERROR_LAUNCH_FAILURE, false);
        let p = self.b.build_struct_gep(t.block_env, self.uni.env, abi::env::ERROR_CODE, "")?;
        self.b.build_store(p, code)?;
        let p = self.b.build_struct_gep(t.block_env, self.uni.env, abi::env::ERROR_MESSAGE, "")?;
        self.b.build_store(p, msg.as_pointer_value())?;
        self.b.build_return(Some(&code))?;
        Ok(())
    }
}

/// The scheduler's descriptor of each region's sync point (`ptxrtSyncPoint`, index 0: the
/// entry): its kind and where each operand and result lives per thread.
/// A thread's run reached sync point `reached`: keep the registers `kept` (block-uniform
/// ones in element 0) and, if the run writes the states, the point in the thread's state
/// word (at `state_ptr`).
fn emit_leave<'ctx>(
    fc: &FnCx<'ctx, '_>,
    layout: &ContextLayout<'ctx>,
    kept: &std::collections::BTreeSet<ir::RegId>,
    states: States,
    state_ptr: Option<PointerValue<'ctx>>,
    reached: IntValue<'ctx>,
    lin: IntValue<'ctx>,
) -> R<()> {
    let i32t = fc.cx.i32_type();
    for r in kept {
        let (prefix, size) = layout.slots[r];
        let v = fc.load_reg(*r)?;
        let v = fc.resize(v, size * 8, false)?;
        if layout.block_uniform.contains(r) {
            // Element 0 of a block-uniform register, written by every thread with the same
            // value: the threads' stores do not depend on each other's order, so they are in
            // the thread loop's access group like the thread's own (else the loop would not
            // be parallel for LLVM, and a guarded region's code would not vectorize).
            let p = layout.slot_ptr(fc, prefix, size, i32t.const_zero())?;
            store_slot(fc, layout, prefix, p, v, true)?;
        } else {
            store_context(fc, layout, prefix, v, lin)?;
        }
    }
    if states != States::Implied {
        // (`States::Converged`: thread 0's word, written by every thread with the same value,
        // so the threads' stores there do not depend on each other's order.)
        store_slot(fc, layout, layout.state.expect("state"), state_ptr.expect("state"), reached, true)?;
    }
    Ok(())
}

fn sync_point_table<'ctx>(fc: &FnCx<'ctx, '_>, regions: &Regions, layout: &ContextLayout<'ctx>) -> R<PointerValue<'ctx>> {
    let mut entries = vec![None; regions.starts.len()];
    for (i, b) in fc.f.blocks.iter().enumerate() {
        let Terminator::Sync { point, .. } = &b.term else { continue };
        let k = regions.sync_region[i].expect("sync point has a region");
        entries[k] = Some(sync_point_descriptor(fc, point, &|r| layout.slots.get(&r).copied())?);
    }
    let t = &fc.ml.abi;
    let i32t = fc.cx.i32_type();
    let ptr = fc.cx.ptr_type(inkwell::AddressSpace::default());
    let none = sync_operand(fc, sync::OPERAND_NONE, 0, 0);
    let entry = t.sync_point.const_named_struct(&[
        i32t.const_int(sync::ENTRY, false).into(),
        i32t.const_zero().into(),
        i32t.const_zero().into(),
        i32t.const_zero().into(),
        none.into(),
        none.into(),
        none.into(),
        none.into(),
        none.into(),
        none.into(),
        ptr.const_null().into(),
        ptr.const_null().into(),
        i32t.const_zero().into(),
    ]);
    let values: Vec<_> = entries.into_iter().map(|e| e.unwrap_or(entry)).collect();
    let table = fc.ml.module.add_global(t.sync_point.array_type(values.len() as u32), None, &format!("ptxrt.sync_points.{}", fc.f.name));
    table.set_initializer(&t.sync_point.const_array(&values));
    table.set_constant(true);
    table.set_linkage(Linkage::Private);
    Ok(table.as_pointer_value())
}

fn sync_operand<'ctx>(fc: &FnCx<'ctx, '_>, kind: u64, size: u64, value: u64) -> inkwell::values::StructValue<'ctx> {
    let i32t = fc.cx.i32_type();
    let i64t = fc.cx.i64_type();
    fc.ml.abi.sync_operand.const_named_struct(&[i32t.const_int(kind, false).into(), i32t.const_int(size, false).into(), i64t.const_int(value, false).into()])
}

/// The scheduler's descriptor (`ptxrtSyncPoint`) of one sync point: its kind and where each
/// operand and result lives per thread (`slot`: a register's context prefix and element size).
pub(crate) fn sync_point_descriptor<'ctx>(
    fc: &FnCx<'ctx, '_>,
    point: &ir::SyncPoint,
    slot: &dyn Fn(ir::RegId) -> Option<(u64, u32)>,
) -> R<inkwell::values::StructValue<'ctx>> {
    let cx = fc.cx;
    let t = &fc.ml.abi;
    let i32t = cx.i32_type();
    let operand = |kind: u64, size: u64, value: u64| sync_operand(fc, kind, size, value);
    let none = || operand(sync::OPERAND_NONE, 0, 0);
    let input = |op: &ir::Operand| -> R<inkwell::values::StructValue<'ctx>> {
        match op {
            ir::Operand::Reg(r) => {
                let (prefix, size) = slot(*r).ok_or_else(|| LowerError::Internal("sync point operand without a context slot".into()))?;
                Ok(operand(sync::OPERAND_SLOT, size as u64, prefix))
            }
            ir::Operand::Imm(v) => Ok(operand(sync::OPERAND_IMM, 0, *v)),
            _ => Err(LowerError::Unsupported("special registers and addresses as operands of barriers and warp collectives".into())),
        }
    };
    let output = |r: Option<ir::RegId>| match r.and_then(slot) {
        Some((prefix, size)) => operand(sync::OPERAND_SLOT, size as u64, prefix),
        None => none(),
    };
    let ptr = cx.ptr_type(inkwell::AddressSpace::default());
    let (kind, op, mode, flags, a, bb, c, mask, dst, pred, what) = match point {
        ir::SyncPoint::Barrier(bar) => {
            let count = match &bar.count {
                Some(c) => input(c)?,
                None => none(),
            };
            let aligned = if bar.aligned { sync::ALIGNED } else { 0 };
            match bar.kind {
                ir::BarrierKind::Sync => (SyncKind::BarSync, 0, 0, aligned, input(&bar.id)?, count, none(), none(), none(), none(), "bar.sync"),
                ir::BarrierKind::Arrive => (SyncKind::BarArrive, 0, 0, aligned, input(&bar.id)?, count, none(), none(), none(), none(), "bar.arrive"),
                ir::BarrierKind::Red { op, dst, pred } => {
                    let op = match op {
                        ir::BarRedOp::Popc => sync::BarRedOp::Popc,
                        ir::BarRedOp::And => sync::BarRedOp::And,
                        ir::BarRedOp::Or => sync::BarRedOp::Or,
                    };
                    let neg = if pred.negated { sync::NEGATE } else { 0 };
                    (
                        SyncKind::BarRed,
                        op as u64,
                        0,
                        aligned | neg,
                        input(&bar.id)?,
                        count,
                        input(&ir::Operand::Reg(pred.reg))?,
                        none(),
                        output(Some(dst)),
                        none(),
                        "bar.red",
                    )
                }
            }
        }
        ir::SyncPoint::Warp(w) => {
            let mask_of = |m: &Option<ir::Operand>| -> R<inkwell::values::StructValue<'ctx>> {
                match m {
                    Some(m) => input(m),
                    None => Ok(none()),
                }
            };
            match w {
                ir::WarpOp::Shfl { mode, dst, pred, a, b, c, mask } => {
                    let mode = match mode {
                        ir::ShflMode::Up => sync::ShflMode::Up,
                        ir::ShflMode::Down => sync::ShflMode::Down,
                        ir::ShflMode::Bfly => sync::ShflMode::Bfly,
                        ir::ShflMode::Idx => sync::ShflMode::Idx,
                    };
                    (
                        SyncKind::Warp,
                        WarpOp::Shfl as u64,
                        mode as u64,
                        0,
                        input(a)?,
                        input(b)?,
                        input(c)?,
                        mask_of(mask)?,
                        output(Some(*dst)),
                        output(*pred),
                        "shfl",
                    )
                }
                ir::WarpOp::Vote { mode, dst, src, mask } => {
                    let mode = match mode {
                        ir::VoteMode::All => sync::VoteMode::All,
                        ir::VoteMode::Any => sync::VoteMode::Any,
                        ir::VoteMode::Uni => sync::VoteMode::Uni,
                        ir::VoteMode::Ballot => sync::VoteMode::Ballot,
                    };
                    let neg = if src.negated { sync::NEGATE } else { 0 };
                    (
                        SyncKind::Warp,
                        WarpOp::Vote as u64,
                        mode as u64,
                        neg,
                        input(&ir::Operand::Reg(src.reg))?,
                        none(),
                        none(),
                        mask_of(mask)?,
                        output(Some(*dst)),
                        none(),
                        "vote",
                    )
                }
                ir::WarpOp::Match { all, dst, pred, a, mask, .. } => {
                    let mode = if *all { sync::MatchMode::All } else { sync::MatchMode::Any };
                    (
                        SyncKind::Warp,
                        WarpOp::Match as u64,
                        mode as u64,
                        0,
                        input(a)?,
                        none(),
                        none(),
                        input(mask)?,
                        output(Some(*dst)),
                        output(*pred),
                        "match.sync",
                    )
                }
                ir::WarpOp::Redux { op, signed, dst, a, mask } => {
                    let mode = match op {
                        ir::ReduxOp::Add => sync::ReduxMode::Add,
                        ir::ReduxOp::Min => sync::ReduxMode::Min,
                        ir::ReduxOp::Max => sync::ReduxMode::Max,
                        ir::ReduxOp::And => sync::ReduxMode::And,
                        ir::ReduxOp::Or => sync::ReduxMode::Or,
                        ir::ReduxOp::Xor => sync::ReduxMode::Xor,
                    };
                    let signed = if *signed { sync::SIGNED } else { 0 };
                    (
                        SyncKind::Warp,
                        WarpOp::Redux as u64,
                        mode as u64,
                        signed,
                        input(a)?,
                        none(),
                        none(),
                        input(mask)?,
                        output(Some(*dst)),
                        none(),
                        "redux.sync",
                    )
                }
                ir::WarpOp::ActiveMask { dst } => {
                    (SyncKind::Warp, WarpOp::ActiveMask as u64, 0, 0, none(), none(), none(), none(), output(Some(*dst)), none(), "activemask")
                }
                ir::WarpOp::Elect { dst, pred, mask } => {
                    (SyncKind::Warp, WarpOp::Elect as u64, 0, 0, none(), none(), none(), input(mask)?, output(Some(*dst)), output(Some(*pred)), "elect.sync")
                }
                ir::WarpOp::WarpSync { mask } => {
                    (SyncKind::Warp, WarpOp::WarpSync as u64, 0, 0, none(), none(), none(), input(mask)?, none(), none(), "bar.warp.sync")
                }
                ir::WarpOp::Lockstep => (
                    SyncKind::Warp,
                    WarpOp::WarpSync as u64,
                    0,
                    0,
                    none(),
                    none(),
                    none(),
                    none(),
                    none(),
                    none(),
                    "warp lockstep point (a volatile shared access or a spin-wait poll)",
                ),
                ir::WarpOp::Matrix(m) => {
                    let (op, flags, what) = matrix_descriptor(m);
                    let [mm, n, k] = m.shape;
                    let mode = mm as u64 | (n as u64) << 8 | (k as u64) << 16;
                    let addr = match &m.addr {
                        Some((a, _)) => input(a)?,
                        None => none(),
                    };
                    let stride = match &m.stride {
                        Some(s) => input(s)?,
                        None => none(),
                    };
                    let [na, nb, nc] = m.src_counts.map(|c| c as u64);
                    let scaling = match &m.kind {
                        ir::MatrixKind::Mma(ir::MmaTypes { block_scale: Some(s), .. }) => s.vec as u64 | (s.ue4m3 as u64) << 8,
                        _ => 0,
                    };
                    let counts = operand(sync::OPERAND_IMM, 0, m.dst.len() as u64 | na << 8 | nb << 16 | nc << 24 | scaling << sync::MATRIX_SCALE_SHIFT);
                    // `.aligned`: the whole warp (every live lane) takes part.
                    let mask = operand(sync::OPERAND_IMM, 0, 0xffff_ffff);
                    (SyncKind::Warp, op as u64, mode, flags, addr, stride, counts, mask, none(), none(), what)
                }
            }
        }
    };
    let text = fc.b.build_global_string_ptr(&format!("{what} in `{}`", fc.f.name), "ptxrt.sync.what")?.as_pointer_value();
    // Matrix instructions: their fragment registers, destinations first, then sources.
    let (list, list_len) = match point {
        ir::SyncPoint::Warp(ir::WarpOp::Matrix(m)) => {
            let mut ops: Vec<_> = m.dst.iter().map(|r| output(Some(*r))).collect();
            for s in &m.src {
                ops.push(input(s)?);
            }
            let g = fc.ml.module.add_global(t.sync_operand.array_type(ops.len() as u32), None, &format!("ptxrt.sync_operands.{}", fc.f.name));
            g.set_initializer(&t.sync_operand.const_array(&ops));
            g.set_constant(true);
            g.set_linkage(Linkage::Private);
            (g.as_pointer_value(), ops.len() as u64)
        }
        _ => (ptr.const_null(), 0),
    };
    Ok(t.sync_point.const_named_struct(&[
        i32t.const_int(kind as u64, false).into(),
        i32t.const_int(op, false).into(),
        i32t.const_int(mode, false).into(),
        i32t.const_int(flags, false).into(),
        a.into(),
        bb.into(),
        c.into(),
        mask.into(),
        dst.into(),
        pred.into(),
        text.into(),
        list.into(),
        i32t.const_int(list_len, false).into(),
    ]))
}

/// The runtime's operation code, `flags` and name of a matrix instruction (see `abi::sync`).
fn matrix_descriptor(m: &ir::MatrixOp) -> (WarpOp, u64, &'static str) {
    use ir::MatrixKind as K;
    use sync::MatrixElem as C;
    let elem = |e: ir::MatrixElem| -> u64 {
        use ir::MatrixElem as E;
        let code = match e {
            E::F16 => C::F16,
            E::BF16 => C::BF16,
            E::TF32 => C::TF32,
            E::F32 => C::F32,
            E::F64 => C::F64,
            E::S8 => C::S8,
            E::U8 => C::U8,
            E::S32 => C::S32,
            E::S4 => C::S4,
            E::U4 => C::U4,
            E::E4M3 => C::E4M3,
            E::E5M2 => C::E5M2,
            E::B1 => C::B1,
            E::E3M2 => C::E3M2,
            E::E2M3 => C::E2M3,
            E::E2M1 => C::E2M1,
        };
        code as u64
    };
    let mma = |t: &ir::MmaTypes| {
        let field = sync::MATRIX_ELEM_BITS;
        // `.kind::mxf4*`: `.e2m1` without its 8-bit container.
        let multiplicand = |e| if t.block_scale.is_some_and(|s| s.packed_e2m1) { C::E2M1Packed as u64 } else { elem(e) };
        let mut f = multiplicand(t.a) | multiplicand(t.b) << field | elem(t.c) << (2 * field) | elem(t.d) << (3 * field);
        let rounding = match t.rounding {
            ir::Rounding::NearestEven => 0,
            ir::Rounding::TowardZero => 1,
            ir::Rounding::Down => 2,
            ir::Rounding::Up => 3,
        };
        f |= rounding << sync::MATRIX_ROUND_SHIFT;
        if t.bit_op == Some(ir::MmaBitOp::And) {
            f |= sync::MATRIX_POPC_AND
        }
        if t.a_col {
            f |= sync::MATRIX_A_COL
        }
        if t.b_col {
            f |= sync::MATRIX_B_COL
        }
        if t.satfinite {
            f |= sync::MATRIX_SATFINITE
        }
        if t.sparse {
            f |= sync::MATRIX_SPARSE
        }
        f
    };
    let shared = match m.addr {
        Some((_, ir::StateSpace::Shared)) => sync::MATRIX_SHARED,
        _ => 0,
    };
    let col = |c: bool| if c { sync::MATRIX_A_COL } else { 0 };
    let trans = |t: bool| if t { sync::MATRIX_TRANS } else { 0 };
    match &m.kind {
        K::Mma(t) if t.sparse => (WarpOp::Mma, mma(t), "mma.sp.sync"),
        K::Mma(t) => (WarpOp::Mma, mma(t), "mma.sync"),
        K::WmmaMma(t) => (WarpOp::WmmaMma, mma(t), "wmma.mma.sync"),
        K::WmmaLoad { role, elem: e, col: c } => {
            let role = match role {
                ir::MatrixRole::A => 0,
                ir::MatrixRole::B => 1,
                ir::MatrixRole::C => 2,
            };
            (WarpOp::WmmaLoad, elem(*e) | col(*c) | shared | role << sync::MATRIX_ROLE_SHIFT, "wmma.load")
        }
        K::WmmaStore { elem: e, col: c } => (WarpOp::WmmaStore, elem(*e) | col(*c) | shared, "wmma.store"),
        K::LdMatrix { trans: t, .. } => (WarpOp::LdMatrix, trans(*t) | shared, "ldmatrix"),
        K::StMatrix { trans: t, .. } => (WarpOp::StMatrix, trans(*t) | shared, "stmatrix"),
        K::MovMatrix => (WarpOp::MovMatrix, sync::MATRIX_TRANS, "movmatrix"),
    }
}

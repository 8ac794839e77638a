//! Software prefetches of the global memory a block function will read or write soon.
//!
//! A block function runs a block's threads region by region, and a worker runs its blocks
//! one after another. Where a thread loop streams through memory for long (blocks fused
//! along x, a long pass) the hardware prefetcher follows it; where each block touches a
//! few kilobytes between barriers and then computes, it does not: every block's first
//! loads wait for memory (a block scan spent 42% of its time in its first load of the
//! input). Two places prefetch in the generated code:
//!
//! - an interchanged loop's dense pass prefetches what its loads read some passes later
//!   (`interchange`);
//! - a kernel with sync points prefetches, at the start of each block, what the *next*
//!   block will load and store at addresses computed from the thread and block indices and
//!   parameters alone (`NextBlock`): a worker runs consecutive blocks along x (ptxrt's
//!   `block_loop`), so the next block is `ctaid.x + 1`. Prefetches never fault: an
//!   address past the end of an array (the grid's last block, a guarded access) costs
//!   nothing.
//!
//! - a region inside a loop through barriers prefetches, before its threads run, what its
//!   loads will read some iterations later (`StepAhead`): where a load's address follows
//!   from the registers the region starts with and one of them is stepped once per
//!   iteration (`add r, r, s`, `s` the same for the block: a row index advanced by the
//!   row length), the address with `r + STEPS_AHEAD * s`. Rodinia's pathfinder reads one
//!   row of costs per step, 1 KB of a 4 MB row: every step waited for memory.
//!
//! All walk the threads of a block in steps (one prefetch per cache line where the
//! threads' elements are consecutive) without dividing: `emit_thread_walk`.

use crate::ir::cfg::Cfg;
use crate::ir::{self, BlockId, IntBinOp, Op, Operand, RegId, ScalarType, SpecialReg, StateSpace};
use crate::lower::exec::kernel::{self, ContextLayout};
use crate::lower::exec::recompute::Defs;
use crate::lower::exec::regions::Regions;
use crate::lower::thread::{FnCx, Thread};
use crate::lower::R;
use inkwell::basic_block::BasicBlock;
use inkwell::values::IntValue;
use inkwell::IntPredicate as P;
use std::collections::BTreeSet;

/// Blocks of more threads than this run long contiguous stretches in each thread loop,
/// which the hardware prefetcher follows by itself.
pub const PREFETCH_MAX_THREADS: u64 = 4096;

/// Bytes per cache line (x86-64 and the AArch64 cores ptxrt runs on).
pub(crate) const LINE_BYTES: u32 = 64;

/// Consecutive threads whose accesses of `elements` values of `ty` each share a cache line
/// (at least 1): one of them prefetches for all.
pub(crate) fn threads_per_line(ty: ScalarType, elements: usize) -> u32 {
    (LINE_BYTES / ((ty.bits() / 8).max(1) * elements.max(1) as u32)).max(1)
}

/// At most this many of a kernel's accesses are prefetched for the next block.
const MAX_NEXT_BLOCK_ACCESSES: usize = 8;

/// At most this many instructions compute their addresses (per prefetching thread).
const MAX_NEXT_BLOCK_REPLAY: usize = 48;

/// The accesses of the next block to prefetch, and how to compute their addresses.
#[derive(Debug)]
pub struct NextBlock {
    /// The instructions that compute the addresses (pure functions of the thread and block
    /// indices and parameters), in execution order.
    pub replay: Vec<(BlockId, usize)>,
    /// The accesses: space, address, whether it writes.
    pub accesses: Vec<(StateSpace, ir::Address, bool)>,
    /// Threads per prefetch: a cache line of the smallest element accessed.
    pub step: u32,
}

/// The next block's global loads and stores of a kernel with sync points whose addresses
/// the block function can compute from the thread and block indices and parameters alone
/// (`recompute`), and which depend on the block index (or the next block would touch the
/// same lines); `None` if there are none.
pub fn next_block(f: &ir::Function, regions: &Regions) -> Option<NextBlock> {
    if !regions.has_sync_points() || f.kind != ir::FunctionKind::Entry {
        return None;
    }
    let cfg = Cfg::new(f);
    let defs = Defs::new(f);
    let mut replay = BTreeSet::new();
    let mut recomputed = vec![];
    let mut accesses = vec![];
    let mut smallest = LINE_BYTES;
    for (b, block) in f.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            if accesses.len() == MAX_NEXT_BLOCK_ACCESSES {
                break;
            }
            let (space, ty, addr, write) = match &inst.op {
                Op::Load { space, ty, volatile: false, order: None, addr, .. } => (*space, *ty, *addr, false),
                Op::Store { space, ty, volatile: false, order: None, addr, .. } => (*space, *ty, *addr, true),
                _ => continue,
            };
            let ir::AddressBase::Reg(r) = addr.base else { continue };
            if !matches!(space, StateSpace::Global | StateSpace::Generic) || !cfg.reachable(b) {
                continue;
            }
            let Some(def) = defs.reaching_only(&cfg, r, b, i) else { continue };
            let mut chain = BTreeSet::new();
            if !defs.recomputable_def(f, &cfg, def, &mut chain, 0) || !reads_block_index(f, &chain) {
                continue;
            }
            let mut union = replay.clone();
            union.extend(chain);
            if union.len() > MAX_NEXT_BLOCK_REPLAY {
                continue;
            }
            replay = union;
            recomputed.push((r, def));
            accesses.push((space, addr, write));
            smallest = smallest.min((ty.bits() / 8).max(1));
        }
    }
    if accesses.is_empty() || !defs.replay_consistent(f, &cfg, &replay, &recomputed) {
        return None;
    }
    Some(NextBlock { replay: replay.into_iter().map(|(_, b, i)| (BlockId(b as u32), i)).collect(), accesses, step: LINE_BYTES / smallest })
}

/// Whether one of the instructions of `chain` reads a block index.
fn reads_block_index(f: &ir::Function, chain: &BTreeSet<(usize, usize, usize)>) -> bool {
    let mut found = false;
    for &(_, b, i) in chain {
        crate::ir::visit::for_each_operand(&f.blocks[b].insts[i].op, &mut |o| found |= matches!(o, Operand::Special(SpecialReg::Ctaid(_))));
    }
    found
}

/// Before `then`: for every `step`th thread of a block of at most `PREFETCH_MAX_THREADS`
/// threads (x fastest, as the thread loops number them), `body` with the thread set
/// (`fc.thread`) and its linear index. Returns the block to run instead of `then`.
pub fn emit_thread_walk<'ctx>(
    fc: &mut FnCx<'ctx, '_>,
    tag: &str,
    step: u32,
    then: BasicBlock<'ctx>,
    mut body: impl FnMut(&mut FnCx<'ctx, '_>, IntValue<'ctx>) -> R<()>,
) -> R<BasicBlock<'ctx>> {
    let i32t = fc.cx.i32_type();
    let start = fc.new_block(tag);
    let head = fc.new_block(&format!("{tag}.thread"));
    fc.b.position_at_end(start);
    let short = fc.b.build_int_compare(P::ULE, fc.uni.nthreads, i32t.const_int(PREFETCH_MAX_THREADS, false), "")?;
    fc.b.build_conditional_branch(short, head, then)?;
    fc.b.position_at_end(head);
    // The thread (linear index `t`) and its indices, stepped along without a division (one
    // costs as much as the prefetches).
    let phi = |name: &str| -> R<inkwell::values::PhiValue<'ctx>> {
        let p = fc.b.build_phi(i32t, name)?;
        p.add_incoming(&[(&i32t.const_zero(), start)]);
        Ok(p)
    };
    let (t, x, y, z) = (phi("pf.t")?, phi("pf.x")?, phi("pf.y")?, phi("pf.z")?);
    let tv = t.as_basic_value().into_int_value();
    let [xv, yv, zv] = [x, y, z].map(|p| p.as_basic_value().into_int_value());
    fc.thread = Some(Thread { tid: [xv, yv, zv], linear: tv, linear_wide: None, warp_lane: None });
    body(fc, tv)?;
    fc.thread = None;
    let step = i32t.const_int(u64::from(step), false);
    let next = fc.b.build_int_nuw_add(tv, step, "")?;
    let more = fc.b.build_int_compare(P::ULT, next, fc.uni.nthreads, "")?;
    let advance = fc.new_block(&format!("{tag}.advance"));
    let carry = fc.new_block(&format!("{tag}.carry"));
    let wrap = fc.new_block(&format!("{tag}.wrap"));
    fc.b.build_conditional_branch(more, advance, then)?;
    // x += step, then carry whole rows into y (and y into z) while x is past the row.
    fc.b.position_at_end(advance);
    let x_stepped = fc.b.build_int_nuw_add(xv, step, "")?;
    fc.b.build_unconditional_branch(carry)?;
    fc.b.position_at_end(carry);
    let (cx, cy, cz) = (fc.b.build_phi(i32t, "pf.cx")?, fc.b.build_phi(i32t, "pf.cy")?, fc.b.build_phi(i32t, "pf.cz")?);
    cx.add_incoming(&[(&x_stepped, advance)]);
    cy.add_incoming(&[(&yv, advance)]);
    cz.add_incoming(&[(&zv, advance)]);
    let [cxv, cyv, czv] = [cx, cy, cz].map(|p| p.as_basic_value().into_int_value());
    let past = fc.b.build_int_compare(P::UGE, cxv, fc.uni.x_extent, "")?;
    fc.b.build_conditional_branch(past, wrap, head)?;
    t.add_incoming(&[(&next, carry)]);
    x.add_incoming(&[(&cxv, carry)]);
    y.add_incoming(&[(&cyv, carry)]);
    z.add_incoming(&[(&czv, carry)]);
    fc.b.position_at_end(wrap);
    let wx = fc.b.build_int_sub(cxv, fc.uni.x_extent, "")?;
    let y1 = fc.b.build_int_nuw_add(cyv, i32t.const_int(1, false), "")?;
    let next_plane = fc.b.build_int_compare(P::UGE, y1, fc.uni.ntid[1], "")?;
    let wy = fc.b.build_select(next_plane, i32t.const_zero(), y1, "")?.into_int_value();
    let wz = fc.b.build_int_nuw_add(czv, fc.b.build_int_z_extend(next_plane, i32t, "")?, "")?;
    cx.add_incoming(&[(&wx, wrap)]);
    cy.add_incoming(&[(&wy, wrap)]);
    cz.add_incoming(&[(&wz, wrap)]);
    fc.b.build_unconditional_branch(carry)?;
    Ok(start)
}

/// Before `then` (the block's first region): the next block's accesses `nb` prefetched,
/// for every `step`th thread. Returns the block to run instead of `then`.
pub fn emit_next_block<'ctx>(fc: &mut FnCx<'ctx, '_>, nb: &NextBlock, then: BasicBlock<'ctx>) -> R<BasicBlock<'ctx>> {
    let ctaid = fc.uni.ctaid;
    emit_thread_walk(fc, "next_block", nb.step, then, |fc, _| {
        // The address computations with the next block's index (they write registers
        // that the first region sets before it reads them).
        fc.uni.ctaid[0] = fc.b.build_int_add(ctaid[0], fc.cx.i32_type().const_int(1, false), "next_ctaid")?;
        let replayed = nb.replay.iter().try_for_each(|&at| fc.inst_at(at));
        fc.uni.ctaid = ctaid;
        replayed?;
        for &(space, addr, write) in &nb.accesses {
            fc.prefetch(space, addr, write)?;
        }
        Ok(())
    })
}

/// How many iterations ahead a region in a loop through barriers prefetches
/// (`StepAhead`). Rodinia's pathfinder (20 steps per launch, one 1 KB stretch of a 4 MB
/// row each): 56 ms without, 57 one step ahead, 48 two, 45 four, 52 eight (the steps past
/// the launch's last are wasted), 69 sixteen.
const STEPS_AHEAD: u64 = 4;

/// At most this many loads of a region are prefetched ahead.
const MAX_STEP_AHEAD_LOADS: usize = 4;

/// Loads of region `k` whose addresses some iterations later its block function can compute
/// before the region runs (see the module documentation).
#[derive(Debug)]
pub struct StepAhead {
    /// Registers live into the region the computation reads (each thread's, from its slot).
    pub reads: BTreeSet<RegId>,
    /// Registers stepped once per iteration: register, the `add`'s type, its step.
    pub inductions: Vec<(RegId, ScalarType, Operand)>,
    /// What computes the steps that are registers (pure functions of the block), in order.
    pub step_replay: Vec<(BlockId, usize)>,
    /// What computes the addresses from `reads`, in order.
    pub replay: Vec<(BlockId, usize)>,
    pub loads: Vec<(StateSpace, ir::Address)>,
    /// Threads per prefetch: a cache line of the smallest per-thread access.
    pub step: u32,
}

/// The step-ahead prefetches of each region of kernel `f` (`None` for the entry region and
/// where nothing qualifies; see `step_ahead`).
pub fn step_aheads(f: &ir::Function, regions: &Regions) -> Vec<Option<StepAhead>> {
    if !regions.has_sync_points() || f.kind != ir::FunctionKind::Entry {
        return regions.starts.iter().map(|_| None).collect();
    }
    let cfg = Cfg::new(f);
    let defs = Defs::new(f);
    (0..regions.starts.len()).map(|k| if k == 0 { None } else { step_ahead(f, &cfg, &defs, regions, k) }).collect()
}

/// The step-ahead prefetches of region `k` of kernel `f` (a region after a sync point), if
/// any of its global loads qualifies: its address comes from pure instructions on the
/// region's way to it and from registers the region starts with (reloaded: `Regions::
/// live_into_region`, or recomputed: `Regions::replay`), one of the reloaded ones stepped
/// by `add r, r, s` on a cycle with the region's start, `s` an immediate or a pure function
/// of the block (parameters, block indices).
fn step_ahead(f: &ir::Function, cfg: &Cfg, defs: &Defs, regions: &Regions, k: usize) -> Option<StepAhead> {
    let start = regions.starts.get(k)?.0 as usize;
    let code = regions.code_of(f, &[start]);
    let way = RegionWay { f, cfg, defs: RegionDefs::new(f, cfg, &code, start), regions, k, live: regions.live_into_region(k).collect() };
    let mut out = StepAhead { reads: BTreeSet::new(), inductions: vec![], step_replay: vec![], replay: vec![], loads: vec![], step: LINE_BYTES };
    let mut replay: BTreeSet<(usize, usize, usize)> = BTreeSet::new();
    let mut with_start_replay = false;
    let mut step_replay = BTreeSet::new();
    for &b in &code {
        for (i, inst) in f.blocks[b].insts.iter().enumerate() {
            if out.loads.len() == MAX_STEP_AHEAD_LOADS {
                break;
            }
            let Op::Load { space: space @ (StateSpace::Global | StateSpace::Generic), ty, volatile: false, order: None, addr, dst } = &inst.op else {
                continue;
            };
            let ir::AddressBase::Reg(r) = addr.base else { continue };
            let mut chain = Chain { insts: replay.clone(), reads: BTreeSet::new(), recomputed: false };
            if !way.add(&mut chain, r, (b, i), 0) {
                continue;
            }
            // The stepped registers it reads.
            let mut stepped = vec![];
            let mut steps = step_replay.clone();
            for &u in &chain.reads {
                if let Some(ind) = induction(f, cfg, defs, u, start, &mut steps) {
                    stepped.push(ind);
                }
            }
            // Each register set once by the computation (it runs in order, once).
            let mut set = BTreeSet::new();
            let unique = chain.insts.iter().all(|&(_, cb, ci)| {
                let mut d = vec![];
                crate::ir::visit::defs(&f.blocks[cb].insts[ci].op, &mut d);
                d.into_iter().all(|r| set.insert(r))
            });
            if stepped.is_empty() || !unique || chain.insts.len() > MAX_NEXT_BLOCK_REPLAY {
                continue;
            }
            replay = chain.insts;
            with_start_replay |= chain.recomputed;
            step_replay = steps;
            out.reads.extend(chain.reads);
            for ind in stepped {
                if !out.inductions.iter().any(|(r, _, _)| *r == ind.0) {
                    out.inductions.push(ind);
                }
            }
            out.loads.push((*space, *addr));
            out.step = out.step.min(threads_per_line(*ty, dst.len()));
        }
    }
    if out.loads.is_empty() {
        return None;
    }
    if with_start_replay {
        out.reads.extend(regions.replay_reads[k].iter().copied());
    }
    let order = |set: BTreeSet<(usize, usize, usize)>| set.into_iter().map(|(_, b, i)| (BlockId(b as u32), i)).collect::<Vec<_>>();
    // The region's own recomputation first (what the region starts with), then the way.
    out.replay = if with_start_replay { regions.replay[k].iter().copied().chain(order(replay)).collect() } else { order(replay) };
    out.step_replay = order(step_replay);
    Some(out)
}

/// Which definition of a register reaches an instruction of a region's code from the
/// region's start (without crossing a sync point).
struct RegionDefs<'a> {
    f: &'a ir::Function,
    cfg: &'a Cfg,
    in_code: Vec<bool>,
    start: usize,
}

/// What reaches a place: nothing (yet), the value the region starts
/// with, one definition, or several.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Reach {
    Nothing,
    Start,
    Def(usize, usize),
    Several,
}

impl Reach {
    fn meet(self, other: Reach) -> Reach {
        match (self, other) {
            (Reach::Nothing, x) | (x, Reach::Nothing) => x,
            (x, y) if x == y => x,
            _ => Reach::Several,
        }
    }
}

impl<'a> RegionDefs<'a> {
    fn new(f: &'a ir::Function, cfg: &'a Cfg, code: &[usize], start: usize) -> Self {
        let mut in_code = vec![false; f.blocks.len()];
        for &b in code {
            in_code[b] = true;
        }
        RegionDefs { f, cfg, in_code, start }
    }

    /// The definition of `r` that instruction `i` of block `b` reads (`Some(None)`: the
    /// region's starting value), if one.
    fn reaching(&self, r: RegId, (b, i): (usize, usize)) -> Option<Option<(usize, usize)>> {
        if let Some(reach) = self.last_def(r, b, i) {
            return Self::answer(reach);
        }
        // Back along the region's edges (an edge out of a sync point's block comes from
        // another region) to the definitions that end the ways, or to the region's start:
        // a worklist, as the code of a large kernel's region can be thousands of blocks.
        let mut reach = Reach::Nothing;
        let mut seen = vec![false; self.f.blocks.len()];
        seen[b] = true;
        let mut work = vec![b];
        while let Some(x) = work.pop() {
            if x == self.start {
                reach = reach.meet(Reach::Start);
            }
            for &p in &self.cfg.preds[x] {
                if !self.in_code[p] || matches!(self.f.blocks[p].term, ir::Terminator::Sync { .. }) {
                    continue;
                }
                match self.last_def(r, p, self.f.blocks[p].insts.len()) {
                    Some(def) => reach = reach.meet(def),
                    None if !std::mem::replace(&mut seen[p], true) => work.push(p),
                    None => {}
                }
            }
            if reach == Reach::Several {
                return None;
            }
        }
        Self::answer(reach)
    }

    fn answer(reach: Reach) -> Option<Option<(usize, usize)>> {
        match reach {
            Reach::Start => Some(None),
            Reach::Def(db, di) => Some(Some((db, di))),
            Reach::Nothing | Reach::Several => None,
        }
    }

    /// What the last definition of `r` before instruction `i` of block `b` leaves: its
    /// value (`Def`), or not one value (`Several`: a guarded definition); `None` if there is
    /// none.
    fn last_def(&self, r: RegId, b: usize, i: usize) -> Option<Reach> {
        self.f.blocks[b].insts[..i].iter().enumerate().rev().find_map(|(j, inst)| {
            let mut d = vec![];
            crate::ir::visit::defs(&inst.op, &mut d);
            d.contains(&r).then(|| if inst.guard.is_none() { Reach::Def(b, j) } else { Reach::Several })
        })
    }
}

/// An address computation on a region's way to a load (`step_ahead`).
struct Chain {
    /// Its instructions, by (reverse post-order, block, index).
    insts: BTreeSet<(usize, usize, usize)>,
    /// The registers it reads as the region starts with them (reloaded from their slots).
    reads: BTreeSet<RegId>,
    /// Whether it reads registers the region recomputes at its start (`Regions::replay`).
    recomputed: bool,
}

/// Region `k`'s code as `Chain`s see it: what reaches where, the registers it reloads.
struct RegionWay<'a> {
    f: &'a ir::Function,
    cfg: &'a Cfg,
    defs: RegionDefs<'a>,
    regions: &'a Regions,
    k: usize,
    live: BTreeSet<RegId>,
}

impl RegionWay<'_> {
    /// Adds to `chain` what computes `r` as instruction `at` reads it; false if it cannot be
    /// computed there.
    fn add(&self, chain: &mut Chain, r: RegId, at: (usize, usize), depth: u32) -> bool {
        if depth > 32 {
            return false;
        }
        match self.defs.reaching(r, at) {
            None => false,
            Some(None) if self.live.contains(&r) => {
                chain.reads.insert(r);
                true
            }
            Some(None) => {
                chain.recomputed = true;
                self.regions.recomputed[self.k].contains(&r)
            }
            Some(Some((b, i))) => {
                let key = (self.cfg.rpo_index[b], b, i);
                if chain.insts.contains(&key) {
                    return true;
                }
                let inst = &self.f.blocks[b].insts[i];
                if !crate::lower::exec::recompute::replayable(inst) {
                    return false;
                }
                chain.insts.insert(key);
                let mut uses = vec![];
                crate::ir::visit::uses(&inst.op, &mut uses);
                uses.into_iter().all(|u| self.add(chain, u, (b, i), depth + 1))
            }
        }
    }
}

/// Register `r`, if its only definition other than before the cycle is `add r, r, s` on a
/// cycle with block `start`, with `s` an immediate or recomputable for the block (its
/// instructions added to `steps`).
fn induction(
    f: &ir::Function,
    cfg: &Cfg,
    defs: &Defs,
    r: RegId,
    start: usize,
    steps: &mut BTreeSet<(usize, usize, usize)>,
) -> Option<(RegId, ScalarType, Operand)> {
    let sites = defs.sites.get(r.0 as usize)?;
    let mut stepping = sites.iter().filter(|&&(b, _, _)| cfg.on_one_cycle(b, start));
    let &(b, i, guarded) = stepping.next()?;
    if stepping.next().is_some() || guarded {
        return None;
    }
    let Op::IntBinary { op: IntBinOp::Add, ty, sat: false, dst, a: Operand::Reg(a), b: step } = &f.blocks[b].insts[i].op else { return None };
    if *dst != r || *a != r || !matches!(ty.bits(), 32 | 64) {
        return None;
    }
    match step {
        Operand::Imm(_) => {}
        Operand::Reg(s) => {
            let def = defs.single(*s)?;
            let mut chain = steps.clone();
            if !defs.recomputable_def(f, cfg, def, &mut chain, 0) || crate::lower::exec::recompute::chain_reads_tid(f, &chain) {
                return None;
            }
            *steps = chain;
        }
        _ => return None,
    }
    Some((r, *ty, *step))
}

/// Before `then` (region `k`'s threads): `sa`'s loads prefetched for every `sa.step`th
/// thread, with its registers from its slots and the inductions `STEPS_AHEAD` steps on,
/// where that is far ahead in memory (`FAR_AHEAD_BYTES`, for thread 0's first load).
/// Returns the block to run instead of `then`.
pub(crate) fn emit_step_ahead<'ctx>(
    fc: &mut FnCx<'ctx, '_>,
    layout: &ContextLayout<'ctx>,
    sa: &StepAhead,
    k: usize,
    then: BasicBlock<'ctx>,
) -> R<BasicBlock<'ctx>> {
    let walk = emit_thread_walk(fc, &format!("r{k}.ahead"), sa.step, then, |fc, tv| {
        step_ahead_registers(fc, layout, sa, tv, true)?;
        for &(space, addr) in &sa.loads {
            fc.prefetch(space, addr, false)?;
        }
        Ok(())
    })?;
    let gate = fc.new_block(&format!("r{k}.ahead.far"));
    fc.b.position_at_end(gate);
    let zero = fc.cx.i32_type().const_zero();
    fc.thread = Some(Thread::first(fc.cx));
    let (space, addr) = sa.loads[0];
    let i64t = fc.cx.i64_type();
    let mut at = [i64t.const_zero(); 2];
    for (ahead, a) in [false, true].into_iter().zip(at.iter_mut()) {
        step_ahead_registers(fc, layout, sa, zero, ahead)?;
        *a = fc.b.build_ptr_to_int(fc.address(space, addr)?, i64t, "")?;
    }
    fc.thread = None;
    let b = &fc.b;
    let d = b.build_int_sub(at[1], at[0], "")?;
    let dist = b.build_select(b.build_int_compare(P::SLT, d, i64t.const_zero(), "")?, b.build_int_neg(d, "")?, d, "")?.into_int_value();
    let far = b.build_int_compare(P::UGE, dist, i64t.const_int(FAR_AHEAD_BYTES, false), "far")?;
    b.build_conditional_branch(far, walk, then)?;
    Ok(gate)
}

/// Prefetching ahead pays where the access `STEPS_AHEAD` steps on is this far away: rows of
/// a large matrix (Rodinia's pathfinder: 4 MB apart), not the tiles of a matrix the caches
/// hold (a tiled sgemm of 512 x 512 floats: 32 KB per step, where the walk only cost time).
const FAR_AHEAD_BYTES: u64 = 256 << 10;

/// Thread `owner`'s registers for `sa`'s addresses: those it starts the region with, from
/// their slots (block-uniform ones from thread 0's), then the steps, the inductions stepped
/// `STEPS_AHEAD` times if `ahead`, and the address computations.
fn step_ahead_registers<'ctx>(fc: &mut FnCx<'ctx, '_>, layout: &ContextLayout<'ctx>, sa: &StepAhead, owner: IntValue<'ctx>, ahead: bool) -> R<()> {
    for r in &sa.reads {
        let Some(&(prefix, size)) = layout.slots.get(r) else { continue };
        let owner = if layout.block_uniform.contains(r) { fc.cx.i32_type().const_zero() } else { owner };
        let v = kernel::load_context(fc, layout, prefix, size, owner, "")?;
        let v = fc.resize(v, fc.f.regs[r.0 as usize].ty.bits(), false)?;
        fc.b.build_store(fc.regs[r.0 as usize], v)?;
    }
    for &at in &sa.step_replay {
        fc.inst_at(at)?;
    }
    if ahead {
        for &(r, ty, step) in &sa.inductions {
            let v = fc.read(Operand::Reg(r), ty)?;
            let s = fc.read(step, ty)?;
            let by = fc.b.build_int_mul(s, v.get_type().const_int(STEPS_AHEAD, false), "")?;
            fc.write(r, fc.b.build_int_add(v, by, "ahead")?, ty)?;
        }
    }
    for &at in &sa.replay {
        fc.inst_at(at)?;
    }
    Ok(())
}

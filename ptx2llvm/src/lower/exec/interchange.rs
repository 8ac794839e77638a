//! Loop interchange for loops whose trip count depends on the thread (grid-stride loops).
//!
//! A region's thread loop runs each thread to its next sync point before the next thread
//! starts. For `for (i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x)`
//! that means one thread's whole loop after another's: consecutive threads read addresses a
//! grid apart, every cache line is fetched once per thread that touches it, and nothing
//! vectorizes across threads. This module turns the thread-outer order into an
//! iteration-outer one: "while any thread is still in the loop, run one iteration of every
//! thread that is".
//!
//! How. The loop's header and its exit blocks become *resume points*. A thread whose
//! control flow reaches a resume point (entering the loop, taking the back edge, or leaving
//! the loop) *parks*: it saves its per-thread live registers in the context area, records
//! the point in its `wait` word and the block function counts it; the thread loop moves on
//! to the next thread. After each thread loop the block function's *dispatcher* runs the
//! first point (in a fixed order: each loop's header, then its exits) with parked threads:
//! one thread loop over them that reloads their registers and continues at the point, over
//! every thread without a test when the whole block waits there (the common case), else
//! over the threads whose `wait` word names the point. A pass of the header point is
//! exactly one iteration of every thread still in the loop. When no thread is parked any
//! more, the block function goes on as before (to the runtime's scheduler, or done). This
//! happens entirely in the generated code: no runtime call per iteration. It is valid
//! because the loop contains no sync point, so the threads of the block may interleave in
//! any order there; the threads keep their own control flow (different trip counts,
//! including zero, and `exit` are fine).
//!
//! What is saved. Following "recompute, don't save" (values read back from the context
//! area defeat vectorization: "cannot identify array bounds"), a live register is not
//! saved when its value is a pure function of the thread and block indices: it has one
//! unguarded definition that dominates the point, computed from immediates, parameters,
//! `%tid`/`%ntid`/`%ctaid`/`%nctaid` and registers of the same kind (`recompute`). The
//! resume code replays those definitions instead. The induction register itself has two definitions;
//! at the header it is recomputed as `start(tid) + j * stride`, where `j` is the pass
//! counter of the loop: every thread parked at the header entered the loop before the
//! first pass (nothing outside the loop runs between its passes, and the loop is in no
//! outer cycle) and advanced once per pass. So the dense pass of a grid-stride loop loads
//! `in[start(tid) + j * stride]`, unit-stride in the thread index, and its only context
//! traffic is the per-thread accumulator and the wait word.
//!
//! Which loops: in kernels, natural loops that form a whole strongly connected component
//! once the edges out of sync points are cut (not nested in another cycle, except one
//! through a barrier: an n-body tile loop inside the loop over tiles), contain no sync
//! point and no call, and have a counter `i` stepped inside as `add i, i, s` with a
//! block-uniform `s` (executed exactly once per iteration), with an exit branch on
//! `setp i, bound` against a block-uniform `bound`. Where `i` is defined once outside the
//! loop, recomputably as above (dominating the header), it is the induction recomputed
//! from the pass number; otherwise (several definitions before the loop, as after an
//! unrolled loop's remainder loop, or a start read from memory) it is saved per thread like
//! any other register (`Counter::Saved`). The start is thread-dependent (a
//! grid-stride loop), or uniform: then every thread runs the same passes, and the pass
//! loops vectorize across the threads what each thread ran as a scalar loop (registers
//! uniform over the block are read once per dense pass, `ContextLayout::pass_uniform`);
//! uniform loops of a small constant trip count are left to LLVM's full unrolling.

use crate::ir::cfg::Cfg;
use crate::ir::{self, BlockId, Op, Operand, RegId, ScalarType, SpecialReg, Terminator};
use crate::lower::exec::guards;
use crate::lower::exec::kernel::{self, ContextLayout, Filter, RegionSel};
use crate::lower::exec::recompute::{chain_reads_tid, recomputable_op, Defs};
use crate::lower::exec::regions::Regions;
use crate::lower::thread::FnCx;
use crate::lower::R;
use inkwell::basic_block::BasicBlock;
use inkwell::values::{IntValue, PointerValue};
use inkwell::IntPredicate as P;
use std::collections::{BTreeSet, HashMap};

/// Bytes of a thread's wait word: the point it is parked at plus one, or 0. One byte: a
/// dense pass writes every thread's word (a fused grid-stride pass over 256 blocks, 64 KB
/// instead of 256), and a kernel has at most `MAX_POINTS` points.
pub const WAIT_BYTES: u32 = 1;

/// The most interchange points of a kernel (each wait word names one, or none, in a byte).
const MAX_POINTS: usize = 254;

/// A block where threads park until the dispatcher runs them on together.
#[derive(Debug)]
pub struct Point {
    pub block: BlockId,
    /// The loop this point belongs to (its header or one of its exits).
    pub loop_index: usize,
    pub is_header: bool,
    /// Instructions `(block, index)` that recompute the thread-affine registers live here,
    /// in execution order.
    pub replay: Vec<(BlockId, usize)>,
}

/// `i = start + j * stride` at the start of iteration `j`.
#[derive(Debug)]
pub struct Induction {
    pub reg: RegId,
    /// The type of the `add` (the register's width).
    pub ty: ScalarType,
    pub stride: Operand,
    /// The start is `tid.x + u` in 32 bits, `u` the same for every thread (the grid-stride
    /// `blockIdx.x * blockDim.x + threadIdx.x`), and the stride is an immediate or
    /// replayed: a dense pass then computes the induction without wrapping where a check
    /// per pass allows it (`pass_without_wrap`).
    pub tid_x_plus_uniform: bool,
}

#[derive(Debug)]
pub struct Loop {
    pub header: BlockId,
    /// Membership of each IR block.
    pub body: Vec<bool>,
    /// Per-thread registers saved at every park at this loop's points and reloaded at every
    /// resume (the same set on every edge keeps the stores unconditional).
    pub saved: Vec<RegId>,
    /// Registers some instruction of the body defines: the others still hold, at a park
    /// from inside the body, the values the header's resume reloaded from their slots.
    pub written: BTreeSet<RegId>,
    /// The induction recomputed at the header (`None`: the loop's counter is saved).
    pub induction: Option<Induction>,
    /// What a dense pass of the header prefetches for a later pass.
    pub prefetch: Prefetch,
}

/// Loads of a loop's body whose addresses follow from the induction (`find_prefetch`):
/// before a dense pass of the header, the block function computes them for the pass
/// `PREFETCH_PASSES` later and prefetches them (see `emit_prefetch`).
#[derive(Debug)]
pub struct Prefetch {
    /// The body's instructions that compute the addresses, in execution order.
    pub slice: Vec<(BlockId, usize)>,
    /// The loads (global or generic).
    pub loads: Vec<(ir::StateSpace, ir::Address)>,
    /// Registers the slice and the loads read.
    pub reads: BTreeSet<RegId>,
    /// Threads per prefetch: a cache line of the loads' smallest per-thread access (where
    /// consecutive threads read consecutive elements, one prefetch per line).
    pub thread_step: u32,
}

/// How control reaches an interchange point, which decides what a park there stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Entering the point's loop at its header: every saved register, and the loop's
    /// passes count from here.
    Entering,
    /// From inside the point's own loop (a back edge or an exit): the body's code only
    /// runs after a resume at the header, which reloaded every saved register, so only
    /// those the body writes (`Loop::written`) can differ from their slots.
    FromBody,
    /// Reaching an exit point from elsewhere (code skipping the loop, another loop's
    /// body): every saved register.
    Elsewhere,
}

/// The interchanged loops of a kernel.
#[derive(Debug)]
pub struct Plan {
    pub loops: Vec<Loop>,
    pub points: Vec<Point>,
}

impl Prefetch {
    fn none() -> Self {
        Prefetch { slice: vec![], loads: vec![], reads: BTreeSet::new(), thread_step: crate::lower::exec::prefetch::LINE_BYTES }
    }
}

impl Plan {
    pub fn point_at(&self, b: BlockId) -> Option<usize> {
        self.points.iter().position(|p| p.block == b)
    }

    /// How control reaching point `q` from block `from` (`None`: a region's start) arrives.
    pub fn arrival(&self, q: usize, from: Option<BlockId>) -> Arrival {
        let point = &self.points[q];
        let in_body = from.is_some_and(|b| self.loops[point.loop_index].body[b.0 as usize]);
        match (in_body, point.is_header) {
            (true, _) => Arrival::FromBody,
            (false, true) => Arrival::Entering,
            (false, false) => Arrival::Elsewhere,
        }
    }

    /// Every register some loop saves per thread.
    pub fn saved_regs(&self) -> BTreeSet<RegId> {
        self.loops.iter().flat_map(|l| l.saved.iter().copied()).collect()
    }
}

/// The plan and the block function's per-block bookkeeping.
pub struct State<'ctx> {
    pub plan: Plan,
    /// Per point: how many threads are parked there (an `i32` alloca).
    counts: Vec<PointerValue<'ctx>>,
    /// Per loop: passes of its header since the threads entered (`j`, an `i32` alloca).
    passes: Vec<PointerValue<'ctx>>,
    /// While the dense pass of a header point is emitted: the pass's `u + j * stride`, if
    /// `pass_without_wrap` checked it (the pass then adds `tid.x` to it with `nsw`).
    dense_base: std::cell::Cell<Option<IntValue<'ctx>>>,
}

impl<'ctx> State<'ctx> {
    /// Allocates the counters at the current position (the block function's entry) and
    /// clears the `wait` words (the context area is reused across blocks).
    pub fn new(fc: &FnCx<'ctx, '_>, wait_prefix: u64, plan: Plan) -> R<Self> {
        let i32t = fc.cx.i32_type();
        let alloca = |name: &str| -> R<PointerValue<'ctx>> {
            let p = fc.b.build_alloca(i32t, name)?;
            fc.b.build_store(p, i32t.const_zero())?;
            Ok(p)
        };
        let counts = (0..plan.points.len()).map(|i| alloca(&format!("ix.parked{i}"))).collect::<R<Vec<_>>>()?;
        let passes = (0..plan.loops.len()).map(|i| alloca(&format!("ix.pass{i}"))).collect::<R<Vec<_>>>()?;
        let wait = kernel::context_elem(fc, wait_prefix, WAIT_BYTES, i32t.const_zero())?;
        let bytes = fc.b.build_int_mul(fc.b.build_int_z_extend(fc.uni.nthreads, fc.cx.i64_type(), "")?, fc.i64(u64::from(WAIT_BYTES)), "")?;
        fc.b.build_memset(wait, 1, fc.cx.i8_type().const_zero(), bytes).map_err(|e| crate::lower::LowerError::Internal(e.to_string()))?;
        Ok(State { plan, counts, passes, dense_base: std::cell::Cell::new(None) })
    }
}

/// Finds the loops of kernel `f` to interchange; `None` if there are none.
///
/// `large`: the kernel is large (`kernel::LARGE_KERNEL`): its block function gets LLVM's
/// scalar pipeline at -O1/-O2, where passes do not vectorize, so only loops whose threads
/// walk memory apart (a thread-dependent recomputed induction: grid-stride loops, whose
/// passes read memory in order) are interchanged, not uniform loops or loops with a saved
/// counter (more code to compile for nothing: thrust's histogram file took 13% longer).
pub fn analyze(f: &ir::Function, regions: &Regions, large: bool) -> Option<Plan> {
    if f.kind != ir::FunctionKind::Entry || f.blocks.is_empty() {
        return None;
    }
    let cfg = Cfg::new(f);
    let defs = Defs::new(f);
    let mut plan = Plan { loops: vec![], points: vec![] };
    // A cycle through a sync point is no outer cycle here: every thread leaves the loop
    // before any reaches the sync point (the dispatcher runs the passes to the end first),
    // so a thread enters the loop again only in a later region, with the passes counted
    // from 0 again.
    let components = cfg.components_without(|b| matches!(f.blocks[b].term, Terminator::Sync { .. }));
    for h in 0..f.blocks.len() {
        let Some(body) = cfg.natural_loop_in(h, &components) else { continue };
        let Some(counter) = find_counter(f, &cfg, &defs, h, &body, large) else { continue };
        let (mut induction, start_def) = match counter {
            Counter::Recomputed(ind, def) => (Some(ind), Some(def)),
            Counter::Saved => (None, None),
        };
        let loop_index = plan.loops.len();
        let mut blocks = vec![h];
        for (b, inside) in body.iter().enumerate() {
            if *inside {
                for s in &cfg.succs[b] {
                    if !body[*s] && !blocks.contains(s) {
                        blocks.push(*s);
                    }
                }
            }
        }
        // Loops keep to themselves: no point of one inside another, no header shared. (Two
        // loops may leave to the same block: it stays the first loop's point.)
        let in_other_loop = |b: usize| plan.loops.iter().any(|l| l.body[b]);
        let is_point = |b: usize| plan.points.iter().any(|p| p.block.0 as usize == b);
        if (0..body.len()).any(|b| body[b] && is_point(b))
            || in_other_loop(h)
            || blocks[1..].iter().any(|&x| in_other_loop(x) || plan.loops.iter().any(|l| l.header.0 as usize == x))
        {
            continue;
        }
        let mut saved = BTreeSet::new();
        let mut points = vec![];
        let mut consistent = true;
        for (k, &b) in blocks.iter().enumerate() {
            if plan.point_at(BlockId(b as u32)).is_some() {
                continue; // already a point of an earlier loop (its exit, say)
            }
            let is_header = k == 0;
            let mut replay = BTreeSet::new();
            let mut recomputed = vec![];
            for &r in &regions.live_in[b] {
                let def = defs.single(r).filter(|&(db, _)| db != b && cfg.dominates(db, b));
                let recompute = def.is_some() && defs.recomputable(f, &cfg, r, &mut replay, 0);
                if let (true, Some(def)) = (recompute, def) {
                    recomputed.push((r, def));
                } else if !(is_header && induction.as_ref().is_some_and(|i| i.reg == r)) {
                    saved.insert(r);
                }
            }
            if let (true, Some((db, di))) = (is_header, start_def) {
                // The induction's start value: its definition before the loop, replayed.
                let mut uses = vec![];
                crate::ir::visit::uses(&f.blocks[db].insts[di].op, &mut uses);
                for r in uses {
                    if let Some(def) = defs.reaching_only(&cfg, r, db, di) {
                        defs.recomputable_def(f, &cfg, def, &mut replay, 0);
                    }
                }
                replay.insert((cfg.rpo_index[db], db, di));
            }
            consistent &= defs.replay_consistent(f, &cfg, &replay, &recomputed);
            let replay: Vec<(BlockId, usize)> = replay.into_iter().map(|(_, b, i)| (BlockId(b as u32), i)).collect();
            if let (true, Some(ind)) = (is_header, induction.as_mut()) {
                let replayed = |r: RegId| {
                    replay.iter().any(|&(b, i)| {
                        let mut d = vec![];
                        crate::ir::visit::defs(&f.blocks[b.0 as usize].insts[i].op, &mut d);
                        d.contains(&r)
                    })
                };
                let stride_known = match ind.stride {
                    Operand::Imm(_) | Operand::Special(SpecialReg::Ntid(_) | SpecialReg::Nctaid(_) | SpecialReg::Ctaid(_)) => true,
                    Operand::Reg(r) => replayed(r),
                    _ => false,
                };
                ind.tid_x_plus_uniform = stride_known && guards::replayed_as_tid_x_plus_uniform(f, &replay, ind.reg);
            }
            points.push(Point { block: BlockId(b as u32), loop_index, is_header, replay });
        }
        if !consistent || plan.points.len() + points.len() > MAX_POINTS {
            continue;
        }
        plan.points.extend(points);
        let written = (0..f.regs.len()).filter(|&r| defs.sites[r].iter().any(|(b, _, _)| body[*b])).map(|r| RegId(r as u32)).collect();
        let prefetch = induction.as_ref().map(|i| find_prefetch(f, &cfg, &defs, &body, i.reg)).unwrap_or_else(Prefetch::none);
        plan.loops.push(Loop { header: BlockId(h as u32), body, saved: saved.into_iter().collect(), written, induction, prefetch });
    }
    (!plan.loops.is_empty()).then_some(plan)
}

/// Uniform loops of at most this many passes (a constant) are left to LLVM's unrolling.
const UNROLLED_TRIPS: u64 = 32;

/// At most this many loads of a loop are prefetched.
const MAX_PREFETCHED_LOADS: usize = 4;

/// The loads of loop `body` (global or generic, not volatile, not ordered) whose address
/// register the body computes from the induction `ind` with pure instructions (`Prefetch`).
fn find_prefetch(f: &ir::Function, cfg: &Cfg, defs: &Defs, body: &[bool], ind: RegId) -> Prefetch {
    let mut out = Prefetch::none();
    let mut slice = BTreeSet::new();
    for (b, inside) in body.iter().enumerate() {
        if !inside || out.loads.len() == MAX_PREFETCHED_LOADS {
            continue;
        }
        for (i, inst) in f.blocks[b].insts.iter().enumerate() {
            let Op::Load { space: space @ (ir::StateSpace::Global | ir::StateSpace::Generic), ty, volatile: false, order: None, addr, dst } = &inst.op else {
                continue;
            };
            let ir::AddressBase::Reg(r) = addr.base else { continue };
            let mut chain = BTreeSet::new();
            if out.loads.len() < MAX_PREFETCHED_LOADS && address_slice(f, cfg, defs, body, ind, r, (b, i), &mut chain, 0) == Some(true) {
                out.thread_step = out.thread_step.min(crate::lower::exec::prefetch::threads_per_line(*ty, dst.len()));
                out.reads.insert(r);
                for &(_, cb, ci) in &chain {
                    let mut uses = vec![];
                    crate::ir::visit::uses(&f.blocks[cb].insts[ci].op, &mut uses);
                    out.reads.extend(uses);
                }
                slice.extend(chain);
                out.loads.push((*space, *addr));
            }
        }
    }
    out.slice = slice.into_iter().map(|(_, b, i)| (BlockId(b as u32), i)).collect();
    out
}

/// How register `r`, read by instruction `at` of the loop body, gets its value in an
/// iteration: `Some(true)` when the body computes it from the induction `ind` (adding the
/// instructions to `chain`), `Some(false)` when the body does not define it (the value the
/// header's resume restores), `None` otherwise (a guarded or impure definition, several
/// definitions in the body, or one that may not have run yet in this iteration).
#[allow(clippy::too_many_arguments)]
fn address_slice(
    f: &ir::Function,
    cfg: &Cfg,
    defs: &Defs,
    body: &[bool],
    ind: RegId,
    r: RegId,
    at: (usize, usize),
    chain: &mut BTreeSet<(usize, usize, usize)>,
    depth: u32,
) -> Option<bool> {
    if r == ind {
        return Some(true);
    }
    let inside: Vec<&(usize, usize, bool)> = defs.sites.get(r.0 as usize)?.iter().filter(|(b, _, _)| body[*b]).collect();
    let &[&(db, di, guarded)] = &inside[..] else { return inside.is_empty().then_some(false) };
    // A definition that dominates the use runs earlier in the same iteration (the body is
    // entered through the header only).
    let before = if db == at.0 { di < at.1 } else { cfg.dominates(db, at.0) };
    if guarded || depth > 16 || !before || di >= f.blocks[db].insts.len() || !recomputable_op(&f.blocks[db].insts[di].op) {
        return None;
    }
    let mut uses = vec![];
    crate::ir::visit::uses(&f.blocks[db].insts[di].op, &mut uses);
    let mut from_induction = false;
    for u in uses {
        from_induction |= address_slice(f, cfg, defs, body, ind, u, (db, di), chain, depth + 1)?;
    }
    chain.insert((cfg.rpo_index[db], db, di));
    Some(from_induction)
}

/// How a loop's passes are counted (`find_counter`).
enum Counter {
    /// An induction recomputed at the header from the pass number, with its start value's
    /// definition before the loop (replayed).
    Recomputed(Induction, (usize, usize)),
    /// A counter stepped once per pass whose start the resume cannot recompute (several
    /// definitions before the loop, as in an unrolled loop after its remainder loop, or a
    /// value read from memory): kept per thread like the other registers.
    Saved,
}

/// The counter of loop `h`: a register stepped once per iteration by a block-uniform
/// amount (`add i, i, s`) and compared against a block-uniform bound by an exit branch.
/// A recomputable one is preferred.
fn find_counter(f: &ir::Function, cfg: &Cfg, defs: &Defs, h: usize, body: &[bool], thread_dependent_only: bool) -> Option<Counter> {
    let mut has_exit_branch = vec![];
    for (b, inside) in body.iter().enumerate() {
        if !inside {
            continue;
        }
        let block = &f.blocks[b];
        match &block.term {
            Terminator::Sync { .. } | Terminator::Return => return None,
            Terminator::Branch { cond, then_, else_ } if !body[then_.0 as usize] || !body[else_.0 as usize] => has_exit_branch.push(cond.reg),
            _ => {}
        }
        if block.insts.iter().any(|i| matches!(i.op, Op::Call { .. })) {
            return None;
        }
    }
    let latches: Vec<usize> = cfg.preds[h].iter().copied().filter(|p| body[*p]).collect();
    let uniform = |o: &Operand| match o {
        Operand::Imm(_) => true,
        Operand::Special(s) => matches!(s, SpecialReg::Ntid(_) | SpecialReg::Nctaid(_) | SpecialReg::Ctaid(_)),
        Operand::Reg(r) => defs.uniform_at(f, cfg, *r, h),
        _ => false,
    };
    let mut saved = false;
    for (r, sites) in defs.sites.iter().enumerate() {
        let reg = RegId(r as u32);
        // One unguarded definition inside the loop (the step), unguarded ones before it.
        let (inside, outside): (Vec<_>, Vec<_>) = sites.iter().copied().partition(|s| body[s.0]);
        let &[(ib, ii, false)] = &inside[..] else { continue };
        if outside.is_empty() || outside.iter().any(|&(_, _, guarded)| guarded) {
            continue;
        }
        let Op::IntBinary { op: ir::IntBinOp::Add, ty, sat: false, dst, a: x, b: y } = &f.blocks[ib].insts[ii].op else { continue };
        let stride = match (x, y) {
            (Operand::Reg(x), s) if *x == reg => *s,
            (s, Operand::Reg(y)) if *y == reg => *s,
            _ => continue,
        };
        if *dst != reg || ty.bits() != f.regs[r].ty.bits() || !uniform(&stride) {
            continue;
        }
        // Exactly once per iteration.
        if !latches.iter().all(|l| cfg.dominates(ib, *l)) || cfg.in_inner_cycle(ib, h, body) {
            continue;
        }
        // An exit branch on `setp i, bound` (either order) with a uniform bound.
        let bound = has_exit_branch.iter().find_map(|p| {
            let (pb, pi) = defs.single(*p)?;
            let Op::Setp { a, b, combine: None, .. } = &f.blocks[pb].insts[pi].op else { return None };
            if !body[pb] {
                return None;
            }
            match (a, b) {
                (Operand::Reg(x), bound) if *x == reg && uniform(bound) => Some(*bound),
                (bound, Operand::Reg(y)) if *y == reg && uniform(bound) => Some(*bound),
                _ => None,
            }
        });
        let Some(bound) = bound else { continue };
        // The start value, recomputable before the loop; else the counter is saved.
        let &[(ob, oi, _)] = &outside[..] else {
            saved = true;
            continue;
        };
        if ob == h || !cfg.dominates(ob, h) {
            saved = true;
            continue;
        }
        let init = &f.blocks[ob].insts[oi];
        let mut dsts = vec![];
        crate::ir::visit::defs(&init.op, &mut dsts);
        let mut chain = BTreeSet::new();
        let mut ok = dsts == [reg] && recomputable_op(&init.op);
        if ok {
            let mut uses = vec![];
            crate::ir::visit::uses(&init.op, &mut uses);
            crate::ir::visit::for_each_operand(&init.op, &mut |o| {
                ok &= !matches!(o, Operand::Special(s) if !matches!(s, SpecialReg::Tid(_) | SpecialReg::Ntid(_) | SpecialReg::Ctaid(_) | SpecialReg::Nctaid(_)))
            });
            for u in uses {
                // The operand's value there comes from one definition (the register may be
                // redefined elsewhere, e.g. `%tid.x` copied into a register a later loop steps).
                ok &= defs.reaching_only(cfg, u, ob, oi).is_some_and(|def| defs.recomputable_def(f, cfg, def, &mut chain, 0));
            }
            chain.insert((cfg.rpo_index[ob], ob, oi));
        }
        if !ok {
            saved = true;
            continue;
        }
        // A loop that every thread runs the same number of times is worth interchanging
        // too (its passes vectorize across the threads: an n-body tile loop), unless that
        // number is a small constant: LLVM unrolls such a loop completely, and the thread
        // loop around the straight code vectorizes without the per-pass context traffic.
        if !chain_reads_tid(f, &chain) {
            if thread_dependent_only {
                continue;
            }
            let trips = match (&init.op, stride, bound) {
                (Op::Mov { src: Operand::Imm(s), .. }, Operand::Imm(d), Operand::Imm(e)) => {
                    let signed = |v: u64| (v << (64 - ty.bits())) as i64 >> (64 - ty.bits());
                    let d = signed(d);
                    (d != 0).then(|| (signed(e).wrapping_sub(signed(*s)) / d).unsigned_abs())
                }
                _ => None,
            };
            if trips.is_some_and(|n| n <= UNROLLED_TRIPS) {
                continue;
            }
        }
        return Some(Counter::Recomputed(Induction { reg, ty: *ty, stride, tid_x_plus_uniform: false }, (ob, oi)));
    }
    (saved && !thread_dependent_only).then_some(Counter::Saved)
}

/// The thread's code when control reaches point `q` (arriving as `arrival` says): save
/// its registers, count it at the point. Returns the thread's wait word (`q + 1`), which
/// the caller stores where the ways a run ends join, then goes on to the next thread.
pub(crate) fn emit_park<'ctx>(fc: &FnCx<'ctx, '_>, layout: &ContextLayout<'ctx>, q: usize, arrival: Arrival, lin: IntValue<'ctx>) -> R<u64> {
    let st = layout.interchange.as_ref().expect("a point implies a plan");
    let point = &st.plan.points[q];
    let lp = &st.plan.loops[point.loop_index];
    let i32t = fc.cx.i32_type();
    if arrival != Arrival::FromBody {
        store_saved(fc, layout, lp.saved.iter(), lin)?;
    }
    let c = fc.b.build_load(i32t, st.counts[q], "")?.into_int_value();
    fc.b.build_store(st.counts[q], fc.b.build_int_add(c, i32t.const_int(1, false), "")?)?;
    if arrival == Arrival::Entering {
        // Entering the loop: its passes count from here.
        fc.b.build_store(st.passes[point.loop_index], i32t.const_zero())?;
    }
    Ok(q as u64 + 1)
}

/// What every park from inside loop `l`'s body stores (`Arrival::FromBody`; `emit_park`
/// leaves it to the caller, which emits it once for all of them): the saved registers
/// the body writes.
pub(crate) fn emit_body_park_stores<'ctx>(fc: &FnCx<'ctx, '_>, layout: &ContextLayout<'ctx>, l: usize, lin: IntValue<'ctx>) -> R<()> {
    let lp = &layout.interchange.as_ref().expect("a loop implies a plan").plan.loops[l];
    store_saved(fc, layout, lp.saved.iter().filter(|r| lp.written.contains(r)), lin)
}

fn store_saved<'ctx, 'r>(fc: &FnCx<'ctx, '_>, layout: &ContextLayout<'ctx>, regs: impl Iterator<Item = &'r RegId>, lin: IntValue<'ctx>) -> R<()> {
    for r in regs {
        let (prefix, size) = layout.slots[r];
        let v = fc.load_reg(*r)?;
        let v = fc.resize(v, size * 8, false)?;
        kernel::store_context(fc, layout, prefix, v, lin)?;
    }
    Ok(())
}

/// The start of a thread's run from point `q`: the recomputed registers, its saved ones
/// (after the replay, which may overwrite them: see `recompute`), and at a header the
/// induction register of this pass. `preloaded`: saved registers already read for every
/// thread of the pass (`ContextLayout::pass_uniform`).
pub(crate) fn emit_resume<'ctx>(
    fc: &mut FnCx<'ctx, '_>,
    layout: &ContextLayout<'ctx>,
    q: usize,
    lin: IntValue<'ctx>,
    preloaded: &HashMap<RegId, IntValue<'ctx>>,
    dense: bool,
) -> R<()> {
    // (Its wait word is written once where the run ends: its next park's point, or 0 at a
    // sync point or exit; see `kernel::emit_region_loop`.)
    restore(fc, layout, q, lin, |_| true, preloaded, 0, dense)
}

/// Thread `lin`'s registers at point `q` as a resume there sets them: the replayed ones,
/// the saved ones that `reload` selects (after the replay, which may overwrite them: see
/// `recompute`), and at a header the induction of the pass `ahead` passes after the
/// current one. `dense`: in a dense pass, which runs only where `pass_without_wrap` holds.
#[allow(clippy::too_many_arguments)]
fn restore<'ctx>(
    fc: &mut FnCx<'ctx, '_>,
    layout: &ContextLayout<'ctx>,
    q: usize,
    lin: IntValue<'ctx>,
    reload: impl Fn(&RegId) -> bool,
    preloaded: &HashMap<RegId, IntValue<'ctx>>,
    ahead: u64,
    dense: bool,
) -> R<()> {
    let st = layout.interchange.as_ref().expect("a point implies a plan");
    let point = &st.plan.points[q];
    let lp = &st.plan.loops[point.loop_index];
    let i32t = fc.cx.i32_type();
    for &at in &point.replay {
        fc.inst_at(at)?;
    }
    // The induction's start value as replayed, before the reloads.
    let start = match (&lp.induction, point.is_header) {
        (Some(ind), true) => Some((ind, fc.read(Operand::Reg(ind.reg), ind.ty)?)),
        _ => None,
    };
    for r in lp.saved.iter().filter(|r| reload(r)) {
        let v = match preloaded.get(r) {
            Some(v) => *v,
            None => {
                let (prefix, size) = layout.slots[r];
                kernel::load_context(fc, layout, prefix, size, lin, "")?
            }
        };
        let v = fc.resize(v, fc.f.regs[r.0 as usize].ty.bits(), false)?;
        fc.b.build_store(fc.regs[r.0 as usize], v)?;
    }
    if let Some((ind, start)) = start {
        let bits = ind.ty.bits();
        let stride = fc.read(ind.stride, ind.ty)?;
        let j = fc.b.build_load(i32t, st.passes[point.loop_index], "ix.j")?.into_int_value();
        let j = if ahead == 0 { j } else { fc.b.build_int_add(j, i32t.const_int(ahead, false), "")? };
        let j = fc.resize(j, bits, false)?;
        let v = match st.dense_base.get().filter(|_| dense) {
            // `start = tid.x + u`: the pass's `u + j * stride`, plus `tid.x` without wrap.
            Some(base) => fc.b.build_int_nsw_add(base, fc.special(SpecialReg::Tid(ir::Dim::X))?, "ix.i")?,
            None => fc.b.build_int_add(start, fc.b.build_int_mul(j, stride, "")?, "ix.i")?,
        };
        fc.write(ind.reg, v, ind.ty)?;
    }
    Ok(())
}

/// The dispatcher that runs parked threads on (see the module documentation); control
/// continues at `after` once no thread is parked. Without a plan: `after` itself.
pub(crate) fn emit_dispatch<'ctx>(fc: &mut FnCx<'ctx, '_>, regions: &Regions, layout: &ContextLayout<'ctx>, after: BasicBlock<'ctx>) -> R<BasicBlock<'ctx>> {
    let Some(st) = &layout.interchange else { return Ok(after) };
    let i32t = fc.cx.i32_type();
    let n = st.plan.points.len();
    let checks: Vec<BasicBlock<'ctx>> = (0..n).map(|q| fc.new_block(&format!("ix.check{q}"))).collect();
    for q in 0..n {
        let run = fc.new_block(&format!("ix.run{q}"));
        let next_pass = fc.new_block(&format!("ix.passed{q}"));
        fc.b.position_at_end(run);
        let no_wrap = pass_without_wrap(fc, layout, q)?;
        st.dense_base.set(no_wrap.map(|(_, base)| base));
        let dense = kernel::emit_region_loop(fc, regions, layout, RegionSel::Point(q), Filter::All, kernel::States::Written, None, next_pass)?;
        st.dense_base.set(None);
        let dense = emit_prefetch(fc, layout, q, dense)?;
        let waiting = kernel::emit_region_loop(fc, regions, layout, RegionSel::Point(q), Filter::Waiting(q), kernel::States::Written, None, next_pass)?;
        let b = &fc.b;
        b.position_at_end(checks[q]);
        let parked = b.build_load(i32t, st.counts[q], "parked")?.into_int_value();
        let any = b.build_int_compare(P::NE, parked, i32t.const_zero(), "")?;
        b.build_conditional_branch(any, run, checks.get(q + 1).copied().unwrap_or(after))?;
        b.position_at_end(run);
        b.build_store(st.counts[q], i32t.const_zero())?;
        let mut all = b.build_int_compare(P::EQ, parked, fc.uni.nthreads, "")?;
        if let Some((no_wrap, _)) = no_wrap {
            all = b.build_and(all, no_wrap, "")?;
        }
        b.build_conditional_branch(all, dense, waiting)?;
        b.position_at_end(next_pass);
        let point = &st.plan.points[q];
        if point.is_header {
            let p = st.passes[point.loop_index];
            let j = b.build_load(i32t, p, "")?.into_int_value();
            b.build_store(p, b.build_int_add(j, i32t.const_int(1, false), "")?)?;
        }
        b.build_unconditional_branch(checks[0])?;
    }
    Ok(checks[0])
}

/// For header point `q` of a loop whose induction is `tid.x + u` (`Induction::
/// tid_x_plus_uniform`): whether, in the coming pass `j`, `u + j * stride + tid.x` does not
/// wrap in 32 bits for any thread (`tid.x < x_extent`), i.e. `u + j * stride <= i32::MAX -
/// (x_extent - 1)`, and `u + j * stride`. Where it holds, the dense pass adds `tid.x` to
/// that with `nsw`: the 64-bit addresses computed from the induction are then affine in the
/// thread loop's index, with no sign extension per thread (a grid-stride histogram's pass:
/// 12.7 -> 9.8 ms); where it does not, the pass runs as a `Filter::Waiting` one. `u` is the
/// start replayed with the thread indices at 0, emitted at the builder's position.
fn pass_without_wrap<'ctx>(fc: &mut FnCx<'ctx, '_>, layout: &ContextLayout<'ctx>, q: usize) -> R<Option<(IntValue<'ctx>, IntValue<'ctx>)>> {
    let st = layout.interchange.as_ref().expect("a point implies a plan");
    let point = &st.plan.points[q];
    let Some(ind) = st.plan.loops[point.loop_index].induction.as_ref().filter(|i| point.is_header && i.tid_x_plus_uniform) else {
        return Ok(None);
    };
    let i32t = fc.cx.i32_type();
    fc.thread = Some(crate::lower::thread::Thread::first(fc.cx));
    for &at in &point.replay {
        fc.inst_at(at)?;
    }
    let u = fc.read(Operand::Reg(ind.reg), ind.ty)?;
    let stride = fc.read(ind.stride, ind.ty)?;
    fc.thread = None;
    let j = fc.b.build_load(i32t, st.passes[point.loop_index], "ix.j")?.into_int_value();
    let base = fc.b.build_int_add(u, fc.b.build_int_mul(j, stride, "")?, "")?;
    let last = fc.b.build_int_sub(fc.uni.x_extent, i32t.const_int(1, false), "")?;
    let limit = fc.b.build_int_sub(i32t.const_int(i32::MAX as u64, false), last, "")?;
    Ok(Some((fc.b.build_int_compare(P::SLE, base, limit, "ix.no_wrap")?, base)))
}

/// How many passes ahead a dense pass prefetches. A block's pass over its threads reads a
/// short stretch of each array (a grid apart from the pass before), too short for the
/// hardware prefetcher to pick up: measured on a grid-stride sum of 1024 blocks of 256
/// threads, prefetching two passes ahead took a pass loop from 17 to 9.5 ms (one pass
/// ahead: 12.5 ms, four: 9.2 ms); on a Zen 5 core, with one prefetch per cache line, the
/// whole kernel took 4.0 ms two passes ahead, 3.7 four, 3.2 eight and twelve.
const PREFETCH_PASSES: u64 = 8;

/// Before a dense pass of header point `q` (which starts at `dense`): for every
/// `Prefetch::thread_step`th thread, the addresses its loads (`Prefetch`) will read
/// `PREFETCH_PASSES` passes later, prefetched (`prefetch::emit_thread_walk`). Returns the
/// block to run instead of `dense`.
fn emit_prefetch<'ctx>(fc: &mut FnCx<'ctx, '_>, layout: &ContextLayout<'ctx>, q: usize, dense: BasicBlock<'ctx>) -> R<BasicBlock<'ctx>> {
    let st = layout.interchange.as_ref().expect("a point implies a plan");
    let point = &st.plan.points[q];
    let lp = &st.plan.loops[point.loop_index];
    if !point.is_header || lp.prefetch.loads.is_empty() {
        return Ok(dense);
    }
    crate::lower::exec::prefetch::emit_thread_walk(fc, &format!("ix.prefetch{q}"), lp.prefetch.thread_step, dense, |fc, tv| {
        // Its registers at the header as a resume there sets them, the induction
        // `PREFETCH_PASSES` passes on; then the addresses from it.
        let reads = &lp.prefetch.reads;
        restore(fc, layout, q, tv, |r| reads.contains(r), &HashMap::new(), PREFETCH_PASSES, false)?;
        for &at in &lp.prefetch.slice {
            fc.inst_at(at)?;
        }
        for &(space, addr) in &lp.prefetch.loads {
            fc.prefetch(space, addr, false)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the kernel's grid-stride loop (`start` computes %r8 from %r7 = ctaid.x *
    /// ntid.x + tid.x; stride `nctaid.x * ntid.x`) is interchanged with an induction whose
    /// start is `tid.x + u`.
    fn start_is_tid_x_plus_uniform(start: &str, width: u32) -> Option<bool> {
        let (f, _) = crate::ir::test_kernel(&format!(
            ".reg .pred %p<3>; .reg .b32 %r<12>; .reg .b64 %rd<12>; .reg .f32 %f<3>;
             ld.param.u64 %rd1, [p];
             mov.u32 %r2, %ntid.x;
             mov.u32 %r3, %ctaid.x;
             mov.u32 %r4, %tid.x;
             mov.u32 %r5, %tid.y;
             ld.param.u32 %r6, [p+8];
             mad.lo.s32 %r7, %r3, %r2, %r4;
             {start}
             mov.u32 %r9, %nctaid.x;
             mul.lo.s32 %r10, %r9, %r2;
             cvt.s64.s32 %rd9, %r10;
             mov.f32 %f1, 0f00000000;
             setp.ge.s{width} %p1, %{i}, 1000;
             @%p1 bra DONE;
             LOOP:
             mul.wide.s32 %rd3, %r8, 4;
             add.s64 %rd4, %rd1, %rd3;
             ld.global.f32 %f2, [%rd4];
             add.f32 %f1, %f1, %f2;
             add.s{width} %{i}, %{i}, %{stride};
             setp.lt.s{width} %p2, %{i}, 1000;
             @%p2 bra LOOP;
             DONE:
             st.global.f32 [%rd1], %f1;
             ret;",
            i = if width == 32 { "r8" } else { "rd8" },
            stride = if width == 32 { "r10" } else { "rd9" },
        ));
        let regions = crate::lower::exec::regions::analyze(&f);
        let plan = analyze(&f, &regions, false)?;
        Some(plan.loops[0].induction.as_ref()?.tid_x_plus_uniform)
    }

    #[test]
    fn grid_stride_starts_of_the_form_tid_x_plus_uniform() {
        // The global index, plus a parameter on either side, or minus one.
        assert_eq!(start_is_tid_x_plus_uniform("mov.u32 %r8, %r7;", 32), Some(true));
        assert_eq!(start_is_tid_x_plus_uniform("add.s32 %r8, %r6, %r7;", 32), Some(true));
        assert_eq!(start_is_tid_x_plus_uniform("sub.s32 %r8, %r7, %r6;", 32), Some(true));
        // Not one tid.x: scaled, negated, or with tid.y.
        assert_eq!(start_is_tid_x_plus_uniform("mul.lo.s32 %r8, %r7, 3;", 32), Some(false));
        assert_eq!(start_is_tid_x_plus_uniform("sub.s32 %r8, %r6, %r7;", 32), Some(false));
        assert_eq!(start_is_tid_x_plus_uniform("add.s32 %r8, %r7, %r5;", 32), Some(false));
        // A 64-bit induction does not wrap in 32 bits.
        assert_eq!(start_is_tid_x_plus_uniform("cvt.s64.s32 %rd8, %r7; cvt.u32.u64 %r8, %rd8;", 64), Some(false));
    }
}

//! Guards that become loop bounds.
//!
//! Most CUDA kernels start with a bounds check: `if (i < n)` or, in a stencil,
//! `if (x > 0 && y > 0 && x < w - 1 && y < h - 1)`, where `x = blockIdx.x * blockDim.x +
//! threadIdx.x`. In a thread loop that test is a per-iteration branch, which the vectorizer
//! can only handle with masked loads and stores. But the threads that pass form an
//! interval of `tid.x` (and of `tid.y`, `tid.z`): this module finds such guards in a
//! barrier-free kernel's entry block, so that the block function can compute the intervals
//! once per block and run the thread loop over them alone, with the guard known false
//! inside (`known_preds`), i.e. without masks.
//!
//! What qualifies: the entry block ends in a branch whose one side leads, without any
//! instruction, to `exit`/`ret`; the instructions before it have no side effects; and the
//! exit condition is an OR of comparisons (`setp.{lt,le,gt,ge}` on 32-bit integers, through
//! `or.pred`/`and.pred`/`not.pred` by De Morgan) of `tid.d + u` with a uniform `w` (`u`, `w`
//! computed from parameters, block indices, block sizes and immediates). Comparisons of
//! other shapes are left in the loop. `tid.d + u` wraps in 32 bits, so the block function
//! uses the intervals only when `u + ntid.d - 1` does not leave the comparison's range, and
//! otherwise runs the ordinary loop. `u - tid.d` qualifies too (compilers' strength-reduced
//! diagonals: `m - tx`), as the mirrored comparison of `tid.d`.
//!
//! Kernels with barriers get the same for a region (`analyze_region`): Rodinia's nw, lud and
//! pathfinder start the code after a barrier with `if (tx <= m)` or a band `i < tx < n - i`
//! (after the loop's latch and header, when the loop is not unrolled), the other threads
//! going on to the next barrier. There the threads that fail the guard only arrive at that
//! barrier, so the region's dense loop runs over the others alone; what the path to the
//! guard sets for every thread (a loop counter, a flag reset each step) is stored for them.

use crate::ir::visit::{defs, uses};
use crate::ir::{self, BlockId, BoolOp, CmpOp, Dim, Op, Operand, PredRef, RegId, ScalarType, SpecialReg, StateSpace, Terminator};
use crate::lower::exec::recompute::Defs;
use crate::lower::exec::regions::Regions;
use std::collections::{BTreeSet, HashMap};

/// One comparison whose outcome bounds a thread index.
#[derive(Debug, Clone)]
pub struct Bound {
    pub dim: Dim,
    /// The comparison type (32-bit, signed or unsigned).
    pub ty: ScalarType,
    /// The operand of the form `tid.dim + u` (or `u - tid.dim` if `negated`).
    pub affine: Operand,
    pub negated: bool,
    /// The uniform operand.
    pub limit: Operand,
    /// The threads that run satisfy `affine survive limit`.
    pub survive: CmpOp,
    /// The predicate the guard's `setp` writes (in `Narrowing::known_preds`).
    pub pred: RegId,
}

/// The guards of a kernel or region that the block function can turn into loop bounds.
#[derive(Debug, Clone)]
pub struct Narrowing {
    /// The blocks a thread runs from the start (the entry block, or a region's first block)
    /// to the guard's, the guard's last; each one before it that ends in a branch on a
    /// uniform predicate, with the value that stays on the path (`turns`, per block).
    pub path: Vec<BlockId>,
    pub turns: Vec<Option<(PredRef, bool)>>,
    /// What computes the bounds' operands, the uniform conditions, the turns and the fills,
    /// to be evaluated once per run with the thread indices at 0, in this order: the
    /// region's recomputing instructions (`Regions::replay`) they need, the block-uniform
    /// registers they read (thread 0's slot), then instructions of the path, in its order.
    pub replay: Vec<(BlockId, usize)>,
    pub uniform_loads: Vec<RegId>,
    pub prelude: Vec<(BlockId, usize)>,
    /// Registers kept once for the block that the path sets (to one value) and the sync
    /// point keeps: stored for the block when no thread runs.
    pub fills: Vec<RegId>,
    /// Registers kept per thread that the path sets to one value for the block and the
    /// sync point keeps: that value is stored for each thread that skips.
    pub uniform_fills: Vec<RegId>,
    /// The region after the sync point the threads that skip go to (`None`: they exit).
    pub then_region: Option<usize>,
    pub bounds: Vec<Bound>,
    /// Uniform conditions under which every thread skips: `(predicate, value that skips)`.
    pub uniform_exits: Vec<(RegId, bool)>,
    /// Inside the narrowed loop: the values of the comparisons' predicates.
    pub known_preds: HashMap<RegId, bool>,
    /// The threads that skip pass through code before the sync point that only sets
    /// registers kept once for the block (NVRTC moves an unrolled loop's uniform pointer
    /// step before its barrier, where every thread runs it): the threads that run do it
    /// for the block, so when none would, the ordinary loop runs.
    pub tail: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Uniform,
    /// Exactly `tid.dim`, at any width of at least 16 bits (thread indices fit).
    Tid(Dim),
    /// `tid.dim + u` (`u - tid.dim` if negated), wrapping in 32 bits.
    Affine(Dim, bool),
    Other,
}

impl Shape {
    /// As a 32-bit value: `Tid` is `tid + 0`.
    fn affine(self) -> Shape {
        match self {
            Shape::Tid(d) => Shape::Affine(d, false),
            s => s,
        }
    }
}

/// A definition on the path: (place on the path, instruction index), and whether unguarded.
type PathDef = ((usize, usize), bool);

struct Analysis<'f> {
    f: &'f ir::Function,
    /// The path's blocks (at most `MAX_PATH`).
    path: Vec<usize>,
    /// Per register, the path's instructions that set it, in order: a use on the path
    /// reads the last one before it.
    local: HashMap<RegId, Vec<PathDef>>,
    /// The instruction (block, index) whose result a register holds when the path starts
    /// (a region's recomputed registers).
    outer: HashMap<RegId, (usize, usize)>,
    /// Registers with one value for the whole block when the path starts (read from
    /// thread 0's slot).
    uniform: BTreeSet<RegId>,
    /// Per defining instruction.
    shapes: HashMap<(usize, usize), Shape>,
}

/// How many times each register is defined in `f` (sync points that write it included).
fn def_counts(f: &ir::Function) -> Vec<usize> {
    Defs::new(f).sites.iter().map(Vec::len).collect()
}

/// Finds the guards of `f` (a kernel without sync points) that can become loop bounds.
pub fn analyze(f: &ir::Function) -> Option<Narrowing> {
    let entry = f.blocks.first()?;
    let Terminator::Branch { cond, then_, else_ } = &entry.term else { return None };
    let exits_when = match (leads_to_exit(f, *then_), leads_to_exit(f, *else_)) {
        (true, false) => true,
        (false, true) => false,
        _ => return None,
    };
    if !entry.insts.iter().all(|i| is_pure(&i.op)) {
        return None;
    }
    // The entry block may be a loop's header: only registers set once in the function.
    let count = def_counts(f);
    let local = single_defs_in(f, 0, &count).into_iter().map(|(r, i)| (r, vec![((0, i), true)])).collect();
    let a = Analysis { f, path: vec![0], local, outer: HashMap::new(), uniform: BTreeSet::new(), shapes: HashMap::new() };
    a.narrowing(vec![None], *cond, exits_when, &count, &[], &[])
}

/// Whether register `reg`, as the instructions `replay` (a resume's recomputing
/// instructions, in execution order, each register set by one of them) compute it, is
/// `tid.x + u` in 32 bits with `u` the same for every thread of the block (or of a fused
/// run: `fusion`).
pub fn replayed_as_tid_x_plus_uniform(f: &ir::Function, replay: &[(BlockId, usize)], reg: RegId) -> bool {
    let mut outer = HashMap::new();
    for &(b, i) in replay {
        let mut d = vec![];
        defs(&f.blocks[b.0 as usize].insts[i].op, &mut d);
        for r in d {
            outer.insert(r, (b.0 as usize, i));
        }
    }
    let Some(&at) = outer.get(&reg) else { return false };
    let mut a = Analysis { f, path: vec![], local: HashMap::new(), outer, uniform: BTreeSet::new(), shapes: HashMap::new() };
    f.regs[reg.0 as usize].ty.bits() == 32 && a.def_shape(at, 0).affine() == Shape::Affine(Dim::X, false)
}

/// Blocks on the way from a region's start to its guard, at most.
const MAX_PATH: usize = 8;

/// Finds the guard of region `k` of a kernel with sync points (`k > 0`), for a run of every
/// thread: a branch whose one side leads, without any instruction, to a sync point `T`,
/// whose condition bounds the thread indices as in `analyze`, at the end of a path from
/// the region's start through blocks of pure values and branches on uniform predicates (a
/// loop's latch and header: the block function evaluates them once, and runs the ordinary
/// loop where they leave the path). The threads outside the bounds then only arrive at `T`:
/// they need not run, if what the path sets that `T` keeps is one value for the whole
/// block (stored for them: `fills`, `uniform_fills`), the region's recomputed registers are
/// not kept there, the threads that pass reach `T` and nothing else (no exit, other sync
/// point or call), and the path is not entered again before a sync point. The bounds' operands may come
/// from the region's recomputed registers and the block-uniform registers live into it
/// (`block_uniform`).
pub fn analyze_region(f: &ir::Function, regions: &Regions, k: usize, block_uniform: &BTreeSet<RegId>) -> Option<Narrowing> {
    let start = regions.starts.get(k)?.0 as usize;
    // Code the threads that skip may pass on their way: pure, setting only registers kept
    // once for the block (the same value in every thread).
    let tail_ok = |i: &ir::Inst| {
        let mut d = vec![];
        defs(&i.op, &mut d);
        i.guard.is_none() && i.op.is_value_computation() && d.iter().all(|r| block_uniform.contains(r))
    };
    let GuardPath { blocks: path, turns, cond, skips_when, point, tail } = find_path(f, start, vec![], vec![], &tail_ok)?;
    let pure = |i: &ir::Inst| i.op.is_value_computation() || matches!(i.op, Op::Load { space: StateSpace::Param, volatile: false, .. });
    if !path.iter().all(|&b| f.blocks[b].insts.iter().all(pure)) {
        return None;
    }
    // The threads that pass reach `point` and nothing else, and not the path again.
    let guard = *path.last()?;
    let Terminator::Branch { then_, else_, .. } = &f.blocks[guard].term else { return None };
    let pass = if skips_when { *else_ } else { *then_ };
    if regions.sole_point_from(f, pass) != Some(point) || regions.code_of(f, &[pass.0 as usize]).iter().any(|b| path.contains(b)) {
        return None;
    }
    // The region's recomputed registers are what every thread computes at its start: the
    // threads that skip would not store them.
    let mut outer: HashMap<RegId, (usize, usize)> = HashMap::new();
    for &(b, i) in &regions.replay[k] {
        let mut d = vec![];
        defs(&f.blocks[b.0 as usize].insts[i].op, &mut d);
        for r in d {
            outer.insert(r, (b.0 as usize, i));
        }
    }
    let kept = regions.kept_at(f, point);
    if outer.keys().any(|r| kept.contains(r)) {
        return None;
    }
    let count = def_counts(f);
    // The path runs once per thread and run (the induction split sets its registers again
    // before each use).
    let mut local: HashMap<RegId, Vec<PathDef>> = HashMap::new();
    for (at, &b) in path.iter().enumerate() {
        for (i, inst) in f.blocks[b].insts.iter().enumerate() {
            let mut d = vec![];
            defs(&inst.op, &mut d);
            for r in d {
                local.entry(r).or_default().push(((at, i), inst.guard.is_none()));
            }
        }
    }
    let uniform = regions.live_into_region(k).filter(|r| block_uniform.contains(r)).collect();
    let mut a = Analysis { f, path: path.clone(), local, outer, uniform, shapes: HashMap::new() };
    // What the path sets that the point keeps: the threads that skip get it too, one value
    // for the block (thread 0's).
    let end = (guard, f.blocks[guard].insts.len());
    // A value per thread would need the path run for each thread that skips: measured
    // slower than the masked loop (a pointer stepped at the latch in front of a body six
    // times the path's length: 158 -> 196 ms), so no narrowing then.
    let (mut fills, mut uniform_fills) = (vec![], vec![]);
    let set_on_path: BTreeSet<RegId> = a.local.keys().copied().collect();
    for r in set_on_path.into_iter().filter(|r| kept.contains(r)) {
        if a.shape_of(&Operand::Reg(r), end, 0) != Shape::Uniform {
            return None;
        }
        if block_uniform.contains(&r) {
            fills.push(r);
        } else {
            uniform_fills.push(r);
        }
    }
    let roots: Vec<RegId> = fills.iter().chain(&uniform_fills).copied().collect();
    let mut n = a.narrowing(turns, cond, skips_when, &count, &regions.replay[k], &roots)?;
    n.fills = fills;
    n.uniform_fills = uniform_fills;
    n.then_region = regions.sync_region[point];
    n.tail = tail;
    Some(n)
}

/// A path to a guard (see `analyze_region`).
struct GuardPath {
    blocks: Vec<usize>,
    turns: Vec<Option<(PredRef, bool)>>,
    /// The guard's predicate, whether the threads skip when it is true, and the sync-point
    /// block they skip to.
    cond: PredRef,
    skips_when: bool,
    point: usize,
    /// Whether the way to the sync point has code (`Narrowing::tail`).
    tail: bool,
}

/// The path from block `b` to a guard, after `path` (with its `turns`).
fn find_path(
    f: &ir::Function,
    b: usize,
    mut path: Vec<usize>,
    mut turns: Vec<Option<(PredRef, bool)>>,
    tail_ok: &dyn Fn(&ir::Inst) -> bool,
) -> Option<GuardPath> {
    if path.len() >= MAX_PATH || path.contains(&b) || b >= f.blocks.len() {
        return None;
    }
    path.push(b);
    match &f.blocks[b].term {
        Terminator::Branch { cond, then_, else_ } => match (sync_after_tail(f, *then_, tail_ok), sync_after_tail(f, *else_, tail_ok)) {
            (Some((point, tail)), None) | (None, Some((point, tail))) => {
                turns.push(None);
                let skips_when = sync_after_tail(f, *then_, tail_ok).is_some();
                Some(GuardPath { blocks: path, turns, cond: *cond, skips_when, point, tail })
            }
            (None, None) => {
                let mut t = turns.clone();
                t.push(Some((*cond, true)));
                find_path(f, then_.0 as usize, path.clone(), t, tail_ok).or_else(|| {
                    turns.push(Some((*cond, false)));
                    find_path(f, else_.0 as usize, path, turns, tail_ok)
                })
            }
            _ => None,
        },
        Terminator::Jump(next) => {
            turns.push(None);
            find_path(f, next.0 as usize, path, turns, tail_ok)
        }
        _ => None,
    }
}

/// The sync-point block that `b` reaches through blocks whose instructions all pass
/// `tail_ok`, if any, and whether there were any.
fn sync_after_tail(f: &ir::Function, mut b: BlockId, tail_ok: &dyn Fn(&ir::Inst) -> bool) -> Option<(usize, bool)> {
    let mut tail = false;
    for _ in 0..16 {
        let block = &f.blocks[b.0 as usize];
        if !block.insts.iter().all(tail_ok) {
            return None;
        }
        tail |= !block.insts.is_empty();
        match block.term {
            Terminator::Sync { .. } => return Some((b.0 as usize, tail)),
            Terminator::Jump(next) => b = next,
            _ => return None,
        }
    }
    None
}

/// Where a register read at an instruction gets its value.
#[derive(Clone, Copy)]
enum Source {
    /// The result of this instruction (block, index).
    Inst(usize, usize),
    /// Its value when the guard's block starts, if that is one for the whole block.
    Start,
    /// Unknown (a guarded definition).
    Unknown,
}

impl Analysis<'_> {
    fn inst(&self, at: (usize, usize)) -> &Op {
        &self.f.blocks[at.0].insts[at.1].op
    }

    /// The source of `r` read by the instruction at `user` (index `insts.len()`: the
    /// block's terminator).
    fn source(&self, r: RegId, user: (usize, usize)) -> Source {
        if let Some(place) = self.path.iter().position(|&b| b == user.0) {
            if let Some(&((at, j), unguarded)) = self.local.get(&r).and_then(|v| v.iter().rev().find(|(p, _)| *p < (place, user.1))) {
                return if unguarded { Source::Inst(self.path[at], j) } else { Source::Unknown };
            }
        }
        match self.outer.get(&r) {
            Some(&(b, i)) => Source::Inst(b, i),
            None => Source::Start,
        }
    }

    /// The narrowing for the branch on `cond` that ends the path, whose threads skip (exit,
    /// or go to a sync point without code) when `cond` is `skips_when`.
    fn narrowing(
        mut self,
        turns: Vec<Option<(PredRef, bool)>>,
        cond: PredRef,
        skips_when: bool,
        count: &[usize],
        replay: &[(BlockId, usize)],
        fills: &[RegId],
    ) -> Option<Narrowing> {
        let f = self.f;
        let guard = *self.path.last()?;
        let end = (guard, f.blocks[guard].insts.len());
        // The skip condition as an OR of leaves: (predicate register, where it is read,
        // value that skips).
        let mut leaves = vec![];
        self.or_leaves(PredRef { reg: cond.reg, negated: cond.negated ^ !skips_when }, end, &mut leaves, 0);
        let mut n = Narrowing {
            path: self.path.iter().map(|&b| BlockId(b as u32)).collect(),
            turns: turns.clone(),
            replay: vec![],
            uniform_loads: vec![],
            prelude: vec![],
            fills: vec![],
            uniform_fills: vec![],
            then_region: None,
            bounds: vec![],
            uniform_exits: vec![],
            known_preds: HashMap::new(),
            tail: false,
        };
        // What the prelude evaluates: the turns' predicates and the fills (uniform).
        let mut roots: Vec<(RegId, (usize, usize))> = vec![];
        for (at, turn) in turns.iter().enumerate() {
            if let Some((p, _)) = turn {
                let b = self.path[at];
                let user = (b, f.blocks[b].insts.len());
                if self.shape_of(&Operand::Reg(p.reg), user, 0) != Shape::Uniform {
                    return None;
                }
                roots.push((p.reg, user));
            }
        }
        roots.extend(fills.iter().map(|r| (*r, end)));
        let mut needed: Vec<(usize, usize)> = vec![];
        let mut loads = BTreeSet::new();
        for (r, user) in roots {
            match self.source(r, user) {
                Source::Inst(b, i) => needed.push((b, i)),
                Source::Start if self.uniform.contains(&r) => {
                    loads.insert(r);
                }
                _ => {}
            }
        }
        for (reg, user, exits_if) in leaves {
            let Source::Inst(b, i) = self.source(reg, user) else { continue };
            let at = (b, i);
            // The loop assumes the value wherever the register is set: only its one definition.
            if count.get(reg.0 as usize) != Some(&1) {
                continue;
            }
            if let Op::Setp { cmp, ty, dst, dst_not: None, a: x, b: y, combine: None, .. } = self.inst(at).clone() {
                if dst != reg || ty.bits() != 32 || ty.is_float() {
                    continue;
                }
                let (sx, sy) = (self.shape_of(&x, at, 0).affine(), self.shape_of(&y, at, 0).affine());
                // The comparison that holds for the threads that stay.
                let stay = if exits_if { negate(cmp) } else { Some(cmp) };
                let Some(stay) = stay else { continue };
                let bound = match (sx, sy) {
                    (Shape::Affine(d, negated), Shape::Uniform) => {
                        Some(Bound { dim: d, ty: comparison_type(ty, cmp), affine: x, negated, limit: y, survive: unsigned_free(stay), pred: reg })
                    }
                    (Shape::Uniform, Shape::Affine(d, negated)) => {
                        Some(Bound { dim: d, ty: comparison_type(ty, cmp), affine: y, negated, limit: x, survive: swap(unsigned_free(stay)), pred: reg })
                    }
                    (Shape::Uniform, Shape::Uniform) => {
                        n.uniform_exits.push((reg, exits_if));
                        needed.push(at);
                        continue;
                    }
                    _ => None,
                };
                if let Some(b) = bound.filter(|b| matches!(b.survive, CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge)) {
                    needed.push(at);
                    n.known_preds.insert(reg, !exits_if);
                    n.bounds.push(b);
                }
            }
        }
        if n.bounds.is_empty() {
            return None;
        }
        // The prelude: every instruction the bounds' operands depend on, and the uniform
        // registers they read.
        let mut include: BTreeSet<(usize, usize)> = BTreeSet::new();
        let mut work = needed;
        while let Some(at) = work.pop() {
            if !include.insert(at) {
                continue;
            }
            let mut u = vec![];
            uses(self.inst(at), &mut u);
            for r in u {
                match self.source(r, at) {
                    Source::Inst(b, i) => work.push((b, i)),
                    Source::Start if self.uniform.contains(&r) => {
                        loads.insert(r);
                    }
                    _ => {}
                }
            }
        }
        let on_path = |b: usize| self.path.contains(&b);
        n.replay = replay.iter().copied().filter(|(b, i)| !on_path(b.0 as usize) && include.contains(&(b.0 as usize, *i))).collect();
        n.uniform_loads = loads.into_iter().collect();
        for &b in &self.path {
            n.prelude.extend((0..f.blocks[b].insts.len()).filter(|i| include.contains(&(b, *i))).map(|i| (BlockId(b as u32), i)));
        }
        Some(n)
    }
}

/// Whether `b` reaches `exit`/`ret` through instruction-free blocks.
fn leads_to_exit(f: &ir::Function, mut b: ir::BlockId) -> bool {
    for _ in 0..16 {
        let block = &f.blocks[b.0 as usize];
        if !block.insts.is_empty() {
            return false;
        }
        match block.term {
            Terminator::Exit | Terminator::Return => return true,
            Terminator::Jump(next) => b = next,
            _ => return false,
        }
    }
    false
}

/// Operations a thread can skip without a visible difference (the threads outside the
/// bounds never run the entry block).
fn is_pure(op: &Op) -> bool {
    op.is_value_computation() || matches!(op, Op::Cvta { .. } | Op::Load { volatile: false, .. })
}

/// Registers defined exactly once in the function, by an unguarded instruction of block `b`.
fn single_defs_in(f: &ir::Function, b: usize, count: &[usize]) -> HashMap<RegId, usize> {
    let mut out = HashMap::new();
    for (i, inst) in f.blocks[b].insts.iter().enumerate() {
        let mut d = vec![];
        defs(&inst.op, &mut d);
        for r in d {
            if inst.guard.is_none() && count.get(r.0 as usize) == Some(&1) {
                out.insert(r, i);
            }
        }
    }
    out
}

impl Analysis<'_> {
    /// The leaves of `p` read at `user`, seen as an OR: (register, where it is read, value
    /// for which the leaf is "true").
    fn or_leaves(&self, p: PredRef, user: (usize, usize), out: &mut Vec<(RegId, (usize, usize), bool)>, depth: u32) {
        let leaf = |out: &mut Vec<(RegId, (usize, usize), bool)>| out.push((p.reg, user, !p.negated));
        let Source::Inst(b, i) = self.source(p.reg, user) else { return leaf(out) };
        if depth > 32 {
            return leaf(out);
        }
        match self.inst((b, i)) {
            // OR (or a negated AND, by De Morgan) splits into its operands.
            Op::PredLogic { op: Some(op), a, b: Some(c), .. } if (*op == BoolOp::Or && !p.negated) || (*op == BoolOp::And && p.negated) => {
                for q in [*a, *c] {
                    self.or_leaves(PredRef { reg: q.reg, negated: q.negated ^ p.negated }, (b, i), out, depth + 1);
                }
            }
            Op::PredLogic { op: None, a, .. } => self.or_leaves(PredRef { reg: a.reg, negated: !a.negated ^ p.negated }, (b, i), out, depth + 1),
            _ => leaf(out),
        }
    }

    /// The shape of operand `o` read by the instruction at `user`.
    fn shape_of(&mut self, o: &Operand, user: (usize, usize), depth: u32) -> Shape {
        match o {
            Operand::Imm(_) => Shape::Uniform,
            Operand::Special(SpecialReg::Tid(d)) => Shape::Tid(*d),
            Operand::Special(SpecialReg::Ntid(_) | SpecialReg::Ctaid(_) | SpecialReg::Nctaid(_)) => Shape::Uniform,
            Operand::Reg(r) => match self.source(*r, user) {
                Source::Inst(b, i) if depth < 64 => match self.shapes.get(&(b, i)) {
                    Some(s) => *s,
                    None => {
                        let s = self.def_shape((b, i), depth + 1);
                        self.shapes.insert((b, i), s);
                        s
                    }
                },
                Source::Start if self.uniform.contains(r) => Shape::Uniform,
                _ => Shape::Other,
            },
            _ => Shape::Other,
        }
    }

    fn def_shape(&mut self, at: (usize, usize), depth: u32) -> Shape {
        let op = self.inst(at).clone();
        let all_uniform = |me: &mut Self, ops: &[&Operand]| ops.iter().all(|o| me.shape_of(o, at, depth) == Shape::Uniform);
        // 32-bit `±tid + u` from `x op y`, where `flip_y` says whether `y` enters negated.
        let combine = |x: Shape, y: Shape, flip_y: bool| match (x.affine(), y.affine()) {
            (Shape::Affine(d, n), Shape::Uniform) => Shape::Affine(d, n),
            (Shape::Uniform, Shape::Affine(d, n)) => Shape::Affine(d, n ^ flip_y),
            _ => Shape::Other,
        };
        match &op {
            // Kernel parameters are the same for every thread.
            op if op.is_kernel_param_load() => Shape::Uniform,
            Op::Mov { ty, src, .. } => match self.shape_of(src, at, depth) {
                Shape::Tid(d) if ty.bits() >= 16 => Shape::Tid(d),
                Shape::Affine(d, n) if ty.bits() == 32 => Shape::Affine(d, n),
                Shape::Uniform => Shape::Uniform,
                _ => Shape::Other,
            },
            // Thread indices fit in 16 bits: converting them (or a copy) keeps `tid`.
            Op::Cvt { dst_ty, src_ty, src, .. } if !dst_ty.is_float() && !src_ty.is_float() => match self.shape_of(src, at, depth) {
                Shape::Tid(d) if dst_ty.bits() >= 16 && src_ty.bits() >= 16 => Shape::Tid(d),
                Shape::Uniform => Shape::Uniform,
                _ => Shape::Other,
            },
            Op::IntBinary { op, ty, a, b, sat: false, .. } => {
                let (sa, sb) = (self.shape_of(a, at, depth), self.shape_of(b, at, depth));
                match (op, sa, sb) {
                    (_, Shape::Uniform, Shape::Uniform) => Shape::Uniform,
                    (ir::IntBinOp::Add, _, _) if ty.bits() == 32 => combine(sa, sb, false),
                    (ir::IntBinOp::Sub, _, _) if ty.bits() == 32 => combine(sa, sb, true),
                    _ => Shape::Other,
                }
            }
            Op::Mad { mode: ir::MulMode::Lo, ty, sat: false, a, b, c, .. } => {
                let (sa, sb, sc) = (self.shape_of(a, at, depth), self.shape_of(b, at, depth), self.shape_of(c, at, depth));
                match (sa, sb, sc.affine()) {
                    (Shape::Uniform, Shape::Uniform, Shape::Uniform) => Shape::Uniform,
                    (Shape::Uniform, Shape::Uniform, Shape::Affine(d, n)) if ty.bits() == 32 => Shape::Affine(d, n),
                    _ => Shape::Other,
                }
            }
            Op::MulWide { a, b, .. } if all_uniform(self, &[a, b]) => Shape::Uniform,
            // Predicates of uniform values (a loop's exit test).
            Op::Setp { a, b, combine, .. }
                if all_uniform(self, &[a, b]) && combine.is_none_or(|(_, p)| self.shape_of(&Operand::Reg(p.reg), at, depth) == Shape::Uniform) =>
            {
                Shape::Uniform
            }
            Op::PredLogic { a, b, .. } if [Some(*a), *b].iter().flatten().all(|p| self.shape_of(&Operand::Reg(p.reg), at, depth) == Shape::Uniform) => {
                Shape::Uniform
            }
            Op::Selp { a, b, cond, .. } if all_uniform(self, &[a, b, &Operand::Reg(cond.reg)]) => Shape::Uniform,
            Op::IntUnary { a, .. } if all_uniform(self, &[a]) => Shape::Uniform,
            _ => Shape::Other,
        }
    }
}

/// The comparison that holds exactly when `cmp` does not (integers: no unordered case).
fn negate(cmp: CmpOp) -> Option<CmpOp> {
    Some(match cmp {
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
        CmpOp::Ge => CmpOp::Lt,
        CmpOp::Lo => CmpOp::Hs,
        CmpOp::Ls => CmpOp::Hi,
        CmpOp::Hi => CmpOp::Ls,
        CmpOp::Hs => CmpOp::Lo,
        _ => return None,
    })
}

/// `a cmp b` ⇔ `b swap(cmp) a`.
fn swap(cmp: CmpOp) -> CmpOp {
    match cmp {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

/// `lo ls hi hs` as `lt le gt ge` (their signedness is in `comparison_type`).
fn unsigned_free(cmp: CmpOp) -> CmpOp {
    match cmp {
        CmpOp::Lo => CmpOp::Lt,
        CmpOp::Ls => CmpOp::Le,
        CmpOp::Hi => CmpOp::Gt,
        CmpOp::Hs => CmpOp::Ge,
        other => other,
    }
}

/// The type whose signedness the comparison uses (`lo ls hi hs` and `.b32`/`.u32` are unsigned).
fn comparison_type(ty: ScalarType, cmp: CmpOp) -> ScalarType {
    if ty.is_signed() && !matches!(cmp, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs) {
        ScalarType::S32
    } else {
        ScalarType::U32
    }
}

/// `x cmp y` ⇔ `-x mirror(cmp) -y`: the comparison of `tid` when `u - tid` is compared.
pub fn mirror(cmp: CmpOp) -> CmpOp {
    swap(cmp)
}

//! Values a thread can compute again instead of keeping them: pure functions of the
//! thread and block indices, kernel parameters and immediates.
//!
//! Region code reads a register live across a sync point (or an interchange resume point)
//! back from the per-thread context area; an address read back from memory defeats
//! vectorization ("cannot identify array bounds"). When the register's value is such a pure
//! function, the code at the resume point re-executes the instructions that compute it
//! (its *replay*) instead. A register is recomputable at a point when exactly one
//! definition reaches the point, unguarded, and that definition is a pure operation
//! (`recomputable_op`: no memory other than kernel parameters, no special registers other
//! than `%tid`, `%ntid`, `%ctaid`, `%nctaid`, no division by a register) whose operands are
//! recomputable at it in turn.
//! Kernels only (parameters of `.func`s are not read-only).
//!
//! Replaying an instruction writes all its destinations, which may hold other values at the
//! point (`mov %r, %tid.x` whose `%r` later steps through a loop): callers replay first and
//! reload saved registers afterwards, and `Defs::replay_consistent` checks that every
//! replayed instruction reads the value it read originally and every recomputed register
//! ends with its own value.

use crate::ir::cfg::Cfg;
use crate::ir::{self, Op, Operand, RegId, SpecialReg, StateSpace, Terminator};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet};

/// Where each register is defined.
pub(crate) struct Defs {
    /// Per register: its definitions `(block, instruction index, guarded)`; a sync point
    /// that writes the register counts as a guarded definition at index `insts.len()` (the
    /// terminator's position), so that it is never the one recomputed.
    pub(crate) sites: Vec<Vec<(usize, usize, bool)>>,
    /// Definitions found not recomputable (keeps the search linear on long chains), with
    /// the resume block whose live registers the search could read (`Leaves`).
    rejected: RefCell<HashSet<(usize, usize, Option<usize>)>>,
    /// Answers of `reaching_only` by register and position.
    reaching: RefCell<HashMap<(RegId, usize, usize), Option<InstPos>>>,
}

/// An instruction: its block and index.
pub(crate) type InstPos = (usize, usize);
/// Instructions to replay, in execution order: `(rpo position, block, index)`.
pub(crate) type Replay = BTreeSet<(usize, usize, usize)>;

/// Deepest chain of definitions `recomputable` follows.
const MAX_CHAIN: u32 = 32;
/// Most definitions of one register `reaching_only` considers.
const MAX_SITES: usize = 16;

/// Registers a replay at the start of block `at` may read as they are there instead of
/// recomputing them: those live at `at` (`live`, reloaded before the replay), where every
/// replayed instruction that reads one would read the same value (`unchanged_between`).
/// An induction's uniform sum of steps is one (`induction`): an address computed from it
/// and the thread index is then recomputed, not kept per thread.
#[derive(Clone, Copy)]
pub(crate) struct Leaves<'a> {
    pub(crate) at: usize,
    pub(crate) live: &'a BTreeSet<RegId>,
}

/// Whether a path from just after instruction `from` executes instruction `to` (`from`
/// itself included: its own definition takes effect after its reads).
fn reaches(cfg: &Cfg, (b, i): (usize, usize), (xb, xi): (usize, usize)) -> bool {
    if xb == b && xi >= i {
        return true;
    }
    let mut seen = vec![false; cfg.succs.len()];
    let mut stack: Vec<usize> = cfg.succs[b].clone();
    while let Some(y) = stack.pop() {
        if y == xb {
            return true;
        }
        if !std::mem::replace(&mut seen[y], true) {
            stack.extend(cfg.succs[y].iter().copied());
        }
    }
    false
}

/// Whether a path from just after instruction `from` reaches instruction `to` (index 0:
/// its block's start) without executing instruction `avoid`, which dominates `to`.
fn reaches_avoiding(cfg: &Cfg, (xb, xi): (usize, usize), (b, i): (usize, usize), (cb, ci): (usize, usize)) -> bool {
    if xb == b && xi < i {
        // Straight on through the block.
        return !(cb == b && xi < ci && ci < i);
    }
    if cb == xb && ci > xi {
        return false; // every way out of the block passes `avoid`
    }
    let mut seen = vec![false; cfg.succs.len()];
    let mut stack: Vec<usize> = cfg.succs[xb].clone();
    while let Some(y) = stack.pop() {
        if std::mem::replace(&mut seen[y], true) {
            continue;
        }
        if y == cb {
            continue; // `avoid` runs before anything after it in its block (and `to` is after it there)
        }
        if y == b {
            return true;
        }
        stack.extend(cfg.succs[y].iter().copied());
    }
    false
}

impl Defs {
    pub(crate) fn new(f: &ir::Function) -> Defs {
        let mut sites = vec![vec![]; f.regs.len()];
        let mut buf = vec![];
        for (b, block) in f.blocks.iter().enumerate() {
            for (i, inst) in block.insts.iter().enumerate() {
                buf.clear();
                crate::ir::visit::defs(&inst.op, &mut buf);
                for r in &buf {
                    if let Some(s) = sites.get_mut(r.0 as usize) {
                        s.push((b, i, inst.guard.is_some()));
                    }
                }
            }
            if let Terminator::Sync { point, .. } = &block.term {
                buf.clear();
                point.defs(&mut buf);
                for r in &buf {
                    if let Some(s) = sites.get_mut(r.0 as usize) {
                        s.push((b, block.insts.len(), true));
                    }
                }
            }
        }
        Defs { sites, rejected: RefCell::default(), reaching: RefCell::default() }
    }

    /// The register's only definition, if it has exactly one and it is unguarded.
    pub(crate) fn single(&self, r: RegId) -> Option<(usize, usize)> {
        match self.sites.get(r.0 as usize).map(|s| &s[..]) {
            Some([(b, i, false)]) => Some((*b, *i)),
            _ => None,
        }
    }

    /// Whether `r` holds a pure function of the thread and block indices, parameters and
    /// immediates (see the module documentation) at every use reached by its only
    /// definition; adds the instructions that compute it to `replay` as `(rpo position,
    /// block, index)`.
    pub(crate) fn recomputable(&self, f: &ir::Function, cfg: &Cfg, r: RegId, replay: &mut BTreeSet<(usize, usize, usize)>, depth: u32) -> bool {
        let Some(def) = self.single(r) else { return false };
        self.recomputable_def(f, cfg, def, replay, depth)
    }

    /// Whether the unguarded definition at instruction `i` of block `b` computes a pure
    /// function of the thread and block indices, parameters and immediates; adds the
    /// instructions that compute it to `replay`.
    pub(crate) fn recomputable_def(&self, f: &ir::Function, cfg: &Cfg, def: (usize, usize), replay: &mut BTreeSet<(usize, usize, usize)>, depth: u32) -> bool {
        self.recomputable_from(f, cfg, def, replay, depth, None)
    }

    /// `recomputable_def`, where the chain may read `leaves`.
    fn recomputable_from(
        &self,
        f: &ir::Function,
        cfg: &Cfg,
        (b, i): (usize, usize),
        replay: &mut BTreeSet<(usize, usize, usize)>,
        depth: u32,
        leaves: Option<Leaves<'_>>,
    ) -> bool {
        if replay.contains(&(cfg.rpo_index[b], b, i)) {
            return true;
        }
        let key = (b, i, leaves.map(|l| l.at));
        if self.rejected.borrow().contains(&key) {
            return false;
        }
        let ok = 'check: {
            if depth > MAX_CHAIN || !cfg.reachable(b) {
                break 'check false;
            }
            let Some(inst) = f.blocks[b].insts.get(i) else { break 'check false };
            if !replayable(inst) {
                break 'check false;
            }
            let mut uses = vec![];
            crate::ir::visit::uses(&inst.op, &mut uses);
            let mut chain = replay.clone();
            for u in uses {
                // The operand's value here must come from one definition, recomputable in
                // turn, or be the value it has at the resume point.
                let recomputed = self.reaching_only(cfg, u, b, i).is_some_and(|def| self.recomputable_from(f, cfg, def, &mut chain, depth + 1, leaves));
                if !recomputed && !self.reads_leaf(cfg, leaves, u, (b, i)) {
                    break 'check false;
                }
            }
            *replay = chain;
            replay.insert((cfg.rpo_index[b], b, i));
            true
        };
        if !ok {
            self.rejected.borrow_mut().insert(key);
        }
        ok
    }

    /// Whether instruction `at` may read `u` as a leaf: `u` is live at the resume point and
    /// holds there the value it has at `at` (`Leaves`).
    fn reads_leaf(&self, cfg: &Cfg, leaves: Option<Leaves<'_>>, u: RegId, at: (usize, usize)) -> bool {
        leaves.is_some_and(|l| l.live.contains(&u) && self.unchanged_between(cfg, u, at, l.at))
    }

    /// The definition of `r` that every path from the entry to instruction `i` of block `b`
    /// (`i` = 0: the block's start) passes last, if there is one and it is unguarded.
    pub(crate) fn reaching_only(&self, cfg: &Cfg, r: RegId, b: usize, i: usize) -> Option<(usize, usize)> {
        if let Some(known) = self.reaching.borrow().get(&(r, b, i)) {
            return *known;
        }
        let found = self.find_reaching_only(cfg, r, b, i);
        self.reaching.borrow_mut().insert((r, b, i), found);
        found
    }

    fn find_reaching_only(&self, cfg: &Cfg, r: RegId, b: usize, i: usize) -> Option<(usize, usize)> {
        let sites = self.sites.get(r.0 as usize)?;
        // Bounds the path searches below (conservative: such registers are saved).
        if sites.len() > MAX_SITES {
            return None;
        }
        let dominating = |&&(sb, si, guarded): &&(usize, usize, bool)| !guarded && if sb == b { si < i } else { cfg.dominates(sb, b) };
        sites
            .iter()
            .filter(dominating)
            .map(|&(sb, si, _)| (sb, si))
            .find(|&c| sites.iter().all(|&(xb, xi, _)| (xb, xi) == c || !reaches_avoiding(cfg, (xb, xi), (b, i), c)))
    }

    /// Whether `r` holds at the start of block `at` the value it has at instruction `(b, i)`,
    /// which dominates `at`: no definition of `r` is executed on a way from `(b, i)` to `at`
    /// that does not pass `(b, i)` again.
    fn unchanged_between(&self, cfg: &Cfg, r: RegId, (b, i): (usize, usize), at: usize) -> bool {
        let Some(sites) = self.sites.get(r.0 as usize).filter(|s| s.len() <= MAX_SITES) else { return false };
        sites.iter().all(|&(xb, xi, _)| !(reaches(cfg, (b, i), (xb, xi)) && reaches_avoiding(cfg, (xb, xi), (at, 0), (b, i))))
    }

    /// Whether replaying `replay` (in order) at a resume point gives every
    /// replayed instruction the operands it had originally, and every register of
    /// `recomputed` the value of its definition. Other registers it overwrites must be dead
    /// there or reloaded after the replay.
    pub(crate) fn replay_consistent(
        &self,
        f: &ir::Function,
        cfg: &Cfg,
        replay: &BTreeSet<(usize, usize, usize)>,
        recomputed: &[(RegId, (usize, usize))],
    ) -> bool {
        self.replay_consistent_from(f, cfg, replay, recomputed, None).is_some()
    }

    /// `replay_consistent`, where reads of `leaves` that no replayed instruction wrote
    /// before read the reloaded value (they must be the same then, and not recomputed: the
    /// caller reloads them). Returns those registers if consistent.
    fn replay_consistent_from(
        &self,
        f: &ir::Function,
        cfg: &Cfg,
        replay: &BTreeSet<(usize, usize, usize)>,
        recomputed: &[(RegId, (usize, usize))],
        leaves: Option<Leaves<'_>>,
    ) -> Option<BTreeSet<RegId>> {
        let mut last: HashMap<RegId, (usize, usize)> = HashMap::new();
        let mut reloaded = BTreeSet::new();
        let mut buf = vec![];
        for &(_, b, i) in replay {
            let op = &f.blocks[b].insts[i].op;
            buf.clear();
            crate::ir::visit::uses(op, &mut buf);
            for u in &buf {
                if !last.contains_key(u) && self.reads_leaf(cfg, leaves, *u, (b, i)) {
                    if recomputed.iter().any(|(r, _)| r == u) {
                        return None;
                    }
                    reloaded.insert(*u);
                } else if last.get(u).copied() != self.reaching_only(cfg, *u, b, i) {
                    return None;
                }
            }
            buf.clear();
            crate::ir::visit::defs(op, &mut buf);
            for d in &buf {
                last.insert(*d, (b, i));
            }
        }
        recomputed.iter().all(|(r, def)| last.get(r) == Some(def)).then_some(reloaded)
    }

    /// The registers of `live` (live at the start of block `at`) that can be recomputed
    /// there, with their definitions, and the instructions that recompute them in order;
    /// nothing if the replay would not be consistent (`replay_consistent`).
    ///
    /// The replay may read registers live at `at` that it does not recompute (`Leaves`):
    /// the third result, which the caller reloads before the replay. Where that replay is
    /// not consistent, the one without them.
    pub(crate) fn recomputable_at(&self, f: &ir::Function, cfg: &Cfg, at: usize, live: &BTreeSet<RegId>) -> (Vec<(RegId, InstPos)>, Replay, BTreeSet<RegId>) {
        self.recomputable_with(f, cfg, at, live, Some(Leaves { at, live }))
    }

    fn recomputable_with(
        &self,
        f: &ir::Function,
        cfg: &Cfg,
        at: usize,
        live: &BTreeSet<RegId>,
        leaves: Option<Leaves<'_>>,
    ) -> (Vec<(RegId, InstPos)>, Replay, BTreeSet<RegId>) {
        let mut replay = BTreeSet::new();
        let mut recomputed = vec![];
        for &r in live {
            let Some(def) = self.reaching_only(cfg, r, at, 0) else { continue };
            let mut chain = replay.clone();
            if self.recomputable_from(f, cfg, def, &mut chain, 0, leaves) {
                replay = chain;
                recomputed.push((r, def));
            }
        }
        match self.replay_consistent_from(f, cfg, &replay, &recomputed, leaves) {
            Some(reads) => (recomputed, replay, reads),
            None if leaves.is_some() => self.recomputable_with(f, cfg, at, live, None),
            None => (vec![], BTreeSet::new(), BTreeSet::new()),
        }
    }

    /// Whether `r` is recomputable without the thread index (block-uniform) and available at
    /// the start of block `at`.
    pub(crate) fn uniform_at(&self, f: &ir::Function, cfg: &Cfg, r: RegId, at: usize) -> bool {
        let Some((db, _)) = self.single(r) else { return false };
        let mut chain = BTreeSet::new();
        db != at && cfg.dominates(db, at) && self.recomputable(f, cfg, r, &mut chain, 0) && !chain_reads_tid(f, &chain)
    }
}

/// Whether instruction `inst` gives the same result wherever its thread runs it again:
/// unguarded, a pure computation (`recomputable_op`) that reads no special register but
/// the thread and block indices and sizes.
pub(crate) fn replayable(inst: &ir::Inst) -> bool {
    let mut specials_ok = true;
    crate::ir::visit::for_each_operand(&inst.op, &mut |o| {
        if let Operand::Special(s) = o {
            specials_ok &= matches!(s, SpecialReg::Tid(_) | SpecialReg::Ntid(_) | SpecialReg::Ctaid(_) | SpecialReg::Nctaid(_));
        }
    });
    inst.guard.is_none() && recomputable_op(&inst.op) && specials_ok
}

pub(crate) fn recomputable_op(op: &Op) -> bool {
    match op {
        // Kernel parameters are read-only.
        Op::Load { space: StateSpace::Param, volatile: false, order: None, addr: ir::Address { base: ir::AddressBase::Param(_), .. }, dst, .. } => {
            dst.len() == 1
        }
        Op::Cvta { .. } => true,
        Op::Carry { .. } => false,
        // A division by a register is a long-latency instruction, one per lane in vector
        // code (x86 has no vector integer division): replayed in every region it cost more
        // than the context slot that keeps it (the runtime bench's `mma_gemm` divided its
        // warp index by the tile count in each step of its K loop: 15-25% of its time).
        // By an immediate it is a multiply and a shift.
        Op::IntBinary { op: ir::IntBinOp::Div | ir::IntBinOp::Rem, b: Operand::Reg(_), .. } => false,
        op => op.is_value_computation(),
    }
}

pub(crate) fn chain_reads_tid(f: &ir::Function, chain: &BTreeSet<(usize, usize, usize)>) -> bool {
    let mut tid = false;
    for &(_, b, i) in chain {
        crate::ir::visit::for_each_operand(&f.blocks[b].insts[i].op, &mut |o| tid |= matches!(o, Operand::Special(SpecialReg::Tid(_))));
    }
    tid
}

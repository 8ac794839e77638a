//! Regions of a kernel: the code between sync points (barriers and warp collectives).
//!
//! A block function runs the threads of a block region by region: a region starts at the
//! kernel's entry or right after a sync point, and each thread runs it until it reaches a
//! sync point or exits. Registers live across a sync point, and the operands and results of
//! the sync points themselves (which the runtime's scheduler reads and writes), are kept per
//! thread in the context area; this module finds the regions and those registers.

use crate::ir::cfg::Cfg;
use crate::ir::liveness::liveness;
use crate::ir::uniformity::Uniformity;
use crate::ir::visit::successors;
use crate::ir::{self, BlockId, Op, Operand, RegId, Terminator};
use crate::lower::exec::recompute::Defs;
use std::collections::BTreeSet;

pub struct Regions {
    /// Start block of each region: `starts[0]` is the entry, `starts[k]` (k ≥ 1) follows
    /// sync point k.
    pub starts: Vec<BlockId>,
    /// For each IR block ending in a sync point: the region that follows it.
    pub sync_region: Vec<Option<usize>>,
    /// Registers live at the start of each block.
    pub live_in: Vec<BTreeSet<RegId>>,
    /// Registers kept in the context area (live into some region after a sync point and not
    /// recomputed there, or an operand of a sync point), in slot order.
    pub saved: Vec<RegId>,
    /// Per region: the registers live into it that its start recomputes instead of
    /// reloading them (`recompute`; kernels only), and the instructions that do, in order.
    pub recomputed: Vec<BTreeSet<RegId>>,
    pub replay: Vec<Vec<(BlockId, usize)>>,
    /// Per region: the registers live into it that its replay reads as they are there
    /// (`recompute::Leaves`): reloaded before the replay (and after it, with the others).
    pub replay_reads: Vec<BTreeSet<RegId>>,
}

impl Regions {
    pub fn has_sync_points(&self) -> bool {
        self.starts.len() > 1
    }

    /// Registers to reload at the start of region `k` (none for the entry region): those
    /// live into it that it does not recompute.
    pub fn live_into_region(&self, k: usize) -> impl Iterator<Item = RegId> + '_ {
        let set = if k == 0 { None } else { Some(&self.live_in[self.starts[k].0 as usize]) };
        set.into_iter().flatten().copied().filter(move |r| !self.recomputed[k].contains(r))
    }

    /// The sync point that starts each region (`None` for the entry region).
    pub fn points<'f>(&self, f: &'f ir::Function) -> Vec<Option<&'f ir::SyncPoint>> {
        let mut points = vec![None; self.starts.len()];
        for (i, b) in f.blocks.iter().enumerate() {
            if let (Terminator::Sync { point, .. }, Some(k)) = (&b.term, self.sync_region[i]) {
                points[k] = Some(point);
            }
        }
        points
    }

    /// What a thread keeps in the context area when it stops at the sync point that ends
    /// IR block `b`: the registers live into the next region that it does not recompute,
    /// and the point's operands (which the scheduler reads).
    pub fn kept_at(&self, f: &ir::Function, b: usize) -> BTreeSet<RegId> {
        let Terminator::Sync { next, point } = &f.blocks[b].term else { return BTreeSet::new() };
        let j = self.sync_region[b].expect("sync point has a region");
        let mut keep: BTreeSet<RegId> = self.live_in[next.0 as usize].difference(&self.recomputed[j]).copied().collect();
        let mut inputs = vec![];
        point.uses(&mut inputs);
        keep.extend(inputs);
        keep
    }

    /// The registers kept at any sync point that code starting at `from` reaches before
    /// another sync point. A region's thread loop stores all of them at each of its sync
    /// points: a slot written on one path and not on another would be a conditional (in a
    /// vectorized loop: masked) store, while storing a register that is dead after the point
    /// is harmless (its slot is dead until the register is stored again).
    pub fn kept_by_code_from(&self, f: &ir::Function, from: &[BlockId]) -> BTreeSet<RegId> {
        let mut keep = BTreeSet::new();
        let mut seen = vec![false; f.blocks.len()];
        let mut work: Vec<usize> = from.iter().map(|b| b.0 as usize).collect();
        while let Some(b) = work.pop() {
            if b >= f.blocks.len() || std::mem::replace(&mut seen[b], true) {
                continue;
            }
            match &f.blocks[b].term {
                Terminator::Sync { .. } => keep.extend(self.kept_at(f, b)),
                t => work.extend(successors(t).into_iter().map(|s| s.0 as usize)),
            }
        }
        keep
    }

    /// For each IR block ending in a sync point that code starting at the regions `entered`
    /// reaches (before another sync point): the registers that certainly hold their context
    /// slot's value there ("clean"). A thread loop loads the registers live into its region
    /// from their slots, so until the code writes one, storing it back at a point stores
    /// what the slot holds: a no-op that a kernel with many regions and many live registers
    /// would pay for at every point, and in compile time (dead-store elimination over
    /// thousands of such stores). Registers the region does not reload (not live in, or
    /// recomputed) are never clean.
    ///
    /// A forward must-analysis: clean sets only shrink (written registers leave, joins
    /// intersect), so each is at most the region's reloaded registers, and the work is the
    /// size of the regions' code times that, not times the function's register count.
    pub fn clean_at_points(&self, f: &ir::Function, entered: &[usize]) -> Vec<Option<BTreeSet<RegId>>> {
        let mut clean_in: Vec<Option<BTreeSet<RegId>>> = vec![None; f.blocks.len()];
        let mut work = vec![];
        let meet = |slot: &mut Option<BTreeSet<RegId>>, incoming: &BTreeSet<RegId>| -> bool {
            match slot {
                None => {
                    *slot = Some(incoming.clone());
                    true
                }
                Some(set) => {
                    let before = set.len();
                    set.retain(|r| incoming.contains(r));
                    set.len() < before
                }
            }
        };
        for &k in entered {
            let reloaded: BTreeSet<RegId> = self.live_into_region(k).collect();
            let b = self.starts[k].0 as usize;
            // (A start entered twice is queued when its set is made.)
            if meet(&mut clean_in[b], &reloaded) {
                work.push(b);
            }
        }
        let mut written = vec![];
        let clean_out = |b: usize, clean_in: &BTreeSet<RegId>, written: &mut Vec<RegId>| {
            written.clear();
            for inst in &f.blocks[b].insts {
                crate::ir::visit::defs(&inst.op, written);
            }
            let mut out = clean_in.clone();
            for r in written.iter() {
                out.remove(r);
            }
            out
        };
        while let Some(b) = work.pop() {
            let block = &f.blocks[b];
            if matches!(block.term, Terminator::Sync { .. }) {
                continue;
            }
            let out = clean_out(b, clean_in[b].as_ref().expect("queued blocks have a set"), &mut written);
            for s in successors(&block.term) {
                let s = s.0 as usize;
                if meet(&mut clean_in[s], &out) {
                    work.push(s);
                }
            }
        }
        (0..f.blocks.len())
            .map(|b| {
                let c = clean_in[b].as_ref().filter(|_| matches!(f.blocks[b].term, Terminator::Sync { .. }))?;
                Some(clean_out(b, c, &mut written))
            })
            .collect()
    }

    /// Saved registers that can be kept once for the whole block instead of per thread:
    /// uniform (`Uniformity`), kept only at plain barriers (where every live thread waits at
    /// the same instance, so the values they store agree) and read by no sync point (the
    /// scheduler reads operands per thread). Storing one at another sync point of the same
    /// thread loop (`kept_by_code_from`) stores the same value: uniform registers are not
    /// redefined after a branch the threads take different ways, and where they all take
    /// the same way nobody waits at the other point.
    pub fn block_uniform_saved(&self, f: &ir::Function, uniformity: &Uniformity) -> BTreeSet<RegId> {
        let mut candidates: BTreeSet<RegId> = self.saved.iter().copied().filter(|r| uniformity.is_uniform(*r)).collect();
        for (b, block) in f.blocks.iter().enumerate() {
            let Terminator::Sync { point, .. } = &block.term else { continue };
            let mut operands = vec![];
            point.uses(&mut operands);
            for r in operands {
                candidates.remove(&r);
            }
            if !is_plain_barrier(point) {
                for r in self.kept_at(f, b) {
                    candidates.remove(&r);
                }
            }
        }
        candidates
    }

    /// Whether every thread that runs region `k` ends it at the same sync point, or every
    /// thread exits: each branch of `k`'s code that threads may take different ways
    /// (`Uniformity`) reaches only one sync point or only exits before the next sync point
    /// (its ways join again), and `k` calls no function (which might exit). After a dense
    /// run of such a region one thread's state says where the whole block waits.
    pub fn converges(&self, f: &ir::Function, uniformity: &Uniformity, k: usize) -> bool {
        let Some(start) = self.starts.get(k) else { return false };
        let code = self.code_of(f, &[start.0 as usize]);
        code.iter().all(|&b| !f.blocks[b].insts.iter().any(|i| matches!(i.op, Op::Call { .. })))
            && code.iter().all(|&b| !matches!(f.blocks[b].term, Terminator::Branch { .. }) || !uniformity.divergent_branch(b) || self.endings(f, b).len() <= 1)
    }

    /// The blocks of code starting at `from` up to the next sync points (those included).
    pub(crate) fn code_of(&self, f: &ir::Function, from: &[usize]) -> Vec<usize> {
        let mut seen = vec![false; f.blocks.len()];
        let mut out = vec![];
        let mut work = from.to_vec();
        while let Some(b) = work.pop() {
            if b >= f.blocks.len() || std::mem::replace(&mut seen[b], true) {
                continue;
            }
            out.push(b);
            if !matches!(f.blocks[b].term, Terminator::Sync { .. }) {
                work.extend(successors(&f.blocks[b].term).into_iter().map(|s| s.0 as usize));
            }
        }
        out
    }

    /// Where code from the end of block `b` ends: the sync point blocks it reaches first,
    /// and `None` for `exit`/`ret`.
    fn endings(&self, f: &ir::Function, b: usize) -> BTreeSet<Option<usize>> {
        let succs: Vec<usize> = successors(&f.blocks[b].term).into_iter().map(|s| s.0 as usize).collect();
        self.code_of(f, &succs)
            .into_iter()
            .filter_map(|x| match f.blocks[x].term {
                Terminator::Sync { .. } => Some(Some(x)),
                Terminator::Exit | Terminator::Return => Some(None),
                _ => None,
            })
            .collect()
    }

    /// Instructions (and terminators) of every region's code together: the blocks each
    /// region reaches from its start without crossing a sync point, counted once per region
    /// that reaches them.
    pub fn code_size(&self, f: &ir::Function) -> usize {
        let mut total = 0;
        let mut seen = vec![usize::MAX; f.blocks.len()];
        for (k, start) in self.starts.iter().enumerate() {
            let mut work = vec![start.0 as usize];
            while let Some(b) = work.pop() {
                if b >= f.blocks.len() || std::mem::replace(&mut seen[b], k) == k {
                    continue;
                }
                total += f.blocks[b].insts.len() + 1;
                if !matches!(f.blocks[b].term, Terminator::Sync { .. }) {
                    work.extend(successors(&f.blocks[b].term).into_iter().map(|s| s.0 as usize));
                }
            }
        }
        total
    }

    /// The region that follows region `k` when every thread that runs `k` stops at the same
    /// sync point: `k`'s code reaches exactly one sync point, no `exit` and no call (a
    /// called `.func` may exit). After a run of `k` by every thread the whole block waits
    /// there.
    pub fn sole_successor(&self, f: &ir::Function, k: usize) -> Option<usize> {
        self.sole_point_from(f, *self.starts.get(k)?).and_then(|b| self.sync_region[b])
    }

    /// The one sync-point block that code from block `from` reaches, if it reaches no other,
    /// no `exit` and no call.
    pub fn sole_point_from(&self, f: &ir::Function, from: BlockId) -> Option<usize> {
        let mut point = None;
        for b in self.code_of(f, &[from.0 as usize]) {
            let block = f.blocks.get(b)?;
            if block.insts.iter().any(|i| matches!(i.op, Op::Call { .. })) {
                return None;
            }
            match &block.term {
                Terminator::Sync { .. } if point.is_some() => return None,
                Terminator::Sync { .. } => point = Some(b),
                Terminator::Exit | Terminator::Return => return None,
                Terminator::Jump(_) | Terminator::Branch { .. } => {}
            }
        }
        point
    }
}

/// `bar.sync` / `barrier.sync` with an immediate id and no thread count: the sync point
/// that the scheduler releases densely, without looking at anything but the thread states,
/// once every thread waits there.
pub fn is_plain_barrier(point: &ir::SyncPoint) -> bool {
    matches!(point, ir::SyncPoint::Barrier(ir::Barrier { id: Operand::Imm(_), count: None, kind: ir::BarrierKind::Sync, .. }))
}

pub fn analyze(f: &ir::Function) -> Regions {
    let n = f.blocks.len();
    let mut starts = vec![BlockId(0)];
    let mut sync_region = vec![None; n];
    let mut saved_set = BTreeSet::new();
    for (i, b) in f.blocks.iter().enumerate() {
        if let Terminator::Sync { next, point } = &b.term {
            sync_region[i] = Some(starts.len());
            starts.push(*next);
            // The scheduler reads the operands from the context area; results are kept
            // only when something reads them afterwards (below: live into the next region),
            // except a matrix instruction's fragments, which the runtime lays out by them.
            let mut regs = vec![];
            point.uses(&mut regs);
            if matches!(point, ir::SyncPoint::Warp(ir::WarpOp::Matrix(_))) {
                point.defs(&mut regs);
            }
            saved_set.extend(regs);
        }
    }
    let live_in = liveness(f);
    let mut recomputed = vec![BTreeSet::new()];
    let mut replay = vec![vec![]];
    let mut replay_reads = vec![BTreeSet::new()];
    let analysis = (starts.len() > 1 && f.kind == ir::FunctionKind::Entry).then(|| (Cfg::new(f), Defs::new(f)));
    for s in &starts[1..] {
        let live = &live_in[s.0 as usize];
        let (regs, insts, reads) = match &analysis {
            Some((cfg, defs)) => defs.recomputable_at(f, cfg, s.0 as usize, live),
            None => Default::default(),
        };
        let regs: BTreeSet<RegId> = regs.into_iter().map(|(r, _)| r).collect();
        saved_set.extend(live.difference(&regs).copied());
        recomputed.push(regs);
        replay.push(insts.into_iter().map(|(_, b, i)| (BlockId(b as u32), i)).collect());
        replay_reads.push(reads);
    }
    Regions { starts, sync_region, live_in, saved: saved_set.into_iter().collect(), recomputed, replay, replay_reads }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sync points of `f` in block order, with their registers that may differ from
    /// their slots (those kept or live in `f` but not clean) when entered from region `k`.
    fn dirty_from(f: &ir::Function, r: &Regions, k: usize) -> Vec<BTreeSet<RegId>> {
        dirty(f, r.clean_at_points(f, &[k]))
    }

    fn dirty(f: &ir::Function, clean: Vec<Option<BTreeSet<RegId>>>) -> Vec<BTreeSet<RegId>> {
        let all: BTreeSet<RegId> = (0..f.regs.len() as u32).map(RegId).collect();
        clean.into_iter().flatten().map(|c| all.difference(&c).copied().collect()).collect()
    }

    #[test]
    fn registers_passing_through_a_region_unchanged_are_not_dirty() {
        // %r1 (loaded: not recomputable) is set before the first barrier and read after the
        // second; %r2 is rewritten in
        // the middle region on one path only; %r3 is set in every region.
        let (f, reg) = crate::ir::test_kernel(
            ".reg .pred %p; .reg .b32 %r<5>;
             ld.shared.u32 %r1, [16];
             mov.u32 %r2, 5;
             mov.u32 %r3, 1;
             bar.sync 0;
             setp.eq.u32 %p, %r1, 0;
             mov.u32 %r3, 2;
             @%p bra SKIP;
             add.u32 %r2, %r2, 1;
             SKIP: bar.sync 0;
             mov.u32 %r3, 3;
             add.u32 %r4, %r1, %r2;
             add.u32 %r4, %r4, %r3;
             st.shared.u32 [%r4], %r4;
             ret;",
        );
        let r = analyze(&f);
        assert_eq!(r.starts.len(), 3, "two barriers, three regions");
        // The entry region reloads nothing: everything it keeps is dirty.
        let entry = dirty_from(&f, &r, 0);
        assert_eq!(entry.len(), 1);
        assert!(entry[0].contains(&reg("%r1")) && entry[0].contains(&reg("%r2")));
        // The middle region reloads %r1 and %r2 and writes %r2 on one path: %r1 is clean
        // at its barrier, %r2 (written on some path) and %p (not reloaded) are dirty.
        let middle = dirty_from(&f, &r, 1);
        assert_eq!(middle.len(), 1);
        assert!(!middle[0].contains(&reg("%r1")), "{:?}", middle[0]);
        assert!(middle[0].contains(&reg("%r2")) && middle[0].contains(&reg("%p")) && middle[0].contains(&reg("%r3")));
        // What the middle region must keep at its barrier is %r1 and %r2 (live into the
        // last region); of them only %r2 needs a store.
        let b = f.blocks.iter().enumerate().filter(|(_, b)| matches!(b.term, Terminator::Sync { .. })).nth(1).map(|(i, _)| i).expect("second barrier");
        let kept = r.kept_at(&f, b);
        assert!(kept.contains(&reg("%r1")) && kept.contains(&reg("%r2")));
        let stored: Vec<_> = kept.iter().filter(|x| middle[0].contains(x)).collect();
        assert_eq!(stored, vec![&reg("%r2")]);
    }

    #[test]
    fn a_block_reached_from_two_regions_is_dirty_if_dirty_from_either() {
        // A loop around a barrier: the loop body is reached from the entry region (where
        // nothing is reloaded) and from the region after the barrier.
        let (f, reg) = crate::ir::test_kernel(
            ".reg .pred %p; .reg .b32 %r<4>;
             ld.shared.u32 %r1, [16];
             mov.u32 %r2, 0;
             LOOP: add.u32 %r2, %r2, 1;
             bar.sync 0;
             setp.lt.u32 %p, %r2, 4;
             @%p bra LOOP;
             add.u32 %r3, %r1, %r2;
             st.shared.u32 [%r3], %r3;
             ret;",
        );
        let r = analyze(&f);
        let all: Vec<usize> = (0..r.starts.len()).collect();
        let dirty = dirty(&f, r.clean_at_points(&f, &all));
        assert_eq!(dirty.len(), 1);
        // %r1 is written in the entry region, which reaches the barrier: dirty there.
        assert!(dirty[0].contains(&reg("%r1")) && dirty[0].contains(&reg("%r2")));
        // From the region after the barrier alone, %r1 comes back unchanged.
        let after = dirty_from(&f, &r, 1);
        assert!(!after[0].contains(&reg("%r1")) && after[0].contains(&reg("%r2")), "{:?}", after[0]);
    }
}

//! Regions of a kernel: the code between sync points (barriers and warp collectives).
//!
//! A block function runs the threads of a block region by region: a region starts at the
//! kernel's entry or right after a sync point, and each thread runs it until it reaches a
//! sync point or exits. Registers live across a sync point, and the operands and results of
//! the sync points themselves (which the runtime's scheduler reads and writes), are kept per
//! thread in the context area; this module finds the regions and those registers.

use super::recompute::{Cfg, Defs};
use crate::ir::{self, BlockId, Op, Operand, RegId, Terminator};
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
    /// recomputed there, or an operand or result of a sync point), in slot order.
    pub saved: Vec<RegId>,
    /// Per region: the registers live into it that its start recomputes instead of
    /// reloading them (`recompute`; kernels only), and the instructions that do, in order.
    pub recomputed: Vec<BTreeSet<RegId>>,
    pub replay: Vec<Vec<(BlockId, usize)>>,
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

    /// The region that follows region `k` when every thread that runs `k` stops at the same
    /// plain `bar.sync` (an immediate id, no thread count): `k`'s code reaches no other sync
    /// point, no `exit` and no call (a called `.func` may exit). After a run of `k` by every
    /// thread the whole block waits there, which the scheduler would release densely into
    /// the returned region (its first check), so the block function can go on directly.
    /// Per region: whether it follows a plain `bar.sync` (an immediate id, no thread count),
    /// the sync point that the scheduler releases densely, without looking at anything but
    /// the thread states, once every thread waits there.
    pub fn after_plain_barrier(&self, f: &ir::Function) -> Vec<bool> {
        let mut plain = vec![false; self.starts.len()];
        for (i, b) in f.blocks.iter().enumerate() {
            if let (Terminator::Sync { point, .. }, Some(k)) = (&b.term, self.sync_region[i]) {
                plain[k] = is_plain_barrier(point);
            }
        }
        plain
    }

    pub fn sole_barrier_successor(&self, f: &ir::Function, k: usize) -> Option<usize> {
        let mut seen = BTreeSet::new();
        let mut work = vec![*self.starts.get(k)?];
        let mut next = None;
        while let Some(id) = work.pop() {
            if !seen.insert(id) {
                continue;
            }
            let block = f.blocks.get(id.0 as usize)?;
            if block.insts.iter().any(|i| matches!(i.op, Op::Call { .. })) {
                return None;
            }
            match &block.term {
                Terminator::Jump(_) | Terminator::Branch { .. } => work.extend(successors(&block.term)),
                Terminator::Sync { point, .. } if is_plain_barrier(point) => {
                    let j = self.sync_region[id.0 as usize]?;
                    if next.is_some_and(|n| n != j) {
                        return None;
                    }
                    next = Some(j);
                }
                Terminator::Sync { .. } | Terminator::Exit | Terminator::Return => return None,
            }
        }
        next
    }
}

/// `bar.sync` / `barrier.sync` with an immediate id and no thread count.
fn is_plain_barrier(point: &ir::SyncPoint) -> bool {
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
            let mut regs = vec![];
            point.uses(&mut regs);
            point.defs(&mut regs);
            saved_set.extend(regs);
        }
    }
    let live_in = liveness(f);
    let mut recomputed = vec![BTreeSet::new()];
    let mut replay = vec![vec![]];
    let analysis = (starts.len() > 1 && f.kind == ir::FunctionKind::Entry).then(|| (Cfg::new(f), Defs::new(f)));
    for s in &starts[1..] {
        let live = &live_in[s.0 as usize];
        let (regs, insts) = match &analysis {
            Some((cfg, defs)) => defs.recomputable_at(f, cfg, s.0 as usize, live),
            None => Default::default(),
        };
        let regs: BTreeSet<RegId> = regs.into_iter().map(|(r, _)| r).collect();
        saved_set.extend(live.difference(&regs).copied());
        recomputed.push(regs);
        replay.push(insts.into_iter().map(|(_, b, i)| (BlockId(b as u32), i)).collect());
    }
    Regions { starts, sync_region, live_in, saved: saved_set.into_iter().collect(), recomputed, replay }
}

/// Registers read by an operation (including values kept when a guarded write is skipped).
pub fn uses(op: &Op, out: &mut Vec<RegId>) {
    let mut operand_regs = vec![];
    visit_uses(
        op,
        &mut |x: &Operand| {
            if let Operand::Reg(r) = x {
                operand_regs.push(*r)
            }
        },
        out,
    );
    out.extend(operand_regs);
}

/// Calls `f` with every value operand an operation reads (registers, immediates, special
/// registers, addresses of variables...); predicates and address registers are not
/// operands.
pub fn for_each_operand(op: &Op, f: &mut dyn FnMut(&Operand)) {
    visit_uses(op, f, &mut vec![]);
}

/// The reads of `op`: value operands through `o`, predicate and address registers into `out`.
fn visit_uses(op: &Op, mut o: &mut dyn FnMut(&Operand), out: &mut Vec<RegId>) {
    match op {
        Op::Mov { src, .. } => o(src),
        Op::IntBinary { a, b, .. } | Op::MulWide { a, b, .. } | Op::FloatBinary { a, b, .. } => {
            o(a);
            o(b)
        }
        Op::Mad { a, b, c, .. } | Op::Fma { a, b, c, .. } => {
            o(a);
            o(b);
            o(c)
        }
        Op::IntUnary { a, .. } | Op::FloatUnary { a, .. } | Op::Testp { a, .. } => o(a),
        Op::FloatMinMax { a, b, c, .. } => {
            o(a);
            o(b);
            c.iter().for_each(&mut o);
        }
        Op::Setp { a, b, combine, .. } => {
            o(a);
            o(b);
            if let Some((_, p)) = combine {
                out.push(p.reg)
            }
        }
        Op::Selp { a, b, cond, .. } => {
            o(a);
            o(b);
            out.push(cond.reg)
        }
        Op::PredLogic { a, b, .. } => {
            out.push(a.reg);
            if let Some(b) = b {
                out.push(b.reg)
            }
        }
        Op::Cvt { src, .. } | Op::Cvta { src, .. } => o(src),
        Op::CvtPacked { src, .. } => src.iter().for_each(&mut o),
        Op::CvtPackSat { a, b, c, .. } => {
            o(a);
            o(b);
            c.iter().for_each(&mut o);
        }
        Op::Load { addr, .. } => {
            if let ir::AddressBase::Reg(r) = addr.base {
                out.push(r)
            }
        }
        Op::Store { src, addr, .. } => {
            src.iter().for_each(&mut o);
            if let ir::AddressBase::Reg(r) = addr.base {
                out.push(r)
            }
        }
        Op::Call { callee, args, rets: _, uniform: _ } => {
            args.iter().for_each(&mut o);
            if let ir::Callee::Indirect { target, .. } = callee {
                o(&Operand::Reg(*target))
            }
        }
        Op::Atomic { addr, b, c, .. } => {
            b.iter().for_each(&mut o);
            if let Some(c) = c {
                o(c)
            }
            if let ir::AddressBase::Reg(r) = addr.base {
                out.push(r)
            }
        }
        Op::Lanes { a, b, .. } | Op::Szext { a, b, .. } | Op::Bmsk { a, b, .. } => {
            o(a);
            o(b)
        }
        Op::Mul24 { a, b, c, .. } => {
            o(a);
            o(b);
            if let Some(c) = c {
                o(c)
            }
        }
        Op::Sad { a, b, c, .. }
        | Op::Dot { a, b, c, .. }
        | Op::FunnelShift { a, b, c, .. }
        | Op::Prmt { a, b, c, .. }
        | Op::Slct { a, b, c, .. }
        | Op::VideoMad { a, b, c, .. }
        | Op::VideoSimd { a, b, c, .. } => {
            o(a);
            o(b);
            o(c)
        }
        Op::Bfe { a, pos, len, .. } => {
            o(a);
            o(pos);
            o(len)
        }
        Op::Bfi { a, b, pos, len, .. } => {
            o(a);
            o(b);
            o(pos);
            o(len)
        }
        Op::Fns { mask, base, offset, .. } => {
            o(mask);
            o(base);
            o(offset)
        }
        Op::Carry { carry_in, cc, a, b, c, .. } => {
            o(a);
            o(b);
            if let Some(c) = c {
                o(c)
            }
            if *carry_in {
                out.push(*cc)
            }
        }
        Op::Lop3 { a, b, c, pred, .. } => {
            o(a);
            o(b);
            o(c);
            if let Some((_, _, q)) = pred {
                out.push(q.reg)
            }
        }
        Op::Set { a, b, combine, .. } => {
            o(a);
            o(b);
            if let Some((_, p)) = combine {
                out.push(p.reg)
            }
        }
        Op::Pack { src, .. } => src.iter().for_each(&mut o),
        Op::Unpack { src, .. } => o(src),
        Op::Video { a, b, c, .. } => {
            o(a);
            o(b);
            if let Some(c) = c {
                o(c)
            }
        }
        Op::IsSpace { a, .. } => o(a),
        Op::Half { a, b, c, .. } => {
            o(a);
            b.iter().for_each(&mut o);
            c.iter().for_each(&mut o)
        }
        Op::Mixed { a, b, c, .. } => {
            o(a);
            b.iter().for_each(&mut o);
            o(c)
        }
        Op::HalfSetp { a, b, combine, .. } | Op::HalfSet { a, b, combine, .. } => {
            o(a);
            o(b);
            if let Some((_, p)) = combine {
                out.push(p.reg)
            }
        }
        Op::AsyncCopy { dst, src, src_size, ignore_src, .. } => {
            for a in [dst, src] {
                if let ir::AddressBase::Reg(r) = a.base {
                    o(&Operand::Reg(r))
                }
            }
            src_size.iter().for_each(&mut o);
            if let Some(p) = ignore_src {
                o(&Operand::Reg(p.reg))
            }
        }
        Op::Texture(t) => t.uses(out),
        Op::Prefetch { addr, .. } => {
            if let ir::AddressBase::Reg(r) = addr.base {
                out.push(r)
            }
        }
        Op::Nanosleep { ns } => o(ns),
        Op::Mbarrier { op, addr, .. } => {
            if let ir::AddressBase::Reg(r) = addr.base {
                out.push(r)
            }
            match op {
                ir::MbarrierOp::Init { count } => o(count),
                ir::MbarrierOp::Arrive { count, expect_tx, .. } => {
                    o(count);
                    expect_tx.iter().for_each(&mut o)
                }
                ir::MbarrierOp::ExpectTx { tx } | ir::MbarrierOp::CompleteTx { tx } => o(tx),
                ir::MbarrierOp::TestWait { phase, .. } => o(phase),
                ir::MbarrierOp::Inval | ir::MbarrierOp::AsyncCopyArrive { .. } => {}
            }
        }
        Op::MbarrierPendingCount { state, .. } => o(state),
        Op::Alloca { size, .. } => o(size),
        Op::StackRestore { a, .. } => o(a),
        Op::StackSave { .. } => {}
        Op::Fence { .. } | Op::Trap | Op::Nop | Op::Breakpoint | Op::Fault { .. } | Op::Unsupported { .. } => {}
    }
}

/// Registers written by an operation.
pub fn defs(op: &Op, out: &mut Vec<RegId>) {
    match op {
        Op::Mov { dst, .. }
        | Op::IntBinary { dst, .. }
        | Op::MulWide { dst, .. }
        | Op::Mad { dst, .. }
        | Op::IntUnary { dst, .. }
        | Op::FloatBinary { dst, .. }
        | Op::FloatUnary { dst, .. }
        | Op::Fma { dst, .. }
        | Op::FloatMinMax { dst, .. }
        | Op::Testp { dst, .. }
        | Op::Selp { dst, .. }
        | Op::PredLogic { dst, .. }
        | Op::Cvt { dst, .. }
        | Op::CvtPacked { dst, .. }
        | Op::CvtPackSat { dst, .. }
        | Op::Cvta { dst, .. } => out.push(*dst),
        Op::Setp { dst, dst_not, .. } => {
            out.push(*dst);
            if let Some(d) = dst_not {
                out.push(*d)
            }
        }
        Op::Load { dst, .. } => out.extend(dst.iter().flatten().copied()),
        Op::Call { rets, .. } => out.extend(rets.iter().filter_map(|r| match r {
            Some(Operand::Reg(r)) => Some(*r),
            _ => None,
        })),
        Op::Atomic { dst, .. } => out.extend(dst.iter().flatten().copied()),
        Op::IsSpace { dst, .. } => out.push(*dst),
        Op::Lanes { dst, .. }
        | Op::Mul24 { dst, .. }
        | Op::Sad { dst, .. }
        | Op::Bfe { dst, .. }
        | Op::Bfi { dst, .. }
        | Op::Fns { dst, .. }
        | Op::Szext { dst, .. }
        | Op::Bmsk { dst, .. }
        | Op::Dot { dst, .. }
        | Op::FunnelShift { dst, .. }
        | Op::Prmt { dst, .. }
        | Op::Set { dst, .. }
        | Op::Slct { dst, .. }
        | Op::Pack { dst, .. }
        | Op::Video { dst, .. }
        | Op::VideoMad { dst, .. }
        | Op::VideoSimd { dst, .. } => out.push(*dst),
        Op::Carry { carry_out, cc, dst, .. } => {
            out.push(*dst);
            if *carry_out {
                out.push(*cc)
            }
        }
        Op::Lop3 { dst, pred, .. } => {
            out.extend(dst.iter().copied());
            if let Some((_, p, _)) = pred {
                out.push(*p)
            }
        }
        Op::Unpack { dst, .. } => out.extend(dst.iter().flatten().copied()),
        Op::Half { dst, .. } | Op::Mixed { dst, .. } | Op::HalfSet { dst, .. } => out.push(*dst),
        Op::HalfSetp { dst, dst_hi, .. } => {
            out.push(*dst);
            out.extend(dst_hi.iter().copied())
        }
        Op::Texture(t) => t.defs(out),
        Op::Store { .. } | Op::AsyncCopy { .. } | Op::Fence { .. } | Op::Trap | Op::Nop | Op::Unsupported { .. } => {}
        Op::Prefetch { .. } | Op::Nanosleep { .. } | Op::Breakpoint | Op::Fault { .. } => {}
        Op::Alloca { dst, .. } | Op::StackSave { dst, .. } => out.push(*dst),
        Op::StackRestore { .. } => {}
        Op::Mbarrier { op: ir::MbarrierOp::Arrive { state, .. }, .. } => out.extend(state.iter().copied()),
        Op::Mbarrier { op: ir::MbarrierOp::TestWait { dst, .. }, .. } | Op::MbarrierPendingCount { dst, .. } => out.push(*dst),
        Op::Mbarrier { .. } => {}
    }
}

pub fn successors(t: &Terminator) -> Vec<BlockId> {
    match t {
        Terminator::Jump(b) => vec![*b],
        Terminator::Branch { then_, else_, .. } => vec![*then_, *else_],
        Terminator::Sync { next, .. } => vec![*next],
        Terminator::Exit | Terminator::Return => vec![],
    }
}

fn liveness(f: &ir::Function) -> Vec<BTreeSet<RegId>> {
    let n = f.blocks.len();
    // Per block: registers read before any (unconditional) write, and registers written.
    let mut gen = vec![BTreeSet::new(); n];
    let mut kill = vec![BTreeSet::new(); n];
    let mut buf = vec![];
    for (i, b) in f.blocks.iter().enumerate() {
        for inst in &b.insts {
            buf.clear();
            uses(&inst.op, &mut buf);
            if let Some(g) = inst.guard {
                buf.push(g.reg);
            }
            for r in &buf {
                if !kill[i].contains(r) {
                    gen[i].insert(*r);
                }
            }
            buf.clear();
            defs(&inst.op, &mut buf);
            if inst.guard.is_none() {
                kill[i].extend(buf.iter().copied());
            }
        }
        let mut term_uses = vec![];
        let mut term_defs = vec![];
        match &b.term {
            Terminator::Branch { cond, .. } => term_uses.push(cond.reg),
            Terminator::Sync { point, .. } => {
                point.uses(&mut term_uses);
                point.defs(&mut term_defs);
            }
            _ => {}
        }
        for r in term_uses {
            if !kill[i].contains(&r) {
                gen[i].insert(r);
            }
        }
        kill[i].extend(term_defs);
    }
    let succs: Vec<Vec<BlockId>> = f.blocks.iter().map(|b| successors(&b.term)).collect();
    let mut live_in: Vec<BTreeSet<RegId>> = gen.clone();
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).rev() {
            let mut out = BTreeSet::new();
            for s in &succs[i] {
                if let Some(l) = live_in.get(s.0 as usize) {
                    out.extend(l.iter().copied());
                }
            }
            let mut inn = gen[i].clone();
            inn.extend(out.difference(&kill[i]).copied());
            if inn != live_in[i] {
                live_in[i] = inn;
                changed = true;
            }
        }
    }
    live_in
}

//! Lockstep for legacy warp-synchronous code.
//!
//! Code written for GPUs before Volta exchanges data between the lanes of a warp through
//! `volatile` shared memory without any barrier, relying on the lanes of a warp executing
//! each instruction together (the last warp of the classic shared-memory reduction:
//! `sdata[tid] = sum = sum + sdata[tid + 16]; ...`). Thread loops would run one lane's whole
//! sequence before the next lane's and read values the other lanes have not written yet.
//! So in kernels, every `volatile` access to shared (or generic, possibly shared) memory
//! becomes a warp sync point: the lanes of a warp that arrive together perform it
//! together, as the GPU did. Accesses to global memory are left alone, except where a
//! thread polls: a loop without sync points whose exit depends on a `volatile`, `.relaxed`
//! or `.acquire` load, an atomic that does not change memory, or an `mbarrier` test in the
//! loop (a spin-wait on a flag or an mbarrier phase that another warp of the block sets). A thread loop would run the spinning thread forever
//! before the thread that sets the flag, so each polling access becomes a warp point too:
//! every iteration, the scheduler lets the other warps run.

use crate::ir::{self, AtomicOp, BlockId, MemOrder, Op, Operand, RegId, StateSpace, SyncPoint, Terminator, WarpOp};
use std::collections::{BTreeSet, HashSet};

fn is_lockstep_access(op: &Op) -> bool {
    match op {
        Op::Load { space, volatile: true, .. } | Op::Store { space, volatile: true, .. } => matches!(space, StateSpace::Shared | StateSpace::Generic),
        _ => false,
    }
}

/// An access a spin-wait polls: its result can change because another thread writes.
fn is_polling_access(op: &Op) -> bool {
    match op {
        Op::Load { volatile, order, .. } => *volatile || matches!(order, Some((MemOrder::Relaxed | MemOrder::Acquire, _))),
        // An atomic that leaves memory as it is (`atomicOr(flag, 0)`) only reads. Atomics
        // that change memory make progress by themselves: exchanges and compare-and-swaps
        // loop until they win (locks, CAS retries; the thread that holds the lock or raced
        // them has already run), `atomicAdd(&next, 1)` hands out work.
        Op::Atomic { op, ty, b, .. } => match (op, b.as_slice()) {
            (AtomicOp::Add | AtomicOp::Or | AtomicOp::Xor, [Operand::Imm(0)]) => ty.kind() != ir::TypeKind::Float,
            (AtomicOp::And, [Operand::Imm(v)]) => ty.bits() <= 64 && *v & mask(ty.bits()) == mask(ty.bits()),
            _ => false,
        },
        // `mbarrier.test_wait`/`try_wait`: the phase completes when other threads arrive.
        Op::Mbarrier { op: ir::MbarrierOp::TestWait { .. }, .. } => true,
        _ => false,
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The module with a lockstep point before every `volatile` shared/generic access of every
/// kernel, and before every polling access of a spin-wait in any function. (A `.func` with
/// a spin-wait thus synchronizes, and the kernels that call it without inlining it run as
/// fibers, `fibers::FiberNeeds`.)
pub fn insert_lockstep_points(m: &ir::Module) -> Option<ir::Module> {
    let plans: Vec<Option<HashSet<(usize, usize)>>> = m
        .functions
        .iter()
        .map(|f| {
            let mut at: HashSet<(usize, usize)> = spin_wait_polls(f);
            if f.kind == ir::FunctionKind::Entry {
                for (bi, b) in f.blocks.iter().enumerate() {
                    at.extend(b.insts.iter().enumerate().filter(|(_, i)| is_lockstep_access(&i.op)).map(|(ii, _)| (bi, ii)));
                }
            }
            (!at.is_empty()).then_some(at)
        })
        .collect();
    if plans.iter().all(Option::is_none) {
        return None;
    }
    let mut out = m.clone();
    for (f, plan) in out.functions.iter_mut().zip(plans) {
        if let Some(at) = plan {
            split_blocks(f, &at);
        }
    }
    Some(out)
}

/// The polling accesses (block, instruction) of `f`'s spin-wait loops: natural loops
/// without sync points in which a branch leaving the loop depends on a polling access
/// made in the loop.
fn spin_wait_polls(f: &ir::Function) -> HashSet<(usize, usize)> {
    let mut out = HashSet::new();
    // Most functions poll nothing: no loop needs to be looked at.
    if !f.blocks.iter().flat_map(|b| b.insts.iter()).any(|i| is_polling_access(&i.op)) {
        return out;
    }
    let preds = crate::ir::cfg::Cfg::new(f).preds;
    for (latch, header) in back_edges(f) {
        let body = natural_loop(&preds, latch, header);
        if body.iter().any(|&b| matches!(f.blocks[b].term, Terminator::Sync { .. })) {
            continue;
        }
        let polls: Vec<(usize, usize)> =
            body.iter().flat_map(|&b| f.blocks[b].insts.iter().enumerate().filter(|(_, i)| is_polling_access(&i.op)).map(move |(ii, _)| (b, ii))).collect();
        if polls.is_empty() {
            continue;
        }
        // Registers that depend on a polled value, within the loop.
        let mut tainted: HashSet<RegId> = HashSet::new();
        let mut defs = vec![];
        for &(b, ii) in &polls {
            crate::ir::visit::defs(&f.blocks[b].insts[ii].op, &mut defs);
        }
        tainted.extend(defs.drain(..));
        loop {
            let before = tainted.len();
            for &b in &body {
                for inst in &f.blocks[b].insts {
                    let mut uses = vec![];
                    crate::ir::visit::uses(&inst.op, &mut uses);
                    if uses.iter().any(|r| tainted.contains(r)) {
                        crate::ir::visit::defs(&inst.op, &mut defs);
                        tainted.extend(defs.drain(..));
                    }
                }
            }
            if tainted.len() == before {
                break;
            }
        }
        let exits_on_poll = body.iter().any(|&b| match &f.blocks[b].term {
            Terminator::Branch { cond, then_, else_ } => {
                tainted.contains(&cond.reg) && (!body.contains(&(then_.0 as usize)) || !body.contains(&(else_.0 as usize)))
            }
            _ => false,
        });
        if exits_on_poll {
            out.extend(polls);
        }
    }
    out
}

/// Edges `latch -> header` where `header` is on the depth-first path to `latch`.
fn back_edges(f: &ir::Function) -> Vec<(usize, usize)> {
    let n = f.blocks.len();
    let mut out = vec![];
    let mut on_path = vec![false; n];
    let mut seen = vec![false; n];
    // Iterative DFS: (block, index of the next successor to visit).
    let mut stack: Vec<(usize, usize)> = vec![];
    if n > 0 {
        stack.push((0, 0));
        seen[0] = true;
        on_path[0] = true;
    }
    while let Some(&mut (b, ref mut next)) = stack.last_mut() {
        let succ = crate::ir::visit::successors(&f.blocks[b].term);
        if let Some(s) = succ.get(*next).map(|s| s.0 as usize) {
            *next += 1;
            if on_path[s] {
                out.push((b, s));
            } else if !seen[s] {
                seen[s] = true;
                on_path[s] = true;
                stack.push((s, 0));
            }
        } else {
            on_path[b] = false;
            stack.pop();
        }
    }
    out
}

/// The blocks of the natural loop of back edge `latch -> header`.
fn natural_loop(preds: &[Vec<usize>], latch: usize, header: usize) -> BTreeSet<usize> {
    let mut body = BTreeSet::from([header, latch]);
    let mut work = vec![latch];
    while let Some(b) = work.pop() {
        if b == header {
            continue;
        }
        for &p in &preds[b] {
            if body.insert(p) {
                work.push(p);
            }
        }
    }
    body
}

/// Puts a lockstep point before each instruction `at` names (block, index).
fn split_blocks(f: &mut ir::Function, at: &HashSet<(usize, usize)>) {
    // Split each block at its marked instructions, last first, so that earlier indices
    // stay valid; the pieces are appended and chained by lockstep points.
    let original = f.blocks.len();
    for b in 0..original {
        let mut marks: Vec<usize> = at.iter().filter(|(bb, _)| *bb == b).map(|(_, i)| *i).collect();
        marks.sort_unstable();
        for &i in marks.iter().rev() {
            split_at(f, b, i);
        }
    }
}

/// Moves `insts[at..]` and the terminator of block `i` into a new block that a lockstep
/// point leads to.
fn split_at(f: &mut ir::Function, i: usize, at: usize) {
    let new_id = BlockId(f.blocks.len() as u32);
    let block = &mut f.blocks[i];
    let rest = block.insts.split_off(at);
    let span = rest.first().map(|r| r.span.clone()).unwrap_or_else(|| block.term_span.clone());
    let term = std::mem::replace(&mut block.term, Terminator::Sync { point: SyncPoint::Warp(WarpOp::Lockstep), next: new_id });
    let term_span = std::mem::replace(&mut block.term_span, span);
    f.blocks.push(ir::Block { label: None, insts: rest, term, term_span });
}

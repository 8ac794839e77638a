//! Lockstep for legacy warp-synchronous code.
//!
//! Code written for GPUs before Volta exchanges data between the lanes of a warp through
//! `volatile` shared memory without any barrier, relying on the lanes of a warp executing
//! each instruction together (the last warp of the classic shared-memory reduction:
//! `sdata[tid] = sum = sum + sdata[tid + 16]; ...`). Thread loops would run one lane's whole
//! sequence before the next lane's and read values the other lanes have not written yet.
//! So in kernels, every `volatile` access to shared (or generic, possibly shared) memory
//! becomes a warp sync point: the lanes of a warp that arrive together perform it
//! together, as the GPU did. Accesses to global memory are left alone.

use crate::ir::{self, BlockId, Op, StateSpace, SyncPoint, Terminator, WarpOp};

fn is_lockstep_access(op: &Op) -> bool {
    match op {
        Op::Load { space, volatile: true, .. } | Op::Store { space, volatile: true, .. } => matches!(space, StateSpace::Shared | StateSpace::Generic),
        _ => false,
    }
}

/// The module with a lockstep point before every `volatile` shared/generic access of every
/// kernel (`.func` bodies are called per thread and are left as they are).
pub fn insert_lockstep_points(m: &ir::Module) -> Option<ir::Module> {
    let needed = m
        .functions
        .iter()
        .any(|f| f.kind == ir::FunctionKind::Entry && f.blocks.iter().any(|b| b.insts.iter().any(|i| is_lockstep_access(&i.op))));
    if !needed {
        return None;
    }
    let mut out = m.clone();
    for f in &mut out.functions {
        if f.kind == ir::FunctionKind::Entry {
            split_blocks(f);
        }
    }
    Some(out)
}

fn split_blocks(f: &mut ir::Function) {
    // Blocks created by a split are appended and start with the access they were split
    // for (its lockstep point is already in front of it): search them from the second
    // instruction on.
    let original = f.blocks.len();
    let mut i = 0;
    while i < f.blocks.len() {
        let from = usize::from(i >= original);
        if let Some(p) = f.blocks[i].insts.iter().skip(from).position(|inst| is_lockstep_access(&inst.op)) {
            split_at(f, i, p + from);
        }
        i += 1;
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

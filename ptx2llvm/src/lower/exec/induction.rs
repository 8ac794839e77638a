//! Per-thread inductions split into a thread part and a block-uniform part.
//!
//! Compilers strength-reduce address arithmetic into pointer inductions: a register set
//! once from the thread index before a loop, then stepped by the same amount in every
//! thread each iteration (`add.s64 %rd30, %rd30, 64;` in a tiled sgemm whose loop holds two
//! barriers). Kept across a barrier it is a per-thread value read back from the context
//! area, and an address read back from memory defeats vectorization ("cannot identify array
//! bounds"); it is also one load and one store per thread and barrier.
//!
//! Such a register `r`, with exactly two definitions, `r = INIT` (a pure function of the
//! thread and block indices, parameters and immediates: `recompute`) and `r = r + s` (with
//! `s` and the step's block executed alike by every thread: `Uniformity`), always equals
//! `r0 + u` where `r0 = INIT` and `u` is the sum of the steps since. The rewrite makes that
//! explicit with two new registers:
//!
//! ```text
//! r = INIT           ->   r0 = INIT;  mov u, 0
//! r = r + s          ->   u = u + s
//! ... r ...          ->   r = r0 + u;  ... r ...      (before every instruction reading r)
//! ```
//!
//! `r` then lives only from its new definitions to the next instruction, `r0` has a single
//! definition that region entries recompute, and `u` is uniform, kept once for the block
//! (`Regions::block_uniform_saved`). Adding modulo 2^n is associative, so the values are
//! the same bits as before.

use crate::ir::cfg::Cfg;
use crate::ir::uniformity::Uniformity;
use crate::ir::visit::{defs, uses};
use crate::ir::{self, Inst, IntBinOp, Op, Operand, RegDecl, RegId, Terminator};
use crate::lower::exec::recompute::Defs;
use std::collections::BTreeSet;

/// `m` with the inductions of its kernels split (see the module documentation), or `None`
/// if there are none.
pub fn split_inductions(m: &ir::Module) -> Option<ir::Module> {
    let plans: Vec<Vec<Induction>> = m.functions.iter().map(|f| if f.kind == ir::FunctionKind::Entry { find(f) } else { vec![] }).collect();
    if plans.iter().all(Vec::is_empty) {
        return None;
    }
    let mut out = m.clone();
    for (f, plan) in out.functions.iter_mut().zip(plans) {
        if !plan.is_empty() {
            rewrite(f, &plan);
        }
    }
    Some(out)
}

struct Induction {
    reg: RegId,
    /// `r = INIT` and `r = r + s`: (block, instruction).
    init: (usize, usize),
    step: (usize, usize),
}

/// The registers to split: two unguarded definitions as described, the register live
/// across some sync point (else nothing is gained).
fn find(f: &ir::Function) -> Vec<Induction> {
    if !f.has_sync_points() {
        return vec![];
    }
    let cfg = Cfg::new(f);
    let sites = Defs::new(f);
    let uniformity = Uniformity::new(f);
    let live = crate::ir::liveness::liveness(f);
    let mut across_sync = BTreeSet::new();
    for b in &f.blocks {
        if let Terminator::Sync { next, .. } = &b.term {
            across_sync.extend(live[next.0 as usize].iter().copied());
        }
    }
    let mut out = vec![];
    for r in across_sync {
        let Some(&[(ib, ii, false), (sb, si, false)]) = sites.sites.get(r.0 as usize).map(|s| &s[..]) else { continue };
        // Either order of the two definitions.
        for ((ib, ii), (sb, si)) in [((ib, ii), (sb, si)), ((sb, si), (ib, ii))] {
            let Some(inst) = f.blocks[sb].insts.get(si) else { continue };
            let Op::IntBinary { op: IntBinOp::Add, sat: false, dst, a, b, ty } = &inst.op else { continue };
            let step = match (a, b) {
                (Operand::Reg(x), s) if *x == r => s,
                (s, Operand::Reg(y)) if *y == r => s,
                _ => continue,
            };
            let uniform_step = match step {
                Operand::Imm(_) => true,
                Operand::Reg(s) => uniformity.is_uniform(*s),
                _ => false,
            };
            if *dst != r || ty.bits() != f.regs[r.0 as usize].ty.bits() || !uniform_step || !uniformity.executed_by_all(sb) || !uniformity.executed_by_all(ib) {
                continue;
            }
            // The initial value: recomputable (its own definition may be the register
            // itself only through the step, excluded by having two sites).
            let mut chain = BTreeSet::new();
            if !f.blocks[ib].insts.get(ii).is_some_and(|i| renamable(&i.op)) || !sites.recomputable_def(f, &cfg, (ib, ii), &mut chain, 0) {
                continue;
            }
            out.push(Induction { reg: r, init: (ib, ii), step: (sb, si) });
            break;
        }
    }
    out
}

fn rewrite(f: &mut ir::Function, plan: &[Induction]) {
    // New registers per induction: the initial value and the uniform sum of steps.
    let mut parts = vec![];
    for ind in plan {
        let decl = f.regs[ind.reg.0 as usize].clone();
        let r0 = RegId(f.regs.len() as u32);
        f.regs.push(RegDecl { name: format!("{}.start", decl.name), ty: decl.ty });
        let u = RegId(f.regs.len() as u32);
        f.regs.push(RegDecl { name: format!("{}.steps", decl.name), ty: decl.ty });
        parts.push((ind, r0, u, decl.ty));
    }
    // Rewrite the definitions in place (indices stay valid: insertions come after).
    for &(ind, r0, u, _) in &parts {
        let (ib, ii) = ind.init;
        rename_def(&mut f.blocks[ib].insts[ii].op, ind.reg, r0);
        let (sb, si) = ind.step;
        let step = &mut f.blocks[sb].insts[si];
        if let Op::IntBinary { dst, a, b, .. } = &mut step.op {
            *dst = u;
            for o in [a, b] {
                if *o == Operand::Reg(ind.reg) {
                    *o = Operand::Reg(u);
                }
            }
        }
    }
    // Insert `mov u, 0` after each initial definition and `r = r0 + u` before every reader.
    for (bi, block) in f.blocks.iter_mut().enumerate() {
        let mut insts = Vec::with_capacity(block.insts.len());
        for (ii, inst) in std::mem::take(&mut block.insts).into_iter().enumerate() {
            let mut read = vec![];
            uses(&inst.op, &mut read);
            if let Some(g) = inst.guard {
                read.push(g.reg);
            }
            for &(ind, r0, u, ty) in &parts {
                if read.contains(&ind.reg) {
                    insts.push(Inst {
                        guard: None,
                        op: Op::IntBinary { op: IntBinOp::Add, ty, sat: false, dst: ind.reg, a: Operand::Reg(r0), b: Operand::Reg(u) },
                        span: inst.span.clone(),
                    });
                }
            }
            let span = inst.span.clone();
            insts.push(inst);
            for &(ind, _, u, ty) in &parts {
                if ind.init == (bi, ii) {
                    insts.push(Inst { guard: None, op: Op::Mov { ty, dst: u, src: Operand::Imm(0) }, span: span.clone() });
                }
            }
        }
        block.insts = insts;
        // Terminators that read the register: a branch on it is impossible (it is not a
        // predicate); sync point operands get the sum before the point.
        let mut read = vec![];
        match &block.term {
            Terminator::Sync { point, .. } => point.uses(&mut read),
            Terminator::Branch { cond, .. } => read.push(cond.reg),
            _ => {}
        }
        for &(ind, r0, u, ty) in &parts {
            if read.contains(&ind.reg) {
                let span = block.term_span.clone();
                block.insts.push(Inst {
                    guard: None,
                    op: Op::IntBinary { op: IntBinOp::Add, ty, sat: false, dst: ind.reg, a: Operand::Reg(r0), b: Operand::Reg(u) },
                    span,
                });
            }
        }
    }
}

/// Makes `op` write `to` instead of `from` (its only destination).
fn rename_def(op: &mut Op, from: RegId, to: RegId) {
    let mut written = vec![];
    defs(op, &mut written);
    debug_assert_eq!(written, vec![from]);
    match op {
        Op::Mov { dst, .. }
        | Op::IntBinary { dst, .. }
        | Op::MulWide { dst, .. }
        | Op::Mad { dst, .. }
        | Op::IntUnary { dst, .. }
        | Op::Cvt { dst, .. }
        | Op::Cvta { dst, .. }
        | Op::Mul24 { dst, .. }
        | Op::Bfe { dst, .. }
        | Op::Bfi { dst, .. }
        | Op::Szext { dst, .. }
        | Op::Bmsk { dst, .. }
        | Op::FunnelShift { dst, .. }
        | Op::Prmt { dst, .. }
        | Op::Selp { dst, .. }
        | Op::Lanes { dst, .. }
        | Op::Sad { dst, .. } => {
            if *dst == from {
                *dst = to
            }
        }
        Op::Load { dst, .. } => {
            for d in dst.iter_mut().flatten() {
                if *d == from {
                    *d = to
                }
            }
        }
        _ => {}
    }
}

/// Whether `rename_def` can rename the destination of `op`.
fn renamable(op: &Op) -> bool {
    matches!(
        op,
        Op::Mov { .. }
            | Op::IntBinary { .. }
            | Op::MulWide { .. }
            | Op::Mad { .. }
            | Op::IntUnary { .. }
            | Op::Cvt { .. }
            | Op::Cvta { .. }
            | Op::Mul24 { .. }
            | Op::Bfe { .. }
            | Op::Bfi { .. }
            | Op::Szext { .. }
            | Op::Bmsk { .. }
            | Op::FunnelShift { .. }
            | Op::Prmt { .. }
            | Op::Selp { .. }
            | Op::Lanes { .. }
            | Op::Sad { .. }
            | Op::Load { .. }
    )
}

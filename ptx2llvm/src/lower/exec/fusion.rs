//! Runs of neighbouring blocks in one call ("fusion along x").
//!
//! A 16×16-thread stencil block touches 18 rows of 64 bytes: its thread loop over x is two
//! vector iterations long, and the memory streams are short. Many barrier-free kernels
//! use `%ctaid.x` and `%tid.x` only as the global index `ctaid.x * ntid.x + tid.x`. For
//! those, the blocks `c .. c + n` of one row of the grid are the same code over one long
//! range of that index: the block function is called once for the run, with `%ctaid.x =
//! c` and its x loop over `n * ntid.x` threads (`mad.lo(c, ntid.x, t)` for `t <
//! n * ntid.x` is exactly the global index of thread `t % ntid.x` of block `c + t /
//! ntid.x`, with the same 32-bit wrapping). The runtime forms the runs
//! (`ptxrtBlockEnv::blocks_x`) for kernels whose descriptor says they can.
//!
//! A fused call's threads (`Uniform::nthreads`: `x_extent * ntid.y * ntid.z`) are also the
//! threads of its context area, so an interchanged grid-stride loop (`interchange`) fuses
//! too: a pass then runs one iteration of every thread of the run, a contiguous stretch of
//! `blocks_x` blocks' elements instead of one block's (measured: `axpy` with a grid-stride
//! loop over 1024 blocks, 2.5x -> 1.7x native at one worker). The runtime keeps such runs
//! short enough that their context stays small (`FUSED_CONTEXT_BYTES` in ptxrt's pool).
//!
//! A kernel qualifies when, besides that use of `%ctaid.x`/`%tid.x` (through single-
//! definition `mov` registers or directly), it has no sync points and nothing that tells
//! blocks or threads apart otherwise: no shared or local memory, no calls, no `trap`
//! (its message names the block), no lane or warp registers.

use crate::ir::{self, Dim, MulMode, Op, Operand, RegId, SpecialReg, StateSpace};
use std::collections::{HashMap, HashSet};

/// Whether the block function of kernel `f` (of module `m`) may run several blocks along x
/// in one call.
pub fn fusable_along_x(m: &ir::Module, f: &ir::Function) -> bool {
    let per_block = |v: ir::VarId| m.vars.get(v.0 as usize).is_none_or(|var| matches!(var.space, StateSpace::Shared | StateSpace::Local));
    let mut def_count: HashMap<RegId, usize> = HashMap::new();
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        let mut d = vec![];
        crate::ir::visit::defs(&inst.op, &mut d);
        for r in d {
            *def_count.entry(r).or_default() += 1;
        }
    }
    // Registers holding exactly %tid.x, %ctaid.x or %ntid.x (one unguarded `mov` each).
    let mut tid_regs = HashSet::new();
    let mut cta_regs = HashSet::new();
    let mut ntid_regs = HashSet::new();
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        if let Op::Mov { dst, src: Operand::Special(s), ty } = &inst.op {
            if inst.guard.is_some() || def_count.get(dst) != Some(&1) || ty.bits() < 32 {
                continue;
            }
            match s {
                SpecialReg::Tid(Dim::X) => tid_regs.insert(*dst),
                SpecialReg::Ctaid(Dim::X) => cta_regs.insert(*dst),
                SpecialReg::Ntid(Dim::X) => ntid_regs.insert(*dst),
                _ => false,
            };
        }
    }
    let is = |o: &Operand, special: SpecialReg, regs: &HashSet<RegId>| match o {
        Operand::Special(s) => *s == special,
        Operand::Reg(r) => regs.contains(r),
        _ => false,
    };
    for block in &f.blocks {
        if matches!(block.term, ir::Terminator::Sync { .. }) {
            return false;
        }
        for inst in &block.insts {
            if !allowed(&inst.op, &per_block) {
                return false;
            }
            match &inst.op {
                // The definitions of the registers above.
                Op::Mov { dst, .. } if tid_regs.contains(dst) || cta_regs.contains(dst) || ntid_regs.contains(dst) => continue,
                // The global index.
                Op::Mad { mode: MulMode::Lo, ty, sat: false, a, b, c, .. }
                    if ty.bits() == 32
                        && is(c, SpecialReg::Tid(Dim::X), &tid_regs)
                        && ((is(a, SpecialReg::Ctaid(Dim::X), &cta_regs) && is(b, SpecialReg::Ntid(Dim::X), &ntid_regs))
                            || (is(b, SpecialReg::Ctaid(Dim::X), &cta_regs) && is(a, SpecialReg::Ntid(Dim::X), &ntid_regs))) =>
                {
                    continue
                }
                _ => {}
            }
            let mut ok = true;
            crate::ir::visit::for_each_operand(&inst.op, &mut |o| {
                ok &= match o {
                    Operand::Special(s) => {
                        matches!(s, SpecialReg::Tid(Dim::Y | Dim::Z) | SpecialReg::Ctaid(Dim::Y | Dim::Z) | SpecialReg::Ntid(_) | SpecialReg::Nctaid(_))
                    }
                    Operand::VarAddr(v, _) => !per_block(*v),
                    _ => true,
                }
            });
            let mut used = vec![];
            crate::ir::visit::uses(&inst.op, &mut used);
            if !ok || used.iter().any(|r| tid_regs.contains(r) || cta_regs.contains(r)) {
                return false;
            }
        }
    }
    true
}

/// Operations that neither tell blocks or threads apart (other than through the global
/// index) nor touch per-block memory (`per_block`: a shared or local variable).
fn allowed(op: &Op, per_block: &dyn Fn(ir::VarId) -> bool) -> bool {
    let global = |s: &StateSpace, a: &ir::Address| {
        matches!(s, StateSpace::Global | StateSpace::Generic | StateSpace::Param | StateSpace::Const)
            && !matches!(a.base, ir::AddressBase::Var(v) if per_block(v))
    };
    match op {
        Op::Load { space, addr, .. } | Op::Store { space, addr, .. } | Op::Atomic { space, addr, .. } => global(space, addr),
        Op::Cvta { space, .. } => *space == StateSpace::Global,
        Op::Fence { .. } => true,
        op => op.is_value_computation(),
    }
}

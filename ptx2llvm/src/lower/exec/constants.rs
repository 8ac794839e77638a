//! Constant operands of sync points.
//!
//! NVRTC and nvcc pass a shuffle's lane offset, its clamp value and the membermask in
//! registers set by a `mov` of an immediate just before the instruction:
//!
//! ```text
//! mov.u32 %r15, 16;  mov.u32 %r14, 31;  mov.u32 %r16, -1;
//! shfl.sync.down.b32 %r17|%p3, %r12, %r15, %r14, %r16;
//! ```
//!
//! Where the only definition that reaches the sync point is an unguarded `mov` of an
//! immediate, the operand becomes that immediate. The block function then completes the
//! collective with lanes known at compile time (a shuffle is a fixed permutation,
//! `warps`), and the registers need not be kept per thread for the runtime's scheduler.

use crate::ir::cfg::Cfg;
use crate::ir::{self, Op, Operand, Terminator};
use crate::lower::exec::recompute::Defs;

/// `m` with the constant control operands of its sync points folded, or `None` if there
/// are none.
pub fn fold_sync_operands(m: &ir::Module) -> Option<ir::Module> {
    let folds: Vec<Vec<(usize, Vec<Option<u64>>)>> = m.functions.iter().map(constant_operands).collect();
    if folds.iter().all(|f| f.iter().all(|(_, c)| c.iter().all(Option::is_none))) {
        return None;
    }
    let mut out = m.clone();
    for (f, folds) in out.functions.iter_mut().zip(folds) {
        for (b, constants) in folds {
            let Terminator::Sync { point, .. } = &mut f.blocks[b].term else { continue };
            let mut constants = constants.into_iter();
            point.for_each_control_operand_mut(&mut |o| {
                if let Some(Some(v)) = constants.next() {
                    *o = Operand::Imm(v);
                }
            });
        }
    }
    Some(out)
}

/// Per block ending in a sync point: the constant value of each control operand, if any
/// (in `for_each_control_operand_mut` order).
fn constant_operands(f: &ir::Function) -> Vec<(usize, Vec<Option<u64>>)> {
    if !f.has_sync_points() {
        return vec![];
    }
    let cfg = Cfg::new(f);
    let defs = Defs::new(f);
    let mut out = vec![];
    for (bi, block) in f.blocks.iter().enumerate() {
        let Terminator::Sync { point, .. } = &block.term else { continue };
        let mut point = point.clone();
        let mut values = vec![];
        point.for_each_control_operand_mut(&mut |o| {
            let value = match *o {
                Operand::Reg(r) => defs.reaching_only(&cfg, r, bi, block.insts.len()).and_then(|(db, di)| {
                    let inst = &f.blocks[db].insts[di];
                    match inst.op {
                        Op::Mov { src: Operand::Imm(v), dst, .. } if dst == r && inst.guard.is_none() => {
                            let bits = f.regs[r.0 as usize].ty.bits();
                            Some(if bits >= 64 { v } else { v & ((1u64 << bits) - 1) })
                        }
                        _ => None,
                    }
                }),
                _ => None,
            };
            values.push(value);
        });
        out.push((bi, values));
    }
    out
}

//! Register liveness over a function's control-flow graph (sync points read their operands
//! and write their results like instructions).

use super::visit::{defs, successors, uses};
use crate::ir::{self, RegId, Terminator};
use fixedbitset::FixedBitSet;
use std::collections::BTreeSet;

/// Registers live at the start of each block of `f`. A guarded write does not kill the
/// register (the old value survives when the guard is false).
pub fn liveness(f: &ir::Function) -> Vec<BTreeSet<RegId>> {
    let n = f.blocks.len();
    let regs = f.regs.len();
    // (Register ids index `f.regs`; `grow` keeps a stray one from panicking.)
    let set = |bits: &mut FixedBitSet, r: RegId| {
        bits.grow(r.0 as usize + 1);
        bits.insert(r.0 as usize);
    };
    // Per block: registers read before any (unconditional) write, and registers written.
    let mut gen = vec![FixedBitSet::with_capacity(regs); n];
    let mut kill = vec![FixedBitSet::with_capacity(regs); n];
    let mut buf = vec![];
    for (i, b) in f.blocks.iter().enumerate() {
        let (gen, kill) = (&mut gen[i], &mut kill[i]);
        for inst in &b.insts {
            buf.clear();
            uses(&inst.op, &mut buf);
            if let Some(g) = inst.guard {
                buf.push(g.reg);
            }
            for &r in &buf {
                if !kill.contains(r.0 as usize) {
                    set(gen, r);
                }
            }
            if inst.guard.is_none() {
                buf.clear();
                defs(&inst.op, &mut buf);
                for &r in &buf {
                    set(kill, r);
                }
            }
        }
        buf.clear();
        let mut term_defs = vec![];
        match &b.term {
            Terminator::Branch { cond, .. } => buf.push(cond.reg),
            Terminator::Sync { point, .. } => {
                point.uses(&mut buf);
                point.defs(&mut term_defs);
            }
            _ => {}
        }
        for &r in &buf {
            if !kill.contains(r.0 as usize) {
                set(gen, r);
            }
        }
        for r in term_defs {
            set(kill, r);
        }
    }
    let width = gen.iter().chain(&kill).map(FixedBitSet::len).max().unwrap_or(0);
    let succs: Vec<Vec<usize>> = f.blocks.iter().map(|b| successors(&b.term).iter().map(|s| s.0 as usize).filter(|&s| s < n).collect()).collect();
    let mut live_in: Vec<FixedBitSet> = gen
        .iter()
        .map(|g| {
            let mut g = g.clone();
            g.grow(width);
            g
        })
        .collect();
    let mut next = FixedBitSet::with_capacity(width);
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).rev() {
            // live_in = gen | (union of the successors' live_in - kill)
            next.clear();
            for &s in &succs[i] {
                next.union_with(&live_in[s]);
            }
            next.difference_with(&kill[i]);
            next.union_with(&gen[i]);
            if next != live_in[i] {
                std::mem::swap(&mut live_in[i], &mut next);
                changed = true;
            }
        }
    }
    live_in.iter().map(|bits| bits.ones().map(|r| RegId(r as u32)).collect()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_across_a_loop_and_a_barrier() {
        let (f, reg) = crate::ir::test_kernel(
            ".reg .pred %p; .reg .b32 %r<4>;
             mov.u32 %r1, 0;
             mov.u32 %r2, 7;
             LOOP: setp.ge.s32 %p, %r1, 10;
             @%p bra END;
             add.s32 %r1, %r1, 1;
             bar.sync 0;
             bra LOOP;
             END: add.s32 %r3, %r2, %r1;
             ret;",
        );
        let live = liveness(&f);
        let header = f.blocks.iter().position(|b| b.label.as_deref() == Some("LOOP")).expect("LOOP");
        assert!(live[header].contains(&reg("%r1")) && live[header].contains(&reg("%r2")));
        assert!(!live[header].contains(&reg("%r3")) && !live[header].contains(&reg("%p")));
        assert!(live[0].is_empty(), "nothing is live into the entry: {:?}", live[0]);
        // After the barrier (the block it goes on to) both counters are still live.
        let after = f.blocks.iter().find_map(|b| match &b.term {
            Terminator::Sync { next, .. } => Some(next.0 as usize),
            _ => None,
        });
        let after = after.expect("a barrier block");
        assert!(live[after].contains(&reg("%r1")) && live[after].contains(&reg("%r2")));
    }
}

//! Register liveness over a function's control-flow graph (sync points read their operands
//! and write their results like instructions).

use super::visit::{defs, successors, uses};
use crate::ir::{self, BlockId, RegId, Terminator};
use std::collections::BTreeSet;

/// Registers live at the start of each block of `f`. A guarded write does not kill the
/// register (the old value survives when the guard is false).
pub fn liveness(f: &ir::Function) -> Vec<BTreeSet<RegId>> {
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

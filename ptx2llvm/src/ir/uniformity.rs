//! Divergence analysis: which registers hold the same value in every thread of a block,
//! which branches every thread takes the same way, and which blocks every (live) thread
//! executes.
//!
//! The sources of divergence are the thread's own indices (`%tid`, `%laneid`, ...), memory
//! (other than kernel parameters and `.const` at a uniform address), the results of warp
//! collectives and anything impure. A register is uniform when every one of its
//! definitions is a pure operation on uniform operands, unguarded or under a uniform
//! guard, in a block every thread executes. A block is executed by every thread unless it
//! is control dependent (post-dominance) on a divergent branch, or on any branch of a block
//! that is not executed by every thread. That also covers loops whose exit differs between
//! threads: their bodies are control dependent on the exit branch, so what they define is
//! divergent. Threads that `exit` drop out: a branch one of whose ways only leads to an
//! `exit` (no sync point on the way) divides nobody that stays.

use super::cfg::{Cfg, PostDom};
use super::visit::{defs, for_each_operand, successors, uses};
use crate::ir::{self, Op, Operand, RegId, SpecialReg, StateSpace, Terminator};

pub struct Uniformity {
    divergent_reg: Vec<bool>,
    divergent_branch: Vec<bool>,
    partial_block: Vec<bool>,
}

impl Uniformity {
    /// Uniform among the threads that stay: a branch one of whose ways only leads to an
    /// `exit` divides nobody (what matters at sync points, which exited threads never reach).
    pub fn new(f: &ir::Function) -> Uniformity {
        Self::analyze(f, exit_only_blocks(f))
    }

    /// Uniform among all threads, those on their way to an `exit` too (what matters where
    /// such threads still run code together: an interchanged loop's passes).
    pub fn among_all_threads(f: &ir::Function) -> Uniformity {
        Self::analyze(f, vec![false; f.blocks.len()])
    }

    fn analyze(f: &ir::Function, exit_only: Vec<bool>) -> Uniformity {
        let n = f.blocks.len();
        let cfg = Cfg::new(f);
        let pd = PostDom::new(f, &cfg);
        let mut u = Uniformity { divergent_reg: vec![false; f.regs.len()], divergent_branch: vec![false; n], partial_block: vec![false; n] };
        let mut buf = vec![];
        loop {
            let mut changed = false;
            let mut mark = |r: RegId, div: &mut Vec<bool>| {
                if let Some(d) = div.get_mut(r.0 as usize) {
                    if !*d {
                        *d = true;
                        changed = true;
                    }
                }
            };
            for (b, block) in f.blocks.iter().enumerate() {
                for inst in &block.insts {
                    let guard_divergent = inst.guard.is_some_and(|g| u.divergent_reg[g.reg.0 as usize]);
                    if u.partial_block[b] || guard_divergent || !uniform_op(f, &inst.op, &u.divergent_reg) {
                        buf.clear();
                        defs(&inst.op, &mut buf);
                        for &r in &buf {
                            mark(r, &mut u.divergent_reg);
                        }
                    }
                }
                if let Terminator::Sync { point, .. } = &block.term {
                    buf.clear();
                    point.defs(&mut buf);
                    for &r in &buf {
                        mark(r, &mut u.divergent_reg);
                    }
                }
            }
            for (b, block) in f.blocks.iter().enumerate() {
                if let Terminator::Branch { cond, then_, else_ } = &block.term {
                    let divergent = u.divergent_reg[cond.reg.0 as usize];
                    if divergent != u.divergent_branch[b] {
                        u.divergent_branch[b] = divergent;
                        changed = true;
                    }
                    let divides_live_threads = divergent && !exit_only[then_.0 as usize] && !exit_only[else_.0 as usize];
                    if divides_live_threads || u.partial_block[b] {
                        for s in [then_, else_] {
                            for y in pd.controlled_through(b, s.0 as usize) {
                                if !u.partial_block[y] {
                                    u.partial_block[y] = true;
                                    changed = true;
                                }
                            }
                        }
                    }
                }
            }
            if !changed {
                return u;
            }
        }
    }

    pub fn is_uniform(&self, r: RegId) -> bool {
        !self.divergent_reg.get(r.0 as usize).copied().unwrap_or(true)
    }

    /// Whether threads may leave block `b` in different directions (its branch condition
    /// is divergent).
    pub fn divergent_branch(&self, b: usize) -> bool {
        self.divergent_branch.get(b).copied().unwrap_or(true)
    }

    /// Whether every thread that has not exited executes block `b` (as often as the others).
    pub fn executed_by_all(&self, b: usize) -> bool {
        !self.partial_block.get(b).copied().unwrap_or(true)
    }
}

/// Special registers with one value for the whole block.
fn uniform_special(s: SpecialReg) -> bool {
    !matches!(
        s,
        SpecialReg::Tid(_)
            | SpecialReg::LaneId
            | SpecialReg::WarpId
            | SpecialReg::LanemaskEq
            | SpecialReg::LanemaskLe
            | SpecialReg::LanemaskLt
            | SpecialReg::LanemaskGe
            | SpecialReg::LanemaskGt
            | SpecialReg::Clock
            | SpecialReg::Clock64
            | SpecialReg::ClockHi
            | SpecialReg::GlobalTimer
            | SpecialReg::GlobalTimerLo
            | SpecialReg::GlobalTimerHi
    )
}

/// Whether `op` gives every thread the same results when its register operands are uniform.
fn uniform_op(f: &ir::Function, op: &Op, divergent: &[bool]) -> bool {
    let pure = match op {
        // Kernel parameters are read-only; so is `.const` memory during a launch.
        op if op.is_kernel_param_load() => f.kind == ir::FunctionKind::Entry,
        Op::Load { space: StateSpace::Const, order: None, .. } => true,
        op => op.is_value_computation(),
    };
    if !pure {
        return false;
    }
    let mut regs = vec![];
    uses(op, &mut regs);
    if regs.iter().any(|r| divergent.get(r.0 as usize).copied().unwrap_or(true)) {
        return false;
    }
    let mut specials_ok = true;
    for_each_operand(op, &mut |o| {
        if let Operand::Special(s) = o {
            specials_ok &= uniform_special(*s);
        }
    });
    specials_ok
}

/// Blocks from which every path ends in `exit`/`ret` without reaching a sync point.
fn exit_only_blocks(f: &ir::Function) -> Vec<bool> {
    let n = f.blocks.len();
    let mut out = vec![false; n];
    loop {
        let mut changed = false;
        for (b, block) in f.blocks.iter().enumerate() {
            if out[b] {
                continue;
            }
            let yes = match &block.term {
                Terminator::Exit | Terminator::Return => true,
                Terminator::Sync { .. } => false,
                t => {
                    let succs = successors(t);
                    !succs.is_empty() && succs.iter().all(|s| out.get(s.0 as usize).copied().unwrap_or(false))
                }
            };
            if yes {
                out[b] = true;
                changed = true;
            }
        }
        if !changed {
            return out;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loop_counters_are_uniform_and_thread_values_are_not() {
        // A loop with a barrier, a uniform counter, a divergent `if` inside that joins
        // before the barrier, and an early exit of some threads.
        let (f, reg) = crate::ir::test_kernel(
            ".reg .pred %p<4>; .reg .b32 %r<10>;
             mov.u32 %r1, %tid.x;
             mov.u32 %r9, %ntid.x;
             setp.ge.u32 %p0, %r1, 100;
             @%p0 bra DONE;
             mov.u32 %r2, 0;
             LOOP: setp.ge.s32 %p1, %r2, %r9;
             @%p1 bra DONE;
             setp.lt.u32 %p2, %r1, %r2;
             @%p2 bra JOIN;
             add.u32 %r3, %r1, 1;
             mov.u32 %r4, 5;
             JOIN: add.u32 %r5, %r2, 7;
             bar.sync 0;
             add.s32 %r2, %r2, 1;
             bra LOOP;
             DONE: ret;",
        );
        let u = Uniformity::new(&f);
        assert!(!u.is_uniform(reg("%r1")) && !u.is_uniform(reg("%r3")));
        assert!(u.is_uniform(reg("%r9")) && u.is_uniform(reg("%r2")) && u.is_uniform(reg("%r5")));
        assert!(!u.is_uniform(reg("%r4")), "a constant set under a divergent branch differs between threads");
        let block = |label: &str| f.blocks.iter().position(|b| b.label.as_deref() == Some(label)).expect(label);
        assert!(u.executed_by_all(block("LOOP")) && u.executed_by_all(block("JOIN")), "the early exit divides nobody that stays");
        assert!(!u.divergent_branch(block("LOOP")));
        let inside_if =
            (0..f.blocks.len()).find(|&b| f.blocks[b].insts.iter().any(|i| matches!(i.op, Op::Mov { dst, .. } if dst == reg("%r4")))).expect("the if body");
        assert!(!u.executed_by_all(inside_if));
    }

    #[test]
    fn a_loop_with_a_thread_dependent_exit_diverges() {
        let (f, reg) = crate::ir::test_kernel(
            ".reg .pred %p<2>; .reg .b32 %r<4>;
             mov.u32 %r1, %tid.x;
             mov.u32 %r2, 0;
             LOOP: add.u32 %r2, %r2, 1;
             setp.lt.u32 %p1, %r2, %r1;
             @%p1 bra LOOP;
             add.u32 %r3, %r2, 1;
             bar.sync 0;
             ret;",
        );
        let u = Uniformity::new(&f);
        assert!(!u.is_uniform(reg("%r2")), "threads leave the loop after different trip counts");
        assert!(!u.is_uniform(reg("%r3")));
    }

    /// A count kept in a loop whose every way out leads to `exit` (clang's grid-stride
    /// loops): uniform among the threads that stay (none does), not among all threads,
    /// which leave the loop after different trip counts and store their counts.
    #[test]
    fn threads_on_their_way_to_exit_count_among_all_threads() {
        let (f, reg) = crate::ir::test_kernel(
            ".reg .pred %p<3>; .reg .b32 %r<6>;
             mov.u32 %r1, %tid.x;
             mov.u32 %r2, 0;
             setp.ge.u32 %p0, %r1, 100;
             @%p0 bra DONE;
             mov.u32 %r2, 0;
             LOOP: add.u32 %r2, %r2, 1;
             add.u32 %r1, %r1, 32;
             setp.lt.u32 %p1, %r1, 100;
             @%p1 bra LOOP;
             DONE: st.global.u32 [0], %r2;
             ret;",
        );
        assert!(Uniformity::new(&f).is_uniform(reg("%r2")));
        let all = Uniformity::among_all_threads(&f);
        assert!(!all.is_uniform(reg("%r2")));
        assert!(!all.is_uniform(reg("%r1")));
    }
}

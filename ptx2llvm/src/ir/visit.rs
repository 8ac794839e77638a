//! What an operation reads and writes, and where a block goes next: the operand visitor
//! every analysis of the IR is built on.

use crate::ir::{self, BlockId, Op, Operand, RegId, Terminator};

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uses_and_defs_of_instructions() {
        let (f, reg) = crate::ir::test_kernel(
            ".reg .b32 %r<4>; .reg .pred %p<3>; .reg .b64 %rd<2>;
             add.s32 %r1, %r2, %r3;
             setp.lt.and.s32 %p1|%p2, %r1, 5, %p0;
             st.global.u32 [%rd1+4], %r1;
             ret;",
        );
        let insts = &f.blocks[0].insts;
        let (mut u, mut d) = (vec![], vec![]);
        uses(&insts[0].op, &mut u);
        defs(&insts[0].op, &mut d);
        assert_eq!((u, d), (vec![reg("%r2"), reg("%r3")], vec![reg("%r1")]));
        let (mut u, mut d) = (vec![], vec![]);
        uses(&insts[1].op, &mut u);
        defs(&insts[1].op, &mut d);
        u.sort();
        let mut want = vec![reg("%r1"), reg("%p0")];
        want.sort();
        assert_eq!(u, want);
        assert_eq!(d, vec![reg("%p1"), reg("%p2")]);
        let (mut u, mut d) = (vec![], vec![]);
        uses(&insts[2].op, &mut u);
        defs(&insts[2].op, &mut d);
        u.sort();
        let mut want = vec![reg("%r1"), reg("%rd1")];
        want.sort();
        assert_eq!((u, d), (want, vec![]));
        let mut immediates = 0;
        for_each_operand(&insts[1].op, &mut |o| immediates += matches!(o, Operand::Imm(5)) as usize);
        assert_eq!(immediates, 1, "operands include immediates, not predicates");
    }

    #[test]
    fn successors_of_terminators() {
        let (f, _) = crate::ir::test_kernel(
            ".reg .pred %p; .reg .b32 %r;
             setp.eq.s32 %p, %r, 0;
             @%p bra DONE;
             bar.sync 0;
             DONE: ret;",
        );
        let all: Vec<Vec<BlockId>> = f.blocks.iter().map(|b| successors(&b.term)).collect();
        assert_eq!(all[0].len(), 2, "a conditional branch has two successors: {all:?}");
        assert!(all.iter().any(|s| s.len() == 1), "the barrier block goes on: {all:?}");
        assert!(all.iter().any(|s| s.is_empty()), "ret ends the thread: {all:?}");
    }
}

//! Cluster and launch-control instructions whose meaning follows from the execution model:
//! a cluster is one block (CTA rank 0, `%cluster_nctarank` = 1) and grids run one after
//! another. `mapa`, `getctarank` (ISA 9.2 §9.7.9.23–24), `griddepcontrol` (§9.7.13.13),
//! `setmaxnreg`.

use super::function::FnScope;
use super::instruction::{done, expect_operands, one_type, Converted, Mods};
use super::operands::Width;
use crate::front::ast;
use crate::ir::{self, BoolOp, CmpOp, Op, ScalarType};

/// `getctarank{.shared::cluster}.type d, a`: the rank of the CTA whose shared memory holds
/// `a`. Every shared address of the cluster belongs to the one CTA, rank 0; the ISA leaves
/// the result undefined for an address that is not shared memory, and it is 0 there too.
pub(super) fn getctarank(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    mods.has(".shared::cluster");
    let ty = one_type(scope, &mut mods, inst)?;
    if !mods.finish() || !expect_operands(scope, inst, &[2]) {
        return None;
    }
    // `d` is always a 32-bit register; `.type` is the type of `a`.
    let dst = scope.dst(&inst.operands[0], ScalarType::U32, Width::Exact)?;
    scope.src(&inst.operands[1], ty, Width::Exact)?;
    done(guard, Op::Mov { ty: ScalarType::U32, dst, src: ir::Operand::Imm(0) }, inst)
}

/// `mapa{.shared::cluster}.type d, a, b`: the address of `a`'s variable in CTA `b` of the
/// cluster. With one CTA, rank 0 maps every address to itself; any other rank does not
/// exist, which ends the launch with an error (the ISA leaves it undefined).
pub(super) fn mapa(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    mods.has(".shared::cluster");
    let ty = one_type(scope, &mut mods, inst)?;
    if !mods.finish() || !expect_operands(scope, inst, &[3]) {
        return None;
    }
    let dst = scope.dst(&inst.operands[0], ty, Width::Exact)?;
    let a = scope.src(&inst.operands[1], ty, Width::Exact)?;
    let rank = scope.src(&inst.operands[2], ScalarType::U32, Width::Exact)?;
    // bad = (rank != 0) && guard; @bad fault; @guard d = a.
    let bad = scope.scratch_reg(ScalarType::Pred);
    let test = Op::Setp {
        cmp: CmpOp::Ne,
        ty: ScalarType::U32,
        ftz: false,
        dst: bad,
        dst_not: None,
        a: rank,
        b: ir::Operand::Imm(0),
        combine: guard.map(|g| (BoolOp::And, g)),
    };
    let fault = Op::Fault { what: "`mapa` to a CTA rank other than 0 (a cluster is one CTA here)".into() };
    let inst_of = |guard, op| ir::Inst { guard, op, span: inst.span.clone() };
    Some(Converted::Insts(vec![
        inst_of(None, test),
        inst_of(Some(ir::PredRef { reg: bad, negated: false }), fault),
        inst_of(guard, Op::Mov { ty, dst, src: a }),
    ]))
}

/// `griddepcontrol.launch_dependents` / `.wait` (programmatic dependent launch). A launch
/// returns only when its grid has finished, so the next grid never starts early and the
/// prerequisite grids' memory is already visible: both actions are no-ops.
pub(super) fn griddepcontrol(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    mods.one_of(&[".launch_dependents", ".wait"]);
    if !mods.finish() || !expect_operands(scope, inst, &[0]) {
        return None;
    }
    done(guard, Op::Nop, inst)
}

/// `setmaxnreg.{inc,dec}.sync.aligned.u32 count`: a hint about the warp's register budget,
/// which means nothing on a CPU. The count must be an immediate in 24..=256, a multiple of 8.
pub(super) fn setmaxnreg(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    mods.one_of(&[".inc", ".dec"]);
    mods.has(".sync");
    mods.has(".aligned");
    mods.has(".u32");
    if !mods.finish() || !expect_operands(scope, inst, &[1]) {
        return None;
    }
    let count = &inst.operands[0];
    match scope.src(count, ScalarType::U32, Width::Exact)? {
        ir::Operand::Imm(n) if (24..=256).contains(&n) && n % 8 == 0 => done(guard, Op::Nop, inst),
        ir::Operand::Imm(n) => {
            scope.error(count.span.clone(), format!("`setmaxnreg` register count must be a multiple of 8 from 24 to 256, not {n}"));
            None
        }
        _ => {
            scope.error(count.span.clone(), "`setmaxnreg` register count must be an integer constant");
            None
        }
    }
}

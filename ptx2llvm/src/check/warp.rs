//! Warp collectives: `shfl`, `vote`, `match`, `redux`, `activemask`, `elect` (ISA 9.2
//! §9.7.9.6, §9.7.13.7–9.7.13.12, §9.7.13.14). Each becomes a warp-scoped sync point (`ir::SyncPoint::Warp`).

use super::function::FnScope;
use super::instruction::{expect_operands, one_type, Converted, Mods, PendingTerm};
use super::operands::Width;
use crate::front::ast::{self, Operand as A, Spanned};
use crate::ir::{self, ReduxOp, ScalarType, ShflMode, VoteMode, WarpOp};

fn sync_point(op: WarpOp, guard: Option<ir::PredRef>) -> Option<Converted> {
    Some(Converted::Term(PendingTerm::Sync(ir::SyncPoint::Warp(op)), guard))
}

/// `d` or `d|p`: a destination of type `ty` and an optional predicate.
fn dst_pair(scope: &mut FnScope, op: &Spanned<A>, ty: ScalarType) -> Option<(ir::RegId, Option<ir::RegId>)> {
    match &op.node {
        A::Pair(d, p) => {
            let d = Spanned::new(A::Name { name: d.clone(), component: None }, op.span.clone());
            let p = Spanned::new(A::Name { name: p.clone(), component: None }, op.span.clone());
            Some((scope.dst(&d, ty, Width::Exact)?, Some(scope.dst(&p, ScalarType::Pred, Width::Exact)?)))
        }
        _ => Some((scope.dst(op, ty, Width::Exact)?, None)),
    }
}

pub(super) fn collective(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let ops = &inst.operands;
    let synced = mods.has(".sync");
    mods.has(".aligned");
    match opcode {
        "shfl" => {
            let mode = match mods.one_of(&[".up", ".down", ".bfly", ".idx"]) {
                Some(".up") => ShflMode::Up,
                Some(".down") => ShflMode::Down,
                Some(".bfly") => ShflMode::Bfly,
                Some(_) => ShflMode::Idx,
                None => {
                    scope.error(inst.opcode.span.clone(), "`shfl` needs a mode: `.up`, `.down`, `.bfly` or `.idx`");
                    return None;
                }
            };
            let ty = one_type(scope, &mut mods, inst)?;
            if ty.bits() != 32 || ty == ScalarType::F16x2 || ty == ScalarType::BF16x2 {
                scope.error(inst.opcode.span.clone(), format!("`shfl` moves `.b32` values, not `{}`", ty.name()));
                return None;
            }
            if !mods.finish() || !expect_operands(scope, inst, if synced { &[5] } else { &[4] }) {
                return None;
            }
            let (dst, pred) = dst_pair(scope, &ops[0], ty)?;
            let a = scope.src(&ops[1], ty, Width::Exact)?;
            let b = scope.src(&ops[2], ScalarType::B32, Width::Exact)?;
            let c = scope.src(&ops[3], ScalarType::B32, Width::Exact)?;
            let mask = if synced { Some(scope.src(&ops[4], ScalarType::B32, Width::Exact)?) } else { None };
            sync_point(WarpOp::Shfl { mode, dst, pred, a, b, c, mask }, guard)
        }
        "vote" => {
            let mode = match mods.one_of(&[".all", ".any", ".uni", ".ballot"]) {
                Some(".all") => VoteMode::All,
                Some(".any") => VoteMode::Any,
                Some(".uni") => VoteMode::Uni,
                Some(_) => VoteMode::Ballot,
                None => {
                    scope.error(inst.opcode.span.clone(), "`vote` needs a mode: `.all`, `.any`, `.uni` or `.ballot`");
                    return None;
                }
            };
            let ty = one_type(scope, &mut mods, inst)?;
            let want = if mode == VoteMode::Ballot { ScalarType::B32 } else { ScalarType::Pred };
            if ty != want {
                scope.error(inst.opcode.span.clone(), format!("this `vote` writes `{}`, not `{}`", want.name(), ty.name()));
                return None;
            }
            if !mods.finish() || !expect_operands(scope, inst, if synced { &[3] } else { &[2] }) {
                return None;
            }
            let dst = scope.dst(&ops[0], ty, Width::Exact)?;
            let src = scope.pred(&ops[1])?;
            let mask = if synced { Some(scope.src(&ops[2], ScalarType::B32, Width::Exact)?) } else { None };
            sync_point(WarpOp::Vote { mode, dst, src, mask }, guard)
        }
        "match" => {
            let all = match mods.one_of(&[".any", ".all"]) {
                Some(m) => m == ".all",
                None => {
                    scope.error(inst.opcode.span.clone(), "`match` needs `.any` or `.all`");
                    return None;
                }
            };
            let ty = one_type(scope, &mut mods, inst)?;
            if !matches!(ty, ScalarType::B32 | ScalarType::B64) {
                scope.error(inst.opcode.span.clone(), format!("`match` compares `.b32` or `.b64` values, not `{}`", ty.name()));
                return None;
            }
            if !mods.finish() || !expect_operands(scope, inst, &[3]) {
                return None;
            }
            let (dst, pred) = dst_pair(scope, &ops[0], ScalarType::B32)?;
            if pred.is_some() && !all {
                scope.error(ops[0].span.clone(), "only `match.all` writes a predicate");
                return None;
            }
            let a = scope.src(&ops[1], ty, Width::Exact)?;
            let mask = scope.src(&ops[2], ScalarType::B32, Width::Exact)?;
            sync_point(WarpOp::Match { all, bits: ty.bits(), dst, pred, a, mask }, guard)
        }
        "redux" => {
            let op = match mods.one_of(&[".add", ".min", ".max", ".and", ".or", ".xor"]) {
                Some(".add") => ReduxOp::Add,
                Some(".min") => ReduxOp::Min,
                Some(".max") => ReduxOp::Max,
                Some(".and") => ReduxOp::And,
                Some(".or") => ReduxOp::Or,
                Some(_) => ReduxOp::Xor,
                None => {
                    scope.error(inst.opcode.span.clone(), "`redux.sync` needs an operation");
                    return None;
                }
            };
            if inst.modifiers.iter().any(|m| matches!(m.node.as_str(), ".f32" | ".abs" | ".NaN")) {
                return super::instruction::unsupported(scope, inst, guard, "`redux.sync` on `.f32`");
            }
            let ty = one_type(scope, &mut mods, inst)?;
            let ok = match op {
                ReduxOp::And | ReduxOp::Or | ReduxOp::Xor => ty == ScalarType::B32,
                _ => matches!(ty, ScalarType::U32 | ScalarType::S32),
            };
            if !ok {
                scope.error(inst.opcode.span.clone(), format!("`redux.sync` does not take `{}` for this operation", ty.name()));
                return None;
            }
            if !mods.finish() || !expect_operands(scope, inst, &[3]) {
                return None;
            }
            let dst = scope.dst(&ops[0], ty, Width::Exact)?;
            let a = scope.src(&ops[1], ty, Width::Exact)?;
            let mask = scope.src(&ops[2], ScalarType::B32, Width::Exact)?;
            sync_point(WarpOp::Redux { op, signed: ty == ScalarType::S32, dst, a, mask }, guard)
        }
        "elect" => {
            // elect.sync d|p, membermask (`_` may stand for `d`, not for `p`)
            if !mods.finish() || !expect_operands(scope, inst, &[2]) {
                return None;
            }
            if matches!(&ops[0].node, A::Pair(_, p) if p == "_") {
                scope.error(ops[0].span.clone(), "`elect.sync` needs a predicate destination: `d|p` (only `d` may be `_`)");
                return None;
            }
            let (dst, pred) = dst_pair(scope, &ops[0], ScalarType::B32)?;
            let Some(pred) = pred else {
                scope.error(ops[0].span.clone(), "`elect.sync` writes a lane id and a predicate: `d|p`");
                return None;
            };
            let mask = scope.src(&ops[1], ScalarType::B32, Width::Exact)?;
            sync_point(WarpOp::Elect { dst, pred, mask }, guard)
        }
        _ => {
            // activemask.b32 d
            let ty = one_type(scope, &mut mods, inst)?;
            if ty != ScalarType::B32 || !mods.finish() || !expect_operands(scope, inst, &[1]) {
                return None;
            }
            let dst = scope.dst(&ops[0], ty, Width::Exact)?;
            sync_point(WarpOp::ActiveMask { dst }, guard)
        }
    }
}

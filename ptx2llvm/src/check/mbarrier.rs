//! `mbarrier` (ISA 9.2 §9.7.13.15) and `cp.async.mbarrier.arrive`. The form table checks
//! modifiers, versions and targets; this checks what it cannot see: operand types, the
//! sink `_` (mandatory for arrives on `.shared::cluster`, elsewhere allowed from ISA 7.1),
//! the count operand of an arrive (positive; before sm_90 and ISA 7.8 only with
//! `.noComplete`) and the phase parity (0 or 1), with ptxas's verdicts as the reference.

use super::function::FnScope;
use super::instruction::{self, done, expect_operands, Converted, Mods};
use super::operands::Width;
use crate::front::ast::{self, Operand as A, Spanned};
use crate::ir::{self, MbarrierOp, Op, Operand, ScalarType, StateSpace};

type Guard = Option<ir::PredRef>;

pub(super) fn mbarrier(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let ops = &inst.operands;
    let which = mods.one_of(&[".init", ".inval", ".arrive", ".arrive_drop", ".expect_tx", ".complete_tx", ".test_wait", ".try_wait", ".pending_count"])?;
    // Orderings and scopes need nothing on one CPU thread per block (see `ir::MbarrierOp`).
    mods.one_of(&[".release", ".acquire", ".relaxed"]);
    mods.one_of(&[".cta", ".cluster"]);
    let cluster_space = inst.modifiers.iter().any(|m| m.node == ".shared::cluster");
    let space = instruction::space(&mut mods);
    let expect_tx = mods.has(".expect_tx");
    let no_complete = mods.has(".noComplete");
    let parity = mods.has(".parity");
    mods.has(".b64");
    if !mods.finish() {
        return None;
    }
    if which == ".pending_count" {
        if !expect_operands(scope, inst, &[2]) {
            return None;
        }
        let dst = scope.dst(&ops[0], ScalarType::U32, Width::Exact)?;
        let state = scope.src(&ops[1], ScalarType::B64, Width::Exact)?;
        return done(guard, Op::MbarrierPendingCount { dst, state }, inst);
    }
    let counts: &[usize] = match which {
        ".inval" => &[1],
        ".init" | ".expect_tx" | ".complete_tx" => &[2],
        ".arrive" | ".arrive_drop" if expect_tx || no_complete => &[3],
        ".arrive" | ".arrive_drop" => &[2, 3],
        ".try_wait" => &[3, 4],
        _ => &[3],
    };
    if !expect_operands(scope, inst, counts) {
        return None;
    }
    let address_at = if matches!(which, ".init" | ".inval" | ".expect_tx" | ".complete_tx") { 0 } else { 1 };
    let addr = scope.address_in(&ops[address_at], space)?;
    let op = match which {
        ".init" => MbarrierOp::Init { count: scope.src(&ops[1], ScalarType::U32, Width::Exact)? },
        ".inval" => MbarrierOp::Inval,
        ".expect_tx" => MbarrierOp::ExpectTx { tx: scope.src(&ops[1], ScalarType::U32, Width::Exact)? },
        ".complete_tx" => MbarrierOp::CompleteTx { tx: scope.src(&ops[1], ScalarType::U32, Width::Exact)? },
        ".arrive" | ".arrive_drop" => {
            let state = arrive_state(scope, inst, &ops[0], cluster_space)?;
            let (count, tx) = match ops.get(2) {
                // With `.expect_tx` the operand is the tx-count and the arrival count is 1.
                Some(t) if expect_tx => (Operand::Imm(1), Some(scope.src(t, ScalarType::U32, Width::Exact)?)),
                Some(c) => (arrive_count(scope, inst, c, no_complete)?, None),
                None => (Operand::Imm(1), None),
            };
            MbarrierOp::Arrive { drop: which == ".arrive_drop", count, expect_tx: tx, state }
        }
        _ => {
            let dst = scope.dst(&ops[0], ScalarType::Pred, Width::Exact)?;
            let phase = if parity {
                let p = scope.src(&ops[2], ScalarType::U32, Width::Exact)?;
                if let Operand::Imm(v) = p {
                    if v > 1 {
                        scope.error(ops[2].span.clone(), format!("the phase parity of `mbarrier{which}.parity` must be 0 or 1, not {v}"));
                        return None;
                    }
                }
                p
            } else {
                scope.src(&ops[2], ScalarType::B64, Width::Exact)?
            };
            // `try_wait`'s time limit: a hint, and the test returns at once anyway.
            if let Some(hint) = ops.get(3) {
                scope.src(hint, ScalarType::U32, Width::Exact)?;
            }
            MbarrierOp::TestWait { parity, phase, dst }
        }
    };
    done(guard, Op::Mbarrier { op, space, addr }, inst)
}

/// The state destination of an arrive: a `.b64` register, or `None` for the sink `_`.
fn arrive_state(scope: &mut FnScope, inst: &ast::Instruction, op: &Spanned<A>, cluster_space: bool) -> Option<Option<ir::RegId>> {
    let sink = matches!(&op.node, A::Sink) || matches!(&op.node, A::Name { name, component: None } if name == "_");
    if sink {
        if scope.cx.out.version < (7, 1) {
            scope.error(op.span.clone(), format!("the sink `_` as the state of `{}` requires PTX ISA version 7.1 or later", opcode_and_first(inst)));
            return None;
        }
        return Some(None);
    }
    if cluster_space {
        scope.error(op.span.clone(), format!("`{}` on `.shared::cluster` returns no state: the destination must be the sink `_`", opcode_and_first(inst)));
        return None;
    }
    scope.dst(op, ScalarType::B64, Width::Exact).map(Some)
}

/// The count operand of an arrive without `.expect_tx`.
fn arrive_count(scope: &mut FnScope, inst: &ast::Instruction, op: &Spanned<A>, no_complete: bool) -> Option<Operand> {
    let what = opcode_and_first(inst);
    if !no_complete {
        let (major, minor) = scope.cx.out.version;
        let needs = match scope.cx.target_sm {
            Some(sm) if sm < 90 => Some(format!("`.target sm_90` or higher (the file targets `sm_{sm}`)")),
            _ if (major, minor) < (7, 8) => Some(format!("PTX ISA version 7.8 or later (the file declares `.version {major}.{minor}`)")),
            _ => None,
        };
        if let Some(needs) = needs {
            scope.error(op.span.clone(), format!("`{what}` with a count and without `.noComplete` requires {needs}"));
            return None;
        }
    }
    let count = scope.src(op, ScalarType::U32, Width::Exact)?;
    if let Operand::Imm(v) = count {
        // ptxas reads the immediate as signed and wants it positive.
        if v as u32 as i32 <= 0 {
            scope.error(op.span.clone(), format!("the count of `{what}` must be positive (at most 2^20 - 1), not {}", v as u32 as i32));
            return None;
        }
    }
    Some(count)
}

/// `mbarrier.arrive` / `mbarrier.arrive_drop`, for messages.
fn opcode_and_first(inst: &ast::Instruction) -> String {
    match inst.modifiers.first() {
        Some(m) => format!("{}{}", inst.opcode.node, m.node),
        None => inst.opcode.node.clone(),
    }
}

/// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]` (the `.async` and
/// `.mbarrier` modifiers already taken).
pub(super) fn async_copy_arrive(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    if !mods.has(".arrive") {
        return None;
    }
    let noinc = mods.has(".noinc");
    let space = instruction::space(&mut mods);
    mods.has(".b64");
    if !mods.finish() || !expect_operands(scope, inst, &[1]) || !matches!(space, StateSpace::Shared | StateSpace::Generic) {
        return None;
    }
    let addr = scope.address_in(&inst.operands[0], space)?;
    done(guard, Op::Mbarrier { op: MbarrierOp::AsyncCopyArrive { noinc }, space, addr }, inst)
}

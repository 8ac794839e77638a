//! Dropping NaN canonicalizations whose payload nothing observes.
//!
//! Every `.f32` result that is NaN must be the canonical NaN `0x7fffffff` (`float`), so its
//! lowering ends in `select (fcmp uno r, 0.0), 0x7fffffff, r`. In a chain of arithmetic (a
//! dot product: `fma` after `fma`), each link then costs a compare and a blend on top of the
//! operation. The select only changes which NaN a NaN result is. It can go when every use
//! of its result is one of:
//!
//! - an operation that gives a NaN whenever this operand is a NaN (`fadd fsub fmul fdiv
//!   frem fneg`, `llvm.fma`, `llvm.fmuladd`, `llvm.sqrt`), whose own result's payload is in
//!   turn observed by nothing (recursively);
//! - a canonicalization of the value itself (it replaces any NaN by the canonical one);
//! - a comparison (it does not see payloads).
//!
//! A select that instcombine moved past an operation (`select (fcmp uno a, _), NaN,
//! (fmul a, b)`) also changes only which NaN the product is, and goes on the same terms.
//!
//! Then a NaN entering the chain still comes out as the canonical NaN at the first place
//! its bits can be seen (a store, a bitcast, a `min`...), and every non-NaN value is
//! unchanged: the results are bit-identical.
//!
//! Runs on SSA form (after `mem2reg`/`instcombine`), before the optimization pipeline.

use inkwell::module::Module;
use inkwell::values::{AnyValueEnum, AsValueRef, BasicValue, BasicValueEnum, InstructionOpcode, InstructionValue};
use inkwell::FloatPredicate;
use std::collections::HashMap;

/// How deep the search for an observer follows a chain (beyond it: assume observed).
const MAX_DEPTH: u32 = 64;

fn value_operand<'ctx>(i: InstructionValue<'ctx>, k: u32) -> Option<BasicValueEnum<'ctx>> {
    i.get_operand(k)?.value()
}

fn same(a: BasicValueEnum<'_>, b: InstructionValue<'_>) -> bool {
    a.as_value_ref() == b.as_value_ref()
}

/// Whether a constant operand is a `float` or `double` NaN.
fn is_nan_constant(v: BasicValueEnum<'_>) -> bool {
    let BasicValueEnum::FloatValue(f) = v else { return false };
    // SAFETY: a valid value; `LLVMIsAConstantFP` only tests its class, and reading the
    // value is only done on a `ConstantFP` (not undef, poison or a constant expression).
    let constant_fp = unsafe { !inkwell::llvm_sys::core::LLVMIsAConstantFP(f.as_value_ref()).is_null() };
    // Widening to f64 keeps a NaN a NaN (the flag only says whether precision was lost).
    constant_fp && f.get_constant().is_some_and(|(value, _)| value.is_nan())
}

/// The value `v` whose NaN payload `s` changes, if `s` is `select (fcmp uno v, _), NaN, v`
/// (then `true`: every NaN `v` becomes the constant) or `select (fcmp uno t, _), NaN, v`
/// with `v` a NaN-propagating operation of `t` (`false`: only when `t` is NaN).
fn canonicalized<'ctx>(s: InstructionValue<'ctx>) -> Option<(InstructionValue<'ctx>, bool)> {
    if s.get_opcode() != InstructionOpcode::Select || !is_nan_constant(value_operand(s, 1)?) {
        return None;
    }
    let BasicValueEnum::FloatValue(v) = value_operand(s, 2)? else { return None };
    let v = v.as_instruction()?;
    let cond = value_operand(s, 0)?.as_instruction_value()?;
    if cond.get_opcode() != InstructionOpcode::FCmp || cond.get_fcmp_predicate()? != FloatPredicate::UNO {
        return None;
    }
    // `fcmp uno t, c` (c a non-NaN constant) or `fcmp uno t, t`: true exactly when t is NaN.
    let (a, b) = (value_operand(cond, 0)?, value_operand(cond, 1)?);
    let not_nan_constant = |c: BasicValueEnum<'_>| c.is_float_value() && c.into_float_value().is_const() && !is_nan_constant(c);
    let tested = if not_nan_constant(b) || a.as_value_ref() == b.as_value_ref() {
        a
    } else if not_nan_constant(a) {
        b
    } else {
        return None;
    };
    // t is v itself, or (instcombine moves the select past an operation) an operand of v
    // that v turns into a NaN when it is one: either way the select changes only which NaN
    // a NaN v is.
    let operand_of_v = propagates_nan(v) && (0..v.get_num_operands()).any(|k| value_operand(v, k).is_some_and(|o| o.as_value_ref() == tested.as_value_ref()));
    if same(tested, v) {
        Some((v, true))
    } else {
        operand_of_v.then_some((v, false))
    }
}

/// Whether `inst` gives a NaN whenever one of its (float) operands is a NaN.
fn propagates_nan(inst: InstructionValue<'_>) -> bool {
    match inst.get_opcode() {
        InstructionOpcode::FAdd
        | InstructionOpcode::FSub
        | InstructionOpcode::FMul
        | InstructionOpcode::FDiv
        | InstructionOpcode::FRem
        | InstructionOpcode::FNeg => true,
        InstructionOpcode::Call => {
            let n = inst.get_num_operands();
            let Some(BasicValueEnum::PointerValue(callee)) = n.checked_sub(1).and_then(|k| value_operand(inst, k)) else { return false };
            let name = callee.get_name().to_string_lossy();
            ["llvm.fma.", "llvm.fmuladd.", "llvm.sqrt."].iter().any(|p| name.starts_with(p))
        }
        _ => false,
    }
}

/// A user as an instruction (inkwell hands users over typed by their result).
fn as_instruction(v: AnyValueEnum<'_>) -> Option<InstructionValue<'_>> {
    match v {
        AnyValueEnum::InstructionValue(i) => Some(i),
        AnyValueEnum::FloatValue(f) => f.as_instruction(),
        AnyValueEnum::IntValue(i) => i.as_instruction(),
        AnyValueEnum::PointerValue(p) => p.as_instruction(),
        AnyValueEnum::VectorValue(v) => v.as_instruction(),
        AnyValueEnum::StructValue(s) => s.as_instruction(),
        AnyValueEnum::ArrayValue(a) => a.as_instruction(),
        AnyValueEnum::PhiValue(p) => Some(p.as_instruction()),
        _ => None,
    }
}

/// Whether no use of `x` can see which NaN it is (see the module documentation). `seen`
/// holds the answers for values already looked at (a value reached along several paths is
/// examined once).
fn payload_unobserved(x: InstructionValue<'_>, depth: u32, seen: &mut HashMap<usize, bool>) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let key = x.as_value_ref() as usize;
    if let Some(&known) = seen.get(&key) {
        return known;
    }
    let unobserved = uses_unobserved(x, depth, seen);
    seen.insert(key, unobserved);
    unobserved
}

fn uses_unobserved(x: InstructionValue<'_>, depth: u32, seen: &mut HashMap<usize, bool>) -> bool {
    let mut u = x.get_first_use();
    while let Some(use_) = u {
        u = use_.get_next_use();
        let Some(user) = as_instruction(use_.get_user()) else { return false };
        let fine = match user.get_opcode() {
            InstructionOpcode::FCmp => true,
            InstructionOpcode::Select => canonicalized(user).is_some_and(|(v, every_nan)| every_nan && v.as_value_ref() == x.as_value_ref()),
            _ => propagates_nan(user) && payload_unobserved(user, depth + 1, seen),
        };
        if !fine {
            return false;
        }
    }
    true
}

/// Removes, in every function of `module`, the NaN canonicalizations no use can observe.
pub fn drop_unobserved_nan_canonicalizations(module: &Module<'_>) {
    for f in module.get_functions() {
        for bb in f.get_basic_blocks() {
            let mut cur = bb.get_first_instruction();
            while let Some(inst) = cur {
                cur = inst.get_next_instruction();
                let Some((v, _)) = canonicalized(inst) else { continue };
                if !payload_unobserved(inst, 0, &mut HashMap::new()) {
                    continue;
                }
                let cond = value_operand(inst, 0).and_then(|c| c.as_instruction_value());
                inst.replace_all_uses_with(&v);
                inst.erase_from_basic_block();
                if let Some(c) = cond.filter(|c| c.get_first_use().is_none()) {
                    c.erase_from_basic_block();
                }
            }
        }
    }
}

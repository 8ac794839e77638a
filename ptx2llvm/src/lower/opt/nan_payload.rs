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

use super::inspect::{as_instruction, callee_name, every_lane, operand};
use inkwell::module::Module;
use inkwell::values::{AsValueRef, BasicValue, BasicValueEnum, InstructionOpcode, InstructionValue};
use inkwell::FloatPredicate;
use std::collections::HashMap;

/// How deep the search for an observer follows a chain (beyond it: assume observed).
const MAX_DEPTH: u32 = 64;

fn same(a: BasicValueEnum<'_>, b: InstructionValue<'_>) -> bool {
    a.as_value_ref() == b.as_value_ref()
}

/// Whether a constant operand is a `float` or `double` NaN (every lane of a vector).
pub(super) fn is_nan_constant(v: BasicValueEnum<'_>) -> bool {
    every_lane(v, f64::is_nan)
}

/// The value `v` whose NaN payload `s` changes, if `s` is `select (fcmp uno v, _), NaN, v`
/// (then `true`: every NaN `v` becomes the constant) or `select (fcmp uno t, _), NaN, v`
/// with `v` a NaN-propagating operation of `t` (`false`: only when `t` is NaN).
fn canonicalized<'ctx>(s: InstructionValue<'ctx>) -> Option<(InstructionValue<'ctx>, bool)> {
    if s.get_opcode() != InstructionOpcode::Select || !is_nan_constant(operand(s, 1)?) {
        return None;
    }
    let BasicValueEnum::FloatValue(v) = operand(s, 2)? else { return None };
    let v = v.as_instruction()?;
    let tested = nan_test_subject(operand(s, 0)?.as_instruction_value()?)?;
    // t is v itself, or (instcombine moves the select past an operation) an operand of v
    // that v turns into a NaN when it is one: either way the select changes only which NaN
    // a NaN v is.
    let operand_of_v = propagates_nan(v) && (0..v.get_num_operands()).any(|k| operand(v, k).is_some_and(|o| o.as_value_ref() == tested.as_value_ref()));
    if same(tested, v) {
        Some((v, true))
    } else {
        operand_of_v.then_some((v, false))
    }
}

/// Whether `inst` gives a NaN whenever one of its (float) operands is a NaN.
pub(super) fn propagates_nan(inst: InstructionValue<'_>) -> bool {
    match inst.get_opcode() {
        InstructionOpcode::FAdd
        | InstructionOpcode::FSub
        | InstructionOpcode::FMul
        | InstructionOpcode::FDiv
        | InstructionOpcode::FRem
        | InstructionOpcode::FNeg => true,
        InstructionOpcode::Call => callee_name(inst).is_some_and(|name| ["llvm.fma.", "llvm.fmuladd.", "llvm.sqrt."].iter().any(|p| name.starts_with(p))),
        _ => false,
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
                let cond = operand(inst, 0).and_then(|c| c.as_instruction_value());
                inst.replace_all_uses_with(&v);
                inst.erase_from_basic_block();
                if let Some(c) = cond.filter(|c| c.get_first_use().is_none()) {
                    c.erase_from_basic_block();
                }
            }
        }
    }
}

/// The value an `fcmp uno` tests, if it is true exactly when that value is NaN (`fcmp uno t,
/// c` with `c` a non-NaN constant, in either order, or `fcmp uno t, t`).
pub(super) fn nan_test_subject(cond: InstructionValue<'_>) -> Option<BasicValueEnum<'_>> {
    if cond.get_opcode() != InstructionOpcode::FCmp || cond.get_fcmp_predicate()? != FloatPredicate::UNO {
        return None;
    }
    let (a, b) = (operand(cond, 0)?, operand(cond, 1)?);
    let not_nan_constant = |c: BasicValueEnum<'_>| every_lane(c, |x| !x.is_nan());
    if not_nan_constant(b) || a.as_value_ref() == b.as_value_ref() {
        Some(a)
    } else if not_nan_constant(a) {
        Some(b)
    } else {
        None
    }
}

/// Whether `v` is a constant NaN with the quiet bit set.
fn is_quiet_nan_constant(v: BasicValueEnum<'_>) -> bool {
    let BasicValueEnum::FloatValue(f) = v else { return false };
    if !is_nan_constant(v) {
        return false;
    }
    let bits = f.get_type().get_bit_width();
    let quiet = 1u64
        << (if bits == 64 {
            51
        } else if bits == 32 {
            22
        } else {
            return false;
        });
    let int_type = f.get_type().get_context().custom_width_int_type(std::num::NonZeroU32::new(bits).expect("a width")).expect("a valid width");
    // SAFETY: a constant bit cast of a float constant to the integer type of its width folds
    // to a `ConstantInt`, which is checked before its value is read.
    unsafe {
        use inkwell::llvm_sys::core::{LLVMConstBitCast, LLVMConstIntGetZExtValue, LLVMIsAConstantInt};
        use inkwell::types::AsTypeRef;
        let c = LLVMConstBitCast(f.as_value_ref(), int_type.as_type_ref());
        !LLVMIsAConstantInt(c).is_null() && LLVMConstIntGetZExtValue(c) & quiet != 0
    }
}

/// Answers of `nan_rule_result` by value (chains share their links' answers).
type Memo<'ctx> = HashMap<usize, Option<InstructionValue<'ctx>>>;

/// If `x` is a NaN rule's result, `select (fcmp uno r, _), p, r` with `p` a quiet NaN
/// whenever it is chosen (`always_quiet_nan`): the compare, which is true exactly when `x`
/// is NaN, and then `x` is quiet.
fn nan_rule_result<'ctx>(x: BasicValueEnum<'ctx>, depth: u32, memo: &mut Memo<'ctx>) -> Option<InstructionValue<'ctx>> {
    let key = x.as_value_ref() as usize;
    if let Some(known) = memo.get(&key) {
        return *known;
    }
    let found = (|| {
        let s = x.as_instruction_value()?;
        if s.get_opcode() != InstructionOpcode::Select || depth > MAX_DEPTH {
            return None;
        }
        let cond = operand(s, 0)?.as_instruction_value()?;
        let (p, r) = (operand(s, 1)?, operand(s, 2)?);
        (nan_test_subject(cond)?.as_value_ref() == r.as_value_ref() && always_quiet_nan(p, depth + 1, memo)).then_some(cond)
    })();
    // (Beyond the depth limit the answer is "no" for this path only: not remembered.)
    if depth <= MAX_DEPTH {
        memo.insert(key, found);
    }
    found
}

/// Whether `cond` is true exactly when `y` is NaN: a test of `y`, or the test of the result
/// `y` is a NaN rule's result of.
fn tests_nan_of<'ctx>(cond: BasicValueEnum<'ctx>, y: BasicValueEnum<'ctx>, depth: u32, memo: &mut Memo<'ctx>) -> bool {
    let Some(c) = cond.as_instruction_value() else { return false };
    nan_test_subject(c).is_some_and(|t| t.as_value_ref() == y.as_value_ref()) || nan_rule_result(y, depth, memo).is_some_and(|rc| rc == c)
}

/// The bits `t` quiets, if `t` is `bitcast (or bits, quiet bit)`.
fn quieted_bits(t: BasicValueEnum<'_>) -> Option<BasicValueEnum<'_>> {
    let cast = t.as_instruction_value().filter(|i| i.get_opcode() == InstructionOpcode::BitCast)?;
    let or = operand(cast, 0)?.as_instruction_value().filter(|i| i.get_opcode() == InstructionOpcode::Or)?;
    let BasicValueEnum::IntValue(mask) = operand(or, 1)? else { return None };
    let quiet = match mask.get_type().get_bit_width() {
        64 => 1u64 << 51,
        32 => 1 << 22,
        _ => return None,
    };
    (mask.get_zero_extended_constant()? == quiet).then(|| operand(or, 0)).flatten()
}

/// The float whose bits `bits` are, where `bits` is a bit cast of it.
fn float_of_bits(bits: BasicValueEnum<'_>) -> Option<BasicValueEnum<'_>> {
    let cast = bits.as_instruction_value().filter(|i| i.get_opcode() == InstructionOpcode::BitCast)?;
    operand(cast, 0)
}

/// Whether `bits` are the bits of the float `y` (`bitcast y`, or `y` is `bitcast bits`).
fn same_bits(bits: BasicValueEnum<'_>, y: BasicValueEnum<'_>) -> bool {
    float_of_bits(bits).is_some_and(|f| f.as_value_ref() == y.as_value_ref())
        || y.as_instruction_value()
            .filter(|i| i.get_opcode() == InstructionOpcode::BitCast)
            .and_then(|i| operand(i, 0))
            .is_some_and(|b| b.as_value_ref() == bits.as_value_ref())
}

/// Whether `p` is a quiet NaN whenever it is the value chosen: a constant quiet NaN, or
/// `select c, t, e` with `t` a quiet NaN when `c` holds (a NaN `y` quieted under a test of
/// `y`, or a NaN rule's result under a test of it) and `e` such a value again.
fn always_quiet_nan<'ctx>(p: BasicValueEnum<'ctx>, depth: u32, memo: &mut Memo<'ctx>) -> bool {
    if is_quiet_nan_constant(p) {
        return true;
    }
    let Some(s) = p.as_instruction_value().filter(|s| s.get_opcode() == InstructionOpcode::Select) else { return false };
    if depth > MAX_DEPTH {
        return false;
    }
    let (Some(c), Some(t), Some(e)) = (operand(s, 0), operand(s, 1), operand(s, 2)) else { return false };
    let quiet_under_c = match quieted_bits(t) {
        // A NaN quieted under a test of it.
        Some(bits) => {
            let tested = c.as_instruction_value().and_then(nan_test_subject);
            tested.is_some_and(|y| same_bits(bits, y)) || float_of_bits(bits).is_some_and(|y| tests_nan_of(c, y, depth + 1, memo))
        }
        // A rule's result (quiet when NaN) under a test of it.
        None => nan_rule_result(t, depth + 1, memo).is_some() && tests_nan_of(c, t, depth + 1, memo),
    };
    quiet_under_c && always_quiet_nan(e, depth + 1, memo)
}

/// Shares the `.f64` NaN rule's tests along chains of arithmetic (see `ops::float`).
///
/// Each `.f64` result that is NaN takes the payload of an operand, quieted, so its lowering
/// tests and quiets each operand: `select (fcmp uno r), pick(a, b), r` with `pick` testing
/// `a` and `b` and or-ing in their quiet bit. Where an operand is itself such a result (a
/// chain: `fma` of a product of a sum), its test is the test its own rule already made (it
/// is NaN exactly when its unruled value was), and it needs no quieting (a NaN result of the
/// rule is quiet). So:
///
/// - `fcmp uno x` of a rule's result `x = select (fcmp uno r), p, r` becomes that
///   `fcmp uno r` (`p` is a NaN whenever chosen);
/// - in a pick, `select (test of y), quiet(y), e` with `y` a rule's result becomes
///   `select (test of y), y, e`.
///
/// Both keep every value bit for bit; a chain's link then costs one compare and its
/// selects instead of three compares, two bit operations and the selects. Runs on SSA form,
/// before the optimization pipeline.
pub fn share_nan_rule_tests(module: &Module<'_>) {
    for f in module.get_functions() {
        // (Answers stay valid through the rewrites: they change no rule's result and no
        // test's truth.)
        let mut memo = Memo::new();
        for bb in f.get_basic_blocks() {
            let mut cur = bb.get_first_instruction();
            while let Some(inst) = cur {
                cur = inst.get_next_instruction();
                match inst.get_opcode() {
                    InstructionOpcode::FCmp => {
                        let Some(x) = nan_test_subject(inst) else { continue };
                        let Some(c) = nan_rule_result(x, 0, &mut memo).filter(|c| *c != inst) else { continue };
                        // (Left for the pipeline to delete: the memo may hold it.)
                        inst.replace_all_uses_with(&c);
                    }
                    InstructionOpcode::Select => {
                        let (Some(c), Some(t)) = (operand(inst, 0), operand(inst, 1)) else { continue };
                        let Some(y) = quieted_bits(t).and_then(float_of_bits) else { continue };
                        if y.get_type() == t.get_type() && nan_rule_result(y, 0, &mut memo).is_some() && tests_nan_of(c, y, 0, &mut memo) {
                            inst.set_operand(1, y);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

//! The `.f64` NaN rule on a branch: chains of arithmetic checked once, at their end.
//!
//! A `.f64` result that is NaN takes the payload of a chosen operand (`ops::float`), so each
//! operation is lowered as `select (fcmp uno r), pick, r`, the pick testing and quieting the
//! operands. In a chain (`a + b - 2.0 * c`, then a product, then an `fma`: Rodinia's hotspot)
//! every link pays the tests and selects on top of its operation, although NaNs are rare.
//!
//! After the optimization pipeline (vectorized code included), each value of such a chain
//! gets a *plain* twin: the same operations on the operands' plain twins, without the
//! rule's selects (and without quieting or canonicalizing selects of values the chain
//! reads: `select (test of x), q, x` has the plain twin of `x`). The operations all give a
//! NaN when an operand is one, so by induction along the chain:
//!
//! > where a plain twin is not NaN, neither is anything it was computed from, every rule's
//! > select chose its unruled value, and the exact value equals the twin.
//!
//! So where the exact value of a chain is observed (stored, converted, compared with an
//! integer, returned: any use that does not only feed the chain's own rule), it is
//! replaced by `select (fcmp uno plain), exact, plain`, and the instructions that only
//! compute the exact value move to a block that runs when any lane's plain value is NaN.
//! The common path computes the plain chain, one test and one branch; the results are bit
//! for bit those of the rule.
//!
//! The test is frozen per lane before the branch: lanes a masked loop leaves undefined may
//! then send it down the exact path, which is correct for every lane, but never skip it
//! for a lane that needs it.

use super::cfg;
use super::inspect::{as_instruction, callee_name, operand};
use super::nan_payload::{is_nan_constant, nan_test_subject, propagates_nan};
use inkwell::builder::Builder;
use inkwell::intrinsics::Intrinsic;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::module::Module;
use inkwell::values::{AnyValue, AsValueRef, BasicValue, BasicValueEnum, FunctionValue, InstructionOpcode, InstructionValue};
use std::collections::{HashMap, HashSet};

/// How deep the walks along a chain go (beyond: the value is taken as it is).
const MAX_DEPTH: u32 = 64;

/// Fewest instructions worth a branch: the test, the branch and the final select cost
/// about four, and one `.f64` operation's rule alone is seven or eight.
const MIN_MOVED: usize = 8;

/// Most instructions looked at for what the exact path computes (a bound on a huge block).
const MAX_MOVED: usize = 4096;

fn key(v: impl AsValueRef) -> LLVMValueRef {
    v.as_value_ref()
}

fn as_basic(i: InstructionValue<'_>) -> Option<BasicValueEnum<'_>> {
    BasicValueEnum::try_from(i.as_any_value_enum()).ok()
}

/// The value whose NaN-ness `v` has, through conversions between float types and
/// canonicalizations (`select (test of x), NaN constant, x`): each is NaN exactly when its
/// operand is.
fn nan_source(v: BasicValueEnum<'_>) -> BasicValueEnum<'_> {
    let mut v = v;
    for _ in 0..MAX_DEPTH {
        let Some(i) = v.as_instruction_value() else { break };
        let next = match i.get_opcode() {
            InstructionOpcode::FPExt | InstructionOpcode::FPTrunc => operand(i, 0),
            InstructionOpcode::Select => (|| {
                let tested = nan_test_subject(operand(i, 0)?.as_instruction_value()?)?;
                let x = operand(i, 2)?;
                (is_nan_constant(operand(i, 1)?) && key(nan_source(tested)) == key(nan_source(x))).then_some(x)
            })(),
            _ => None,
        };
        match next {
            Some(n) => v = n,
            None => break,
        }
    }
    v
}

/// Whether `cond` is a test true exactly when `x` is NaN.
fn tests_nan_of(cond: BasicValueEnum<'_>, x: BasicValueEnum<'_>) -> bool {
    cond.as_instruction_value().and_then(nan_test_subject).is_some_and(|t| key(nan_source(t)) == key(nan_source(x)))
}

/// Whether `i` can move to a block that runs later: no memory access, no effect, no phi.
fn movable(i: InstructionValue<'_>) -> bool {
    use InstructionOpcode::*;
    match i.get_opcode() {
        FAdd | FSub | FMul | FDiv | FRem | FNeg | Add | Sub | Mul | And | Or | Xor | Shl | LShr | AShr | FCmp | ICmp | Select | BitCast | FPExt | FPTrunc
        | ZExt | SExt | Trunc | ExtractElement | InsertElement | ShuffleVector | Freeze => true,
        Call => propagates_nan(i) || callee_name(i).is_some_and(|name| name.starts_with("llvm.fabs.") || name.starts_with("llvm.copysign.")),
        _ => false,
    }
}

/// The float operands of a NaN-propagating operation (a call's arguments, not its callee).
fn arithmetic_operands(i: InstructionValue<'_>) -> u32 {
    let n = i.get_num_operands();
    if i.get_opcode() == InstructionOpcode::Call {
        n.saturating_sub(1)
    } else {
        n
    }
}

/// A chain's observed exact value `exact`, replaced where observed by `checked`, `select
/// frozen, exact, plain` with `frozen` the lanes' frozen `fcmp uno plain`.
struct Check<'ctx> {
    exact: BasicValueEnum<'ctx>,
    checked: InstructionValue<'ctx>,
    frozen: InstructionValue<'ctx>,
    test: InstructionValue<'ctx>,
}

struct Chains<'m, 'ctx> {
    module: &'m Module<'ctx>,
    b: Builder<'ctx>,
    /// Each value's plain twin (itself where it has none), once asked for.
    plain: HashMap<LLVMValueRef, BasicValueEnum<'ctx>>,
    /// Whether a value only feeds chain values (see `only_feeds_chains`).
    internal: HashMap<LLVMValueRef, bool>,
    /// The twins built, in order.
    twins: Vec<InstructionValue<'ctx>>,
}

impl<'ctx> Chains<'_, 'ctx> {
    /// `v`'s plain twin: `v` itself wherever the twin is not NaN (see the module
    /// documentation); `v` where it has none.
    fn plain(&mut self, v: BasicValueEnum<'ctx>, depth: u32) -> BasicValueEnum<'ctx> {
        let Some(i) = v.as_instruction_value() else { return v };
        if let Some(p) = self.plain.get(&key(v)) {
            return *p;
        }
        if depth > MAX_DEPTH {
            return v;
        }
        let p = self.twin_of(i, depth).unwrap_or(v);
        self.plain.insert(key(v), p);
        p
    }

    fn twin_of(&mut self, i: InstructionValue<'ctx>, depth: u32) -> Option<BasicValueEnum<'ctx>> {
        match i.get_opcode() {
            // `select (test of x), q, x`: x where x is not NaN (the rule, a quieting or a
            // canonicalization of x).
            InstructionOpcode::Select => {
                let x = operand(i, 2)?;
                tests_nan_of(operand(i, 0)?, x).then(|| self.plain(x, depth + 1))
            }
            // `bitcast (select (test of y), q, bitcast y)`: the same, on y's bits.
            InstructionOpcode::BitCast => {
                let s = operand(i, 0)?.as_instruction_value().filter(|s| s.get_opcode() == InstructionOpcode::Select)?;
                let bits = operand(s, 2)?.as_instruction_value().filter(|c| c.get_opcode() == InstructionOpcode::BitCast)?;
                let y = operand(bits, 0)?;
                (y.get_type() == as_basic(i)?.get_type() && tests_nan_of(operand(s, 0)?, y)).then(|| self.plain(y, depth + 1))
            }
            _ if propagates_nan(i) || matches!(i.get_opcode(), InstructionOpcode::FPExt | InstructionOpcode::FPTrunc) => {
                let operands: Vec<BasicValueEnum<'ctx>> = (0..arithmetic_operands(i)).map(|k| operand(i, k)).collect::<Option<_>>()?;
                let twins: Vec<BasicValueEnum<'ctx>> = operands.iter().map(|o| self.plain(*o, depth + 1)).collect();
                if operands.iter().zip(&twins).all(|(o, t)| key(*o) == key(*t)) {
                    return None;
                }
                let twin = i.explicit_clone();
                for (k, (o, t)) in operands.iter().zip(&twins).enumerate() {
                    if key(*o) != key(*t) {
                        twin.set_operand(k as u32, *t);
                    }
                }
                self.b.position_before(&i.get_next_instruction()?);
                self.b.insert_instruction(&twin, None);
                self.twins.push(twin);
                let twin = as_basic(twin)?;
                self.plain.insert(key(twin), twin);
                Some(twin)
            }
            _ => None,
        }
    }

    /// Whether every use of `i` only computes chain values (values with a plain twin), so
    /// that nothing but a chain's own rule sees it.
    fn only_feeds_chains(&mut self, i: InstructionValue<'ctx>, depth: u32) -> bool {
        if let Some(known) = self.internal.get(&key(i)) {
            return *known;
        }
        let answer = if as_basic(i).is_some_and(|v| key(self.plain(v, 0)) != key(v)) {
            true
        } else if depth > MAX_DEPTH || !movable(i) {
            false
        } else {
            let mut all = true;
            let mut u = i.get_first_use();
            while let Some(use_) = u {
                u = use_.get_next_use();
                if !as_instruction(use_.get_user()).is_some_and(|user| self.only_feeds_chains(user, depth + 1)) {
                    all = false;
                    break;
                }
            }
            all
        };
        if depth <= MAX_DEPTH {
            self.internal.insert(key(i), answer);
        }
        answer
    }

    /// The uses of chain value `i` outside its chain, replaced by a check.
    fn check_observed(&mut self, i: InstructionValue<'ctx>) -> Option<Check<'ctx>> {
        let exact = as_basic(i)?;
        let plain = self.plain(exact, 0);
        if key(plain) == key(exact) {
            return None;
        }
        let mut observers = vec![];
        let mut u = i.get_first_use();
        while let Some(use_) = u {
            u = use_.get_next_use();
            let user = as_instruction(use_.get_user())?;
            if !observers.contains(&user) && !self.only_feeds_chains(user, 0) {
                observers.push(user);
            }
        }
        if observers.is_empty() {
            return None;
        }
        // After `i` and its twin, which may follow it.
        let mut next = i.get_next_instruction()?;
        if key(next) == key(plain) {
            next = next.get_next_instruction()?;
        }
        self.b.position_before(&next);
        let test = self.fcmp_uno(plain)?;
        // SAFETY: a freeze of a value of this function, built at the builder's position.
        let frozen = unsafe {
            let v = inkwell::llvm_sys::core::LLVMBuildFreeze(self.b.as_mut_ptr(), test.as_value_ref(), c"".as_ptr());
            InstructionValue::new(v)
        };
        let cond = as_basic(frozen)?;
        let checked = self.select(cond, exact, plain)?;
        for o in observers {
            for k in 0..o.get_num_operands() {
                if operand(o, k).is_some_and(|v| key(v) == key(exact)) {
                    o.set_operand(k, as_basic(checked)?);
                }
            }
        }
        for made in [test, frozen, checked] {
            self.plain.insert(key(made), as_basic(made)?);
            self.internal.insert(key(made), false);
        }
        Some(Check { exact, checked, frozen, test })
    }

    /// `fcmp uno x, x` of a float or a vector of floats, at the builder's position.
    fn fcmp_uno(&self, x: BasicValueEnum<'ctx>) -> Option<InstructionValue<'ctx>> {
        if !x.get_type().is_float_type() && !x.get_type().is_vector_type() {
            return None;
        }
        // (inkwell's `build_float_compare` takes scalars only.)
        // SAFETY: an fcmp of a float value (or float vector, a twin of a float chain) with
        // itself, at the builder's position.
        unsafe {
            let c = inkwell::llvm_sys::core::LLVMBuildFCmp(
                self.b.as_mut_ptr(),
                inkwell::llvm_sys::LLVMRealPredicate::LLVMRealUNO,
                x.as_value_ref(),
                x.as_value_ref(),
                c"nan".as_ptr(),
            );
            Some(InstructionValue::new(c))
        }
    }

    fn select(&self, cond: BasicValueEnum<'ctx>, a: BasicValueEnum<'ctx>, b: BasicValueEnum<'ctx>) -> Option<InstructionValue<'ctx>> {
        // (inkwell's `build_select` wants an integer condition; a vector of i1 is one too.)
        // SAFETY: a select of two values of one type under a condition of matching shape.
        unsafe {
            let s = inkwell::llvm_sys::core::LLVMBuildSelect(self.b.as_mut_ptr(), cond.as_value_ref(), a.as_value_ref(), b.as_value_ref(), c"checked".as_ptr());
            Some(InstructionValue::new(s))
        }
    }

    /// Moves what only the exact value of `check` computes to a block that runs when any
    /// lane's test holds; or, where that is too little to be worth a branch, takes the
    /// check out again.
    fn branch_around(&self, check: &Check<'ctx>) -> Option<()> {
        let Check { exact, checked, frozen, test } = *check;
        let moved = exact.as_instruction_value().map(|e| exact_only(e, checked)).unwrap_or_default();
        if moved.len() < MIN_MOVED {
            checked.replace_all_uses_with(&exact.as_instruction_value()?);
            checked.erase_from_basic_block();
            frozen.erase_from_basic_block();
            test.erase_from_basic_block();
            return None;
        }
        let (bb, join) = cfg::split_before(&self.b, checked, "nan.checked")?;
        let cx = self.module.get_context();
        let slow = cx.insert_basic_block_after(bb, "nan.exact");
        self.b.position_at_end(slow);
        let mut cur = bb.get_first_instruction();
        while let Some(i) = cur {
            cur = i.get_next_instruction();
            if moved.contains(&key(i)) {
                i.remove_from_basic_block();
                self.b.insert_instruction(&i, None);
            }
        }
        self.b.build_unconditional_branch(join).ok()?;
        self.b.position_at_end(bb);
        let any = match as_basic(frozen)? {
            BasicValueEnum::VectorValue(lanes) => {
                let reduce = Intrinsic::find("llvm.vector.reduce.or")?.get_declaration(self.module, &[lanes.get_type().into()])?;
                self.b.build_call(reduce, &[lanes.into()], "any_nan").ok()?.try_as_basic_value().basic()?.into_int_value()
            }
            BasicValueEnum::IntValue(c) => c,
            _ => return None,
        };
        self.b.build_conditional_branch(any, slow, join).ok()?;
        self.b.position_before(&checked);
        let phi = self.b.build_phi(exact.get_type(), "exact").ok()?;
        // SAFETY: the poison value of a first-class type.
        let poison = unsafe { BasicValueEnum::new(inkwell::llvm_sys::core::LLVMGetPoison(inkwell::types::AsTypeRef::as_type_ref(&exact.get_type()))) };
        phi.add_incoming(&[(&exact as &dyn BasicValue<'ctx>, slow), (&poison as &dyn BasicValue<'ctx>, bb)]);
        checked.set_operand(1, phi.as_basic_value());
        Some(())
    }

    /// Deletes the twins nothing uses (those of chains whose checks were taken out).
    fn delete_unused_twins(&mut self) {
        loop {
            let before = self.twins.len();
            self.twins.retain(|t| {
                if t.get_first_use().is_none() {
                    t.erase_from_basic_block();
                    false
                } else {
                    true
                }
            });
            if self.twins.len() == before {
                break;
            }
        }
    }
}

/// The instructions of `exact`'s block, before `checked`, that compute only `exact` for
/// `checked` (`exact` among them, if it does): every use of each is another of them or
/// `checked`.
fn exact_only(exact: InstructionValue<'_>, checked: InstructionValue<'_>) -> HashSet<LLVMValueRef> {
    let bb = checked.get_parent();
    let mut set: HashSet<LLVMValueRef> = HashSet::new();
    let mut work = vec![exact];
    while let Some(i) = work.pop() {
        if set.len() >= MAX_MOVED || i.get_parent() != bb || !movable(i) || set.contains(&key(i)) {
            continue;
        }
        set.insert(key(i));
        for k in 0..i.get_num_operands() {
            if let Some(o) = operand(i, k).and_then(|o| o.as_instruction_value()) {
                work.push(o);
            }
        }
    }
    // Take out each member with a use outside the set, walking back from `checked`: a
    // member's users in the block come after it, so each is decided before it.
    let mut cur = checked.get_previous_instruction();
    let mut left = set.len();
    while let Some(i) = cur.filter(|_| left > 0) {
        cur = i.get_previous_instruction();
        if !set.contains(&key(i)) {
            continue;
        }
        left -= 1;
        let mut u = i.get_first_use();
        while let Some(use_) = u {
            u = use_.get_next_use();
            if !as_instruction(use_.get_user()).is_some_and(|user| user == checked || set.contains(&key(user))) {
                set.remove(&key(i));
                break;
            }
        }
    }
    if !set.contains(&key(exact)) {
        set.clear();
    }
    set
}

/// Puts the exact NaN rule of every observed chain of `module` on a branch (see the module
/// documentation), except in the functions named in `scalar`: those that got the scalar
/// pipeline (`pipeline::optimize`), where compile time comes first (the twins and blocks
/// make a 48k-line Kokkos file's code 6% larger and its -O2 compile 5% slower).
pub fn branch_around_nan_rules(module: &Module<'_>, scalar: &[Vec<u8>]) {
    for f in module.get_functions().filter(|f| !scalar.iter().any(|n| n.as_slice() == f.get_name().to_bytes())) {
        branch_in(module, f);
    }
}

fn branch_in<'ctx>(module: &Module<'ctx>, f: FunctionValue<'ctx>) {
    let mut chains = Chains { module, b: module.get_context().create_builder(), plain: HashMap::new(), internal: HashMap::new(), twins: vec![] };
    let mut found = vec![];
    for bb in f.get_basic_blocks() {
        let mut cur = bb.get_first_instruction();
        while let Some(i) = cur {
            cur = i.get_next_instruction();
            found.push(i);
        }
    }
    let checks: Vec<Check<'ctx>> = found.into_iter().filter_map(|i| chains.check_observed(i)).collect();
    for check in &checks {
        chains.branch_around(check);
    }
    chains.delete_unused_twins();
}

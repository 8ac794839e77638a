//! Reading LLVM instructions, shared by the passes of `opt`: operands, users, callees and
//! the lanes of float constants.

use inkwell::values::{AnyValueEnum, AsValueRef, BasicValueEnum, InstructionOpcode, InstructionValue};

/// Operand `k` of `i` as a value (not a basic block).
pub(super) fn operand<'ctx>(i: InstructionValue<'ctx>, k: u32) -> Option<BasicValueEnum<'ctx>> {
    i.get_operand(k)?.value()
}

/// A user as an instruction (inkwell hands users over typed by their result).
pub(super) fn as_instruction(v: AnyValueEnum<'_>) -> Option<InstructionValue<'_>> {
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

/// The name of the function `call` calls, if it is a call.
pub(super) fn callee_name(call: InstructionValue<'_>) -> Option<String> {
    if call.get_opcode() != InstructionOpcode::Call {
        return None;
    }
    let n = call.get_num_operands();
    let BasicValueEnum::PointerValue(callee) = operand(call, n.checked_sub(1)?)? else { return None };
    Some(callee.get_name().to_string_lossy().into_owned())
}

/// The value of a `float`/`double` constant (`ConstantFP`: not undef, poison or a constant
/// expression).
fn constant_fp(v: BasicValueEnum<'_>) -> Option<f64> {
    let BasicValueEnum::FloatValue(f) = v else { return None };
    // SAFETY: a valid value; `LLVMIsAConstantFP` only tests its class, and the value is only
    // read from a `ConstantFP`. (Widening to f64 keeps a NaN a NaN: the flag only says
    // whether precision was lost.)
    let constant_fp = unsafe { !inkwell::llvm_sys::core::LLVMIsAConstantFP(f.as_value_ref()).is_null() };
    constant_fp.then(|| f.get_constant().map(|(value, _)| value)).flatten()
}

/// Whether `c` is a float constant, or a constant vector of them, every lane of which is
/// `test`'s (a vectorized `fcmp uno <16 x double> %x, zeroinitializer`, a splat of NaNs).
pub(super) fn every_lane(c: BasicValueEnum<'_>, test: impl Fn(f64) -> bool) -> bool {
    let BasicValueEnum::VectorValue(v) = c else { return constant_fp(c).is_some_and(test) };
    v.is_const()
        && (0..v.get_type().get_size()).all(|k| {
            // (`LLVMGetAggregateElement` reads any constant vector: `zeroinitializer`, a
            // data vector or a vector of constants; null where it cannot.)
            // SAFETY: `v` is a constant of the module; the element is only inspected.
            let lane = unsafe { inkwell::llvm_sys::core::LLVMGetAggregateElement(v.as_value_ref(), k) };
            // SAFETY: a non-null element of a float vector is a float value.
            !lane.is_null() && constant_fp(unsafe { BasicValueEnum::new(lane) }).is_some_and(&test)
        })
}

#[cfg(test)]
mod tests {
    use super::every_lane;
    use inkwell::context::Context;
    use inkwell::types::VectorType;
    use inkwell::values::BasicValueEnum;

    #[test]
    fn every_lane_reads_each_kind_of_constant_vector() {
        let cx = Context::create();
        let f64t = cx.f64_type();
        let not_nan = |x: f64| !x.is_nan();
        // `zeroinitializer` (the vectorizer's operand of `fcmp uno`), a data vector, a
        // vector of constants with a poison lane (neither a data vector nor all floats).
        let zero: BasicValueEnum = f64t.vec_type(4).const_zero().into();
        let nans: BasicValueEnum = VectorType::const_vector(&[f64t.const_float(f64::NAN); 4]).into();
        let mixed: BasicValueEnum = VectorType::const_vector(&[f64t.const_float(1.0), f64t.get_poison(), f64t.const_float(2.0), f64t.const_float(3.0)]).into();
        let ones: BasicValueEnum = VectorType::const_vector(&[f64t.const_float(1.0), f64t.const_float(2.0)]).into();
        assert!(every_lane(zero, not_nan));
        assert!(!every_lane(zero, f64::is_nan));
        assert!(every_lane(nans, f64::is_nan));
        assert!(!every_lane(nans, not_nan));
        assert!(!every_lane(mixed, not_nan), "a poison lane is no float constant");
        assert!(every_lane(ones, not_nan));
        // Scalars: a constant, a NaN constant, poison.
        assert!(every_lane(f64t.const_float(0.5).into(), not_nan));
        assert!(every_lane(f64t.const_float(f64::NAN).into(), f64::is_nan));
        assert!(!every_lane(f64t.get_poison().into(), not_nan));
    }
}

/// Gives `to`, an access made in place of `from`, `from`'s alias scopes, access group and
/// invariance (those it has).
pub(super) fn copy_access_metadata(from: InstructionValue<'_>, to: InstructionValue<'_>) -> Option<()> {
    let cx = from.get_parent()?.get_context();
    for kind in ["alias.scope", "noalias", "llvm.access.group", "invariant.load"] {
        let kind = cx.get_kind_id(kind);
        if let Some(md) = from.get_metadata(kind) {
            to.set_metadata(md, kind).ok()?;
        }
    }
    Some(())
}

//! Masked gathers and scatters whose lanes all use one address.
//!
//! A thread loop's conditional access to an address that is the same for every thread of a
//! vector (`if (lane == 31) totals[warp] = v` in a segment of one warp, a tile element that
//! every thread reads under a bound check) is vectorized by LLVM as a masked gather or
//! scatter through a splat of that address. Those are slow where they exist (a 16-lane
//! `vpscatterdd` is 16 stores: 13% of the runtime bench's `scan` on Zen 5, for one element
//! stored in 32) and scalarized into a branch per lane where they do not. After the
//! optimization pipeline this rewrites them:
//!
//! - a scatter stores, if any lane is active, the element of the highest active lane (LLVM's
//!   masked scatter writes overlapping lanes from the lowest to the highest, so that one is
//!   what memory holds afterwards);
//! - a gather loads the element once, if any lane is active, and gives it to the active
//!   lanes (the others keep the pass-through value).
//!
//! The one-element access is a masked load or store of one lane, which code generation turns
//! into a branch around a scalar access.

use inkwell::builder::Builder;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::Module;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{AsValueRef, BasicValue, BasicValueEnum, InstructionOpcode, InstructionValue, IntValue, PointerValue, VectorValue};
use inkwell::IntPredicate;

fn operand<'ctx>(i: InstructionValue<'ctx>, k: u32) -> Option<BasicValueEnum<'ctx>> {
    i.get_operand(k)?.value()
}

/// The name of the function `call` calls, if it is a call.
fn callee_name(call: InstructionValue<'_>) -> Option<String> {
    if call.get_opcode() != InstructionOpcode::Call {
        return None;
    }
    let n = call.get_num_operands();
    let BasicValueEnum::PointerValue(callee) = operand(call, n.checked_sub(1)?)? else { return None };
    Some(callee.get_name().to_string_lossy().into_owned())
}

/// `p` if `v` is `shufflevector (insertelement _, p, 0), _, zeroinitializer`, the form the
/// vectorizer gives a loop-invariant address.
fn splat_of<'ctx>(v: VectorValue<'ctx>) -> Option<PointerValue<'ctx>> {
    let shuffle = v.as_instruction()?;
    if shuffle.get_opcode() != InstructionOpcode::ShuffleVector {
        return None;
    }
    // SAFETY: `shuffle` is a shufflevector instruction: its mask has `n` elements.
    let all_zero = unsafe {
        let n = inkwell::llvm_sys::core::LLVMGetNumMaskElements(shuffle.as_value_ref());
        (0..n).all(|k| inkwell::llvm_sys::core::LLVMGetMaskValue(shuffle.as_value_ref(), k) == 0)
    };
    let BasicValueEnum::VectorValue(inserted) = operand(shuffle, 0)? else { return None };
    let insert = inserted.as_instruction()?;
    if !all_zero || insert.get_opcode() != InstructionOpcode::InsertElement {
        return None;
    }
    let BasicValueEnum::IntValue(index) = operand(insert, 2)? else { return None };
    match (operand(insert, 1)?, index.get_zero_extended_constant()) {
        (BasicValueEnum::PointerValue(p), Some(0)) => Some(p),
        _ => None,
    }
}

struct Rewriter<'a, 'ctx> {
    module: &'a Module<'ctx>,
    b: Builder<'ctx>,
}

impl<'ctx> Rewriter<'_, 'ctx> {
    fn intrinsic(&self, name: &str, types: &[BasicTypeEnum<'ctx>]) -> Option<inkwell::values::FunctionValue<'ctx>> {
        Intrinsic::find(name)?.get_declaration(self.module, types)
    }

    /// The mask as an integer (lane k in bit k) and whether any lane is active.
    fn mask_bits(&self, mask: VectorValue<'ctx>) -> Option<(IntValue<'ctx>, IntValue<'ctx>)> {
        let cx = self.module.get_context();
        let lanes = mask.get_type().get_size();
        let bits = self.b.build_bit_cast(mask, cx.custom_width_int_type(std::num::NonZeroU32::new(lanes)?).ok()?, "lanes").ok()?.into_int_value();
        let any = self.b.build_int_compare(IntPredicate::NE, bits, bits.get_type().const_zero(), "any_lane").ok()?;
        Some((bits, any))
    }

    /// `any` as the mask of a one-lane access.
    fn one_lane(&self, any: IntValue<'ctx>) -> Option<VectorValue<'ctx>> {
        let cx = self.module.get_context();
        Some(self.b.build_bit_cast(any, cx.bool_type().vec_type(1), "").ok()?.into_vector_value())
    }

    fn scatter(&self, call: InstructionValue<'ctx>) -> Option<()> {
        let BasicValueEnum::VectorValue(data) = operand(call, 0)? else { return None };
        let BasicValueEnum::VectorValue(ptrs) = operand(call, 1)? else { return None };
        let BasicValueEnum::IntValue(align) = operand(call, 2)? else { return None };
        let BasicValueEnum::VectorValue(mask) = operand(call, 3)? else { return None };
        let p = splat_of(ptrs)?;
        self.b.position_before(&call);
        let (bits, any) = self.mask_bits(mask)?;
        let lanes = bits.get_type();
        let ctlz = self.intrinsic("llvm.ctlz", &[lanes.into()])?;
        let zero_is_poison = self.module.get_context().bool_type().const_zero();
        let leading = self.b.build_call(ctlz, &[bits.into(), zero_is_poison.into()], "").ok()?.try_as_basic_value().basic()?.into_int_value();
        // With no lane active the index is out of range and the element poison: the store
        // below is masked off then.
        let last = self.b.build_int_sub(lanes.const_int(u64::from(mask.get_type().get_size()) - 1, false), leading, "last_lane").ok()?;
        let element = self.b.build_extract_element(data, last, "").ok()?;
        let one = element.get_type().vec_type_of(1)?;
        let v = self.b.build_insert_element(one.get_undef(), element, lanes.const_zero(), "").ok()?;
        let store = self.intrinsic("llvm.masked.store", &[one.into(), p.get_type().into()])?;
        let m = self.one_lane(any)?;
        self.b.build_call(store, &[v.into(), p.into(), align.into(), m.into()], "").ok()?;
        call.erase_from_basic_block();
        Some(())
    }

    fn gather(&self, call: InstructionValue<'ctx>) -> Option<()> {
        let BasicValueEnum::VectorValue(ptrs) = operand(call, 0)? else { return None };
        let BasicValueEnum::IntValue(align) = operand(call, 1)? else { return None };
        let BasicValueEnum::VectorValue(mask) = operand(call, 2)? else { return None };
        let BasicValueEnum::VectorValue(pass_through) = operand(call, 3)? else { return None };
        let p = splat_of(ptrs)?;
        self.b.position_before(&call);
        let (_, any) = self.mask_bits(mask)?;
        let ty = pass_through.get_type();
        let one = ty.get_element_type().vec_type_of(1)?;
        let load = self.intrinsic("llvm.masked.load", &[one.into(), p.get_type().into()])?;
        let m = self.one_lane(any)?;
        let loaded = self.b.build_call(load, &[p.into(), align.into(), m.into(), one.get_undef().into()], "").ok()?;
        let loaded = loaded.try_as_basic_value().basic()?.into_vector_value();
        let i32t = self.module.get_context().i32_type();
        let zeros = i32t.vec_type(ty.get_size()).const_zero();
        let splat = self.b.build_shuffle_vector(loaded, one.get_undef(), zeros, "uniform").ok()?;
        let result = self.b.build_select(mask, splat, pass_through, "").ok()?;
        call.replace_all_uses_with(&result.as_instruction_value()?);
        call.erase_from_basic_block();
        Some(())
    }
}

/// The vector type of `n` elements of a vector's element type.
trait VecOf<'ctx> {
    fn vec_type_of(self, n: u32) -> Option<inkwell::types::VectorType<'ctx>>;
}

impl<'ctx> VecOf<'ctx> for BasicTypeEnum<'ctx> {
    fn vec_type_of(self, n: u32) -> Option<inkwell::types::VectorType<'ctx>> {
        match self {
            BasicTypeEnum::IntType(t) => Some(t.vec_type(n)),
            BasicTypeEnum::FloatType(t) => Some(t.vec_type(n)),
            BasicTypeEnum::PointerType(t) => Some(t.vec_type(n)),
            _ => None,
        }
    }
}

/// Rewrites, in every function of `module`, the masked gathers and scatters through one
/// address (see the module documentation).
pub fn scalarize_uniform_lanes(module: &Module<'_>) {
    let r = Rewriter { module, b: module.get_context().create_builder() };
    for f in module.get_functions() {
        for bb in f.get_basic_blocks() {
            let mut cur = bb.get_first_instruction();
            while let Some(inst) = cur {
                cur = inst.get_next_instruction();
                match callee_name(inst) {
                    Some(n) if n.starts_with("llvm.masked.scatter.") => {
                        let _ = r.scatter(inst);
                    }
                    Some(n) if n.starts_with("llvm.masked.gather.") => {
                        let _ = r.gather(inst);
                    }
                    _ => {}
                }
            }
        }
    }
}

//! Pointer provenance for generic and global addresses.
//!
//! PTX registers are integers, so a global access becomes `inttoptr (add %base, %offset)`.
//! LLVM cannot reason about such pointers (a thread loop over them is "not vectorized:
//! cannot identify array bounds"). After `mem2reg`/`instcombine` have turned registers into
//! SSA values, this rewrites `inttoptr (add %base, %offset)`, where `%base` was loaded from
//! memory (a kernel parameter, a pointer table) and the other term is not, into
//! `getelementptr i8, (inttoptr %base), %offset`: the same address, with a base object
//! alias analysis and scalar evolution can follow.

use inkwell::builder::Builder;
use inkwell::module::Module;
use inkwell::values::{BasicValue, BasicValueEnum, InstructionOpcode, InstructionValue, IntValue};

fn int_operand<'ctx>(i: InstructionValue<'ctx>, k: u32) -> Option<IntValue<'ctx>> {
    match i.get_operand(k)?.value()? {
        BasicValueEnum::IntValue(v) => Some(v),
        _ => None,
    }
}

fn is_load(v: IntValue<'_>) -> bool {
    v.as_instruction().is_some_and(|i| i.get_opcode() == InstructionOpcode::Load)
}

/// Rewrites every `inttoptr (add base, offset)` with a loaded base in `module`.
pub fn rebase_integer_addresses(module: &Module<'_>) {
    let cx = module.get_context();
    let builder: Builder = cx.create_builder();
    let i8t = cx.i8_type();
    let ptr = cx.ptr_type(inkwell::AddressSpace::default());
    for f in module.get_functions() {
        for bb in f.get_basic_blocks() {
            let mut cur = bb.get_first_instruction();
            while let Some(inst) = cur {
                cur = inst.get_next_instruction();
                if inst.get_opcode() != InstructionOpcode::IntToPtr {
                    continue;
                }
                let Some(sum) = int_operand(inst, 0).and_then(|v| v.as_instruction()) else { continue };
                if sum.get_opcode() != InstructionOpcode::Add {
                    continue;
                }
                let (Some(a), Some(b)) = (int_operand(sum, 0), int_operand(sum, 1)) else { continue };
                let (base, offset) = match (is_load(a), is_load(b)) {
                    (true, false) => (a, b),
                    (false, true) => (b, a),
                    _ => continue,
                };
                builder.position_before(&inst);
                let Ok(base_ptr) = builder.build_int_to_ptr(base, ptr, "base") else { continue };
                // SAFETY (of the generated code): the same address the integer add computed.
                let Ok(p) = (unsafe { builder.build_gep(i8t, base_ptr, &[offset], "addr") }) else { continue };
                if let Some(pi) = p.as_instruction_value() {
                    inst.replace_all_uses_with(&pi);
                    inst.erase_from_basic_block();
                }
            }
        }
    }
}

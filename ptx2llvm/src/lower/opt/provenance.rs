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

/// `v` as `base + offsets...` where `base` is a loaded value at the bottom of a chain of
/// `add`s (outermost offset first).
fn split_base<'ctx>(v: IntValue<'ctx>, offsets: &mut Vec<IntValue<'ctx>>, depth: u32) -> Option<IntValue<'ctx>> {
    if is_load(v) {
        return Some(v);
    }
    let sum = v.as_instruction()?;
    if sum.get_opcode() != InstructionOpcode::Add || depth > 8 {
        return None;
    }
    let (a, b) = (int_operand(sum, 0)?, int_operand(sum, 1)?);
    let tried = |base_side: IntValue<'ctx>, other: IntValue<'ctx>, offsets: &mut Vec<IntValue<'ctx>>| {
        let mark = offsets.len();
        offsets.push(other);
        match split_base(base_side, offsets, depth + 1) {
            Some(base) => Some(base),
            None => {
                offsets.truncate(mark);
                None
            }
        }
    };
    tried(a, b, offsets).or_else(|| tried(b, a, offsets))
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
                let Some(addr) = int_operand(inst, 0) else { continue };
                let mut offsets = vec![];
                let Some(base) = split_base(addr, &mut offsets, 0) else { continue };
                if offsets.is_empty() {
                    continue;
                }
                builder.position_before(&inst);
                let Ok(mut p) = builder.build_int_to_ptr(base, ptr, "base") else { continue };
                for off in offsets.iter().rev() {
                    // SAFETY (of the generated code): the same address the integer adds computed.
                    match unsafe { builder.build_gep(i8t, p, &[*off], "addr") } {
                        Ok(q) => p = q,
                        Err(_) => break,
                    }
                }
                if let Some(pi) = p.as_instruction_value() {
                    inst.replace_all_uses_with(&pi);
                    inst.erase_from_basic_block();
                }
            }
        }
    }
}

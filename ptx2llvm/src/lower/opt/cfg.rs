//! Block surgery shared by the rewrites after the optimization pipeline.

use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::values::{BasicValue, BasicValueEnum, InstructionOpcode, InstructionValue, PhiValue};

/// Moves `first` and the instructions after it into a new block `name` placed after their
/// block, which is left without a terminator (the caller ends it). Returns (that block, the
/// new one). The successors' phis name the new block, where the terminator now is.
pub(super) fn split_before<'ctx>(b: &Builder<'ctx>, first: InstructionValue<'ctx>, name: &str) -> Option<(BasicBlock<'ctx>, BasicBlock<'ctx>)> {
    let bb = first.get_parent()?;
    let tail = bb.get_context().insert_basic_block_after(bb, name);
    b.position_at_end(tail);
    let mut next = Some(first);
    while let Some(i) = next {
        next = i.get_next_instruction();
        i.remove_from_basic_block();
        b.insert_instruction(&i, None);
    }
    let term = tail.get_terminator()?;
    let mut seen = vec![];
    for k in 0..term.get_num_operands() {
        let Some(inkwell::values::Operand::Block(succ)) = term.get_operand(k) else { continue };
        if seen.contains(&succ) {
            continue;
        }
        seen.push(succ);
        // The C API cannot change a phi's incoming block: each phi is built again.
        let mut cur = succ.get_first_instruction();
        while let Some(phi) = cur.filter(|i| i.get_opcode() == InstructionOpcode::Phi) {
            cur = phi.get_next_instruction();
            let old: PhiValue<'ctx> = phi.try_into().ok()?;
            let incoming: Vec<(BasicValueEnum<'ctx>, BasicBlock<'ctx>)> =
                old.get_incomings().map(|(v, from)| (v, if from == bb { tail } else { from })).collect();
            b.position_before(&phi);
            let new = b.build_phi(old.as_basic_value().get_type(), "").ok()?;
            for (v, from) in &incoming {
                new.add_incoming(&[(v as &dyn BasicValue<'ctx>, *from)]);
            }
            phi.replace_all_uses_with(&new.as_instruction());
            phi.erase_from_basic_block();
        }
    }
    Some((bb, tail))
}

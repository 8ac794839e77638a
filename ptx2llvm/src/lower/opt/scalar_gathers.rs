//! Gathers that LLVM wrote as scalar loads, versioned on their addresses.
//!
//! Where the target has no fast gather (AVX2 on AMD before Zen 4, generic x86-64-v3
//! tuning, NEON), the loop vectorizer does not emit `llvm.masked.gather` for a load whose
//! address is not consecutive in the lane: it extracts each lane's address, loads it and
//! inserts the element into the vector. `gather_scatter` versions the gathers that are
//! often consecutive (through a clamped index: a neighbour kept inside a range,
//! `max(tx - 1, lo)`; through addresses kept per thread in the context area: softmax's
//! passes over a row, `x[j]` with `j = lane + 32 * k`); this does the same for their
//! scalarized form. A chain of `insertelement`s that fills every lane of a vector with a
//! load through `getelementptr base, offset_k` (the offsets lanes of one or two vectors
//! computed through a clamp, plus lanes computed as scalars) or through `inttoptr
//! address_k` (the addresses lanes of vectors loaded from memory), either maybe displaced
//! by one constant (an unrolled loop's `p[32]`), becomes: when the offsets are the first
//! one plus the lane times the element size, one vector load at the first lane's address
//! (the same bytes); otherwise the scalar loads: about 50 instructions for 16 lanes, where
//! the check is six. (Clamps of `tid.x + u` by a bound the same for the row do not get
//! here: the thread loop runs in segments where they are affine, `exec::segments`.)

use super::cfg;
use super::gather_scatter::{clamped, steps_from_first};
use super::inspect::{copy_access_metadata, operand};
use inkwell::builder::Builder;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::module::Module;
use inkwell::targets::TargetData;
use inkwell::types::{AsTypeRef, BasicType, BasicTypeEnum};
use inkwell::values::{AnyValue, AsValueRef, BasicValue, BasicValueEnum, FunctionValue, InstructionOpcode, InstructionValue, IntValue, VectorValue};

/// Where one lane's offset comes from.
#[derive(Clone, Copy)]
enum Offset<'ctx> {
    /// Lane `lane` of the offset vector `source` (an index into `Gathered::sources`).
    Lane {
        source: usize,
        lane: u32,
    },
    Scalar(IntValue<'ctx>),
}

/// A scalarized gather: `last`, the end of its `insertelement` chain, and what it loads.
struct Gathered<'ctx> {
    last: InstructionValue<'ctx>,
    /// The loads, by lane.
    loads: Vec<InstructionValue<'ctx>>,
    /// The chain's `insertelement`s.
    inserts: Vec<InstructionValue<'ctx>>,
    /// The offset vectors the lanes' offsets are extracted from (at most two, one type).
    sources: Vec<VectorValue<'ctx>>,
    offsets: Vec<Offset<'ctx>>,
    /// Bytes per offset unit (the `getelementptr`'s source element).
    scale: u64,
    /// Bytes per element loaded.
    size: u64,
}

/// The constant value of `v`, if it is an integer constant.
fn constant(v: BasicValueEnum<'_>) -> Option<u64> {
    match v {
        BasicValueEnum::IntValue(i) => i.get_zero_extended_constant(),
        _ => None,
    }
}

/// Whether `v` is poison or undef.
fn is_undefined(v: BasicValueEnum<'_>) -> bool {
    // SAFETY: `v` is a value of the module; it is only inspected.
    unsafe { inkwell::llvm_sys::core::LLVMIsUndef(v.as_value_ref()) != 0 || !inkwell::llvm_sys::core::LLVMIsAPoisonValue(v.as_value_ref()).is_null() }
}

/// Whether `i` may be moved above other instructions of its block: it reads and writes no
/// memory and cannot trap or end the block.
fn movable(i: InstructionValue<'_>) -> bool {
    use InstructionOpcode::*;
    match i.get_opcode() {
        GetElementPtr | ExtractElement | InsertElement | ShuffleVector | Add | Sub | Mul | Shl | LShr | AShr | And | Or | Xor | SExt | ZExt | Trunc | ICmp
        | FCmp | Select | BitCast | PtrToInt | IntToPtr | FAdd | FSub | FMul | FNeg | SIToFP | UIToFP | FPToSI | FPToUI | FPExt | FPTrunc => true,
        Call => super::inspect::callee_name(i)
            .is_some_and(|n| ["llvm.smin.", "llvm.smax.", "llvm.umin.", "llvm.umax.", "llvm.abs."].iter().any(|p| n.starts_with(p))),
        _ => false,
    }
}

impl<'ctx> Gathered<'ctx> {
    /// The scalarized gather ending at `last`, if it is one (see the module documentation).
    fn of(last: InstructionValue<'ctx>, data: &TargetData) -> Option<Gathered<'ctx>> {
        if last.get_opcode() != InstructionOpcode::InsertElement {
            return None;
        }
        let BasicValueEnum::VectorValue(vector) = operand(last, 0)? else { return None };
        let lanes = vector.get_type().get_size();
        if !(4..=64).contains(&lanes) {
            return None;
        }
        let block = last.get_parent()?;
        // The chain, from `last` back to the undefined vector it starts from.
        let mut loads: Vec<Option<InstructionValue<'ctx>>> = vec![None; lanes as usize];
        let mut inserts = vec![];
        let mut cur = last;
        loop {
            let lane = constant(operand(cur, 2)?)? as usize;
            let load = operand(cur, 1)?.as_instruction_value()?;
            if lane >= loads.len() || loads[lane].is_some() || load.get_opcode() != InstructionOpcode::Load || load.get_parent()? != block {
                return None;
            }
            if load.get_volatile().ok()? || load.get_first_use()?.get_next_use().is_some() {
                return None;
            }
            // SAFETY: `load` is a load instruction; its ordering is only read.
            if unsafe { inkwell::llvm_sys::core::LLVMGetOrdering(load.as_value_ref()) } != inkwell::llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic {
                return None;
            }
            loads[lane] = Some(load);
            inserts.push(cur);
            let rest = operand(cur, 0)?;
            if is_undefined(rest) {
                break;
            }
            cur = rest.as_instruction_value().filter(|i| i.get_opcode() == InstructionOpcode::InsertElement && i.get_parent() == Some(block))?;
            // An inner link of the chain feeds the next link only.
            if cur.get_first_use()?.get_next_use().is_some() {
                return None;
            }
        }
        inserts.reverse();
        let loads: Vec<InstructionValue<'ctx>> = loads.into_iter().collect::<Option<_>>()?;
        let element = BasicTypeEnum::try_from(loads[0].get_type()).ok()?;
        let size = data.get_store_size(&element);
        // Every lane: `getelementptr T, base, offset` with one base and one T, or
        // `inttoptr offset` (an address kept per thread in the context area); either maybe
        // displaced by one constant number of bytes (`getelementptr i8, p, c`: an unrolled
        // loop's `p[32]`).
        let mut form: Option<(Option<LLVMValueRef>, u64, Option<u64>)> = None;
        let mut sources: Vec<VectorValue<'ctx>> = vec![];
        let mut offsets = vec![];
        for load in &loads {
            let mut ptr = operand(*load, 0)?.as_instruction_value()?;
            let mut displaced = None;
            if ptr.get_opcode() == InstructionOpcode::GetElementPtr && ptr.get_num_operands() == 2 {
                // SAFETY: `ptr` is a getelementptr instruction; its source type is only read.
                let bytes = unsafe { inkwell::llvm_sys::core::LLVMGetGEPSourceElementType(ptr.as_value_ref()) } == block.get_context().i8_type().as_type_ref();
                let inner = operand(ptr, 0)?.as_instruction_value().filter(|i| i.get_opcode() == InstructionOpcode::IntToPtr);
                if let (true, Some(c), Some(inner)) = (bytes, constant(operand(ptr, 1)?), inner) {
                    displaced = Some(c);
                    ptr = inner;
                }
            }
            let (base, units, offset) = match ptr.get_opcode() {
                InstructionOpcode::IntToPtr => (None, 1, operand(ptr, 0)?),
                InstructionOpcode::GetElementPtr if ptr.get_num_operands() == 2 => {
                    // SAFETY: as above; `source` is a sized type of the module's context.
                    let units = unsafe {
                        let source = inkwell::llvm_sys::core::LLVMGetGEPSourceElementType(ptr.as_value_ref());
                        inkwell::llvm_sys::target::LLVMABISizeOfType(data.as_mut_ptr(), source)
                    };
                    (Some(operand(ptr, 0)?.as_value_ref()), units, operand(ptr, 1)?)
                }
                _ => return None,
            };
            if *form.get_or_insert((base, units, displaced)) != (base, units, displaced) || units == 0 || size % units != 0 {
                return None;
            }
            let BasicValueEnum::IntValue(offset) = offset else { return None };
            let from_lane = offset.as_instruction().filter(|e| e.get_opcode() == InstructionOpcode::ExtractElement).and_then(|e| {
                let BasicValueEnum::VectorValue(v) = operand(e, 0)? else { return None };
                Some((v, constant(operand(e, 1)?)? as u32))
            });
            offsets.push(match from_lane {
                Some((v, lane)) => {
                    let source = match sources.iter().position(|s| *s == v) {
                        Some(k) => k,
                        None => {
                            sources.push(v);
                            sources.len() - 1
                        }
                    };
                    Offset::Lane { source, lane }
                }
                None => Offset::Scalar(offset),
            });
        }
        let (base, scale, _) = form?;
        let scalars = offsets.iter().filter(|o| matches!(o, Offset::Scalar(_))).count();
        if sources.is_empty() || sources.len() > 2 || sources.iter().any(|s| s.get_type() != sources[0].get_type()) || scalars > 2 {
            return None;
        }
        let element = sources[0].get_type().get_element_type();
        if offsets.iter().any(|o| matches!(o, Offset::Scalar(v) if v.get_type().as_basic_type_enum() != element)) {
            return None;
        }
        // Only clamped indices and addresses kept in memory: rarely anything else is
        // consecutive.
        let kept = |s: &VectorValue<'ctx>| s.as_instruction().is_some_and(|i| i.get_opcode() == InstructionOpcode::Load);
        let worth = match base {
            Some(_) => sources.iter().any(|s| clamped(s.as_value_ref(), 0)),
            None => sources.iter().all(kept),
        };
        if !worth {
            return None;
        }
        Some(Gathered { last, loads, inserts, sources, offsets, scale, size })
    }

    /// Versions the gather (see the module documentation); `None` where the block's code
    /// between its first load and its end is not one it can move.
    fn version(&self, b: &Builder<'ctx>, module: &Module<'ctx>) -> Option<()> {
        let block = self.last.get_parent()?;
        let members: Vec<LLVMValueRef> = self.loads.iter().chain(&self.inserts).map(|i| i.as_value_ref()).collect();
        // The first load in the block, and what lies between it and the chain's end.
        let mut first = None;
        let mut cur = block.get_first_instruction();
        while let Some(i) = cur {
            if members.contains(&i.as_value_ref()) {
                first = Some(i);
                break;
            }
            cur = i.get_next_instruction();
        }
        let first = first?;
        let mut others = vec![];
        let mut cur = Some(first);
        while let Some(i) = cur {
            if i == self.last {
                break;
            }
            if !members.contains(&i.as_value_ref()) {
                // Moved above the first load: it must not read the chain's values.
                if !movable(i) || (0..i.get_num_operands()).any(|k| operand(i, k).is_some_and(|v| members.contains(&v.as_value_ref()))) {
                    return None;
                }
                others.push(i);
            }
            cur = i.get_next_instruction();
        }
        for i in &others {
            i.remove_from_basic_block();
            b.position_before(&first);
            b.insert_instruction(i, None);
        }
        // The lanes' offsets as one vector, compared with the first lane's plus its lane
        // times the element's size in offset units.
        b.position_before(&first);
        let vt = self.sources[0].get_type();
        let ity = vt.get_element_type().into_int_type();
        let width = vt.get_size();
        let cx = block.get_context();
        let i32t = cx.i32_type();
        let mask: Vec<IntValue<'ctx>> = self
            .offsets
            .iter()
            .map(|o| match *o {
                Offset::Lane { source, lane } => i32t.const_int(u64::from(lane + source as u32 * width), false),
                Offset::Scalar(_) => i32t.get_poison(),
            })
            .collect();
        let mask = inkwell::types::VectorType::const_vector(&mask);
        let second = self.sources.get(1).copied().unwrap_or(vt.get_poison());
        let mut all = b.build_shuffle_vector(self.sources[0], second, mask, "offsets").ok()?;
        for (k, o) in self.offsets.iter().enumerate() {
            if let Offset::Scalar(s) = o {
                all = b.build_insert_element(all, *s, ity.const_int(k as u64, false), "").ok()?;
            }
        }
        let consecutive = steps_from_first(b, module, all, None, self.size / self.scale, false)?;
        // [before | first .. last (the scalar loads) | after], and the vector load beside.
        let after = self.last.get_next_instruction()?;
        let (head, scalar) = cfg::split_before(b, first, "gather.scalar")?;
        let (_, join) = cfg::split_before(b, after, "gather.join")?;
        b.position_at_end(scalar);
        b.build_unconditional_branch(join).ok()?;
        let fast = cx.insert_basic_block_after(head, "gather.vector");
        b.position_at_end(head);
        b.build_conditional_branch(consecutive, fast, scalar).ok()?;
        b.position_at_end(fast);
        let ty = BasicTypeEnum::try_from(self.last.get_type()).ok()?;
        let first_ptr = operand(self.loads[0], 0)?.into_pointer_value();
        let load = b.build_load(ty, first_ptr, "").ok()?;
        let li = load.as_instruction_value()?;
        li.set_alignment(self.loads[0].get_alignment().ok()?).ok()?;
        copy_access_metadata(self.loads[0], li)?;
        b.build_unconditional_branch(join).ok()?;
        b.position_before(&join.get_first_instruction()?);
        let phi = b.build_phi(ty, "gathered").ok()?;
        self.last.replace_all_uses_with(&phi.as_instruction());
        let gathered: BasicValueEnum<'ctx> = self.last.as_any_value_enum().try_into().ok()?;
        phi.add_incoming(&[(&load, fast), (&gathered as &dyn BasicValue<'ctx>, scalar)]);
        Some(())
    }
}

/// Versions the scalarized gathers of `f` (see the module documentation).
pub fn version_scalarized_gathers<'ctx>(module: &Module<'ctx>, f: FunctionValue<'ctx>) {
    let layout = module.get_data_layout();
    let data = TargetData::create(layout.as_str().to_str().unwrap_or(""));
    let b = module.get_context().create_builder();
    let mut found = vec![];
    for bb in f.get_basic_blocks() {
        let mut cur = bb.get_first_instruction();
        while let Some(i) = cur {
            cur = i.get_next_instruction();
            // The end of a chain: an insertelement no insertelement continues.
            let ends_chain = i.get_opcode() == InstructionOpcode::InsertElement
                && !std::iter::successors(i.get_first_use(), |u| u.get_next_use())
                    .any(|u| super::inspect::as_instruction(u.get_user()).is_some_and(|x| x.get_opcode() == InstructionOpcode::InsertElement));
            if ends_chain {
                found.push(i);
            }
        }
    }
    for last in found {
        if let Some(g) = Gathered::of(last, &data) {
            let _ = g.version(&b, module);
        }
    }
}

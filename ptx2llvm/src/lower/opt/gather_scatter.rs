//! Masked gathers and scatters after the optimization pipeline: those whose lanes all use
//! one address, those through pointers read from memory or clamped indices, and those in
//! the shared window (`shared_offsets`, before versioning: the slow path keeps the 32-bit
//! offsets).
//!
//! One address. A thread loop's conditional access to an address that is the same for
//! every thread of a vector (`if (lane == 31) totals[warp] = v` in a segment of one warp, a
//! tile element that every thread reads under a bound check) is vectorized by LLVM as a
//! masked gather or scatter through a splat of that address. Those are slow where they
//! exist (a 16-lane `vpscatterdd` is 16 stores: 13% of the runtime bench's `scan` on Zen 5,
//! for one element stored in 32) and scalarized into a branch per lane where they do not.
//! They are rewritten:
//!
//! - a scatter stores, if any lane is active, the element of the highest active lane (LLVM's
//!   masked scatter writes overlapping lanes from the lowest to the highest, so that one is
//!   what memory holds afterwards);
//! - a gather loads the element once, if any lane is active, and gives it to the active
//!   lanes (the others keep the pass-through value).
//!
//! The one-element access is a masked load or store of one lane, which code generation turns
//! into a branch around a scalar access. A gather or scatter whose mask is a constant with
//! one lane on (a warp's loop, `warp_runs`, where the lane is known) is that lane's plain
//! load or store.
//!
//! Pointers read from memory. A per-thread pointer kept in the context area (saved across
//! a barrier or an interchanged loop's passes, `interchange`) is an address LLVM cannot
//! see through: the thread loop loads the threads' pointers as a vector and gathers
//! through them, although consecutive threads' pointers are most often consecutive
//! elements (`x[j]` with `j = lane + 32 * k`: softmax's passes over a row). Such a gather
//! or scatter is versioned: when every active lane's pointer is the first lane's plus its
//! lane number times the element size, a masked load or store of consecutive elements at
//! the first lane's pointer does the same accesses; otherwise the gather or scatter runs.
//! Pointers that differ from ones already checked by an offset the same for every lane (an
//! unrolled loop's `p[0] p[32] p[64] p[96]` through one per-thread pointer) reuse that check
//! where the code after it goes on (`Rewriter::checks`: softmax's block function, 42 checks
//! -> 14). Pointers that are one base plus 32-bit byte offsets (the shared window's, or
//! sign-extended `i32` indices) are checked on the offsets, in 32 bits (`byte_offsets_32`).
//!
//! Clamped indices. A neighbour's index kept inside a range (`max(tx - 1, lo)`, the edges of
//! pathfinder and hotspot) is consecutive for consecutive threads except at the range's
//! ends, but LLVM gathers through it. Gathers and scatters whose addresses go through a
//! clamp (`smin`/`smax`/`umin`/`umax` or a vector `select`) of an index computed from the
//! loop's induction without a load are versioned the same way (a Rodinia pathfinder kernel:
//! 90 -> 62 ms at one worker); an index clamped after it was read from memory (a texel's
//! coordinate) is not: rarely consecutive, the check would only cost. (A clamp of
//! `tid.x + u` by a bound the same for the row no longer gets here: the thread loop runs in
//! segments where it is affine, `exec::segments`. Where LLVM writes a gather as scalar
//! loads, `scalar_gathers` versions it the same way.)
//!
//! Bounds. A guard the block function does not turn into loop bounds (`exec::guards`), such
//! as scan's `if (i < n) out[i] = v` after other work in the region, leaves LLVM a masked
//! load or store in the vectorized thread loop whose mask compares the loop's induction
//! with a bound. Every vector but the last one of the last block has all its lanes on, and
//! AVX2's masked stores are slow (`vpmaskmovd` on Zen 3: most of the runtime bench's `scan`
//! there). Such an access is versioned on its mask: a plain load or store when every lane
//! is on (a branch that goes the same way nearly always), the masked one otherwise. A warp
//! run's loop (`exec::warp_runs`) is unrolled into vectors of `warp + lane` built from a
//! splat of its scalar induction, and its guarded accesses are versioned the same way
//! (a warp scan between `in[i]` and `out[i]` under `i < n`: 19.5 -> 7.5 ms on Zen 3).
//!
//! Worker-private memory. A masked store into the shared window or the context area (a
//! store under a condition that differs between threads: pathfinder's `if (computed)
//! prev[tx] = result[tx]`) is a `vpmaskmovd` on AVX2, 6-12 cycles on Zen 3, and a branch per
//! lane where the target has no masked store (NEON). Both windows belong to the worker
//! running the block, and so do `WINDOW_GUARD_BYTES` on each side of them (the ABI): if any
//! lane is active, the store's span lies in the window and its guards (the active lane's
//! address is in the window, the others at most a vector's width away), and no other
//! worker reads or writes there, so loading the span, blending the stored lanes in and
//! storing it whole does the same. On AVX-512 that costs about what the masked store does.

use super::cfg;
use super::inspect::{callee_name, copy_access_metadata, operand};
use super::shared_offsets::{self, Narrower};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::intrinsics::Intrinsic;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::module::Module;
use inkwell::targets::TargetData;
use inkwell::types::BasicTypeEnum;
use inkwell::values::{AnyValue, AsValueRef, BasicValue, BasicValueEnum, InstructionOpcode, InstructionValue, IntValue, PointerValue, VectorValue};
use inkwell::IntPredicate;
use std::cell::RefCell;
use std::collections::HashMap;

/// `p` if `v` is `shufflevector (insertelement _, p, 0), _, zeroinitializer`, the form the
/// vectorizer gives a loop-invariant address.
pub(super) fn splat_of<'ctx>(v: VectorValue<'ctx>) -> Option<PointerValue<'ctx>> {
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

/// `llvm.masked.gather(ptrs, align, mask, pass_through)`.
#[derive(Clone, Copy)]
struct Gather<'ctx> {
    call: InstructionValue<'ctx>,
    ptrs: VectorValue<'ctx>,
    align: IntValue<'ctx>,
    mask: VectorValue<'ctx>,
    pass_through: VectorValue<'ctx>,
}

/// `llvm.masked.scatter(data, ptrs, align, mask)`.
#[derive(Clone, Copy)]
struct Scatter<'ctx> {
    call: InstructionValue<'ctx>,
    data: VectorValue<'ctx>,
    ptrs: VectorValue<'ctx>,
    align: IntValue<'ctx>,
    mask: VectorValue<'ctx>,
}

/// The masked gather or scatter `call` is, with its operands.
enum Masked<'ctx> {
    Gather(Gather<'ctx>),
    Scatter(Scatter<'ctx>),
}

impl<'ctx> Masked<'ctx> {
    fn of(call: InstructionValue<'ctx>) -> Option<Masked<'ctx>> {
        let name = callee_name(call)?;
        let vector = |k| match operand(call, k)? {
            BasicValueEnum::VectorValue(v) => Some(v),
            _ => None,
        };
        let int = |k| match operand(call, k)? {
            BasicValueEnum::IntValue(v) => Some(v),
            _ => None,
        };
        if name.starts_with("llvm.masked.gather.") {
            Some(Masked::Gather(Gather { call, ptrs: vector(0)?, align: int(1)?, mask: vector(2)?, pass_through: vector(3)? }))
        } else if name.starts_with("llvm.masked.scatter.") {
            Some(Masked::Scatter(Scatter { call, data: vector(0)?, ptrs: vector(1)?, align: int(2)?, mask: vector(3)? }))
        } else {
            None
        }
    }
}

struct Rewriter<'a, 'ctx> {
    module: &'a Module<'ctx>,
    b: Builder<'ctx>,
    /// The function's consecutiveness checks of all-lane accesses so far, by the pointer
    /// vector tested (below offsets the same for every lane, `uniform_base`) and element
    /// size: the result, and the block where the code after the check goes on. An access
    /// there through the same pointers plus another such offset (the loads of an unrolled
    /// loop through one per-thread pointer, `x[0] x[32] x[64] x[96]`) reuses the result.
    checks: RefCell<HashMap<(LLVMValueRef, u64), (IntValue<'ctx>, BasicBlock<'ctx>)>>,
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

    /// Where a gather or scatter `call` whose mask is a constant with one lane on accesses:
    /// that lane (as an index) and its pointer, built before `call`.
    fn the_lane_on(&self, call: InstructionValue<'ctx>, ptrs: VectorValue<'ctx>, mask: VectorValue<'ctx>) -> Option<(IntValue<'ctx>, PointerValue<'ctx>)> {
        let lane = single_constant_lane(mask)?;
        self.b.position_before(&call);
        let k = self.module.get_context().i32_type().const_int(u64::from(lane), false);
        Some((k, self.b.build_extract_element(ptrs, k, "").ok()?.into_pointer_value()))
    }

    /// A scatter whose mask is a constant with one lane on (`if (lane == 31) totals[warp] = v`
    /// in a warp's loop, `warp_runs`): that lane's element stored at its pointer.
    fn one_lane_scatter(&self, sc: &Scatter<'ctx>) -> Option<()> {
        let Scatter { call, data, ptrs, align, mask } = *sc;
        let (k, p) = self.the_lane_on(call, ptrs, mask)?;
        let element = self.b.build_extract_element(data, k, "").ok()?;
        self.b.build_store(p, element).ok()?.set_alignment(align.get_zero_extended_constant()? as u32).ok()?;
        call.erase_from_basic_block();
        Some(())
    }

    /// A gather whose mask is a constant with one lane on: that lane's element loaded, the
    /// others the pass-through value.
    fn one_lane_gather(&self, g: &Gather<'ctx>) -> Option<()> {
        let Gather { call, ptrs, align, mask, pass_through } = *g;
        let (k, p) = self.the_lane_on(call, ptrs, mask)?;
        let loaded = self.b.build_load(pass_through.get_type().get_element_type(), p, "").ok()?;
        loaded.as_instruction_value()?.set_alignment(align.get_zero_extended_constant()? as u32).ok()?;
        let result = self.b.build_insert_element(pass_through, loaded, k, "").ok()?;
        call.replace_all_uses_with(&result.as_instruction_value()?);
        call.erase_from_basic_block();
        Some(())
    }

    /// A scatter through one address: the highest active lane's element stored there.
    fn one_address_scatter(&self, sc: &Scatter<'ctx>) -> Option<()> {
        let Scatter { call, data, ptrs, align, mask } = *sc;
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

    /// A gather through one address: one load, given to the active lanes.
    fn one_address_gather(&self, g: &Gather<'ctx>) -> Option<()> {
        let Gather { call, ptrs, align, mask, pass_through } = *g;
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

/// The lane of a constant mask that is on, if exactly one is (and none is undefined).
fn single_constant_lane(mask: VectorValue<'_>) -> Option<u32> {
    let lanes = constant_lanes(mask)?;
    let mut on = lanes.iter().enumerate().filter(|(_, on)| **on).map(|(k, _)| k as u32);
    match (on.next(), on.next()) {
        (Some(k), None) => Some(k),
        _ => None,
    }
}

/// Whether a mask is a constant with every lane on.
fn all_lanes_on(mask: VectorValue<'_>) -> bool {
    constant_lanes(mask).is_some_and(|lanes| lanes.iter().all(|on| *on))
}

/// The lanes of a constant mask, if it is one.
fn constant_lanes(mask: VectorValue<'_>) -> Option<Vec<bool>> {
    if !mask.is_const() {
        return None;
    }
    (0..mask.get_type().get_size())
        .map(|k| {
            // SAFETY: `mask` is a valid constant; `LLVMGetAggregateElement` reads any constant
            // vector's element (null when it cannot say), and an i1 element is an integer.
            let bit = unsafe { inkwell::llvm_sys::core::LLVMGetAggregateElement(mask.as_value_ref(), k) };
            if bit.is_null() || unsafe { inkwell::llvm_sys::core::LLVMIsAConstantInt(bit) }.is_null() {
                return None;
            }
            Some(unsafe { IntValue::new(bit) }.get_zero_extended_constant()? != 0)
        })
        .collect()
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

/// Whether `ptrs` are pointers read from memory: `inttoptr` of a vector (after offsets the
/// same for every lane), the form a kept per-thread address takes (`provenance` rebases
/// the others).
fn read_from_memory(ptrs: VectorValue<'_>) -> bool {
    uniform_base(ptrs).as_instruction().is_some_and(|i| i.get_opcode() == InstructionOpcode::IntToPtr)
}

/// Whether the addresses `v` are computed through a clamp or a choice per lane (`smin`,
/// `smax`, `umin`, `umax`, a vector `select`) of an index computed from the vectorized
/// loop's induction through no load (`lane_arithmetic`): a neighbour's index kept inside a
/// range (`max(tx - 1, lo)`: pathfinder's and hotspot's edges), consecutive for consecutive
/// threads but at the range's ends. Such gathers and scatters are versioned too; a clamped
/// index read from memory (a texel's coordinate) is not: it is rarely consecutive.
pub(super) fn clamped(v: LLVMValueRef, depth: u32) -> bool {
    use inkwell::llvm_sys::core::*;
    use inkwell::llvm_sys::LLVMOpcode::*;
    // SAFETY: `v` is a value of the module; it and its operands are only inspected.
    unsafe {
        let inst = LLVMIsAInstruction(v);
        if inst.is_null() || depth > 6 {
            return false;
        }
        let any_operand = |test: &dyn Fn(LLVMValueRef) -> bool| (0..LLVMGetNumOperands(v) as u32).any(|k| test(LLVMGetOperand(v, k)));
        // An instruction (a constant operand, the `0` of `select c, i, 0`, is no index).
        let lane_index = |x: LLVMValueRef| !LLVMIsAInstruction(x).is_null() && lane_arithmetic(x, 0);
        match LLVMGetInstructionOpcode(inst) {
            LLVMGetElementPtr | LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMAnd | LLVMOr | LLVMSExt | LLVMZExt | LLVMTrunc | LLVMShuffleVector
            | LLVMInsertElement => any_operand(&|x| clamped(x, depth + 1)),
            LLVMSelect => is_vector(LLVMGetOperand(v, 0)) && any_operand(&lane_index),
            LLVMCall => {
                let name = callee_name(InstructionValue::new(inst)).unwrap_or_default();
                ["llvm.smin.", "llvm.smax.", "llvm.umin.", "llvm.umax."].iter().any(|p| name.starts_with(p)) && any_operand(&lane_index)
            }
            _ => false,
        }
    }
}

/// Whether the lanes of `v` are computed without reading memory per lane: from the
/// vectorized loop's induction (a vector phi, or the scalar the lanes' indices are built
/// from: splats, lanes inserted one by one, shuffles) and values the same for every lane,
/// by arithmetic, casts and clamps. A scalar is taken as one lane's index or as uniform,
/// unless it was loaded (the lanes of a scalarized gather).
fn lane_arithmetic(v: LLVMValueRef, depth: u32) -> bool {
    use inkwell::llvm_sys::core::*;
    use inkwell::llvm_sys::LLVMOpcode::*;
    // SAFETY: as in `clamped`.
    unsafe {
        let inst = LLVMIsAInstruction(v);
        if inst.is_null() {
            // Constants (poison in unused lanes) and arguments.
            return true;
        }
        if !is_vector(v) {
            return LLVMGetInstructionOpcode(inst) != LLVMLoad;
        }
        if depth > 8 {
            return false;
        }
        let all_operands = || (0..LLVMGetNumOperands(v) as u32).all(|k| lane_arithmetic(LLVMGetOperand(v, k), depth + 1));
        match LLVMGetInstructionOpcode(inst) {
            LLVMPHI => true,
            LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor | LLVMSExt | LLVMZExt | LLVMTrunc | LLVMInsertElement
            | LLVMShuffleVector => all_operands(),
            LLVMCall => {
                let name = callee_name(InstructionValue::new(inst)).unwrap_or_default();
                ["llvm.smin.", "llvm.smax.", "llvm.umin.", "llvm.umax."].iter().any(|p| name.starts_with(p))
                    && (0..2).all(|k| lane_arithmetic(LLVMGetOperand(v, k), depth + 1))
            }
            _ => false,
        }
    }
}

/// Whether `v` is computed from a loop's induction by arithmetic and casts alone, reading
/// no memory: a vector phi (a vectorized loop's), or a scalar phi the lanes are built from
/// (splats, lanes inserted, shuffles, an `or` of the lane numbers into an aligned base: a
/// warp's loop, `exec::warp_runs`, runs its 32 lanes as a few vectors of `base + lane` and
/// loops over the warps). Any scalar phi is taken for an induction there; the versioning
/// this gates is exact whatever the mask (the plain access runs only when every lane is
/// on), so a wrong guess costs a branch.
fn from_induction(v: LLVMValueRef, depth: u32) -> bool {
    use inkwell::llvm_sys::core::*;
    use inkwell::llvm_sys::LLVMOpcode::*;
    // SAFETY: as in `clamped`.
    unsafe {
        let inst = LLVMIsAInstruction(v);
        if inst.is_null() || depth > 6 {
            return false;
        }
        match LLVMGetInstructionOpcode(inst) {
            LLVMPHI => is_vector(v) || depth > 0,
            LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMOr | LLVMSExt | LLVMZExt | LLVMTrunc | LLVMInsertElement | LLVMShuffleVector => {
                (0..LLVMGetNumOperands(v) as u32).any(|k| from_induction(LLVMGetOperand(v, k), depth + 1))
            }
            _ => false,
        }
    }
}

/// Whether `v` has a vector type.
unsafe fn is_vector(v: LLVMValueRef) -> bool {
    use inkwell::llvm_sys::core::{LLVMGetTypeKind, LLVMTypeOf};
    LLVMGetTypeKind(LLVMTypeOf(v)) == inkwell::llvm_sys::LLVMTypeKind::LLVMVectorTypeKind
}

/// The size in bytes of a scalar type (none for others).
fn element_bytes(t: BasicTypeEnum<'_>) -> Option<u64> {
    match t {
        BasicTypeEnum::IntType(t) if t.get_bit_width() % 8 == 0 => Some(u64::from(t.get_bit_width() / 8)),
        BasicTypeEnum::FloatType(t) => {
            let cx = t.get_context();
            [(cx.f16_type(), 2), (cx.bf16_type(), 2), (cx.f32_type(), 4), (cx.f64_type(), 8)].iter().find(|(f, _)| *f == t).map(|(_, n)| *n)
        }
        _ => None,
    }
}

/// The 32-bit byte offsets of `ptrs` from one base, if it is `getelementptr i8, base, O`
/// with `base` the same for every lane (a scalar pointer or a splat) and `O` a vector of
/// `i32` (sign-extended by the address arithmetic) or the sign extension of one.
fn byte_offsets_32(ptrs: VectorValue<'_>) -> Option<VectorValue<'_>> {
    let gep = ptrs.as_instruction().filter(|i| i.get_opcode() == InstructionOpcode::GetElementPtr && i.get_num_operands() == 2)?;
    // SAFETY: `gep` is a getelementptr instruction; its source element type is only compared.
    let bytes = unsafe {
        let t = inkwell::llvm_sys::core::LLVMGetGEPSourceElementType(gep.as_value_ref());
        t == inkwell::types::AsTypeRef::as_type_ref(&ptrs.get_type().get_context().i8_type())
    };
    let uniform = match operand(gep, 0)? {
        BasicValueEnum::PointerValue(_) => true,
        BasicValueEnum::VectorValue(v) => splat_of(v).is_some(),
        _ => false,
    };
    let BasicValueEnum::VectorValue(index) = operand(gep, 1)? else { return None };
    if !bytes || !uniform {
        return None;
    }
    let i32_lanes = |v: VectorValue<'_>| v.get_type().get_element_type().is_int_type() && v.get_type().get_element_type().into_int_type().get_bit_width() == 32;
    if i32_lanes(index) {
        return Some(index);
    }
    let sext = index.as_instruction().filter(|i| i.get_opcode() == InstructionOpcode::SExt)?;
    match operand(sext, 0)? {
        BasicValueEnum::VectorValue(narrow) if i32_lanes(narrow) => Some(narrow),
        _ => None,
    }
}

/// The pointer vector below `ptrs`'s offsets that are the same for every lane (scalar
/// `getelementptr` indices): `ptrs` is consecutive exactly when it is.
fn uniform_base(ptrs: VectorValue<'_>) -> VectorValue<'_> {
    let mut v = ptrs;
    for _ in 0..8 {
        let Some(i) = v.as_instruction().filter(|i| i.get_opcode() == InstructionOpcode::GetElementPtr && i.get_num_operands() == 2) else { break };
        let (Some(BasicValueEnum::VectorValue(base)), Some(BasicValueEnum::IntValue(_))) = (operand(i, 0), operand(i, 1)) else { break };
        v = base;
    }
    v
}

/// Before the builder's position: whether every active lane (of `mask`; all without one)
/// of the integers `v` is lane 0's plus the lane number times `step` (and, if `ordered`,
/// not below lane 0's as a signed value). Also used by `scalar_gathers`.
pub(super) fn steps_from_first<'ctx>(
    b: &Builder<'ctx>,
    module: &Module<'ctx>,
    v: VectorValue<'ctx>,
    mask: Option<VectorValue<'ctx>>,
    step: u64,
    ordered: bool,
) -> Option<IntValue<'ctx>> {
    let cx = module.get_context();
    let (t, lanes) = (v.get_type().get_element_type().into_int_type(), v.get_type().get_size());
    let zero = cx.i32_type().const_zero();
    let first = b.build_extract_element(v, zero, "").ok()?;
    let splat = b.build_insert_element(v.get_type().get_undef(), first, zero, "").ok()?;
    let splat = b.build_shuffle_vector(splat, v.get_type().get_undef(), cx.i32_type().vec_type(lanes).const_zero(), "").ok()?;
    let steps: Vec<IntValue<'ctx>> = (0..u64::from(lanes)).map(|k| t.const_int(k * step, false)).collect();
    let mut fine = b.build_int_compare(IntPredicate::EQ, b.build_int_sub(v, splat, "").ok()?, inkwell::types::VectorType::const_vector(&steps), "").ok()?;
    if ordered {
        fine = b.build_and(fine, b.build_int_compare(IntPredicate::SGE, v, splat, "").ok()?, "").ok()?;
    }
    if let Some(mask) = mask {
        fine = b.build_or(fine, b.build_not(mask, "").ok()?, "").ok()?;
    }
    let reduce = Intrinsic::find("llvm.vector.reduce.and")?.get_declaration(module, &[fine.get_type().into()])?;
    Some(b.build_call(reduce, &[fine.into()], "consecutive").ok()?.try_as_basic_value().basic()?.into_int_value())
}

impl<'ctx> Rewriter<'_, 'ctx> {
    /// Before `call`: `consecutive`, or for an all-lane access a check of the same
    /// pointers made before it in its block (`checks`).
    fn consecutive_at(
        &self,
        call: InstructionValue<'ctx>,
        ptrs: VectorValue<'ctx>,
        mask: VectorValue<'ctx>,
        size: u64,
    ) -> Option<(IntValue<'ctx>, PointerValue<'ctx>)> {
        let known = all_lanes_on(mask).then(|| self.checks.borrow().get(&(uniform_base(ptrs).as_value_ref(), size)).copied()).flatten();
        match known {
            Some((all, bb)) if Some(bb) == call.get_parent() => {
                let first = self.b.build_extract_element(ptrs, self.module.get_context().i32_type().const_zero(), "first").ok()?.into_pointer_value();
                Some((all, first))
            }
            _ => self.consecutive(ptrs, mask, size),
        }
    }

    /// After a check `all` of `ptrs` split block `bb`, the code goes on in `join`: so do
    /// the checks made before in `bb`, and this one if the access is an all-lane one.
    fn remember(&self, bb: BasicBlock<'ctx>, ptrs: VectorValue<'ctx>, mask: VectorValue<'ctx>, size: u64, all: IntValue<'ctx>, join: BasicBlock<'ctx>) {
        let mut checks = self.checks.borrow_mut();
        for (_, at) in checks.values_mut() {
            if *at == bb {
                *at = join;
            }
        }
        if all_lanes_on(mask) {
            checks.insert((uniform_base(ptrs).as_value_ref(), size), (all, join));
        }
    }

    /// Before `at`: whether every active lane's pointer of `ptrs` is the first lane's plus
    /// the lane number times `size`, and the first lane's pointer.
    fn consecutive(&self, ptrs: VectorValue<'ctx>, mask: VectorValue<'ctx>, size: u64) -> Option<(IntValue<'ctx>, PointerValue<'ctx>)> {
        let cx = self.module.get_context();
        let i64t = cx.i64_type();
        let lanes = ptrs.get_type().get_size();
        let first = self.b.build_extract_element(ptrs, cx.i32_type().const_zero(), "first").ok()?.into_pointer_value();
        let all = match byte_offsets_32(uniform_base(ptrs)).filter(|_| size * u64::from(lanes) < 1 << 31) {
            // One base and 32-bit byte offsets (sign-extended by the address arithmetic):
            // the offsets in 32 bits, half the work of the 64-bit addresses (a 16-lane
            // vector of i32 is one AVX-512 register), each also not below the first's (then
            // no 32-bit difference wrapped).
            Some(offsets) => steps_from_first(&self.b, self.module, offsets, Some(mask), size, true)?,
            None => steps_from_first(&self.b, self.module, self.b.build_ptr_to_int(ptrs, i64t.vec_type(lanes), "").ok()?, Some(mask), size, false)?,
        };
        Some((all, first))
    }

    /// Splits `call`'s block before it: the block ends in a branch on `cond` to a new
    /// block `{tag}.{fast_name}` (returned first) or to one holding `call` (second); both go on to a block
    /// holding what followed `call` (third), which the block's successors now come from.
    fn split_around(
        &self,
        call: InstructionValue<'ctx>,
        cond: IntValue<'ctx>,
        tag: &str,
        fast_name: &str,
    ) -> Option<(BasicBlock<'ctx>, BasicBlock<'ctx>, BasicBlock<'ctx>)> {
        let cx = self.module.get_context();
        let bb = call.get_parent()?;
        let join = match call.get_next_instruction() {
            Some(next) => cfg::split_before(&self.b, next, &format!("{tag}.join"))?.1,
            None => return None,
        };
        let fast = cx.insert_basic_block_after(bb, &format!("{tag}.{fast_name}"));
        let slow = cx.insert_basic_block_after(fast, &format!("{tag}.lanes"));
        call.remove_from_basic_block();
        self.b.position_at_end(slow);
        self.b.insert_instruction(&call, None);
        self.b.build_unconditional_branch(join).ok()?;
        self.b.position_at_end(bb);
        self.b.build_conditional_branch(cond, fast, slow).ok()?;
        Some((fast, slow, join))
    }

    /// A gather through pointers read from memory: a contiguous load where they are
    /// consecutive.
    fn versioned_gather(&self, g: &Gather<'ctx>) -> Option<()> {
        let Gather { call, ptrs, align, mask, pass_through } = *g;
        let ty = pass_through.get_type();
        let size = element_bytes(ty.get_element_type())?;
        if !read_from_memory(ptrs) && !clamped(ptrs.as_value_ref(), 0) {
            return None;
        }
        self.b.position_before(&call);
        let (all, first) = self.consecutive_at(call, ptrs, mask, size)?;
        let bb = call.get_parent()?;
        let (fast, slow, join) = self.split_around(call, all, "gather", "consecutive")?;
        self.remember(bb, ptrs, mask, size, all, join);
        self.b.position_at_end(fast);
        let load = self.intrinsic("llvm.masked.load", &[ty.into(), first.get_type().into()])?;
        let loaded = self.b.build_call(load, &[first.into(), align.into(), mask.into(), pass_through.into()], "").ok()?.try_as_basic_value().basic()?;
        self.b.build_unconditional_branch(join).ok()?;
        self.b.position_before(&join.get_first_instruction()?);
        let phi = self.b.build_phi(ty, "").ok()?;
        call.replace_all_uses_with(&phi.as_instruction());
        phi.add_incoming(&[(&loaded, fast), (&call.as_any_value_enum().into_vector_value() as &dyn BasicValue<'ctx>, slow)]);
        Some(())
    }

    /// A scatter through pointers read from memory: a contiguous store where they are
    /// consecutive.
    fn versioned_scatter(&self, sc: &Scatter<'ctx>) -> Option<()> {
        let Scatter { call, data, ptrs, align, mask } = *sc;
        let size = element_bytes(data.get_type().get_element_type())?;
        if !read_from_memory(ptrs) && !clamped(ptrs.as_value_ref(), 0) {
            return None;
        }
        self.b.position_before(&call);
        let (all, first) = self.consecutive_at(call, ptrs, mask, size)?;
        let bb = call.get_parent()?;
        let (fast, _, join) = self.split_around(call, all, "scatter", "consecutive")?;
        self.remember(bb, ptrs, mask, size, all, join);
        self.b.position_at_end(fast);
        let store = self.intrinsic("llvm.masked.store", &[data.get_type().into(), first.get_type().into()])?;
        self.b.build_call(store, &[data.into(), first.into(), align.into(), mask.into()], "").ok()?;
        self.b.build_unconditional_branch(join).ok()?;
        Some(())
    }
}

/// A masked load or store (`llvm.masked.load`/`llvm.masked.store`) whose mask compares a
/// value computed from the vectorized loop's induction (`from_induction`): a plain access
/// when every lane is on.
fn versioned_on_bound<'ctx>(r: &Rewriter<'_, 'ctx>, call: InstructionValue<'ctx>) -> Option<()> {
    let name = callee_name(call)?;
    let load = name.starts_with("llvm.masked.load.");
    if !load && !name.starts_with("llvm.masked.store.") {
        return None;
    }
    let (ptr_k, align_k, mask_k) = if load { (0, 1, 2) } else { (1, 2, 3) };
    let BasicValueEnum::VectorValue(mask) = operand(call, mask_k)? else { return None };
    let BasicValueEnum::IntValue(align) = operand(call, align_k)? else { return None };
    let BasicValueEnum::PointerValue(ptr) = operand(call, ptr_k)? else { return None };
    let cmp = mask.as_instruction()?;
    if cmp.get_opcode() != InstructionOpcode::ICmp || !(0..2).any(|k| operand(cmp, k).is_some_and(|v| from_induction(v.as_value_ref(), 0))) {
        return None;
    }
    let align = u32::try_from(align.get_zero_extended_constant()?).ok()?;
    r.b.position_before(&call);
    let lanes = mask.get_type().get_size();
    let bits = r.b.build_bit_cast(mask, r.module.get_context().custom_width_int_type(std::num::NonZeroU32::new(lanes)?).ok()?, "lanes").ok()?.into_int_value();
    let all = r.b.build_int_compare(IntPredicate::EQ, bits, bits.get_type().const_all_ones(), "every_lane").ok()?;
    let (fast, slow, join) = r.split_around(call, all, "bound", "all_lanes")?;
    r.b.position_at_end(fast);
    if load {
        let ty = call.get_type();
        let inkwell::types::AnyTypeEnum::VectorType(ty) = ty else { return None };
        let plain = r.b.build_load(ty, ptr, "").ok()?;
        plain.as_instruction_value()?.set_alignment(align).ok()?;
        r.b.build_unconditional_branch(join).ok()?;
        r.b.position_before(&join.get_first_instruction()?);
        let phi = r.b.build_phi(ty, "").ok()?;
        call.replace_all_uses_with(&phi.as_instruction());
        phi.add_incoming(&[(&plain, fast), (&call.as_any_value_enum().into_vector_value() as &dyn BasicValue<'ctx>, slow)]);
    } else {
        let BasicValueEnum::VectorValue(data) = operand(call, 0)? else { return None };
        let plain = r.b.build_store(ptr, data).ok()?;
        plain.set_alignment(align).ok()?;
        r.b.build_unconditional_branch(join).ok()?;
    }
    Some(())
}

/// A masked store into worker-private memory (`exec::alias::is_worker_private_access`),
/// if any lane is active, as a load of its span, a blend and a plain store (see the module
/// documentation). Spans wider than the windows' guards stay masked.
fn blended_private_store<'ctx>(cx: &'ctx inkwell::context::Context, r: &Rewriter<'_, 'ctx>, call: InstructionValue<'ctx>) -> Option<()> {
    if !callee_name(call)?.starts_with("llvm.masked.store.") {
        return None;
    }
    if !crate::lower::exec::alias::is_worker_private_access(cx, call) {
        return None;
    }
    let BasicValueEnum::VectorValue(data) = operand(call, 0)? else { return None };
    let BasicValueEnum::PointerValue(ptr) = operand(call, 1)? else { return None };
    let BasicValueEnum::IntValue(align) = operand(call, 2)? else { return None };
    let BasicValueEnum::VectorValue(mask) = operand(call, 3)? else { return None };
    let ty = data.get_type();
    let lanes = u64::from(ty.get_size());
    let span = lanes.checked_mul(element_bytes(ty.get_element_type())?)?;
    if span > ptx2llvm_abi::WINDOW_GUARD_BYTES as u64 {
        return None;
    }
    let align = u32::try_from(align.get_zero_extended_constant()?).ok()?;
    r.b.position_before(&call);
    let (_, any) = r.mask_bits(mask)?;
    let (blend, _, join) = r.split_around(call, any, "private", "blend")?;
    r.b.position_at_end(blend);
    let old = r.b.build_load(ty, ptr, "").ok()?;
    let merged = r.b.build_select(mask, data, old.into_vector_value(), "").ok()?;
    let store = r.b.build_store(ptr, merged).ok()?;
    let load = old.as_instruction_value()?;
    for inst in [load, store] {
        inst.set_alignment(align).ok()?;
        copy_access_metadata(call, inst)?;
    }
    r.b.build_unconditional_branch(join).ok()?;
    // The masked store is now only reached when no lane is active: it stores nothing.
    call.erase_from_basic_block();
    Some(())
}

/// Rewrites, in every function of `module`, the masked gathers and scatters through one
/// address or through pointers read from memory, and (unless `checked`: `--check` keeps
/// the addresses it reports) those in the shared window with 64-bit offsets (see the
/// module documentation).
pub fn rewrite_gathers_and_scatters<'ctx>(cx: &'ctx inkwell::context::Context, module: &Module<'ctx>, checked: bool) {
    let r = Rewriter { module, b: module.get_context().create_builder(), checks: RefCell::default() };
    let layout = module.get_data_layout();
    let layout = layout.as_str().to_str().unwrap_or("");
    let abi = crate::lower::abi::AbiTypes::new(cx);
    let window_field = TargetData::create(layout).offset_of_element(&abi.block_env, crate::lower::abi::env::SHARED);
    for f in module.get_functions() {
        r.checks.borrow_mut().clear();
        let mut found = vec![];
        for bb in f.get_basic_blocks() {
            let mut cur = bb.get_first_instruction();
            while let Some(inst) = cur {
                cur = inst.get_next_instruction();
                if Masked::of(inst).is_some() {
                    found.push(inst);
                }
            }
        }
        let window = if checked { None } else { window_field.and_then(|offset| shared_offsets::shared_window(f, offset, &abi)) };
        let mut narrower = Narrower::new(cx, TargetData::create(layout));
        // One rewrite per call: the one-address form first (it removes the call). Each call's
        // operands are read when its turn comes: a rewrite before it may have replaced one
        // (a gather's result that a scatter stores).
        for call in found {
            let Some(m) = Masked::of(call) else { continue };
            let (call, ptrs) = match m {
                Masked::Gather(g) if r.one_lane_gather(&g).is_some() || r.one_address_gather(&g).is_some() => continue,
                Masked::Scatter(sc) if r.one_lane_scatter(&sc).is_some() => continue,
                Masked::Scatter(sc) if r.one_address_scatter(&sc).is_some() => continue,
                Masked::Gather(g) => (g.call, g.ptrs),
                Masked::Scatter(sc) => (sc.call, sc.ptrs),
            };
            if let Some(w) = window {
                shared_offsets::rewrite(&r.b, call, ptrs, w, &mut narrower);
            }
            // Versioned on its pointers as they are now (in the window: 32-bit offsets).
            let _ = match Masked::of(call) {
                Some(Masked::Gather(g)) => r.versioned_gather(&g),
                Some(Masked::Scatter(sc)) => r.versioned_scatter(&sc),
                None => None,
            };
        }
        narrower.delete_dead(f);
        // Masked loads and stores under a bound on the induction (after the gathers'
        // rewrites, which make some of them).
        let mut bounded = vec![];
        for bb in f.get_basic_blocks() {
            let mut cur = bb.get_first_instruction();
            while let Some(inst) = cur {
                cur = inst.get_next_instruction();
                if inst.get_opcode() == InstructionOpcode::Call
                    && callee_name(inst).is_some_and(|n| n.starts_with("llvm.masked.load.") || n.starts_with("llvm.masked.store."))
                {
                    bounded.push(inst);
                }
            }
        }
        for call in bounded {
            let _ = versioned_on_bound(&r, call);
        }
        // Then the masked stores left (also those in the bound's slow path) in memory only
        // the block's worker touches.
        let mut private = vec![];
        for bb in f.get_basic_blocks() {
            let mut cur = bb.get_first_instruction();
            while let Some(inst) = cur {
                cur = inst.get_next_instruction();
                if inst.get_opcode() == InstructionOpcode::Call && callee_name(inst).is_some_and(|n| n.starts_with("llvm.masked.store.")) {
                    private.push(inst);
                }
            }
        }
        for call in private {
            let _ = blended_private_store(cx, &r, call);
        }
        super::scalar_gathers::version_scalarized_gathers(module, f);
    }
}

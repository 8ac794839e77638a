//! Gathers and scatters in the shared window with 32-bit offsets.
//!
//! PTX computes shared addresses in 64 bits (`mul.wide`, `add.s64` to a variable's
//! address), so a gather or scatter in shared memory goes through 64-bit pointers: x86 has 8 of them in a vector register, and a 16-lane access becomes two
//! gathers (`vpgatherqd`) or scatters, each with its own 64-bit index arithmetic. Every
//! address a valid `.shared` access uses is an offset below the block's window size
//! (at most 228 KB), so its offset from the window's start is the same number in 32 bits.
//! Such an access (tagged `.shared`, its pointers `getelementptr`s from the window pointer
//! of the block environment) is rewritten to the window plus a 32-bit offset per lane,
//! computed in 32-bit arithmetic from the same terms: one `vpgatherdd` of 16 lanes. An
//! address outside the window is undefined in PTX (the GPU faults); checking mode
//! (`--check`) keeps the 64-bit addresses it reports.

use super::gather_scatter::splat_of;
use super::inspect::operand;
use inkwell::builder::Builder;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::targets::TargetData;
use inkwell::types::AsTypeRef;
use inkwell::values::{AnyValue, AsValueRef, BasicValue, BasicValueEnum, FunctionValue, InstructionOpcode, InstructionValue, PointerValue, VectorValue};
use std::collections::HashMap;

/// The block function `f`'s pointer to its block's shared window: the pointer it loads
/// from the block environment (its parameter) at byte `offset`.
pub(super) fn shared_window<'ctx>(f: FunctionValue<'ctx>, offset: u64, abi: &crate::lower::abi::AbiTypes<'ctx>) -> Option<PointerValue<'ctx>> {
    let env = f.get_first_param()?.as_any_value_enum();
    let entry = f.get_first_basic_block()?;
    let mut cur = entry.get_first_instruction();
    while let Some(i) = cur {
        cur = i.get_next_instruction();
        if i.get_opcode() != InstructionOpcode::Load {
            continue;
        }
        let (Some(BasicValueEnum::PointerValue(field)), BasicValueEnum::PointerValue(loaded)) = (operand(i, 0), i.as_any_value_enum().try_into().ok()?) else {
            continue;
        };
        let Some(gep) = field.as_instruction().filter(|g| g.get_opcode() == InstructionOpcode::GetElementPtr) else { continue };
        if operand(gep, 0).map(|b| b.as_any_value_enum()) != Some(env) {
            continue;
        }
        let indices: Vec<Option<u64>> = (1..gep.get_num_operands())
            .map(|k| match operand(gep, k) {
                Some(BasicValueEnum::IntValue(v)) => v.get_zero_extended_constant(),
                _ => None,
            })
            .collect();
        // SAFETY: `gep` is a getelementptr instruction.
        let source = unsafe { inkwell::llvm_sys::core::LLVMGetGEPSourceElementType(gep.as_value_ref()) };
        let cx = f.get_type().get_context();
        let bytes = source == cx.i8_type().as_type_ref() && indices == [Some(offset)];
        let field_of_env = source == abi.block_env.as_type_ref() && indices == [Some(0), Some(u64::from(crate::lower::abi::env::SHARED))];
        if bytes || field_of_env {
            return Some(loaded);
        }
    }
    None
}

/// One term of an address: `index` (an integer or a vector of them) times `scale` bytes.
struct Term {
    index: LLVMValueRef,
    scale: u64,
}

/// `ptrs` as `window` plus terms, following `getelementptr`s (one index each) and splats
/// down to `window`.
fn window_terms<'ctx>(ptrs: BasicValueEnum<'ctx>, window: PointerValue<'ctx>, data: &TargetData) -> Option<Vec<Term>> {
    use inkwell::llvm_sys::core::{LLVMGetGEPSourceElementType, LLVMGetNumOperands, LLVMGetOperand};
    use inkwell::llvm_sys::target::LLVMABISizeOfType;
    let mut terms = vec![];
    let mut v = ptrs.as_value_ref();
    for _ in 0..16 {
        if v == window.as_value_ref() {
            return Some(terms);
        }
        // SAFETY: `v` is a value of the module; it is only inspected.
        let i = unsafe { InstructionValue::new(inkwell::llvm_sys::core::LLVMIsAInstruction(v)) };
        if i.as_value_ref().is_null() {
            return None;
        }
        match i.get_opcode() {
            InstructionOpcode::GetElementPtr => unsafe {
                if LLVMGetNumOperands(v) != 2 {
                    return None;
                }
                let scale = LLVMABISizeOfType(data.as_mut_ptr(), LLVMGetGEPSourceElementType(v));
                terms.push(Term { index: LLVMGetOperand(v, 1), scale });
                v = LLVMGetOperand(v, 0);
            },
            InstructionOpcode::ShuffleVector => {
                let BasicValueEnum::VectorValue(sv) = BasicValueEnum::try_from(i.as_any_value_enum()).ok()? else { return None };
                v = splat_of(sv)?.as_value_ref();
            }
            _ => return None,
        }
    }
    None
}

/// The masked gather or scatter `call` through `ptrs`, in the shared window at `window`
/// through 64-bit pointers: through the window plus 32-bit offsets.
pub(super) fn rewrite<'ctx>(
    builder: &Builder<'ctx>,
    call: InstructionValue<'ctx>,
    ptrs: VectorValue<'ctx>,
    window: PointerValue<'ctx>,
    narrower: &mut Narrower<'ctx>,
) -> Option<()> {
    use inkwell::llvm_sys::core::*;
    if !crate::lower::exec::alias::is_shared_access(narrower.cx, call) {
        return None;
    }
    let terms = window_terms(ptrs.as_basic_value_enum(), window, &narrower.data)?;
    let lanes = ptrs.get_type().get_size();
    let i32t = narrower.cx.i32_type();
    let vec32 = i32t.vec_type(lanes);
    let mut offsets = vec![];
    for t in &terms {
        offsets.push((narrower.narrow(t.index, 0)?, t.scale));
    }
    builder.position_before(&call);
    // SAFETY: every value built here is in the module's context, before `call`, which
    // the narrowed terms (each placed after the value it narrows) dominate.
    unsafe {
        let b = builder.as_mut_ptr();
        let mut sum: Option<LLVMValueRef> = None;
        for (n, scale) in offsets {
            let n = if LLVMGetTypeKind(LLVMTypeOf(n)) == inkwell::llvm_sys::LLVMTypeKind::LLVMVectorTypeKind {
                n
            } else {
                let undef = LLVMGetUndef(vec32.as_type_ref());
                let one = LLVMBuildInsertElement(b, undef, n, i32t.const_zero().as_value_ref(), c"".as_ptr());
                LLVMBuildShuffleVector(b, one, undef, vec32.const_zero().as_value_ref(), c"".as_ptr())
            };
            let scaled = if scale == 1 {
                n
            } else {
                let s: Vec<_> = (0..lanes).map(|_| i32t.const_int(scale, false)).collect();
                LLVMBuildMul(b, n, inkwell::types::VectorType::const_vector(&s).as_value_ref(), c"".as_ptr())
            };
            sum = Some(match sum {
                Some(acc) => LLVMBuildAdd(b, acc, scaled, c"".as_ptr()),
                None => scaled,
            });
        }
        let mut index = [sum?];
        let p = LLVMBuildGEP2(b, narrower.cx.i8_type().as_type_ref(), window.as_value_ref(), index.as_mut_ptr(), 1, c"shared.lanes".as_ptr());
        // The pointers are the first operand of a gather, the second of a scatter.
        let k = if LLVMGetOperand(call.as_value_ref(), 0) == ptrs.as_value_ref() { 0 } else { 1 };
        LLVMSetOperand(call.as_value_ref(), k, p);
    }
    narrower.replaced.push(ptrs.as_value_ref());
    Some(())
}

/// Narrows 64-bit integer values (and vectors of them) of one function to their low 32
/// bits: each narrowed value is placed right after the value it narrows (so that it is
/// available wherever that one is) and computed from the narrowed operands where the
/// operation's low 32 bits depend only on its operands' low 32 bits (sums, differences,
/// products, left shifts by less than 32, bitwise operations, and phis of such values: a
/// vectorized loop's induction gets a 32-bit twin), from the source of an extension of a
/// 32-bit value, and by a truncation otherwise.
pub(super) struct Narrower<'ctx> {
    cx: &'ctx inkwell::context::Context,
    b: Builder<'ctx>,
    data: TargetData,
    /// Narrowed values by the value they narrow.
    memo: HashMap<LLVMValueRef, LLVMValueRef>,
    /// The pointer vectors no longer used by the accesses rewritten (dead if nothing else
    /// uses them).
    replaced: Vec<LLVMValueRef>,
}

impl<'ctx> Narrower<'ctx> {
    pub(super) fn new(cx: &'ctx inkwell::context::Context, data: TargetData) -> Self {
        Narrower { cx, b: cx.create_builder(), data, memo: HashMap::new(), replaced: vec![] }
    }

    /// Places the builder right after `v`'s definition (after the phis of its block for a
    /// phi, at the function's entry for an argument).
    unsafe fn after_definition(&self, v: LLVMValueRef) -> Option<()> {
        use inkwell::llvm_sys::core::*;
        let b = self.b.as_mut_ptr();
        let inst = LLVMIsAInstruction(v);
        let next = if inst.is_null() {
            // An argument: the first instruction of the function.
            let f = LLVMGetParamParent(LLVMIsAArgument(v));
            if f.is_null() {
                return None;
            }
            LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(f))
        } else if !LLVMIsAPHINode(inst).is_null() {
            let mut i = LLVMGetFirstInstruction(LLVMGetInstructionParent(inst));
            while !i.is_null() && !LLVMIsAPHINode(i).is_null() {
                i = LLVMGetNextInstruction(i);
            }
            i
        } else {
            LLVMGetNextInstruction(inst)
        };
        if next.is_null() {
            return None;
        }
        LLVMPositionBuilderBefore(b, next);
        Some(())
    }

    /// `v` (an integer or a vector of integers) to 32 bits (see the type's documentation).
    fn narrow(&mut self, v: LLVMValueRef, depth: u32) -> Option<LLVMValueRef> {
        use inkwell::llvm_sys::core::*;
        use inkwell::llvm_sys::LLVMOpcode;
        if let Some(n) = self.memo.get(&v) {
            return Some(*n);
        }
        // SAFETY: `v` is an integer-typed value of the function; new values are built in
        // its context at positions `after_definition` gives, which its uses' operands
        // dominate.
        unsafe {
            let ty = LLVMTypeOf(v);
            let vector = LLVMGetTypeKind(ty) == inkwell::llvm_sys::LLVMTypeKind::LLVMVectorTypeKind;
            let scalar = if vector { LLVMGetElementType(ty) } else { ty };
            if LLVMGetTypeKind(scalar) != inkwell::llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind {
                return None;
            }
            let width = LLVMGetIntTypeWidth(scalar);
            if width == 32 {
                return Some(v);
            }
            let i32t = self.cx.i32_type().as_type_ref();
            let target = if vector { LLVMVectorType(i32t, LLVMGetVectorSize(ty)) } else { i32t };
            let b = self.b.as_mut_ptr();
            if !LLVMIsAConstant(v).is_null() {
                // Folded by the builder: no instruction, no position needed.
                let n = if width > 32 { LLVMBuildTrunc(b, v, target, c"".as_ptr()) } else { LLVMBuildSExt(b, v, target, c"".as_ptr()) };
                return Some(n);
            }
            let inst = LLVMIsAInstruction(v);
            let op = |k| LLVMGetOperand(v, k);
            let opcode = if inst.is_null() || depth >= 8 || width < 32 { None } else { Some(LLVMGetInstructionOpcode(inst)) };
            let n = match opcode {
                Some(
                    o @ (LLVMOpcode::LLVMAdd | LLVMOpcode::LLVMSub | LLVMOpcode::LLVMMul | LLVMOpcode::LLVMAnd | LLVMOpcode::LLVMOr | LLVMOpcode::LLVMXor),
                ) => {
                    let (x, y) = (self.narrow(op(0), depth + 1)?, self.narrow(op(1), depth + 1)?);
                    self.after_definition(v)?;
                    Some(match o {
                        LLVMOpcode::LLVMAdd => LLVMBuildAdd(b, x, y, c"".as_ptr()),
                        LLVMOpcode::LLVMSub => LLVMBuildSub(b, x, y, c"".as_ptr()),
                        LLVMOpcode::LLVMMul => LLVMBuildMul(b, x, y, c"".as_ptr()),
                        LLVMOpcode::LLVMAnd => LLVMBuildAnd(b, x, y, c"".as_ptr()),
                        LLVMOpcode::LLVMOr => LLVMBuildOr(b, x, y, c"".as_ptr()),
                        _ => LLVMBuildXor(b, x, y, c"".as_ptr()),
                    })
                }
                // (x << s) mod 2^32 = (x mod 2^32) << s for a constant s below 32.
                Some(LLVMOpcode::LLVMShl) if shift_below_32(op(1)) => {
                    let x = self.narrow(op(0), depth + 1)?;
                    let s = self.narrow(op(1), depth + 1)?;
                    self.after_definition(v)?;
                    Some(LLVMBuildShl(b, x, s, c"".as_ptr()))
                }
                Some(LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMZExt) if LLVMGetIntTypeWidth(element_type(LLVMTypeOf(op(0)))) == 32 => Some(op(0)),
                Some(LLVMOpcode::LLVMPHI) => {
                    self.after_definition(v)?;
                    LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(LLVMGetInstructionParent(inst)));
                    let phi = LLVMBuildPhi(b, target, c"".as_ptr());
                    // Before the incomings: a loop's phi reaches itself through them.
                    self.memo.insert(v, phi);
                    for k in 0..LLVMCountIncoming(v) {
                        let mut value = [self.narrow(LLVMGetIncomingValue(v, k), depth + 1)?];
                        let mut block = [LLVMGetIncomingBlock(v, k)];
                        LLVMAddIncoming(phi, value.as_mut_ptr(), block.as_mut_ptr(), 1);
                    }
                    Some(phi)
                }
                _ => None,
            };
            let n = match n {
                Some(n) => n,
                None => {
                    self.after_definition(v)?;
                    if width > 32 {
                        LLVMBuildTrunc(b, v, target, c"".as_ptr())
                    } else {
                        // A narrower index: `getelementptr` sign-extends it.
                        LLVMBuildSExt(b, v, target, c"".as_ptr())
                    }
                }
            };
            self.memo.insert(v, n);
            Some(n)
        }
    }

    /// Deletes what the rewritten accesses no longer use: the old pointer vectors and the
    /// 64-bit values narrowed, where nothing else uses them (a loop's induction and its
    /// increment, which use only each other, go together).
    ///
    /// The rewrites that ran since `f`'s values were recorded may have deleted some of them
    /// (a gather through one lane is replaced by a load): only those still in `f` are looked
    /// at, so that no freed value is read.
    pub(super) fn delete_dead(&mut self, f: FunctionValue<'_>) {
        use inkwell::llvm_sys::core::*;
        let live: std::collections::HashSet<LLVMValueRef> = f.get_basic_block_iter().flat_map(|bb| bb.get_instructions()).map(|i| i.as_value_ref()).collect();
        let mut work: Vec<LLVMValueRef> = self.replaced.drain(..).chain(self.memo.drain().map(|(k, _)| k)).filter(|v| live.contains(v)).collect();
        let mut deleted = std::collections::HashSet::new();
        // SAFETY: only instructions without side effects and without uses (or whose only
        // uses are each other) are deleted, each once; operands are read before deletion.
        unsafe {
            while let Some(v) = work.pop() {
                if deleted.contains(&v) {
                    continue;
                }
                let inst = LLVMIsAInstruction(v);
                if inst.is_null() || !pure(inst) {
                    continue;
                }
                let users = users_of(v);
                let dead = users.is_empty()
                    // A phi whose one user is an instruction only it uses (its increment).
                    || (!LLVMIsAPHINode(inst).is_null() && users.len() == 1 && pure(users[0]) && users_of(users[0]) == [v]);
                if !dead {
                    continue;
                }
                let mut doomed = vec![inst];
                // (A phi that only feeds itself is its own one user: deleted once.)
                if !users.is_empty() && users[0] != inst {
                    doomed.push(users[0]);
                }
                for &d in &doomed {
                    for k in 0..LLVMGetNumOperands(d) as u32 {
                        work.push(LLVMGetOperand(d, k));
                    }
                    LLVMReplaceAllUsesWith(d, LLVMGetPoison(LLVMTypeOf(d)));
                }
                for d in doomed {
                    deleted.insert(d);
                    LLVMInstructionEraseFromParent(d);
                }
            }
        }
    }
}

/// The element type of a vector type, the type itself otherwise.
unsafe fn element_type(t: inkwell::llvm_sys::prelude::LLVMTypeRef) -> inkwell::llvm_sys::prelude::LLVMTypeRef {
    use inkwell::llvm_sys::core::*;
    if LLVMGetTypeKind(t) == inkwell::llvm_sys::LLVMTypeKind::LLVMVectorTypeKind {
        LLVMGetElementType(t)
    } else {
        t
    }
}

/// The instructions using `v` (each once).
unsafe fn users_of(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    use inkwell::llvm_sys::core::*;
    let mut out = vec![];
    let mut u = LLVMGetFirstUse(v);
    while !u.is_null() {
        let user = LLVMGetUser(u);
        if !out.contains(&user) {
            out.push(user);
        }
        u = LLVMGetNextUse(u);
    }
    out
}

/// Whether deleting `inst` (once unused) changes nothing but its value: address and
/// integer arithmetic, casts, vector element moves and phis.
unsafe fn pure(inst: LLVMValueRef) -> bool {
    use inkwell::llvm_sys::core::LLVMGetInstructionOpcode;
    use inkwell::llvm_sys::LLVMOpcode::*;
    matches!(
        LLVMGetInstructionOpcode(inst),
        LLVMAdd
            | LLVMSub
            | LLVMMul
            | LLVMShl
            | LLVMAnd
            | LLVMOr
            | LLVMXor
            | LLVMTrunc
            | LLVMZExt
            | LLVMSExt
            | LLVMGetElementPtr
            | LLVMShuffleVector
            | LLVMInsertElement
            | LLVMPHI
    )
}

/// Whether `s`, a shift amount, is a constant (or a splat of one) below 32.
unsafe fn shift_below_32(s: LLVMValueRef) -> bool {
    use inkwell::llvm_sys::core::*;
    let c = if !LLVMIsAConstantInt(s).is_null() {
        s
    } else if !LLVMIsAConstantDataVector(s).is_null() || !LLVMIsAConstantVector(s).is_null() {
        let e = LLVMGetAggregateElement(s, 0);
        let n = LLVMGetVectorSize(LLVMTypeOf(s));
        if e.is_null() || (1..n).any(|k| LLVMGetAggregateElement(s, k) != e) {
            return false;
        }
        e
    } else {
        return false;
    };
    !LLVMIsAConstantInt(c).is_null() && LLVMConstIntGetZExtValue(c) < 32
}

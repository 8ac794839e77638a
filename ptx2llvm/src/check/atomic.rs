//! `atom`, `red`, `membar` and `fence` (ISA 9.2 §9.7.13.4–9.7.13.6).

use super::function::FnScope;
use super::instruction::{done, expect_operands, Converted, Mods};
use super::operands::Width;
use crate::front::ast::{self, Operand as A};
use crate::ir::{self, AtomicOp, MemOrder, MemScope, Op, ScalarType, StateSpace};

pub(super) fn sem(mods: &mut Mods) -> Option<MemOrder> {
    mods.one_of(&[".relaxed", ".acquire", ".release", ".acq_rel", ".sc"]).map(|s| match s {
        ".relaxed" => MemOrder::Relaxed,
        ".acquire" => MemOrder::Acquire,
        ".release" => MemOrder::Release,
        ".acq_rel" => MemOrder::AcqRel,
        _ => MemOrder::SeqCst,
    })
}

pub(super) fn scope_of(mods: &mut Mods) -> Option<MemScope> {
    mods.one_of(&[".cta", ".cluster", ".gpu", ".sys"]).map(|s| match s {
        ".cta" => MemScope::Cta,
        // A cluster's blocks may run on different cores.
        ".cluster" | ".gpu" => MemScope::Gpu,
        _ => MemScope::Sys,
    })
}

pub(super) fn atom(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let is_red = opcode == "red";
    let order = sem(&mut mods).unwrap_or(MemOrder::Relaxed);
    scope_of(&mut mods);
    let sp = match mods.one_of(&[".global", ".shared", ".shared::cta", ".shared::cluster"]) {
        Some(".global") => StateSpace::Global,
        Some(_) => StateSpace::Shared,
        None => StateSpace::Generic,
    };
    let op = mods.one_of(&[".and", ".or", ".xor", ".exch", ".add", ".inc", ".dec", ".min", ".max", ".cas"]);
    let noftz = mods.has(".noftz");
    let cache_hint = mods.has(".L2::cache_hint");
    let lanes = match mods.one_of(&[".v2", ".v4", ".v8"]) {
        Some(".v2") => 2,
        Some(".v4") => 4,
        Some(_) => 8,
        None => 1,
    };
    let ty = super::instruction::one_type(scope, &mut mods, inst)?;
    if !mods.finish() {
        return None;
    }
    let Some(op) = op else {
        scope.error(inst.opcode.span.clone(), format!("`{opcode}` needs an operation (`.add`, `.cas`, `.exch`, `.min`, ...)"));
        return None;
    };
    let op = match op {
        ".and" => AtomicOp::And,
        ".or" => AtomicOp::Or,
        ".xor" => AtomicOp::Xor,
        ".exch" => AtomicOp::Exch,
        ".add" => AtomicOp::Add,
        ".inc" => AtomicOp::Inc,
        ".dec" => AtomicOp::Dec,
        ".min" => AtomicOp::Min,
        ".max" => AtomicOp::Max,
        _ => AtomicOp::Cas,
    };
    if is_red && op == AtomicOp::Cas {
        scope.error(inst.opcode.span.clone(), "`red` has no `.cas` form; use `atom.cas`");
        return None;
    }
    let half = matches!(ty, ScalarType::F16 | ScalarType::BF16 | ScalarType::F16x2 | ScalarType::BF16x2);
    if noftz != half {
        let msg = if noftz {
            format!("`.noftz` is only for `{opcode}` on `.f16`, `.f16x2`, `.bf16` and `.bf16x2`")
        } else {
            format!("`{opcode}` on `{}` needs `.noftz` (it never flushes subnormals)", ty.name())
        };
        scope.error(inst.opcode.span.clone(), msg);
        return None;
    }
    let type_ok = if lanes > 1 {
        // The vector forms (global memory only): `.add` on `.v2/.v4.f32`; `.add .min .max`
        // on `.v2/.v4/.v8` of `.f16`/`.bf16` and `.v2/.v4` of `.f16x2`/`.bf16x2`.
        match ty {
            ScalarType::F32 => op == AtomicOp::Add && lanes <= 4,
            ScalarType::F16 | ScalarType::BF16 => matches!(op, AtomicOp::Add | AtomicOp::Min | AtomicOp::Max),
            ScalarType::F16x2 | ScalarType::BF16x2 => matches!(op, AtomicOp::Add | AtomicOp::Min | AtomicOp::Max) && lanes <= 4,
            _ => false,
        }
    } else {
        match op {
            AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => matches!(ty.bits(), 32 | 64) && !ty.is_float(),
            AtomicOp::Exch => matches!(ty.bits(), 32 | 64 | 128) && !ty.is_float(),
            AtomicOp::Cas => matches!(ty.bits(), 32 | 64) && !ty.is_float() || matches!(ty, ScalarType::B16 | ScalarType::B128),
            AtomicOp::Add => !matches!(ty, ScalarType::B32 | ScalarType::B64 | ScalarType::B16 | ScalarType::B128) && ty.bits() >= 16,
            AtomicOp::Inc | AtomicOp::Dec => ty == ScalarType::U32,
            AtomicOp::Min | AtomicOp::Max => matches!(ty, ScalarType::U32 | ScalarType::S32 | ScalarType::U64 | ScalarType::S64),
        }
    };
    if !type_ok {
        let what = if lanes > 1 { format!(".v{lanes}{}", ty.name()) } else { ty.name().to_string() };
        scope.error(inst.opcode.span.clone(), format!("`{opcode}` does not support this operation on `{what}`"));
        return None;
    }
    if lanes > 1 && !matches!(sp, StateSpace::Global | StateSpace::Generic) {
        scope.error(inst.opcode.span.clone(), format!("vector `{opcode}` is only allowed on global memory"));
        return None;
    }
    let value_ops = if op == AtomicOp::Cas { 2 } else { 1 };
    let base = if is_red { 1 } else { 2 };
    let counts: Vec<usize> = if cache_hint { vec![base + value_ops + 1] } else { vec![base + value_ops] };
    if !expect_operands(scope, inst, &counts) {
        return None;
    }
    let ops = &inst.operands;
    let (dst_op, addr_op, rest) = if is_red { (None, &ops[0], &ops[1..]) } else { (Some(&ops[0]), &ops[1], &ops[2..]) };
    // One register (or `_`) per element: `{%f1, %f2}` for the vector forms.
    let elements = |scope: &mut FnScope, op: &ast::Spanned<A>| -> Option<Vec<ast::Spanned<A>>> {
        let items = if lanes > 1 { scope.vector_elements(op) } else { vec![op.clone()] };
        if items.len() != lanes || (lanes == 1 && matches!(op.node, A::Vector(_))) {
            scope.error(op.span.clone(), format!("`{opcode}` with `.v{lanes}` takes a vector of {lanes} registers here"));
            return None;
        }
        Some(items)
    };
    let dst = match dst_op {
        None => vec![],
        Some(d) => {
            let mut out = vec![];
            for item in elements(scope, d)? {
                out.push(match item.node {
                    A::Sink => None,
                    _ => Some(scope.dst(&item, ty, Width::Exact)?),
                });
            }
            out
        }
    };
    let addr = scope.address_in(addr_op, sp)?;
    if let ir::AddressBase::Var(v) = addr.base {
        let var_space = scope.cx.out.vars[v.0 as usize].space;
        if !matches!(var_space, StateSpace::Global | StateSpace::Shared) || (sp != StateSpace::Generic && var_space != sp) {
            scope.error(addr_op.span.clone(), format!("`{opcode}` cannot access `{}` in `{}` space", scope.cx.out.vars[v.0 as usize].name, var_space.name()));
            return None;
        }
    }
    if matches!(addr.base, ir::AddressBase::Param(_) | ir::AddressBase::Return(_)) {
        scope.error(addr_op.span.clone(), format!("`{opcode}` cannot access parameters"));
        return None;
    }
    let mut b = vec![];
    for item in elements(scope, &rest[0])? {
        b.push(scope.src(&item, ty, Width::Exact)?);
    }
    let c = if op == AtomicOp::Cas { Some(scope.src(&rest[1], ty, Width::Exact)?) } else { None };
    if cache_hint {
        scope.src(&rest[value_ops], ScalarType::B64, Width::Exact)?;
    }
    done(guard, Op::Atomic { op, ty, space: sp, order, dst, addr, b, c }, inst)
}

pub(super) fn fence(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    // `fence.proxy.*` orders accesses between memory proxies (generic, async, texture...);
    // on the CPU there is one proxy, so it only has to stop compiler reordering.
    // `fence.op_restrict.release` (mbarrier initialization) likewise concerns GPU-only state.
    if inst.modifiers.first().is_some_and(|m| matches!(m.node.as_str(), ".proxy" | ".op_restrict" | ".mbarrier_init")) {
        super::instruction::drop_all(&mut mods);
        if !expect_operands(scope, inst, &[0, 2]) || !inst.operands.iter().all(|o| scope.resolve_any(o)) {
            return None;
        }
        return done(guard, Op::Fence { order: MemOrder::AcqRel, scope: MemScope::Cta }, inst);
    }
    // `.sync_restrict::shared::cta` narrows which accesses the fence orders: a full fence
    // orders those too.
    mods.one_of(&[".sync_restrict::shared::cta", ".sync_restrict::shared::cluster"]);
    let (order, sc) = if opcode == "membar" {
        let sc = match mods.one_of(&[".cta", ".gl", ".sys"]) {
            Some(".cta") => MemScope::Cta,
            Some(".gl") => MemScope::Gpu,
            Some(_) => MemScope::Sys,
            None => {
                scope.error(inst.opcode.span.clone(), "`membar` needs a level: `.cta`, `.gl` or `.sys`");
                return None;
            }
        };
        (MemOrder::SeqCst, sc)
    } else {
        let order = sem(&mut mods).unwrap_or(MemOrder::SeqCst);
        if matches!(order, MemOrder::Relaxed) {
            scope.error(inst.opcode.span.clone(), "`fence` takes `.sc`, `.acq_rel`, `.acquire` or `.release`");
            return None;
        }
        let Some(sc) = scope_of(&mut mods) else {
            scope.error(inst.opcode.span.clone(), "`fence` needs a scope: `.cta`, `.cluster`, `.gpu` or `.sys`");
            return None;
        };
        (order, sc)
    };
    if !mods.finish() || !expect_operands(scope, inst, &[0]) {
        return None;
    }
    done(guard, Op::Fence { order, scope: sc }, inst)
}

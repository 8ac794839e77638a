//! `multimem.ld_reduce`, `multimem.st`, `multimem.red` (ISA 9.2 §9.7.9.14). A multimem
//! address names one location on each device of a multicast object; there is one device,
//! so the object has a single replica at that address: `ld_reduce` reduces one value (a
//! load), `st` stores to it, `red` is an atomic reduction of it. The orderings are those
//! of the ISA (`ld_reduce`/`st` default to `.weak`, `red` to `.relaxed` at `.sys` scope).
//! The 8-bit float types (`.e5m2`, `.e4m3` and their x2/x4 packs, for `ld_reduce` and `st`)
//! live in registers of their total width (8, 16 or 32 bits), of any type of that size.

use super::atomic::{scope_of, sem};
use super::function::FnScope;
use super::instruction::{done, expect_operands, one_type, unsupported, Converted, Mods};
use super::operands::Width;
use crate::front::ast::{self, Operand as A};
use crate::ir::{self, AtomicOp, MemOrder, MemScope, Op, ScalarType as T, StateSpace};

pub(super) fn multimem(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let Some(kind) = mods.one_of(&[".ld_reduce", ".st", ".red"]) else {
        // The `multimem.cp` family (bulk copies) is not translated yet.
        return unsupported(scope, inst, guard, format!("`multimem{}`", inst.modifiers.first().map_or("", |m| m.node.as_str())));
    };
    let weak = mods.has(".weak");
    let order = sem(&mut mods);
    let mem_scope = scope_of(&mut mods).unwrap_or(MemScope::Sys);
    let space = if mods.has(".global") { StateSpace::Global } else { StateSpace::Generic };
    let op = mods.one_of(&[".min", ".max", ".add", ".and", ".or", ".xor"]);
    let acc = mods.one_of(&[".acc::f32", ".acc::f16"]);
    let lanes = match mods.one_of(&[".v2", ".v4", ".v8"]) {
        Some(".v2") => 2,
        Some(".v4") => 4,
        Some(_) => 8,
        None => 1,
    };
    // `ty`: the register type of one element (8-bit floats: the bit type of their width).
    let fp8 = mods.one_of(&[".e5m2", ".e5m2x2", ".e5m2x4", ".e4m3", ".e4m3x2", ".e4m3x4"]);
    let (ty, type_name) = match fp8 {
        Some(name) if name.ends_with("x4") => (T::B32, name),
        Some(name) if name.ends_with("x2") => (T::B16, name),
        Some(name) => (T::B8, name),
        None => {
            let ty = one_type(scope, &mut mods, inst)?;
            (ty, ty.name())
        }
    };
    if !mods.finish() || !expect_operands(scope, inst, &[2]) {
        return None;
    }
    let name = format!("multimem{kind}");
    let fail = |scope: &mut FnScope, msg: String| -> Option<Converted> {
        scope.error(inst.opcode.span.clone(), msg);
        None
    };
    // Element types and `.vec`: integers take no `.vec`; float types (`.red`: not the 8-bit
    // ones) make 32, 64 or 128 bits with their `.vec`, and `.f64` takes no `.vec` (this is
    // the ISA's table of `.vec` and base types).
    let f16_or_bf16 = matches!(ty, T::F16 | T::BF16 | T::F16x2 | T::BF16x2) && fp8.is_none();
    let is_float = fp8.is_some() || matches!(ty, T::F16 | T::BF16 | T::F16x2 | T::BF16x2 | T::F32 | T::F64);
    let int = fp8.is_none() && matches!(ty, T::B32 | T::B64 | T::U32 | T::U64 | T::S32 | T::S64);
    let type_ok = if fp8.is_some() { kind != ".red" } else { is_float || int };
    let vec_ok = if is_float { matches!(lanes as u32 * ty.bits(), 32 | 64 | 128) && !(ty == T::F64 && lanes > 1) } else { lanes == 1 };
    if !type_ok || !vec_ok {
        let vec = if lanes > 1 { format!(".v{lanes}") } else { String::new() };
        return fail(scope, format!("`{name}` does not take `{vec}{type_name}`"));
    }
    // `.acc_prec` raises the precision of the accumulation of a sum (`min`/`max` accumulate
    // nothing; NVIDIA's assembler rejects them with it): `.acc::f32` of 16-bit floats,
    // `.acc::f16` of 8-bit floats. The reduction of one value is that value at any precision.
    if let Some(acc) = acc {
        let (fits, which) = if acc == ".acc::f16" {
            (fp8.is_some(), "the 8-bit float types (`.e5m2`, `.e4m3` and their x2/x4 packs)")
        } else {
            (f16_or_bf16, "`.f16`, `.f16x2`, `.bf16` and `.bf16x2`")
        };
        let problem = match op {
            Some(op) if op != ".add" => Some(format!("`{acc}` applies only to `.add`, not to `{op}`")),
            _ if !fits => Some(format!("`{acc}` applies only to {which}, not to `{type_name}`")),
            _ => None,
        };
        if let Some(msg) = problem {
            let span = inst.modifiers.iter().find(|m| m.node == acc).map_or(inst.opcode.span.clone(), |m| m.span.clone());
            scope.error(span, msg);
            return None;
        }
    }
    let atomic_op = match (kind, op) {
        (".st", None) => None,
        (".st", Some(op)) => return fail(scope, format!("`multimem.st` takes no operation, found `{op}`")),
        (_, None) => return fail(scope, format!("`{name}` needs an operation (`.add`, `.min`, `.max`, `.and`, `.or`, `.xor`)")),
        (_, Some(op)) => {
            // The ISA's table of operations and base types (`red` on floats: `.add` only).
            let ok = match op {
                ".add" => int && matches!(ty, T::U32 | T::U64 | T::S32) || is_float,
                ".and" | ".or" | ".xor" => int && matches!(ty, T::B32 | T::B64),
                _ => int && matches!(ty, T::U32 | T::S32 | T::U64 | T::S64) || kind == ".ld_reduce" && (f16_or_bf16 || fp8.is_some()),
            };
            if !ok {
                return fail(scope, format!("`{name}{op}` does not take `{type_name}`"));
            }
            Some(match op {
                ".add" => AtomicOp::Add,
                ".and" => AtomicOp::And,
                ".or" => AtomicOp::Or,
                ".xor" => AtomicOp::Xor,
                ".min" => AtomicOp::Min,
                _ => AtomicOp::Max,
            })
        }
    };
    // Orderings each instruction allows (`.weak` is the default of `ld_reduce` and `st`).
    let allowed: &[MemOrder] = match kind {
        ".ld_reduce" => &[MemOrder::Relaxed, MemOrder::Acquire],
        _ => &[MemOrder::Relaxed, MemOrder::Release],
    };
    if order.is_some_and(|o| !allowed.contains(&o)) {
        let names = if kind == ".ld_reduce" {
            "`.weak`, `.relaxed` or `.acquire`"
        } else if kind == ".st" {
            "`.weak`, `.relaxed` or `.release`"
        } else {
            "`.relaxed` or `.release`"
        };
        return fail(scope, format!("`{name}` takes {names}"));
    }
    if weak && (kind == ".red" || order.is_some()) {
        return fail(scope, format!("`{name}` cannot be both `.weak` and ordered"));
    }
    let ops = &inst.operands;
    let (addr_op, val_op) = if kind == ".ld_reduce" { (&ops[1], &ops[0]) } else { (&ops[0], &ops[1]) };
    let addr = scope.address_in(addr_op, space)?;
    if let ir::AddressBase::Var(v) = addr.base {
        let var_space = scope.cx.out.vars[v.0 as usize].space;
        if var_space != StateSpace::Global {
            scope.error(
                addr_op.span.clone(),
                format!("`{name}` accesses global memory, but `{}` is in `{}` space", scope.cx.out.vars[v.0 as usize].name, var_space.name()),
            );
            return None;
        }
    }
    if matches!(addr.base, ir::AddressBase::Param(_) | ir::AddressBase::Return(_)) {
        scope.error(addr_op.span.clone(), format!("`{name}` cannot access parameters"));
        return None;
    }
    let elements = if lanes > 1 { scope.vector_elements(val_op) } else { vec![val_op.clone()] };
    if elements.len() != lanes || (lanes == 1 && matches!(val_op.node, A::Vector(_))) {
        let msg = if lanes == 1 {
            format!("`{name}` without `.v2`/`.v4`/`.v8` takes one register, not a vector")
        } else {
            format!("`{name}` with `.v{lanes}` takes a vector of {lanes} registers")
        };
        scope.error(val_op.span.clone(), msg);
        return None;
    }
    // Loads and stores move the elements' bits; the reduction of one value is the value.
    let bits_ty = match ty.bits() {
        8 => T::B8,
        16 => T::B16,
        32 => T::B32,
        _ => T::B64,
    };
    let op = match kind {
        ".ld_reduce" => {
            let mut dst = vec![];
            for e in &elements {
                dst.push(match e.node {
                    A::Sink => None,
                    _ => Some(scope.dst(e, ty, Width::Exact)?),
                });
            }
            Op::Load { space, ty: bits_ty, volatile: false, order: order.map(|o| (o, mem_scope)), dst, addr }
        }
        ".st" => {
            let mut src = vec![];
            for e in &elements {
                src.push(scope.src(e, ty, Width::Exact)?);
            }
            Op::Store { space, ty: bits_ty, volatile: false, order: order.map(|o| (o, mem_scope)), src, addr }
        }
        _ => {
            let mut b = vec![];
            for e in &elements {
                b.push(scope.src(e, ty, Width::Exact)?);
            }
            let op = atomic_op?;
            Op::Atomic { op, ty, space, order: order.unwrap_or(MemOrder::Relaxed), dst: vec![], addr, b, c: None }
        }
    };
    done(guard, op, inst)
}

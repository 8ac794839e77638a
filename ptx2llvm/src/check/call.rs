//! `call`: direct calls of declared functions and indirect calls through a register.
//!
//! Forms (ISA 9.2 §9.7.12.5 `call`):
//! `call{.uni} (rets), f, (args);`, `call{.uni} f, (args);`, `call{.uni} f;`,
//! `call{.uni} (rets), %fptr, (args), proto_or_targets;` where the last operand is the label of a
//! `.callprototype` or a `.calltargets` list.

use super::function::{FnScope, LocalOrGlobal, LocalSymbol};
use super::instruction::{Converted, Mods};
use super::operands::Width;
use super::GlobalSymbol;
use crate::front::ast::{self, Operand as A, Spanned};
use crate::ir::{self, Op, ScalarType};

pub(super) fn call(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let uniform = mods.has(".uni");
    if !mods.finish() {
        return None;
    }
    let Some(ast::CallOperands { rets, callee: callee_op, args, rest }) = inst.call_operands() else {
        scope.error(inst.span.clone(), "`call` needs a function to call");
        return None;
    };
    if rest.len() > 1 {
        scope.error(rest[1].span.clone(), "unexpected operand after the call's prototype");
        return None;
    }
    // A vector register passed to (or receiving) a vector `.reg` parameter: its components,
    // one parameter each (see `function::param_decls`).
    let expand = |scope: &FnScope, ops: &[Spanned<A>]| -> Vec<Spanned<A>> { ops.iter().flat_map(|o| scope.vector_elements(o)).collect() };
    let (args, rets) = (&expand(scope, args)[..], &expand(scope, rets)[..]);
    let A::Name { name: callee_name, component: None } = &callee_op.node else {
        scope.error(callee_op.span.clone(), "expected a function name or a register holding a function address");
        return None;
    };

    // The signature the call must match: (parameter types, return parameter types) when known.
    let (callee, signature): (ir::Callee, Option<(Vec<ScalarType>, Vec<ScalarType>)>) = match scope.lookup(callee_name) {
        Some(LocalOrGlobal::Global(GlobalSymbol::Function(f))) => {
            if !rest.is_empty() {
                scope.error(rest[0].span.clone(), "a direct call takes no prototype operand");
                return None;
            }
            let func = &scope.cx.out.functions[f];
            if func.kind == ir::FunctionKind::Entry {
                scope.error(callee_op.span.clone(), format!("`{callee_name}` is an `.entry`; only `.func` functions can be called"));
                return None;
            }
            let sig = (func.params.iter().map(|p| p.ty).collect(), func.returns.iter().map(|p| p.ty).collect());
            (ir::Callee::Direct(f as u32), Some(sig))
        }
        Some(LocalOrGlobal::Local(LocalSymbol::Reg(r))) => {
            let t = scope.reg_type(r);
            if !(t.is_int() && matches!(t.bits(), 32 | 64)) {
                scope.error(callee_op.span.clone(), format!("function address register `{callee_name}` must be a 32- or 64-bit integer, not `{}`", t.name()));
                return None;
            }
            let Some(proto) = rest.first() else {
                scope.error(inst.span.clone(), "an indirect call needs a `.callprototype` or `.calltargets` label as its last operand");
                return None;
            };
            let A::Name { name: proto_name, component: None } = &proto.node else {
                scope.error(proto.span.clone(), "expected a `.callprototype` or `.calltargets` label");
                return None;
            };
            let (returns, params) = match scope.prototypes.get(proto_name) {
                Some(sig) => *sig,
                None if scope.labels.contains(proto_name) => (rets.len() as u32, args.len() as u32),
                None => {
                    scope.error(proto.span.clone(), format!("`{proto_name}` is not a `.callprototype` or `.calltargets` label"));
                    return None;
                }
            };
            if returns as usize != rets.len() || params as usize != args.len() {
                scope.error(
                    inst.span.clone(),
                    format!(
                        "call through `{proto_name}` passes {} arguments and {} results, but the prototype has {params} parameters and {returns} results",
                        args.len(),
                        rets.len()
                    ),
                );
                return None;
            }
            (ir::Callee::Indirect { target: r, params, returns }, None)
        }
        Some(LocalOrGlobal::Local(LocalSymbol::Poisoned)) => return None,
        Some(_) => {
            scope.error(callee_op.span.clone(), format!("`{callee_name}` is not a function"));
            return None;
        }
        // OptiX's device API (`_rt_buffer_get_64`, `_rt_trace_64`, ...) is provided by the OptiX
        // runtime and never declared in the PTX it consumes: an external function.
        None if callee_name.starts_with("_rt_") => (ir::Callee::External(callee_name.clone()), None),
        None => {
            scope.error(callee_op.span.clone(), format!("call of undeclared function `{callee_name}`"));
            return None;
        }
    };
    if let Some((params, returns)) = &signature {
        for (what, want, got) in [("arguments", params.len(), args.len()), ("results", returns.len(), rets.len())] {
            if want != got {
                let span = if what == "results" && got > 0 { rets[0].span.start..rets[got - 1].span.end } else { inst.span.clone() };
                scope.error(span, format!("`{callee_name}` takes {want} {what}, but the call has {got}"));
                return None;
            }
        }
    }
    let param_ty =
        |i: usize, sig: &Option<(Vec<ScalarType>, Vec<ScalarType>)>, ret: bool| sig.as_ref().and_then(|(p, r)| if ret { r.get(i) } else { p.get(i) }).copied();
    let mut arg_ops = vec![];
    for (i, a) in args.iter().enumerate() {
        arg_ops.push(call_operand(scope, a, param_ty(i, &signature, false), false)?);
    }
    let mut ret_ops = vec![];
    for (i, r) in rets.iter().enumerate() {
        ret_ops.push(match r.node {
            A::Sink => None,
            _ => Some(call_operand(scope, r, param_ty(i, &signature, true), true)?),
        });
    }
    Some(Converted::Inst(ir::Inst { guard, op: Op::Call { callee, args: arg_ops, rets: ret_ops, uniform }, span: inst.span.clone() }))
}

/// An argument or result of a call: a `.param` variable of the caller (PTX 2.0+), or a
/// register / immediate (the register-passing convention of ISA 1.x).
fn call_operand(scope: &mut FnScope, op: &Spanned<A>, ty: Option<ScalarType>, is_result: bool) -> Option<ir::Operand> {
    if let A::Name { name, component } = &op.node {
        // A component of a vector register (`%v.x`) is a register of its own.
        let name = &match component {
            Some(c) => format!("{name}.{c}"),
            None => name.clone(),
        };
        match scope.lookup(name) {
            Some(LocalOrGlobal::Local(LocalSymbol::Var(v))) => {
                let space = scope.cx.out.vars[v.0 as usize].space;
                if space != ir::StateSpace::Param {
                    scope.error(op.span.clone(), format!("call arguments must be `.param` variables or registers; `{name}` is in `{}` space", space.name()));
                    return None;
                }
                return Some(ir::Operand::VarAddr(v, 0));
            }
            Some(LocalOrGlobal::Local(LocalSymbol::Reg(r))) => {
                let rt = scope.reg_type(r);
                // Registers passed to `.reg` parameters: same size, relaxed kinds.
                if let Some(t) = ty {
                    if t.bits() != rt.bits() && !(t.is_int() && rt.is_int()) {
                        scope.error(op.span.clone(), format!("`{name}` has type `{}`, but the parameter is `{}`", rt.name(), t.name()));
                        return None;
                    }
                }
                return Some(ir::Operand::Reg(r));
            }
            Some(LocalOrGlobal::Local(LocalSymbol::Param(i))) if !is_result => return Some(ir::Operand::ParamAddr(i, 0)),
            _ => {}
        }
    }
    if is_result {
        scope.error(op.span.clone(), "call results must be `.param` variables or registers");
        return None;
    }
    scope.src(op, ty.unwrap_or(ScalarType::B64), Width::Exact)
}

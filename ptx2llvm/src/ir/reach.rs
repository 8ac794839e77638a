//! Which functions a module's object must contain.
//!
//! The roots are what other code can reach without this module's help: kernels (the
//! runtime launches them), `.visible`/`.common` functions (other modules call them), the
//! functions whose address is taken (in an instruction or a variable's initializer) and
//! the targets of `.alias`es. Every function a root calls is live too. `.weak` functions
//! follow C++'s inline functions (what nvcc writes `.weak`: templates, `inline`): a module
//! that calls one defines it, so each module defines the ones it reaches, as weak
//! symbols, and leaves out the rest, like LLVM's `linkonce_odr`. Internal functions that
//! nothing reaches (after the inlining of synchronizing functions, most of them) are not
//! compiled at all: no code could ever run them.

use super::{Callee, FunctionKind, Linkage, Module, Op, Operand, RelocTarget};
use std::collections::BTreeSet;

/// Functions `f` names directly: direct callees and function addresses.
pub fn references(f: &super::Function) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for inst in f.blocks.iter().flat_map(|b| b.insts.iter()) {
        if let Op::Call { callee: Callee::Direct(c), .. } = &inst.op {
            out.insert(*c as usize);
        }
        super::visit::for_each_operand(&inst.op, &mut |o| {
            if let Operand::FuncAddr(i) = o {
                out.insert(*i as usize);
            }
        });
    }
    out
}

/// Functions whose address the module takes: in an instruction or in a variable's
/// initializer (function pointers must compare equal, and any indirect call may reach them).
pub fn address_taken(m: &Module) -> BTreeSet<usize> {
    let mut out = BTreeSet::new();
    for inst in m.functions.iter().flat_map(|f| f.blocks.iter().flat_map(|b| b.insts.iter())) {
        super::visit::for_each_operand(&inst.op, &mut |o| {
            if let Operand::FuncAddr(i) = o {
                out.insert(*i as usize);
            }
        });
    }
    for r in m.vars.iter().flat_map(|v| v.relocs.iter()) {
        if let RelocTarget::Function(i) = r.target {
            out.insert(i as usize);
        }
    }
    out
}

/// Per function: whether the object needs it (see the module documentation).
pub fn live_functions(m: &Module) -> Vec<bool> {
    let n = m.functions.len();
    let taken = address_taken(m);
    let mut live = vec![false; n];
    let mut stack: Vec<usize> = (0..n)
        .filter(|&i| {
            let f = &m.functions[i];
            f.kind == FunctionKind::Entry || f.linkage == Linkage::Public || taken.contains(&i)
        })
        .chain(m.aliases.iter().map(|&(_, target)| target as usize))
        .collect();
    while let Some(f) = stack.pop() {
        if f < n && !std::mem::replace(&mut live[f], true) {
            stack.extend(references(&m.functions[f]));
        }
    }
    live
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(src: &str) -> Module {
        let (m, diags) = crate::driver::analyze(src);
        assert!(!crate::driver::has_errors(&diags), "{diags:?}");
        m
    }

    fn live_names(m: &Module) -> Vec<&str> {
        let live = live_functions(m);
        m.functions.iter().zip(&live).filter(|(_, l)| **l).map(|(f, _)| f.name.as_str()).collect()
    }

    #[test]
    fn weak_and_internal_functions_live_only_where_reached() {
        let m = module(
            r#"
.version 7.0
.target sm_80
.address_size 64
.func (.param .b32 r) dead_internal(.param .b32 x) { ret; }
.func (.param .b32 r) used_internal(.param .b32 x) { ret; }
.weak .func (.param .b32 r) dead_weak(.param .b32 x)
{
    .param .b32 a; .param .b32 b;
    call (b), dead_internal, (a);
    ret;
}
.weak .func (.param .b32 r) used_weak(.param .b32 x)
{
    .param .b32 a; .param .b32 b;
    call (b), used_internal, (a);
    ret;
}
.visible .func exported() { ret; }
.func pointed() { ret; }
.global .u64 table[1] = { pointed };
.visible .entry k()
{
    .param .b32 a; .param .b32 b;
    call (b), used_weak, (a);
    ret;
}
"#,
        );
        assert_eq!(live_names(&m), ["used_internal", "used_weak", "exported", "pointed", "k"]);
    }
}

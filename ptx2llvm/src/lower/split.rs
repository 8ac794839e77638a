//! Codegen units: a module split into parts that are lowered, optimized and compiled to
//! objects independently (each on its own thread, in its own LLVM context), then merged
//! into one object (`driver::merge`). Like rustc's codegen units and LLVM's `SplitModule`.
//!
//! - A *kernel part* holds some kernels (their block functions) and some *single-definition*
//!   `.func`s. Every internal `.func` that its kernels and functions call, and that is not
//!   single-definition, is lowered again into the part as an internal copy: LLVM can inline
//!   it as it would in the whole module, and the copies of different parts never meet.
//! - Single-definition functions are defined in exactly one part and called by symbol from
//!   the others: functions visible outside the module (`.visible`, `.weak`: one symbol),
//!   functions whose address is taken (function pointers must compare equal), and
//!   functions no kernel reaches but the module exports. Functions the object does not
//!   need (`ir::reach`) are in no part.
//! - The *module part* holds the module's variables, texture handles, kernel descriptors
//!   and the registration constructor. It is lowered after the kernel parts, from what they
//!   report about their kernels (`KernelInfo`).
//!
//! Names that are internal to the module (internal variables and handles, internal
//! single-definition functions, block functions) cross parts as hidden global symbols
//! (`Plan::promoted`); the merge makes them local again, so the object defines exactly the
//! global symbols the whole-module compilation defines.
//!
//! The plan depends on the module alone (never on the number of threads), so the merged
//! object is the same whatever `-j` is.

use crate::ir::{self, reach, FunctionKind, Linkage, StateSpace};
use crate::lower::abi;
use std::collections::BTreeSet;

/// What a kernel part lowers.
#[derive(Debug, Clone, Default)]
pub struct Part {
    /// Kernels (indices in `Module::functions`), in module order.
    pub kernels: Vec<usize>,
    /// Single-definition functions defined here, in module order.
    pub funcs: Vec<usize>,
    /// Every `.func` whose body is lowered into this part: `funcs` and the internal copies.
    pub defines: BTreeSet<usize>,
    /// The estimated size of the part (IR instructions).
    pub cost: u64,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub parts: Vec<Part>,
    /// Per function: defined in one part only (see the module documentation).
    pub single: Vec<bool>,
}

/// A kernel as its part lowered it, for the module part's descriptor.
#[derive(Debug, Clone)]
pub struct KernelInfo {
    pub index: usize,
    /// The symbol of the function the descriptor points at (the block function, or the
    /// dispatcher between CPU versions).
    pub block_fn: String,
    pub context_bytes_per_thread: u32,
    pub fused_x: bool,
}

/// The default smallest part (IR instructions): smaller ones are not worth a thread and an
/// LLVM context of their own.
pub const MIN_PART_COST: u64 = 1500;

fn cost(f: &ir::Function) -> u64 {
    f.blocks.iter().map(|b| b.insts.len() as u64 + 1).sum()
}

/// Splits `m` into at most `max_parts` kernel parts of about `min_cost` IR instructions or
/// more each; `None` when it is one part (the whole module is then compiled as it is).
pub fn plan(m: &ir::Module, max_parts: usize, min_cost: u64) -> Option<Plan> {
    // Aliases must point at a definition in their own LLVM module: keep such modules whole.
    if max_parts <= 1 || !m.aliases.is_empty() {
        return None;
    }
    let n = m.functions.len();
    let refs: Vec<BTreeSet<usize>> = m.functions.iter().map(reach::references).collect();
    let address_taken = reach::address_taken(m);
    let live = reach::live_functions(m);
    let is_body_func = |i: usize| m.functions[i].kind == FunctionKind::Func && m.functions[i].has_body && live[i];
    // Functions reached from kernels through direct references.
    let mut from_kernels = vec![false; n];
    let mut stack: Vec<usize> = (0..n).filter(|&i| m.functions[i].kind == FunctionKind::Entry).flat_map(|i| refs[i].iter().copied()).collect();
    while let Some(f) = stack.pop() {
        if f < n && !std::mem::replace(&mut from_kernels[f], true) {
            stack.extend(refs[f].iter().copied());
        }
    }
    let single: Vec<bool> =
        (0..n).map(|i| is_body_func(i) && (m.functions[i].linkage != Linkage::Internal || address_taken.contains(&i) || !from_kernels[i])).collect();
    // The internal copies a set of roots needs.
    let copies = |roots: &[usize]| -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<usize> = roots.iter().flat_map(|&r| refs[r].iter().copied()).collect();
        while let Some(f) = stack.pop() {
            if f < n && is_body_func(f) && !single[f] && seen.insert(f) {
                stack.extend(refs[f].iter().copied());
            }
        }
        seen
    };
    // Work items: each kernel (with its copies), each single-definition function.
    let mut items: Vec<(u64, usize)> = vec![];
    for (i, f) in m.functions.iter().enumerate() {
        if (f.kind == FunctionKind::Entry && f.has_body) || single[i] {
            let c = cost(f) + copies(&[i]).iter().map(|&c| cost(&m.functions[c])).sum::<u64>();
            items.push((c, i));
        }
    }
    let total: u64 = items.iter().map(|(c, _)| c).sum();
    let count = max_parts.min(items.len()).min((total / min_cost.max(1)) as usize);
    if count <= 1 {
        return None;
    }
    // Longest first, each to the lightest part (ties: the lower index): deterministic.
    items.sort_by_key(|&(c, i)| (std::cmp::Reverse(c), i));
    let mut parts: Vec<Part> = vec![Part::default(); count];
    for (c, i) in items {
        let p = (0..count).min_by_key(|&p| (parts[p].cost, p)).unwrap_or(0);
        parts[p].cost += c;
        if m.functions[i].kind == FunctionKind::Entry {
            parts[p].kernels.push(i);
        } else {
            parts[p].funcs.push(i);
        }
    }
    for p in &mut parts {
        p.kernels.sort_unstable();
        p.funcs.sort_unstable();
        let roots: Vec<usize> = p.kernels.iter().chain(&p.funcs).copied().collect();
        p.defines = copies(&roots);
        p.defines.extend(p.funcs.iter().copied());
    }
    // A part that only got copies of nothing would be empty; the packing never leaves one.
    parts.retain(|p| !p.kernels.is_empty() || !p.funcs.is_empty());
    Some(Plan { parts, single })
}

impl Plan {
    /// The symbols that are internal in the whole module and global (hidden) between
    /// parts: the merge makes them local.
    pub fn promoted(&self, m: &ir::Module, kernels: &[KernelInfo]) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = kernels.iter().map(|k| k.block_fn.clone()).collect();
        for (i, f) in m.functions.iter().enumerate() {
            if self.single[i] && f.linkage == Linkage::Internal {
                out.insert(abi::ptx_symbol(&f.name));
            }
        }
        for v in &m.vars {
            if matches!(v.space, StateSpace::Global | StateSpace::Const) && v.linkage == Linkage::Internal {
                out.insert(crate::lower::global_symbol(v));
            }
        }
        for h in &m.handles {
            if h.linkage == Linkage::Internal {
                out.insert(abi::ptx_symbol(&h.name));
            }
        }
        out
    }
}

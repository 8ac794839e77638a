//! Several versions of each block function, for CPUs with more features than the object's
//! baseline, chosen each time a block runs (`--cpu x86-64,x86-64-v3,x86-64-v4`; ISPC's
//! multi-target idea).
//!
//! The module is made for the first (lowest) CPU. Every other CPU of the list gets its own
//! copy of each block function, lowered again and marked `"target-cpu"` so that LLVM
//! optimizes and generates code for it (AVX2 or AVX-512 thread loops); the functions they
//! call (`.func`s, helpers) keep the baseline, which LLVM inlines into them freely. The
//! kernel's descriptor points at a small dispatcher that asks ptxrt for the CPU's level
//! (`__ptxrt_cpu_level`: the x86-64 psABI level, 1 to 4, computed once) and calls the best
//! version the CPU can run. The object stays portable: on an older CPU the baseline runs.

use crate::lower::exec::kernel::LoweredKernel;
use crate::lower::{CpuVariant, ModuleLowerer, R};
use inkwell::attributes::AttributeLoc;
use inkwell::module::Linkage;
use inkwell::IntPredicate;

/// `base` itself without variants; else the kernel with a version per variant
/// (`lower(suffix)` lowers the block function again under a name with that suffix) behind
/// a dispatcher.
pub fn with_variants<'ctx>(
    ml: &ModuleLowerer<'ctx, '_>,
    base: LoweredKernel<'ctx>,
    variants: &[CpuVariant],
    lower: impl Fn(&str) -> R<LoweredKernel<'ctx>>,
) -> R<LoweredKernel<'ctx>> {
    if variants.is_empty() {
        return Ok(base);
    }
    let cx = ml.cx;
    let mut versions = vec![];
    for v in variants {
        let k = lower(&format!(".{}", v.cpu))?;
        k.block_fn.add_attribute(AttributeLoc::Function, cx.create_string_attribute("target-cpu", &v.cpu));
        k.block_fn.add_attribute(AttributeLoc::Function, cx.create_string_attribute("tune-cpu", &v.cpu));
        versions.push((v.level, k.block_fn));
    }
    versions.sort_by_key(|(level, _)| std::cmp::Reverse(*level));
    let name = base.block_fn.get_name().to_string_lossy().into_owned();
    let fn_ty = base.block_fn.get_type();
    let dispatcher = ml.module.add_function(&format!("{name}.dispatch"), fn_ty, Some(Linkage::Internal));
    let i32t = cx.i32_type();
    let level_fn = ml
        .module
        .get_function("__ptxrt_cpu_level")
        .unwrap_or_else(|| ml.module.add_function("__ptxrt_cpu_level", i32t.fn_type(&[], false), Some(Linkage::External)));
    let b = cx.create_builder();
    let entry = cx.append_basic_block(dispatcher, "entry");
    b.position_at_end(entry);
    let level = b
        .build_call(level_fn, &[], "level")?
        .try_as_basic_value()
        .basic()
        .ok_or_else(|| crate::lower::LowerError::Internal("__ptxrt_cpu_level returns a value".into()))?
        .into_int_value();
    let env = dispatcher.get_nth_param(0).ok_or_else(|| crate::lower::LowerError::Internal("a block function takes its environment".into()))?;
    for (lvl, f) in versions.into_iter().chain(std::iter::once((0, base.block_fn))) {
        let run = cx.append_basic_block(dispatcher, "run");
        let next = cx.append_basic_block(dispatcher, "next");
        let ok = b.build_int_compare(IntPredicate::UGE, level, i32t.const_int(lvl as u64, false), "")?;
        b.build_conditional_branch(ok, run, next)?;
        b.position_at_end(run);
        let status = b
            .build_call(f, &[env.into()], "status")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| crate::lower::LowerError::Internal("a block function returns its status".into()))?;
        b.build_return(Some(&status))?;
        b.position_at_end(next);
    }
    b.build_unreachable()?;
    Ok(LoweredKernel { block_fn: dispatcher, ..base })
}

/// The x86-64 psABI levels, lowest first: the CPU names `--cpu` lists accept.
pub const X86_64_LEVELS: [&str; 4] = ["x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"];

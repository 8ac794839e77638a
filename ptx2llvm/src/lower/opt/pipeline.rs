//! Which LLVM pipeline optimizes which function.
//!
//! LLVM's `default<O2>` pipeline is superlinear in a function's size where the function is a
//! deep loop nest: a block function with many regions puts every loop of the kernel at depth
//! five to eight (regions, z, y, x, then the kernel's own loops), and full unrolling,
//! induction-variable simplification and the SLP vectorizer spend seconds on each such
//! function (a 40k-instruction block function: 4.2 s of `opt`, and 2.6 s of code generation
//! after it). Those functions gain little from the loop passes: their thread loops hold
//! the whole kernel and never vectorize, and the PTX producer has already unrolled what
//! its `#pragma unroll` asked for. So at -O1 and -O2, functions above `LARGE_FUNCTION`
//! instructions (`--large-function`) get a scalar pipeline (redundancy elimination, dead
//! stores, instruction combining, CFG cleanup) and the rest the full one; -O3 gives every
//! function the full one.

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::TargetMachine;
use inkwell::values::FunctionValue;
use std::collections::HashMap;

/// Instructions above which -O1 and -O2 use `SCALAR_PIPELINE` by default
/// (`--large-function`): the block functions of kernels with a few dozen barriers in inlined
/// functions, above any kernel whose thread loops vectorize (the runtime benchmark's
/// softmax: about 8,300). Below it, the block functions `mark_scalar` marks get it too.
pub const LARGE_FUNCTION: usize = 12_000;

/// The pipeline for large functions: no loop passes, no vectorizers, no inlining.
const SCALAR_PIPELINE: &str = "function(early-cse<memssa>,instcombine<no-verify-fixpoint>,simplifycfg,gvn,dse,instcombine<no-verify-fixpoint>,simplifycfg)";

/// Runs the optimization pipeline of `level` (1 to 3) over `module`; below -O3, functions
/// of more than `limit` instructions get the scalar one. Returns their names.
pub fn optimize(module: &Module<'_>, tm: &TargetMachine, level: u8, limit: usize) -> Result<Vec<Vec<u8>>, String> {
    set_vectorizer_options();
    let full = format!("default<O{}>", level.min(3));
    let large: Vec<FunctionValue<'_>> = if level >= 3 {
        vec![]
    } else {
        module.get_functions().filter(|f| instruction_count(*f) > limit || f.get_string_attribute(AttributeLoc::Function, SCALAR_ATTRIBUTE).is_some()).collect()
    };
    if large.is_empty() {
        return run(module, tm, &full).map(|()| vec![]);
    }
    // One pipeline runs over a whole module; `optnone` hides a function from it (LLVM
    // requires `noinline` beside it). First the full pipeline over the others, then the
    // scalar one over the large ones. Functions are named, not held, across a pipeline:
    // the full one may delete some (inlined, dead).
    let cx = module.get_context();
    let optnone = Attribute::get_named_enum_kind_id("optnone");
    let noinline = Attribute::get_named_enum_kind_id("noinline");
    let name = |f: &FunctionValue<'_>| f.get_name().to_bytes().to_vec();
    let large: Vec<Vec<u8>> = large.iter().map(name).collect();
    // (name, large, had `noinline` already) of every defined function.
    let defined: Vec<(Vec<u8>, bool, bool)> = module
        .get_functions()
        .filter(|f| f.count_basic_blocks() > 0)
        .map(|f| {
            let n = name(&f);
            let is_large = large.contains(&n);
            (n, is_large, f.get_enum_attribute(AttributeLoc::Function, noinline).is_some())
        })
        .collect();
    // The module's defined functions by name, as they are now.
    let current = || -> HashMap<Vec<u8>, FunctionValue<'_>> { module.get_functions().filter(|f| f.count_basic_blocks() > 0).map(|f| (name(&f), f)).collect() };
    let hide = |f: FunctionValue<'_>| {
        f.add_attribute(AttributeLoc::Function, cx.create_enum_attribute(optnone, 0));
        f.add_attribute(AttributeLoc::Function, cx.create_enum_attribute(noinline, 0));
    };
    let show = |f: FunctionValue<'_>, was_noinline: bool| {
        f.remove_enum_attribute(AttributeLoc::Function, optnone);
        if !was_noinline {
            f.remove_enum_attribute(AttributeLoc::Function, noinline);
        }
    };
    let functions = current();
    for (n, _, _) in defined.iter().filter(|d| d.1) {
        if let Some(f) = functions.get(n) {
            hide(*f);
        }
    }
    run(module, tm, &full)?;
    let functions = current();
    for (n, is_large, was_noinline) in &defined {
        match (functions.get(n), is_large) {
            (Some(f), true) => show(*f, *was_noinline),
            (Some(f), false) => hide(*f),
            (None, _) => {}
        }
    }
    let scalar = run(module, tm, SCALAR_PIPELINE);
    let functions = current();
    for (n, _, was_noinline) in defined.iter().filter(|d| !d.1) {
        if let Some(f) = functions.get(n) {
            show(*f, *was_noinline);
        }
    }
    scalar.map(|()| large)
}

/// Three of LLVM's loop-vectorizer options, set for the process, once (per-loop metadata
/// would make LLVM warn about every loop it cannot distribute, and has no form for the
/// second):
///
/// - Loop distribution (off by default) splits a loop whose unsafe memory dependences keep
///   the rest of it from vectorizing into a loop of those and a vectorized loop of the rest.
///   An interchanged pass of a shared-memory histogram is such a loop: its data loads and
///   increments at data-dependent bins stay scalar, while each thread's next index, its
///   test against the bound, the count of threads still in the loop and the wait words
///   vectorize (the runtime bench's `histogram`: 27 -> 12 ms at one worker).
/// - Maximized bandwidth: the vectorizer weighs vectorization factors up to the register
///   width over the loop's *narrowest* type, not its widest. A thread loop's values are
///   mostly 32-bit, but its addresses are 64-bit (a per-thread pointer, an index widened
///   for an address): by the widest type, LLVM stops at 4 lanes on targets that prefer
///   256-bit vectors (Intel's server CPUs), where the same loop in C gets 8. The cost model
///   still picks the factor. Measured on such a CPU, at one worker: softmax 2.10 -> 1.05x
///   native, pathfinder 1.34 -> 1.02x, hotspot 1.39 -> 1.05x, transpose 0.92 -> 0.72x, the
///   others unchanged.
/// - Vectorized epilogues from a main factor of 4 up (LLVM's default: 16). A thread loop's
///   trip count is often the block's width less a few threads (the segments between the
///   wrap points of `(t + 1) & (n - 1)`, the threads a guard leaves): 254 threads at 8
///   lanes, interleaved twice, left 14 scalar iterations, as slow as the 15 vector ones
///   (measured, one worker: barrier_loop 1.47 -> 1.25x native, block_sum 1.37 -> 1.27x,
///   scan 1.43 -> 1.37x; stencil 1.07 -> 1.11x).
fn set_vectorizer_options() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let args = [
            c"ptx2llvm".as_ptr(),
            c"-enable-loop-distribute".as_ptr(),
            c"-vectorizer-maximize-bandwidth".as_ptr(),
            c"-epilogue-vectorization-minimum-VF=4".as_ptr(),
        ];
        // SAFETY: valid C strings for options LLVM 19 defines (LoopDistribute.cpp,
        // LoopVectorize.cpp); `Once` keeps other threads from running passes while they
        // are set.
        unsafe { inkwell::llvm_sys::support::LLVMParseCommandLineOptions(args.len() as i32, args.as_ptr(), std::ptr::null()) }
    });
}

fn run(module: &Module<'_>, tm: &TargetMachine, passes: &str) -> Result<(), String> {
    module.run_passes(passes, tm, PassBuilderOptions::create()).map_err(|e| e.to_string())
}

/// The string attribute of functions that get the scalar pipeline at -O1 and -O2 whatever
/// their size.
const SCALAR_ATTRIBUTE: &str = "ptx2llvm.scalar-pipeline";

/// Gives `f` the scalar pipeline at -O1 and -O2: a block function whose one thread loop runs
/// every region of a large kernel behind a switch (`exec::kernel`). Its registers in frame
/// homes (`kernel::frame_homes`) took a deal.II kernel's block function from 16,000 to 10,000
/// instructions, under `LARGE_FUNCTION`, where the full pipeline cost it 50% more time and
/// had nothing to vectorize.
pub fn mark_scalar(cx: &inkwell::context::Context, f: FunctionValue<'_>) {
    f.add_attribute(AttributeLoc::Function, cx.create_string_attribute(SCALAR_ATTRIBUTE, ""));
}

/// The size `optimize` compares with its limit: `f`'s instructions after SSA construction.
fn instruction_count(f: FunctionValue<'_>) -> usize {
    f.get_basic_block_iter().map(|bb| bb.get_instructions().count()).sum()
}

/// An estimate of `instruction_count` for a function not yet in SSA form (just lowered):
/// its instructions less the `alloca`s and the loads and stores straight through them, which
/// SSA construction removes for registers. High by what instruction combining removes too.
pub fn size_after_ssa(f: FunctionValue<'_>) -> usize {
    use inkwell::values::{BasicValue, InstructionOpcode as Op, InstructionValue};
    let through_alloca = |i: &InstructionValue<'_>, k: u32| {
        i.get_operand(k).and_then(|o| o.value()).and_then(|v| v.as_instruction_value()).is_some_and(|p| p.get_opcode() == Op::Alloca)
    };
    f.get_basic_block_iter()
        .flat_map(|bb| bb.get_instructions())
        .filter(|i| match i.get_opcode() {
            Op::Alloca => false,
            Op::Load => !through_alloca(i, 0),
            Op::Store => !through_alloca(i, 1),
            _ => true,
        })
        .count()
}

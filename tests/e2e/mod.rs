//! Fixture kernels translated, linked with their C host program and run.
//!
//! Each host (tests/hosts/<name>_host.c) launches its kernels over several grid and
//! block shapes, compares with a host reference and prints `<kernel>: N shapes OK`.
//! Every fixture is translated at the default -O2 and at -O0, and the -O2 program also
//! runs with 1 and 3 runtime worker threads (PTXRT_NUM_THREADS). The -O2 programs are
//! linked with the C compiler's default linker (GNU ld), the -O0 ones with LLD, so that
//! every kernel registers with both.

mod debug;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use crate::support::{self, WorkDir};

/// How long one run of a host program may take before it counts as hung.
const RUN_LIMIT: Duration = Duration::from_secs(300);

struct Fixture {
    /// tests/kernels/<ptx>
    ptx: &'static str,
    /// tests/hosts/<host>
    host: &'static str,
    /// Lines the host prints on success.
    ok_lines: &'static [&'static str],
}

/// (label, ptx2llvm options, PTXRT_NUM_THREADS); labels that share the part before `-`
/// share one build.
type Config = (&'static str, &'static [&'static str], Option<&'static str>);

fn run_fixture(fx: &Fixture) {
    run_fixture_with(fx, &[("O2", &[], None), ("O2-1worker", &[], Some("1")), ("O2-3workers", &[], Some("3")), ("O0", &["-O0"], None)]);
}

fn run_fixture_with(fx: &Fixture, configs: &[Config]) {
    let work = WorkDir::new(fx.host.trim_end_matches(".c"));
    let ptx = support::root_path("tests/kernels").join(fx.ptx);
    let host = support::root_path("tests/hosts").join(fx.host);

    let mut built: Vec<(&str, PathBuf)> = Vec::new();
    for &(label, opts, threads) in configs {
        let opt_label = label.split('-').next().unwrap_or(label);
        let exe = match built.iter().find(|(l, _)| *l == opt_label) {
            Some((_, exe)) => exe.clone(),
            None => {
                let obj = work.join(&format!("kernel-{opt_label}.o"));
                support::compile_ptx(&ptx, &obj, opts, work.path());
                let exe = work.join(&format!("host-{opt_label}"));
                let linker = if opt_label.starts_with("O0") { support::Linker::Lld } else { support::Linker::Default };
                support::link_host_with(&host, &[obj], &exe, work.path(), linker);
                built.push((opt_label, exe.clone()));
                exe
            }
        };

        let mut cmd = Command::new(&exe);
        match threads {
            Some(n) => cmd.env("PTXRT_NUM_THREADS", n),
            None => cmd.env_remove("PTXRT_NUM_THREADS"),
        };
        let out = support::run_with_timeout(&mut cmd, work.path(), &format!("run-{label}"), RUN_LIMIT);
        if !out.success() {
            panic!("{} ({label}) failed: the kernel's results are wrong or the program crashed\n{}", fx.host, out.describe(&cmd));
        }
        for line in fx.ok_lines {
            assert!(out.stdout.lines().any(|l| l.trim() == *line), "{} ({label}) exited 0 but did not print {line:?}\n{}", fx.host, out.describe(&cmd));
        }
    }
}

/// NVRTC output: c[i] = a[i] + b[i] (bit-exact), 4 shapes up to 3907 blocks.
const VECADD: Fixture = Fixture { ptx: "vecadd.ptx", host: "vecadd_host.c", ok_lines: &["vecadd: 4 shapes OK"] };

#[test]
fn vecadd() {
    run_fixture(&VECADD);
}

/// NVRTC output: shared-memory tree reductions with a barrier inside a loop, float
/// (bounded error) and u32 (exact), blocks of 32, 96, 256 and 1024 threads.
const REDUCE: Fixture = Fixture { ptx: "reduce.ptx", host: "reduce_host.c", ok_lines: &["reduce_sum: 5 shapes OK", "reduce_sum_u32: 5 shapes OK"] };

#[test]
fn reduce() {
    run_fixture(&REDUCE);
}

/// PTX ISA 1.4 in the style of the old nvopencc compiler (16-bit special registers,
/// `$` labels, `.loc`, `exit`): saxpy with a float scalar parameter.
const SAXPY_NVOPENCC: Fixture = Fixture { ptx: "vecadd_nvopencc.ptx", host: "saxpy_nvopencc_host.c", ok_lines: &["saxpy_nvopencc: 4 shapes OK"] };

#[test]
fn saxpy_nvopencc() {
    run_fixture(&SAXPY_NVOPENCC);
}

/// Hand-written PTX: threads that exit before a `bar.sync` do not block it (block sizes
/// 1024 and not multiples of 32), and a barrier that can never complete (two groups at
/// different `bar.sync` instructions) ends the launch with an error instead of hanging.
const BARRIER_EXIT: Fixture = Fixture {
    ptx: "barrier_exit.ptx",
    host: "barrier_exit_host.c",
    ok_lines: &["early_exit: 6 shapes OK", "diverge: launch failure reported, next launch OK"],
};

#[test]
fn barrier_exit() {
    run_fixture(&BARRIER_EXIT);
}

/// NVRTC output (and inline-PTX `red`): global atomics from many blocks on several cores
/// (histogram, min/max/and/or/xor/inc/dec/add on s32/u32/u64/f32/f64, the flush of
/// subnormals by `atom.add.f32` on global memory, a spin lock from `atom.cas`/`atom.exch`
/// and `membar.gl`), and shared-memory atomics inside a block.
const ATOMICS: Fixture = Fixture {
    ptx: "atomics.ptx",
    host: "atomics_host.c",
    ok_lines: &["histogram: 4 shapes OK", "mixed: 4 shapes OK", "locked_sum: 3 shapes OK", "shared_cas: 4 shapes OK", "reductions: 3 shapes OK"],
};

#[test]
fn atomics() {
    run_fixture(&ATOMICS);
}

/// NVRTC output: barrier-free 2D kernels run as runs of blocks fused along x (a 5-point
/// stencil with an interior guard; a 2D/3D-grid tagging kernel), over grid shapes whose rows
/// the runtime splits between workers.
const STENCIL: Fixture = Fixture { ptx: "stencil.ptx", host: "stencil_host.c", ok_lines: &["stencil: 25 shapes OK"] };

#[test]
fn stencil() {
    run_fixture(&STENCIL);
}

/// NVRTC output: kernels with more than 12 sync points (an unrolled block scan with 21
/// barriers and early-exit threads; rounds of warp shuffles and barriers), which run as one
/// thread loop for all regions. With a low `--large-function`, `rounds` (57 regions) is
/// lowered in the one-loop form, found too large for the full pipeline, and lowered again in
/// the compact form (`exec::kernel::lower_entry`), at -O2 and at -O0.
const MANY_REGIONS: Fixture = Fixture { ptx: "many_regions.ptx", host: "many_regions_host.c", ok_lines: &["many_regions: 5 shapes OK"] };

#[test]
fn many_regions() {
    run_fixture_with(
        &MANY_REGIONS,
        &[("O2", &[], None), ("O2compact", &["--large-function", "2000"], None), ("O0compact", &["-O0", "--large-function", "2000"], None)],
    );
}

/// NVRTC output: grid-stride loops whose trip counts differ between threads (zero for some;
/// 32- and 64-bit inductions, 2D blocks, an early return inside the loop, loops before and
/// after barriers, blocks fused along x with a per-thread value), which block functions run
/// one iteration of every thread at a time.
const INTERCHANGE: Fixture = Fixture { ptx: "interchange.ptx", host: "interchange_host.c", ok_lines: &["interchange: 33 shapes OK"] };

#[test]
fn interchange() {
    run_fixture(&INTERCHANGE);
}

/// Hand-written PTX: column sums read one row per iteration of a loop through a barrier,
/// rows far apart (the block function prefetches rows ahead: `prefetch::StepAhead`) and
/// close together, one to many iterations.
const STEP_AHEAD: Fixture = Fixture { ptx: "step_ahead.ptx", host: "step_ahead_host.c", ok_lines: &["step_ahead: 6 shapes OK"] };

#[test]
fn step_ahead() {
    run_fixture(&STEP_AHEAD);
}

/// Hand-written PTX: `.f32` <-> `.f64` conversions (one, a round trip LLVM folds away, a
/// round trip around an `.f64` addition) on NaNs of every kind and payload: the CPU's own
/// conversions with the result quieted again give the silicon's NaNs.
const CVT_NAN: Fixture = Fixture { ptx: "cvt_nan.ptx", host: "cvt_nan_host.c", ok_lines: &["cvt_nan: 2 shapes OK"] };

#[test]
fn cvt_nan() {
    run_fixture(&CVT_NAN);
}

/// Hand-written PTX: directed-rounding `fma.f32` with a saturated factor and constants
/// that keep the result in one binade (CUDA's expf), lowered as an integer rounding, gives
/// the general directed rounding's bits (the same operations on parameters).
const FMA_IN_BINADE: Fixture = Fixture { ptx: "fma_in_binade.ptx", host: "fma_in_binade_host.c", ok_lines: &["fma_in_binade: 1 shapes OK"] };

#[test]
fn fma_in_binade() {
    run_fixture_with(&FMA_IN_BINADE, &[("O2", &[], None), ("O3native", &["-O3", "--cpu", "native"], None), ("O0", &["-O0"], None)]);
}

/// Hand-written PTX: chains of `.f64` arithmetic on NaNs, infinities and ordinary values
/// (ends stored, narrowed and compared; an intermediate both stored and used further; a
/// loop-carried chain; a widened `.f32` operand), each link's NaN rule modelled: the rule
/// on a branch taken when a chain's plain result is NaN (`opt::nan_branches`) gives the
/// same bits.
const NAN_CHAINS: Fixture = Fixture { ptx: "nan_chains.ptx", host: "nan_chains_host.c", ok_lines: &["nan_chains: 1 shapes OK"] };

#[test]
fn nan_chains() {
    run_fixture_with(&NAN_CHAINS, &[("O2", &[], None), ("O3native", &["-O3", "--cpu", "native"], None), ("O0", &["-O0"], None)]);
}

/// Hand-written PTX: grid-stride loops whose 32-bit induction crosses 2^31 inside a pass, at
/// a block boundary, after some passes, or never (1D and 2D blocks, blocks fused along x),
/// addressed through its sign extension: a dense pass adds the thread index without wrap
/// only where a check per pass allows it (`interchange::pass_without_wrap`).
const STRIDE_WRAP: Fixture = Fixture { ptx: "stride_wrap.ptx", host: "stride_wrap_host.c", ok_lines: &["stride_wrap: 12 shapes OK"] };

#[test]
fn stride_wrap() {
    run_fixture(&STRIDE_WRAP);
}

/// Hand-written PTX: entry guards turned into thread-loop bounds (signed, unsigned, both
/// operand orders, `!p` and De Morgan, 3D, a uniform exit, a non-affine condition), with
/// indices that wrap inside a block (where the plain loop must be used instead).
const GUARDS: Fixture = Fixture { ptx: "guards.ptx", host: "guards_host.c", ok_lines: &["guards: 305 cases OK"] };

#[test]
fn guards() {
    run_fixture(&GUARDS);
}

/// NVRTC output: regions after a barrier that start with a guard on the thread index
/// (`tx <= m` on anti-diagonals, a band narrowing each step whose upper side is `u - tid`,
/// 2D `ty > i`, `tx + shift` that wraps near INT_MAX, a band after a loop's latch and header
/// with a per-thread flag reset before it, 32 unrolled barriers), run over the threads that
/// pass.
const REGION_GUARDS: Fixture = Fixture { ptx: "region_guards.ptx", host: "region_guards_host.c", ok_lines: &["region_guards: 38 shapes OK"] };

#[test]
fn region_guards() {
    run_fixture(&REGION_GUARDS);
}

/// NVRTC output: regions that read a neighbour in a ring of threads at a wrapped index,
/// `(t + c) & m` or `(t + c) % n` (a smoothing ring over rotated buffers in 1D and 2D
/// blocks, masks and moduli from parameters: not low masks, zero and negative moduli,
/// operands that are negative, cross 2^31 or wrap past 2^32), run in segments where the
/// index is affine.
const RING_INDICES: Fixture = Fixture {
    ptx: "ring_indices.ptx",
    host: "ring_indices_host.c",
    ok_lines: &[
        "ring_smooth: 5 shapes OK",
        "ring_params: 7 shapes OK",
        "ring_rotate: 4 shapes OK",
        "ring_urem: 4 shapes OK",
        "ring_srem: 6 shapes OK",
        "ring_tiles: 6 shapes OK",
        "ring_shift_div: 8 shapes OK",
        "ring_sshift: 8 shapes OK",
        "ring_global: 5 shapes OK",
        "ring_pitched: 4 shapes OK",
    ],
};

#[test]
fn ring_indices() {
    run_fixture(&RING_INDICES);
}

/// Hand-written PTX: a region guard whose skipping threads pass through a uniform pointer
/// step before the barrier (narrowed, `Narrowing::tail`), with steps that no thread passes
/// (the ordinary loop runs them, stepping the pointer).
const GUARD_TAIL: Fixture = Fixture { ptx: "guard_tail.ptx", host: "guard_tail_host.c", ok_lines: &["guard_tail: 7 shapes OK"] };

#[test]
fn guard_tail() {
    run_fixture(&GUARD_TAIL);
}

/// Hand-written PTX: loops whose regions every thread ends at the same sync point, at points
/// the scheduler completes (a barrier reduction, a barrier with a thread count) between
/// plain barriers: the dense runs write thread 0's state word only, and every thread's is
/// set from it before the scheduler decides (`kernel::States::Converged`).
const CONVERGED_STATES: Fixture = Fixture { ptx: "converged_states.ptx", host: "converged_states_host.c", ok_lines: &["converged_states: 11 shapes OK"] };

#[test]
fn converged_states() {
    run_fixture(&CONVERGED_STATES);
}

/// NVRTC-compiled kernels whose vectorized thread loops gather and scatter through
/// per-thread pointers read back from the context area (consecutive, permuted, reversed,
/// shifted) and access one address from a whole vector of threads (the last lane's store
/// of a warp total, several threads storing to one element): `lower/opt/gather_scatter.rs`
/// on x86-64-v4 (`multi_version_objects`), the plain vector forms elsewhere.
const GATHERS: Fixture = Fixture { ptx: "gathers.ptx", host: "gathers_host.c", ok_lines: &["gathers: 34 shapes OK"] };

#[test]
fn gathers() {
    run_fixture(&GATHERS);
}

/// Hand-written PTX: atomics on `.f16/.bf16` (and packed x2) with `.noftz` (rounding, ties,
/// overflow, subnormals), vector atomics (`.v4.f32` add, `.v8.f16` max, `.v8.bf16` min),
/// 16-bit and 128-bit compare-and-swap and 128-bit exchange, across blocks on several cores.
const ATOMICS_WIDE: Fixture = Fixture { ptx: "atomics_wide.ptx", host: "atomics_wide_host.c", ok_lines: &["atomics_wide: 5 shapes OK"] };

#[test]
fn atomics_wide() {
    run_fixture(&ATOMICS_WIDE);
}

/// NVRTC output with real calls (`__noinline__`): `.param` arguments and results, a struct
/// passed and returned by value, recursion (`fib`, a recursive function with a local array),
/// and indirect calls through function pointers stored in a `.global` initializer; and a
/// `__noinline__` device function with barriers and shuffles (inlined by ptx2llvm).
const CALLS: Fixture = Fixture { ptx: "calls.ptx", host: "calls_host.c", ok_lines: &["calls: 4 shapes OK", "sync_calls: 3 shapes OK"] };

#[test]
fn calls() {
    run_fixture(&CALLS);
}

/// Hand-written PTX: a function with barriers (inlined for them) reads its `.param`
/// arguments and writes its result on both sides of its barriers, each thread with its own
/// values, once and in a loop: each thread's call variables are its own.
const PARAM_BARRIER: Fixture =
    Fixture { ptx: "param_barrier.ptx", host: "param_barrier_host.c", ok_lines: &["param_after_barrier: 5 shapes OK", "param_loop: 4 shapes OK"] };

#[test]
fn param_barrier() {
    run_fixture(&PARAM_BARRIER);
}

/// NVRTC output: barriers and warp collectives reached through recursion and through a
/// function-pointer table (the fiber scheduler): a recursive tree reduction with exited
/// threads, shuffles and ballots at a different recursion depth per warp, block max / warp
/// sum / block scan called indirectly.
const FIBERS: Fixture =
    Fixture { ptx: "fibers.ptx", host: "fibers_host.c", ok_lines: &["recursive_tree: 5 shapes OK", "recursive_warps: 4 shapes OK", "dispatch: 4 shapes OK"] };

#[test]
fn fibers() {
    run_fixture(&FIBERS);
}

/// NVRTC output: warps of a block spin on global flags set by other warps of the block
/// (volatile loads, `ld.acquire`, atomic polling): each poll lets the other warps run.
const SPIN_WAIT: Fixture = Fixture {
    ptx: "spin_wait.ptx",
    host: "spin_wait_host.c",
    ok_lines: &["spin_volatile: 4 shapes OK", "spin_acquire: 4 shapes OK", "spin_atomic: 4 shapes OK", "spin_call: 4 shapes OK"],
};

#[test]
fn spin_wait() {
    run_fixture(&SPIN_WAIT);
}

/// Hand-written PTX 7.3: `alloca` (64- and 32-bit local addresses, alignment), stack
/// arrays kept across a barrier and read through generic addresses, `alloca` in a
/// recursive function, `stacksave`/`stackrestore` freeing 1 KiB per iteration 2000 times.
const STACK: Fixture = Fixture { ptx: "stack.ptx", host: "stack_host.c", ok_lines: &["stack_kernel: 5 shapes OK", "stack_loop: 5 shapes OK"] };

#[test]
fn stack() {
    run_fixture(&STACK);
}

/// Hand-written PTX: recursion whose depth is a kernel parameter, in region code (on the
/// worker's block stack) and in a fiber kernel (alloca in the recursive function). A thread
/// that recurses far too deep fails the launch with a stack-overflow message naming the
/// kernel and block (and the thread, for fibers); launches before and after it work. With
/// malloc/free at every level, the overflow is caught before a library call (which could
/// otherwise be left holding a lock).
const STACK_OVERFLOW: Fixture = Fixture {
    ptx: "stack_overflow.ptx",
    host: "stack_overflow_host.c",
    ok_lines: &["deep_region: 3 shapes OK", "deep_fiber: 3 shapes OK", "deep_malloc: 3 shapes OK"],
};

#[test]
fn stack_overflow() {
    run_fixture(&STACK_OVERFLOW);
}

/// NVRTC output: `trap` two calls deep ends the launch with a launch failure naming the
/// kernel, block and function; the launches before and after it work.
const TRAP: Fixture = Fixture { ptx: "trap.ptx", host: "trap_host.c", ok_lines: &["trap: 3 shapes OK"] };

#[test]
fn trap() {
    run_fixture(&TRAP);
}

/// Hand-written: a null store, a wild load and a wild load after a barrier each end their
/// launch with `ptxrtErrorIllegalAddress` naming kernel, block and address (the runtime's
/// fault handler, `ptxrt/src/stacks.rs`); the process survives and the next launch works.
const FAULTS: Fixture = Fixture { ptx: "faults.ptx", host: "faults_host.c", ok_lines: &["faults: 14 shapes OK"] };

#[test]
fn faults() {
    run_fixture(&FAULTS);
}

/// NVRTC output: device `printf` (C's formatting, on the host's stdout), `malloc`/`free`,
/// and a failed `assert` ending the launch with CUDA's message.
const DEVICE_LIB: Fixture = Fixture {
    ptx: "device_lib.ptx",
    host: "device_lib_host.c",
    ok_lines: &[
        "thread 0:  0.00|ab |ff|-1234567890123|A|(null)",
        "thread 1:  1.50|ab |100|-2469135780246|B|(null)",
        "thread 2:  3.00|ab |101|-3703703670369|C|(null)",
        "device_lib: 3 shapes OK",
    ],
};

#[test]
fn device_lib() {
    run_fixture(&DEVICE_LIB);
}

/// NVRTC output: warp collectives (shfl in every mode with sub-warp widths, vote, ballot,
/// match.any/all, redux, activemask in divergent branches, a shuffle reduction run by one
/// warp only or by selected warps after a barrier, collectives in blocks whose last warp
/// is partial), bar.red (`__syncthreads_count/and/or`), producer/consumer named barriers
/// (`bar.arrive` + `bar.sync` with a thread count) and a non-aligned `barrier.sync`
/// reached from two instructions.
const WARPS: Fixture = Fixture {
    ptx: "warps.ptx",
    host: "warps_host.c",
    ok_lines: &[
        "block_sum: 4 shapes OK",
        "shuffles: 2 shapes OK",
        "partial_warps: 4 shapes OK",
        "selected_warps: 7 shapes OK",
        "votes: 2 shapes OK",
        "named_barriers: 3 shapes OK",
        "split_barrier: 2 shapes OK",
    ],
};

#[test]
fn warps() {
    run_fixture(&WARPS);
}

/// NVRTC output: chains of regions joined by warp collectives (a block scan's two shuffle
/// chains, one taken by warp 0 alone; butterflies of doubles and 64-bit integers with a
/// ballot, a vote and a redux after warps exited; chains that selected warps take; a
/// half-warp chain under a 16-lane mask; a chain between two interchanged per-lane passes
/// over a row), which block functions run warp by warp
/// (`lower/exec/warp_runs.rs`) on blocks of whole warps along x and region by region on
/// others (16 x 4, 48 x 2).
const WARP_RUNS: Fixture = Fixture {
    ptx: "warp_runs.ptx",
    host: "warp_runs_host.c",
    ok_lines: &["block_scan: 7 shapes OK", "mixed_chain: 3 shapes OK", "selected_chains: 5 shapes OK", "row_shift: 3 shapes OK"],
};

#[test]
fn warp_runs() {
    run_fixture(&WARP_RUNS);
}

/// NVRTC output (sm_90): every `mma.sync` form (f16/bf16/tf32/e4m3/e5m2 with f16 or f32
/// accumulators, s8/u8/s4/u4 with and without `.satfinite`, f64 m8n8k4/m16n8k8/m16n8k16, the
/// four products of f16 m8n8k4 in each layout), `ldmatrix` x1/x2/x4 with and without `.trans`, `nvcuda::wmma` load/mma/store
/// for m16n16k16, m32n8k16, m8n32k16 and m16n16k8 in row and column layouts with strides,
/// and a tiled GEMM built from `cp.async` double buffering, `ldmatrix` and `mma`.
const MATRIX: Fixture = Fixture {
    ptx: "matrix.ptx",
    host: "matrix_host.c",
    ok_lines: &["mma: 24 shapes OK", "ldmatrix: 1 shapes OK", "wmma: 11 shapes OK", "gemm_cp_async: 3 shapes OK"],
};

#[test]
fn matrix() {
    run_fixture(&MATRIX);
}

/// NVRTC output: one `mma.sync` per warp on raw bits (NaNs, infinities, subnormals, f16
/// overflow) for every dense floating-point form block functions compute themselves (f16,
/// bf16, tf32 into f32 or f16), bit for bit against the host's rule; blocks of whole warps
/// complete it in the block function, a block of 48 threads through the scheduler.
const MMA_RAW: Fixture = Fixture { ptx: "mma_raw.ptx", host: "mma_raw_host.c", ok_lines: &["mma_raw: 32 shapes OK"] };

#[test]
fn mma_raw() {
    run_fixture(&MMA_RAW);
}

/// Hand-written PTX for sm_90: `stmatrix` x1/x2/x4 with and without `.trans` (shared and
/// generic addresses), `movmatrix.trans` and single-bit `wmma` m8n8k128 (`.xor`/`.and`,
/// global and shared, strides larger than the tile, C/D in both layouts, wrapping sums).
const MATRIX_SM90: Fixture =
    Fixture { ptx: "matrix_sm90.ptx", host: "matrix_sm90_host.c", ok_lines: &["stmatrix: 1 shapes OK", "movmatrix: 2 shapes OK", "wmma_b1: 4 shapes OK"] };

#[test]
fn matrix_sm90() {
    run_fixture(&MATRIX_SM90);
}

/// Hand-written PTX for sm_120a: single-bit `mma` with `.xor.popc`/`.and.popc` (m8n8k128,
/// m16n8k128, m16n8k256; exact, with wrapping), `.f64` `mma` with each rounding `.rn .rz .rm
/// .rp` (every shape, and `wmma.mma` m8n8k4; exact on one-product-per-element inputs) and
/// `.kind::f8f6f4` with the 6- and 4-bit floats and `.e4m3`/`.e5m2` into `.f32` and `.f16`
/// accumulators, and block-scaled `mma` (`.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`
/// with `.ue8m0`/`.ue4m3`) for every selector value, with NaN scale factors.
const MATRIX_SM120: Fixture = Fixture {
    ptx: "matrix_sm120.ptx",
    host: "matrix_sm120_host.c",
    ok_lines: &["mma_b1: 12 shapes OK", "mma_f64_rounding: 26 shapes OK", "mma_f8f6f4: 12 shapes OK", "mma_block_scale: 470 shapes OK"],
};

#[test]
fn matrix_sm120() {
    run_fixture(&MATRIX_SM120);
}

/// Hand-written PTX for sm_120a: sparse `mma.sp`/`mma.sp::ordered_metadata` for every shape
/// and type family (`.f16`, `.bf16`, `.tf32`, 8- and 4-bit integers with and without
/// `.satfinite`, 8/6/4-bit floats, block scaling) and every sparsity selector each allows,
/// against a host product over the stored elements; metadata in the lanes the selector does
/// not pick is noise, and B holds +inf where every row of A is pruned.
const MATRIX_SPARSE: Fixture = Fixture { ptx: "matrix_sparse.ptx", host: "matrix_sparse_host.c", ok_lines: &["mma_sparse: 26 shapes OK"] };

#[test]
fn matrix_sparse() {
    run_fixture(&MATRIX_SPARSE);
}

/// NVRTC output of code written for lockstep warps: the classic reduction whose last warp
/// exchanges partial sums through `volatile` shared memory without barriers, and a warp
/// spinning on a `volatile` shared flag that another warp sets.
const LEGACY_WARP: Fixture =
    Fixture { ptx: "legacy_warp.ptx", host: "legacy_warp_host.c", ok_lines: &["legacy_reduce: 3 shapes OK", "spin_flag: 2 shapes OK"] };

#[test]
fn legacy_warp() {
    run_fixture(&LEGACY_WARP);
}

/// Two PTX modules linked into one program: a `.extern .func` of one module resolved
/// against the `.visible .func` of the other, and a function with ISA 1.x `.reg` parameters
/// called with registers and immediates.
#[test]
fn two_modules() {
    let work = WorkDir::new("two_modules");
    let kernels = support::root_path("tests/kernels");
    let a = work.join("a.o");
    let b = work.join("b.o");
    support::compile_ptx(&kernels.join("two_modules_a.ptx"), &a, &[], work.path());
    support::compile_ptx(&kernels.join("two_modules_b.ptx"), &b, &[], work.path());
    let exe = work.join("host");
    support::link_host(&support::root_path("tests/hosts/two_modules_host.c"), &[a, b], &exe, work.path());
    let mut cmd = Command::new(&exe);
    let out = support::run_with_timeout(&mut cmd, work.path(), "run", RUN_LIMIT);
    assert!(out.success() && out.stdout.contains("two_modules: 3 shapes OK"), "{}", out.describe(&cmd));
}

/// `ptx2llvm --header`: typed launch functions, used from C (and the header also compiles
/// as C++).
#[test]
fn typed_header() {
    let work = WorkDir::new("typed_header");
    let kernels = support::root_path("tests/kernels");
    let mut objects = vec![];
    for name in ["vecadd", "calls"] {
        let obj = work.join(&format!("{name}.o"));
        let header = work.join(&format!("{name}.h"));
        let header_arg = format!("--header={}", header.display());
        support::compile_ptx(&kernels.join(format!("{name}.ptx")), &obj, &[header_arg.as_str()], work.path());
        let text = std::fs::read_to_string(&header).expect("ptx2llvm --header wrote the header");
        assert!(text.contains("extern \"C\""), "{text}");
        objects.push(obj);
    }
    let vecadd_h = std::fs::read_to_string(work.join("vecadd.h")).unwrap_or_default();
    assert!(
        vecadd_h.contains("ptxrtError_t vecadd_launch(ptxrtDim3 grid, ptxrtDim3 block, size_t dynamicSharedBytes, const void *vecadd_param_0, const void *vecadd_param_1, void *vecadd_param_2, uint32_t vecadd_param_3)"),
        "{vecadd_h}"
    );
    // The header is also valid C++.
    let mut cxx = Command::new("c++");
    cxx.args(["-fsyntax-only", "-x", "c++", "-Wall", "-Werror"]).arg(format!("-I{}", env!("PTXRT_INCLUDE"))).arg(work.join("calls.h"));
    support::run_ok(&mut cxx, work.path(), "cxx-header", "compiling the header as C++");
    let exe = work.join("host");
    let host = support::root_path("tests/hosts/typed_header_host.c");
    // The host includes the generated headers from the build directory.
    let copy = work.join("typed_header_host.c");
    std::fs::copy(&host, &copy).expect("copy the host source next to the headers");
    support::link_host(&copy, &objects, &exe, work.path());
    let mut cmd = Command::new(&exe);
    let out = support::run_with_timeout(&mut cmd, work.path(), "run", RUN_LIMIT);
    assert!(out.success() && out.stdout.contains("typed_header: 2 shapes OK"), "{}", out.describe(&cmd));
}

const CONCURRENT: Fixture = Fixture { ptx: "vecadd.ptx", host: "concurrent_host.c", ok_lines: &["concurrent_launches: 4 shapes OK"] };

/// NVRTC vecadd launched from four host threads at once, 25 rounds each, every result exact.
#[test]
fn concurrent_launches() {
    run_fixture(&CONCURRENT);
}

const CONCURRENT_WARPS: Fixture = Fixture { ptx: "warps.ptx", host: "concurrent_warps_host.c", ok_lines: &["concurrent_warps: 8 shapes OK"] };

/// NVRTC warp kernels (shuffle trees, a barrier, a shuffle by one warp while the others have
/// exited; every shuffle mode) launched from eight host threads at once, each with its own
/// shapes and data, every result exact.
#[test]
fn concurrent_warps() {
    run_fixture(&CONCURRENT_WARPS);
}

const SPACES: Fixture = Fixture { ptx: "spaces.ptx", host: "spaces_host.c", ok_lines: &["spaces: 1 shapes OK"] };

/// NVRTC output: `isspacep` on pointers into global, shared, local and constant memory.
#[test]
fn spaces() {
    run_fixture(&SPACES);
}

const MEMORY: Fixture = Fixture { ptx: "memory.ptx", host: "memory_host.c", ok_lines: &["memory: 2 shapes OK"] };

/// NVRTC output: a struct kernel parameter passed by value, `__constant__`/`__device__`
/// variables set and read through `ptxrtGetSymbol` before and between launches, and a
/// `.local` array with computed indices whose address a called function reads.
#[test]
fn memory() {
    run_fixture(&MEMORY);
}

const ALGORITHMS: Fixture = Fixture {
    ptx: "algorithms.ptx",
    host: "algorithms_host.c",
    ok_lines: &["block_scan: 4 shapes OK", "matmul: 3 shapes OK", "bitonic: 3 shapes OK", "grid3d: 2 shapes OK"],
};

/// NVRTC output: block scan (dynamic shared memory), tiled matrix multiply on a 2D grid,
/// bitonic sort (barriers in nested loops), a 3D grid of 3D blocks.
#[test]
fn algorithms() {
    run_fixture(&ALGORITHMS);
}

const LEGACY_VOTE: Fixture = Fixture { ptx: "legacy_vote.ptx", host: "legacy_vote_host.c", ok_lines: &["legacy_vote: 3 shapes OK"] };

/// Hand-written PTX 5.0: legacy `vote` and `shfl` without `.sync` or membermask.
#[test]
fn legacy_vote() {
    run_fixture(&LEGACY_VOTE);
}

/// NVRTC output: texture objects (1D/2D/3D, every address mode x filter x coordinate
/// mode, pitched memory, 8-bit normalized reads, tex1Dfetch, layered, tld4) and surface
/// objects (suld .zero/.clamp, sust .trap), against texture_reference.h; invalid handles
/// and out-of-range `.trap` stores fail the launch.
const TEXTURES: Fixture = Fixture { ptx: "textures.ptx", host: "textures_host.c", ok_lines: &["textures: all checks OK"] };

#[test]
fn textures() {
    run_fixture(&TEXTURES);
}

/// Hand-written PTX 1.4: `.tex` references bound by name (tex.2d linear, tex.1d integer
/// fetches), and a launch through an unbound reference.
const TEXREF_LEGACY: Fixture = Fixture { ptx: "texref_legacy.ptx", host: "texref_legacy_host.c", ok_lines: &["texref_legacy: all checks OK"] };

#[test]
fn texref_legacy() {
    run_fixture(&TEXREF_LEGACY);
}

/// Hand-written PTX 6.0: `.texref`/`.surfref` bound by name, txq/suq, istypep, tld4
/// through a reference, sured, sust.p and suld.b.v2.
const TEXTURE_QUERIES: Fixture = Fixture { ptx: "texture_queries.ptx", host: "texture_queries_host.c", ok_lines: &["texture_queries: all checks OK"] };

#[test]
fn texture_queries() {
    run_fixture(&TEXTURE_QUERIES);
}

const MEMORY_FORMS: Fixture =
    Fixture { ptx: "memory_forms.ptx", host: "memory_forms_host.c", ok_lines: &["ldst_forms: 3 shapes OK", "message_pass: 20 shapes OK"] };

/// Hand-written PTX 8.8: `ld`/`st`/`ldu`/`prefetch` on every state space with every vector
/// width and element type (up to `.b128`, `.v8.f32`, `.v4.b64`), `.volatile`, `.mmio`,
/// `.relaxed`/`.acquire`/`.release` with scopes, cache operators and policies
/// (`createpolicy`, `.L2::cache_hint`), `discard`, `applypriority`; acquire/release message
/// passing between two blocks.
#[test]
fn memory_forms() {
    run_fixture(&MEMORY_FORMS);
}

const SPECIAL_CONTROL: Fixture =
    Fixture { ptx: "special_control.ptx", host: "special_control_host.c", ok_lines: &["sregs: 2 shapes OK", "brx_dispatch: 2 shapes OK"] };

/// Hand-written PTX 8.8: every special register checked against the launch (workers,
/// dynamic shared memory, shape, lanes, one-block clusters, clocks, `%gridid`), `brx.idx`
/// (and its out-of-range error), `nanosleep`, `brkpt`, `pmevent`.
#[test]
fn special_control() {
    run_fixture(&SPECIAL_CONTROL);
}

const DEVICE_LAUNCH: Fixture = Fixture { ptx: "device_launch.ptx", host: "device_launch_host.c", ok_lines: &["device_launch: 3 shapes OK"] };

/// Hand-written PTX 8.8: grids launched from the device with `cudaGetParameterBuffer` +
/// `cudaLaunchDevice` and the `V2` pair, two levels deep, and a refused configuration.
#[test]
fn device_launch() {
    run_fixture(&DEVICE_LAUNCH);
}

/// Hand-written PTX 6.0, `texmode_independent`: `.samplerref`s initialized in the module
/// and bound from the host decide filtering, address modes and the depth comparison of a
/// bound `.texref`.
const TEXTURE_INDEPENDENT: Fixture =
    Fixture { ptx: "texture_independent.ptx", host: "texture_independent_host.c", ok_lines: &["texture_independent: all checks OK"] };

#[test]
fn texture_independent() {
    run_fixture(&TEXTURE_INDEPENDENT);
}

/// Hand-written PTX 6.0: mipmapped textures (`tex.level` with `.f32`/`.s32` levels,
/// `tex.grad` on 2d with an offset and on cubemaps, bias/clamps/point and linear mipmap
/// filtering), multi-sample textures (`tex.2dms`, `tex.a2dms`) and `txq.level`,
/// `num_mipmap_levels`, `num_samples`, against the host reference of the ptxrt.h rules.
const TEXTURE_MIPMAPS: Fixture = Fixture { ptx: "texture_mipmaps.ptx", host: "texture_mipmaps_host.c", ok_lines: &["texture_mipmaps: all checks OK"] };

#[test]
fn texture_mipmaps() {
    run_fixture(&TEXTURE_MIPMAPS);
}

/// Hand-written PTX 7.0: point fetches that the generated code does inline (`.1d .2d .a1d
/// .a2d`, `.s32` and `.f32` coordinates, every result type) on every element format, read
/// mode, resource kind and address mode, in range and out of range, bit-identical to the
/// runtime's `__ptxrt_tex` (which covers the forms the inline path leaves to it); uniform
/// handles from a parameter and a rebound `.texref`; stale, zero and surface handles fail.
const TEXTURE_INLINE: Fixture =
    Fixture { ptx: "texture_inline.ptx", host: "texture_inline_host.c", ok_lines: &["texture_inline: 972 textures, all checks OK"] };

#[test]
fn texture_inline() {
    run_fixture(&TEXTURE_INLINE);
}

/// Hand-written PTX 6.0: the depth-compare operand of `tex`/`tld4` on 2d, a2d (normalized
/// u16), cube and mipmapped 2d textures with every `compareFunc` x point/linear filtering,
/// ties, NaN and border texels, an offset, `.level`, and the zeroed descriptor (LessEqual).
const TEXTURE_DEPTH_COMPARE: Fixture =
    Fixture { ptx: "texture_depth_compare.ptx", host: "texture_depth_compare_host.c", ok_lines: &["texture_depth_compare: all checks OK"] };

#[test]
fn texture_depth_compare() {
    run_fixture(&TEXTURE_DEPTH_COMPARE);
}

const CLUSTER_MISC: Fixture = Fixture {
    ptx: "cluster_misc.ptx",
    host: "cluster_misc_host.c",
    ok_lines: &["elect_leader: 3 shapes OK", "cluster_map: 2 shapes OK", "multimem_ops: 2 shapes OK", "multimem_fp8: 2 shapes OK"],
};

/// Hand-written PTX 8.6 (`sm_100a`): `elect.sync` over whole and half warps with exited
/// lanes, `mapa`/`getctarank` on one-block clusters (and `mapa`'s out-of-range rank error),
/// `griddepcontrol`, `setmaxnreg`, and `multimem.ld_reduce`/`st`/`red` on one replica
/// (`ld_reduce`/`st` also on `.e5m2`/`.e4m3` vectors and packs).
#[test]
fn cluster_misc() {
    run_fixture(&CLUSTER_MISC);
}

const MBARRIER: Fixture = Fixture {
    ptx: "mbarrier.ptx",
    host: "mbarrier_host.c",
    ok_lines: &[
        "block_wait: 7 shapes OK",
        "producer_consumer: 5 shapes OK",
        "named_producers: 4 shapes OK",
        "multi_phase: 7 shapes OK",
        "drop_early: 7 shapes OK",
        "counts: 7 shapes OK",
        "tx_count: 7 shapes OK",
        "async_copy: 7 shapes OK",
    ],
};

/// Hand-written PTX 8.6 (`sm_90`): `mbarrier` waits in loops of `test_wait`/`try_wait`
/// (block-wide, producer/consumer warps over several phases with `.parity`, producers
/// that meet at a named barrier while the consumers spin, generic addresses),
/// `arrive_drop` by threads that exit, `.noComplete` counts and
/// `pending_count`, expect-tx/complete-tx, and `cp.async.mbarrier.arrive` with and without
/// `.noinc`; block sizes from 1 to 1024, partial warps included.
#[test]
fn mbarrier() {
    run_fixture(&MBARRIER);
}

const CUDA_BARRIER: Fixture = Fixture {
    ptx: "cuda_barrier.ptx",
    host: "cuda_barrier_host.c",
    ok_lines: &["rounds: 7 shapes OK", "copy_async: 7 shapes OK", "drop: 7 shapes OK", "pipeline: 5 shapes OK"],
};

/// NVRTC output (`sm_80`) of libcu++'s `cuda::barrier<cuda::thread_scope_block>`:
/// `arrive_and_wait` rounds, `cuda::memcpy_async` completed through the barrier,
/// `arrive_and_drop`, and a full/empty barrier pipeline between warps (mbarrier wait loops
/// with `%globaltimer` back-off and `nanosleep`).
#[test]
fn cuda_barrier() {
    run_fixture(&CUDA_BARRIER);
}

const CUDA_BARRIER_SM90: Fixture = Fixture { ptx: "cuda_barrier_sm90.ptx", ..CUDA_BARRIER };

/// The same CUDA source compiled by NVRTC for `sm_90`, where libcu++ arrives with a count
/// (`mbarrier.arrive.shared::cta.b64 state, [bar], n`) and waits with `try_wait` loops.
#[test]
fn cuda_barrier_sm90() {
    run_fixture(&CUDA_BARRIER_SM90);
}

/// Every fixture above, for the cross-target run.
const ALL_FIXTURES: &[&Fixture] = &[
    &MEMORY_FORMS,
    &SPECIAL_CONTROL,
    &DEVICE_LAUNCH,
    &TEXTURES,
    &TEXREF_LEGACY,
    &TEXTURE_QUERIES,
    &TEXTURE_INDEPENDENT,
    &TEXTURE_MIPMAPS,
    &TEXTURE_DEPTH_COMPARE,
    &TEXTURE_INLINE,
    &GUARDS,
    &REGION_GUARDS,
    &RING_INDICES,
    &GATHERS,
    &GUARD_TAIL,
    &ATOMICS_WIDE,
    &LEGACY_VOTE,
    &ALGORITHMS,
    &MEMORY,
    &SPACES,
    &CONCURRENT,
    &VECADD,
    &REDUCE,
    &INTERCHANGE,
    &STRIDE_WRAP,
    &CVT_NAN,
    &NAN_CHAINS,
    &STEP_AHEAD,
    &SAXPY_NVOPENCC,
    &BARRIER_EXIT,
    &ATOMICS,
    &CALLS,
    &FIBERS,
    &SPIN_WAIT,
    &STACK,
    &STACK_OVERFLOW,
    &TRAP,
    &FAULTS,
    &DEVICE_LIB,
    &WARPS,
    &WARP_RUNS,
    &LEGACY_WARP,
    &MATRIX,
    &MMA_RAW,
    &MATRIX_SM90,
    &MATRIX_SM120,
    &MATRIX_SPARSE,
    &CLUSTER_MISC,
    &MBARRIER,
    &CUDA_BARRIER,
    &CUDA_BARRIER_SM90,
];

/// Every fixture with every kernel forced onto the fiber scheduler (`--scheduler fibers`):
/// the general scheduler gives the same results as thread loops on all of them.
#[test]
fn fiber_scheduler_runs_every_fixture() {
    run_every_fixture_with("fibers-forced", &["--scheduler", "fibers"]);
}

/// Every fixture with every kernel treated as large (`--large-kernel 0`; by default only
/// kernels of thousands of instructions are): registers in per-thread frames, only
/// grid-stride loops interchanged; the same results as with the registers in arrays.
#[test]
fn large_kernels_run_every_fixture() {
    run_every_fixture_with("large-forced", &["--large-kernel", "0"]);
}

fn run_every_fixture_with(label: &str, args: &[&str]) {
    let work = WorkDir::new(label);
    for fx in ALL_FIXTURES {
        let stem = fx.host.trim_end_matches(".c");
        let obj = work.join(&format!("{stem}.o"));
        support::compile_ptx(&support::root_path("tests/kernels").join(fx.ptx), &obj, args, work.path());
        let exe = work.join(stem);
        support::link_host(&support::root_path("tests/hosts").join(fx.host), &[obj], &exe, work.path());
        let mut cmd = Command::new(&exe);
        let out = support::run_with_timeout(&mut cmd, work.path(), &format!("run-{stem}"), RUN_LIMIT);
        assert!(out.success(), "{} with {args:?} failed\n{}", fx.host, out.describe(&cmd));
        for line in fx.ok_lines {
            assert!(out.stdout.lines().any(|l| l.trim() == *line), "{} with {args:?} did not print {line:?}\n{}", fx.host, out.describe(&cmd));
        }
    }
}

/// The same fixtures cross-compiled for AArch64 (objects from `ptx2llvm --target
/// aarch64-unknown-linux-gnu`, ptxrt built for aarch64-unknown-linux-gnu, the host with the
/// cross C compiler) and run under qemu-user, at -O2 with the default worker count.
#[test]
fn aarch64_qemu() {
    let Some(cross) = support::aarch64_tools_if_available() else { return };
    let work = WorkDir::new("aarch64");
    for fx in ALL_FIXTURES {
        let stem = fx.host.trim_end_matches(".c");
        let obj = work.join(&format!("{stem}.o"));
        support::compile_ptx(&support::root_path("tests/kernels").join(fx.ptx), &obj, &["--target", support::AARCH64_TRIPLE], work.path());
        let exe = work.join(stem);
        support::link_host_aarch64(&cross, &support::root_path("tests/hosts").join(fx.host), &[obj], &exe, work.path());
        let mut cmd = support::qemu_command(&cross, &exe);
        let out = support::run_with_timeout(&mut cmd, work.path(), &format!("run-{stem}"), RUN_LIMIT);
        assert!(out.success(), "{} under qemu-aarch64 failed\n{}", fx.host, out.describe(&cmd));
        for line in fx.ok_lines {
            assert!(out.stdout.lines().any(|l| l.trim() == *line), "{} under qemu-aarch64 did not print {line:?}\n{}", fx.host, out.describe(&cmd));
        }
    }
}

const TOOLCHAIN_FORMS: Fixture = Fixture { ptx: "toolchain_forms.ptx", host: "toolchain_forms_host.c", ok_lines: &["toolchain_forms: 6 shapes OK"] };

/// Hand-written PTX in forms other toolchains write (vector `.reg` parameters, register
/// plus immediate, vector moves, immediate predicates, a `subc.cc.s32` borrow chain) and
/// static `.shared` charged per kernel (five 16 KiB kernels in one module).
#[test]
fn toolchain_forms() {
    run_fixture(&TOOLCHAIN_FORMS);
}

/// An object with a version of every kernel per x86-64 level (`--cpu x86-64,x86-64-v3,
/// x86-64-v4`): the warp, barrier and float kernels give the same verified results with the
/// version the CPU picks and with the baseline forced (`PTXRT_CPU_LEVEL=1`). On an AVX-512
/// machine the picked version runs the vector forms only x86-64-v4 has (masked gathers and
/// scatters, rewritten by `lower/opt/gather_scatter.rs` where they use one address or go
/// through pointers read from memory: the segmented ring and tile indices, the algorithms'
/// per-warp totals, kept pointers of interchanged loops).
#[test]
fn multi_version_objects() {
    if !cfg!(target_arch = "x86_64") {
        eprintln!("skipped: multi-version objects are for x86-64 hosts");
        return;
    }
    for fx in [&WARPS, &WARP_RUNS, &REDUCE, &RING_INDICES, &ALGORITHMS, &GATHERS, &INTERCHANGE, &STRIDE_WRAP, &REGION_GUARDS] {
        let work = WorkDir::new(&format!("multiversion-{}", fx.host.trim_end_matches(".c")));
        let obj = work.join("kernel.o");
        support::compile_ptx(&support::root_path("tests/kernels").join(fx.ptx), &obj, &["--cpu", "x86-64,x86-64-v3,x86-64-v4"], work.path());
        let exe = work.join("host");
        support::link_host(&support::root_path("tests/hosts").join(fx.host), &[obj], &exe, work.path());
        for level in [None, Some("1"), Some("3")] {
            let mut cmd = Command::new(&exe);
            match level {
                Some(l) => cmd.env("PTXRT_CPU_LEVEL", l),
                None => cmd.env_remove("PTXRT_CPU_LEVEL"),
            };
            let out = support::run_ok(&mut cmd, work.path(), &format!("run-level-{}", level.unwrap_or("cpu")), fx.host);
            for line in fx.ok_lines {
                assert!(out.stdout.lines().any(|l| l.trim() == *line), "{} at level {level:?} did not print {line:?}\n{}", fx.host, out.describe(&cmd));
            }
        }
    }
}

/// Small modules split into codegen units anyway (`--min-unit-cost 0`): each kernel and
/// each shared function compiled in a unit of its own, the objects merged into one. Calls
/// between units, internal functions copied into several units, function pointers in a
/// `.global` initializer, recursion, fibers, textures, `.visible` functions called from
/// another module, and every kernel's registration.
#[test]
fn codegen_units() {
    let configs: &[Config] = &[
        ("O2units", &["--codegen-units", "8", "--min-unit-cost", "0", "-j", "3"], None),
        ("O0units", &["-O0", "--codegen-units", "8", "--min-unit-cost", "0"], None),
    ];
    for fx in [&CALLS, &FIBERS, &WARPS, &DEVICE_LIB, &REDUCE, &MANY_REGIONS, &SPACES, &TEXREF_LEGACY] {
        run_fixture_with(fx, configs);
    }
}

/// The scalar pipeline of large functions (`--large-function`): every function through it
/// (`0`), and a module where some functions take it and the others the full pipeline (the
/// `optnone` that hides one set from the other's pipeline must not stick: calls between
/// them, inlining, fibers, many regions), alone and split into codegen units.
#[test]
fn large_function_pipeline() {
    let configs: &[Config] = &[
        ("scalar", &["--large-function", "0"], None),
        ("mixed", &["--large-function", "400"], None),
        ("mixed-units", &["--large-function", "400", "--codegen-units", "8", "--min-unit-cost", "0"], None),
    ];
    for fx in [&CALLS, &FIBERS, &WARPS, &DEVICE_LIB, &REDUCE, &MANY_REGIONS, &SPACES] {
        run_fixture_with(fx, configs);
    }
}

/// The object does not depend on the number of threads: `-j 1` and `-j 8` write the same
/// bytes for a module split into units.
#[test]
fn codegen_units_deterministic() {
    let work = WorkDir::new("codegen_units_deterministic");
    for ptx in ["calls.ptx", "warps.ptx", "device_lib.ptx"] {
        let src = support::root_path("tests/kernels").join(ptx);
        let mut objects = vec![];
        for jobs in ["1", "8"] {
            let obj = work.join(&format!("{}-j{jobs}.o", ptx.trim_end_matches(".ptx")));
            support::compile_ptx(&src, &obj, &["--min-unit-cost", "0", "-j", jobs], work.path());
            objects.push(std::fs::read(&obj).expect("the object was written"));
        }
        assert!(objects[0] == objects[1], "{ptx}: the objects of -j 1 and -j 8 differ");
    }
}

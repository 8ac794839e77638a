//! `ptxrt`: the runtime that CUDA kernels translated by ptx2llvm link against.
//!
//! A translated object exports one descriptor per `.entry` ([`abi::Kernel`]) whose block
//! function runs one whole thread block on one CPU thread, and registers its module
//! ([`abi::Module`]) from a static constructor. This crate owns what happens around block
//! functions:
//!
//! - [`registry`]: modules, kernels and `.global`/`.const` variables by PTX name;
//! - [`launch`]: CUDA's launch-configuration rules;
//! - [`pool`]: the worker pool (one worker per core, `PTXRT_NUM_THREADS` to override):
//!   each launching host thread runs its grid as worker 0 and idle helpers join whichever
//!   grids have blocks left (launches from different host threads run at the same time);
//!   workers take contiguous ranges of blocks from the grid's counter, with per-worker
//!   shared/context/local buffers and a defined floating-point environment;
//! - [`error`]: error codes and the per-host-thread last error;
//! - [`capi`]: the `extern "C"` functions of `include/ptxrt.h` and `include/ptxrt_abi.h`;
//! - [`sched`]: the block scheduler (barriers, warp collectives) that block functions call,
//!   allocation-free;
//! - [`fibers`]: the general scheduler for kernels whose threads run as fibers (sync points
//!   reached through recursion or function pointers);
//! - [`stacks`]: the guarded stacks blocks and fibers run on, whose overflow fails the
//!   launch instead of ending the process;
//! - [`matrix`]: the warp-level matrix instructions the scheduler computes (`mma`, `wmma`, `ldmatrix`);
//! - [`device`]: what device code calls by name (`vprintf`, `malloc`, `free`, `__assertfail`,
//!   device-side launches, queued per host launch);
//! - [`texture`]: arrays, texture/surface objects and references, and the sampling that
//!   `tex`, `tld4`, `txq`, `suld`, `sust`, `sured`, `suq` and `istypep` call.
//!
//! Rust programs can use the safe(r) functions re-exported here instead of the C API.

pub mod abi;
pub mod capi;
pub mod check;
pub mod cpu;
pub mod cuda;
pub mod device;
pub mod error;
pub mod fibers;
pub mod launch;
pub mod matrix;
pub mod pool;
pub mod registry;
pub mod sched;
pub mod stacks;
pub mod texture;

pub use abi::{BlockEnv, BlockFn, Dim3, Kernel, LaunchInfo, Module, SymbolInfo, ABI_VERSION};
pub use error::{last_error, Error, ErrorCode};
pub use launch::{launch, launch_kernel, launch_kernel_ex, set_max_dynamic_shared, KernelArg, LaunchConfig};
pub use pool::{num_threads, set_num_threads};
pub use registry::{find_kernel, get_symbol};

/// Registers a module from Rust (what `__ptxrt_register_module` does for C).
///
/// # Safety
/// `module` must stay valid (and unchanged) for as long as it is registered.
pub unsafe fn register_module(module: *const Module) {
    registry::register(module);
}

//! Launch validation (CUDA's rules, so a configuration that works here works on a GPU
//! and vice versa) and the hand-off to the pool.

use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::abi::{Dim3, GridWorkspace, Kernel, LaunchInfo, ABI_VERSION};
use crate::device::{self, LaunchTree};
use crate::error::Error;
use crate::pool::{self, Job};
use crate::registry;

/// Largest x and y of a block.
pub const MAX_BLOCK_XY: u32 = 1024;
/// Largest z of a block.
pub const MAX_BLOCK_Z: u32 = 64;
/// Most threads in one block.
pub const MAX_THREADS_PER_BLOCK: u64 = 1024;
/// Largest grid x: 2^31 - 1.
pub const MAX_GRID_X: u32 = i32::MAX as u32;
/// Largest grid y and z.
pub const MAX_GRID_YZ: u32 = 65535;
/// Shared memory per block (static + dynamic) without an opt-in: CUDA's 48 KiB.
pub const DEFAULT_SHARED_LIMIT: u64 = 48 * 1024;
/// Shared memory per block with `ptxrtFuncSetMaxDynamicSharedMemory`: the 227 KiB
/// opt-in maximum of sm_80/sm_90 GPUs (`sharedMemPerBlockOptin`).
pub const MAX_SHARED_OPTIN: u64 = 227 * 1024;

const fn align_up(v: u64, a: u64) -> u64 {
    v.div_ceil(a) * a
}

/// Where dynamic shared memory starts in the window.
pub fn static_shared_aligned(kernel: &Kernel) -> u64 {
    align_up(u64::from(kernel.static_shared_bytes), 16)
}

/// The kernel's name for messages.
pub(crate) fn kernel_name(kernel: &Kernel) -> String {
    if kernel.name.is_null() {
        return "<unnamed>".to_string();
    }
    // SAFETY: a non-null name in a current-ABI descriptor is a NUL-terminated constant.
    unsafe { CStr::from_ptr(kernel.name) }.to_string_lossy().into_owned()
}

/// Turns a descriptor pointer from C into a usable kernel, or says why it is not one.
pub(crate) fn usable_kernel<'a>(kernel: *const Kernel, what: &str) -> Result<&'a Kernel, Error> {
    // SAFETY: callers pass null or a pointer to a kernel descriptor (from
    // ptxrtFindKernel or the object's exported `__ptxrt_kernel_*` constant). Only
    // `abi_version`, which every version keeps first, is read before it is checked.
    let Some(k) = (unsafe { kernel.as_ref() }) else {
        return Err(Error::invalid_value(format!("{what}: the kernel is NULL")));
    };
    if k.abi_version != ABI_VERSION {
        return Err(Error::invalid_value(format!(
            "{what}: the kernel descriptor has ABI version {} but this ptxrt supports version \
             {ABI_VERSION}; rebuild the object with a matching ptx2llvm",
            k.abi_version
        )));
    }
    if k.block_fn.is_none() {
        return Err(Error::invalid_value(format!("{what}: kernel '{}' has no block function", kernel_name(k))));
    }
    Ok(k)
}

/// Memory one block needs, worked out from the kernel and the launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockMemory {
    pub shared_bytes: usize,
    pub context_bytes: usize,
    pub local_bytes: usize,
}

/// Checks grid, block and shared memory against CUDA's limits and the kernel's
/// `.reqntid`/`.maxntid`. `max_dynamic` is the kernel's opt-in, if any.
pub fn check_configuration(kernel: &Kernel, grid: Dim3, block: Dim3, dynamic_shared: usize, max_dynamic: Option<u32>) -> Result<BlockMemory, Error> {
    // Names are only formatted on failure: a launch must not allocate.
    let bad = |why: String| Err(Error::invalid_configuration(format!("kernel '{}': {why}", kernel_name(kernel))));
    let show = |d: Dim3| format!("({},{},{})", d.x, d.y, d.z);

    if grid.x == 0 || grid.y == 0 || grid.z == 0 {
        return bad(format!("grid {} has a zero dimension", show(grid)));
    }
    if block.x == 0 || block.y == 0 || block.z == 0 {
        return bad(format!("block {} has a zero dimension", show(block)));
    }
    if block.x > MAX_BLOCK_XY || block.y > MAX_BLOCK_XY || block.z > MAX_BLOCK_Z {
        return bad(format!("block {} exceeds the per-dimension limits ({MAX_BLOCK_XY},{MAX_BLOCK_XY},{MAX_BLOCK_Z})", show(block)));
    }
    let threads = block.volume();
    if threads > MAX_THREADS_PER_BLOCK {
        return bad(format!("block {} has {threads} threads, more than {MAX_THREADS_PER_BLOCK}", show(block)));
    }
    if grid.x > MAX_GRID_X || grid.y > MAX_GRID_YZ || grid.z > MAX_GRID_YZ {
        return bad(format!("grid {} exceeds the limits ({MAX_GRID_X},{MAX_GRID_YZ},{MAX_GRID_YZ})", show(grid)));
    }
    if !kernel.reqntid.is_zero() && block != kernel.reqntid {
        return bad(format!("block {} differs from the kernel's .reqntid {}", show(block), show(kernel.reqntid)));
    }
    if !kernel.maxntid.is_zero() {
        // Unused .maxntid dimensions may be given as 0 by the compiler; they count as 1.
        let m = kernel.maxntid;
        let limit = u64::from(m.x.max(1)) * u64::from(m.y.max(1)) * u64::from(m.z.max(1));
        if threads > limit {
            return bad(format!("block {} has {threads} threads, more than the kernel's .maxntid {} allows ({limit})", show(block), show(m)));
        }
    }

    let static_shared = static_shared_aligned(kernel);
    let dynamic = dynamic_shared as u64;
    let total_shared = static_shared.saturating_add(dynamic);
    match max_dynamic {
        None if total_shared > DEFAULT_SHARED_LIMIT => {
            return bad(format!(
                "{static_shared} bytes of static and {dynamic} bytes of dynamic shared memory \
                 exceed the default limit of {DEFAULT_SHARED_LIMIT} bytes (48 KiB) per block \
                 (raise it with ptxrtFuncSetMaxDynamicSharedMemory)"
            ));
        }
        Some(max) if dynamic > u64::from(max) => {
            return bad(format!(
                "{dynamic} bytes of dynamic shared memory exceed the {max} bytes set with \
                 ptxrtFuncSetMaxDynamicSharedMemory"
            ));
        }
        _ if total_shared > MAX_SHARED_OPTIN => {
            return bad(format!(
                "{static_shared} bytes of static and {dynamic} bytes of dynamic shared memory \
                 exceed the maximum of {MAX_SHARED_OPTIN} bytes (227 KiB) per block"
            ));
        }
        _ => {}
    }

    let per_block = |per_thread: u32| -> Result<usize, Error> {
        usize::try_from(u64::from(per_thread) * threads)
            .map_err(|_| Error::memory_allocation(format!("kernel '{}': per-block memory does not fit in memory", kernel_name(kernel))))
    };
    Ok(BlockMemory {
        // At most MAX_SHARED_OPTIN, so it fits.
        shared_bytes: total_shared as usize,
        context_bytes: per_block(kernel.context_bytes_per_thread)?,
        local_bytes: per_block(kernel.local_bytes_per_thread)?,
    })
}

/// `ptxrtFuncSetMaxDynamicSharedMemory`: CUDA's `MaxDynamicSharedMemorySize` attribute.
/// `bytes` becomes the largest dynamic size launches of the kernel may request; together
/// with the static size it must fit in [`MAX_SHARED_OPTIN`].
pub fn set_max_dynamic_shared(kernel: *const Kernel, bytes: usize) -> Result<(), Error> {
    let k = usable_kernel(kernel, "ptxrtFuncSetMaxDynamicSharedMemory")?;
    let static_shared = static_shared_aligned(k);
    let allowed = MAX_SHARED_OPTIN.saturating_sub(static_shared);
    if bytes as u64 > allowed {
        return Err(Error::invalid_value(format!(
            "ptxrtFuncSetMaxDynamicSharedMemory: kernel '{}' has {static_shared} bytes of static \
             shared memory, so at most {allowed} bytes of dynamic shared memory can be allowed \
             (the per-block maximum is {MAX_SHARED_OPTIN} bytes = 227 KiB), not {bytes}",
            kernel_name(k)
        )));
    }
    // `bytes` <= MAX_SHARED_OPTIN, so it fits in u32.
    registry::set_max_dynamic_shared(k, bytes as u32);
    Ok(())
}

/// `ptxrtLaunchKernel`: validates, then runs the grid to completion, then the grids its
/// blocks launched from the device. Launches from different host threads run at the same
/// time (nothing here or in the pool serializes them).
///
/// # Safety
/// `kernel` is null or a kernel descriptor; unless null, `args` has `num_params` entries
/// each pointing at a value of the matching parameter's size and alignment, and everything
/// the kernel dereferences is valid for it, as with `cuLaunchKernel`.
pub unsafe fn launch_kernel(
    kernel: *const Kernel,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    dynamic_shared: usize,
    stream: *mut c_void,
) -> Result<(), Error> {
    // SAFETY: forwarded contract.
    unsafe { launch_kernel_mode(kernel, grid, block, args, dynamic_shared, stream, false, "ptxrtLaunchKernel") }
}

/// Most blocks a cooperative launch may have per worker thread of the pool (CUDA's
/// `maxBlocksPerMultiProcessor` of sm_80/sm_90): the co-residency limit is this times
/// [`pool::num_threads`], further limited by threads and shared memory per "SM" (see
/// [`max_active_blocks_per_sm`]).
pub const MAX_BLOCKS_PER_SM: u64 = 32;
/// Threads per "SM" for occupancy (sm_80/sm_90: 2048).
pub const MAX_THREADS_PER_SM: u64 = 2048;
/// Shared memory per "SM" for occupancy (sm_90: 228 KiB).
pub const SHARED_PER_SM: u64 = 228 * 1024;

/// `cudaOccupancyMaxActiveBlocksPerMultiprocessor` for a kernel, block size and dynamic
/// shared size: what a GPU of compute capability 9.0 would allow (threads in warps of 32,
/// 2048 per SM, 32 blocks, 228 KiB of shared memory); 0 for an impossible block size.
pub fn max_active_blocks_per_sm(kernel: &Kernel, block_threads: u64, dynamic_shared: u64) -> u64 {
    let limit = if !kernel.reqntid.is_zero() {
        kernel.reqntid.volume()
    } else if !kernel.maxntid.is_zero() {
        let m = kernel.maxntid;
        u64::from(m.x.max(1)) * u64::from(m.y.max(1)) * u64::from(m.z.max(1))
    } else {
        MAX_THREADS_PER_BLOCK
    };
    if block_threads == 0 || block_threads > limit.min(MAX_THREADS_PER_BLOCK) {
        return 0;
    }
    let warps_threads = block_threads.div_ceil(32) * 32;
    let mut blocks = MAX_BLOCKS_PER_SM.min(MAX_THREADS_PER_SM / warps_threads);
    let shared = static_shared_aligned(kernel) + dynamic_shared;
    if shared > MAX_SHARED_OPTIN {
        return 0;
    }
    if shared > 0 {
        blocks = blocks.min(SHARED_PER_SM / shared);
    }
    blocks
}

/// [`launch_kernel`] with a choice of cooperative mode: every block of the grid resident at
/// once (one thread each), for grids of at most [`max_active_blocks_per_sm`] times the
/// number of pool threads, else `ErrorCode::CooperativeLaunchTooLarge`.
///
/// # Safety
/// As [`launch_kernel`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn launch_kernel_mode(
    kernel: *const Kernel,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    dynamic_shared: usize,
    stream: *mut c_void,
    cooperative: bool,
    what: &str,
) -> Result<(), Error> {
    #[allow(non_snake_case)]
    let WHAT = what;
    let k = usable_kernel(kernel, WHAT)?;
    let name = || kernel_name(k);
    if !stream.is_null() {
        return Err(Error::invalid_value(format!("{WHAT}: kernel '{}': streams are not supported, pass NULL", name())));
    }
    if k.num_params > 0 {
        if args.is_null() {
            return Err(Error::invalid_value(format!("{WHAT}: kernel '{}' takes {} parameter(s) but args is NULL", name(), k.num_params)));
        }
        // SAFETY: per this function's contract `args` has `num_params` entries.
        let arg_ptrs = unsafe { std::slice::from_raw_parts(args, k.num_params as usize) };
        if let Some(i) = arg_ptrs.iter().position(|p| p.is_null()) {
            return Err(Error::invalid_value(format!("{WHAT}: kernel '{}': args[{i}] is NULL", name())));
        }
    }
    if pool::in_worker() {
        return Err(Error::invalid_value(format!(
            "{WHAT}: kernel '{}' launched from inside a running kernel; device-side \
             launches are not supported",
            name()
        )));
    }
    // The grid and the grids it launches from the device run as one unit, on this thread.
    let tree = LaunchTree::new();
    // SAFETY: `k` was validated above; `args` is as this function's contract says.
    let result = unsafe { run_grid_mode(k, grid, block, args, dynamic_shared, &tree, cooperative) };
    let children = device::run_device_launches(&tree, result.is_ok());
    result.and(children)
}

/// A launch's configuration (`ptxrtLaunchConfig`, the shape of CUDA's `CUlaunchConfig`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LaunchConfig {
    pub grid: Dim3,
    pub block: Dim3,
    pub dynamic_shared_bytes: usize,
    /// Must be null: launches run to completion.
    pub stream: *mut c_void,
}

impl LaunchConfig {
    /// `grid` and `block` are [`Dim3`]s, `u32`s (x), or `(x, y)` / `(x, y, z)` tuples.
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>, dynamic_shared_bytes: usize) -> Self {
        LaunchConfig { grid: grid.into(), block: block.into(), dynamic_shared_bytes, stream: std::ptr::null_mut() }
    }
}

/// Checks the number and sizes of the arguments of a launch against the kernel's
/// parameters (`ptxrtLaunchKernelEx`). `sizes` is `None` when the caller gave only the
/// count.
pub fn check_arguments(kernel: &Kernel, nargs: usize, sizes: Option<&[usize]>) -> Result<(), Error> {
    let params: &[u32] = if kernel.num_params == 0 || kernel.param_sizes.is_null() {
        &[]
    } else {
        // SAFETY: a current-ABI descriptor's `param_sizes` holds `num_params` entries.
        unsafe { std::slice::from_raw_parts(kernel.param_sizes, kernel.num_params as usize) }
    };
    let show = |sizes: &mut dyn Iterator<Item = u64>| -> String { sizes.map(|s| s.to_string()).collect::<Vec<_>>().join(", ") };
    if nargs != kernel.num_params as usize {
        return Err(Error::invalid_value(format!(
            "ptxrtLaunchKernelEx: kernel '{}' takes {} parameter(s) (of {} bytes), the launch \
             passes {nargs} argument(s)",
            kernel_name(kernel),
            kernel.num_params,
            show(&mut params.iter().map(|&s| u64::from(s)))
        )));
    }
    let Some(sizes) = sizes else {
        return Ok(());
    };
    for (i, (&want, &got)) in params.iter().zip(sizes).enumerate() {
        if u64::from(want) != got as u64 {
            return Err(Error::invalid_value(format!(
                "ptxrtLaunchKernelEx: parameter {i} of kernel '{}' is {want} bytes, but \
                 argument {i} is {got} bytes (the kernel's parameters are {} bytes)",
                kernel_name(kernel),
                show(&mut params.iter().map(|&s| u64::from(s)))
            )));
        }
    }
    Ok(())
}

/// `ptxrtLaunchKernelEx`: [`launch_kernel`] after [`check_arguments`].
///
/// # Safety
/// `kernel` is null or a kernel descriptor; `args` has `nargs` entries, each pointing at
/// a value of `sizes[i]` bytes (when `sizes` is given); as [`launch_kernel`] otherwise.
pub unsafe fn launch_kernel_ex(
    kernel: *const Kernel,
    config: &LaunchConfig,
    args: *mut *mut c_void,
    sizes: Option<&[usize]>,
    nargs: usize,
) -> Result<(), Error> {
    let k = usable_kernel(kernel, "ptxrtLaunchKernelEx")?;
    if nargs > 0 && args.is_null() {
        return Err(Error::invalid_value(format!("ptxrtLaunchKernelEx: kernel '{}': nargs is {nargs} but args is NULL", kernel_name(k))));
    }
    check_arguments(k, nargs, sizes)?;
    // SAFETY: the count matches the kernel's, the rest is the caller's contract.
    unsafe { launch_kernel(kernel, config.grid, config.block, args, config.dynamic_shared_bytes, config.stream) }
}

/// One argument of [`launch`]: the address of a value and its size, borrowed for the
/// launch.
#[derive(Clone, Copy, Debug)]
pub struct KernelArg<'a> {
    ptr: *mut c_void,
    size: usize,
    _value: std::marker::PhantomData<&'a ()>,
}

impl<'a> KernelArg<'a> {
    /// A parameter's value: an integer, a float, a pointer (the address the kernel gets,
    /// e.g. `slice.as_mut_ptr()`) or a `#[repr(C)]` struct passed by value.
    pub fn value<T: Copy>(value: &'a T) -> Self {
        KernelArg { ptr: value as *const T as *mut c_void, size: std::mem::size_of::<T>(), _value: std::marker::PhantomData }
    }
}

/// Launches `kernel` from Rust with the number and sizes of `args` checked against its
/// parameters, and waits for it.
///
/// # Safety
/// The kernel runs with the pointers it is given: every address it reads or writes
/// through them must be valid for that access for the whole launch (the typed launchers
/// of `ptx2llvm --rust` pass slices, whose bounds the kernel must respect).
pub unsafe fn launch(kernel: &Kernel, config: &LaunchConfig, args: &[KernelArg<'_>]) -> Result<(), Error> {
    let mut ptrs: Vec<*mut c_void> = args.iter().map(|a| a.ptr).collect();
    let sizes: Vec<usize> = args.iter().map(|a| a.size).collect();
    // SAFETY: every pointer points at a live value of its size (borrowed for 'a); the
    // kernel's accesses are the caller's contract.
    unsafe { launch_kernel_ex(kernel, config, ptrs.as_mut_ptr(), Some(&sizes), args.len()) }
}

/// `%gridid` of the next launch.
static NEXT_GRID_ID: AtomicU64 = AtomicU64::new(1);

/// Runs one grid of the launch `tree` to completion on the pool.
///
/// # Safety
/// `k` is a validated descriptor; `args` as for [`launch_kernel`].
pub(crate) unsafe fn run_grid(k: &Kernel, grid: Dim3, block: Dim3, args: *mut *mut c_void, dynamic_shared: usize, tree: &LaunchTree) -> Result<(), Error> {
    // SAFETY: forwarded contract.
    unsafe { run_grid_mode(k, grid, block, args, dynamic_shared, tree, false) }
}

/// [`run_grid`], cooperative (all blocks resident) when asked.
///
/// # Safety
/// As [`run_grid`].
pub(crate) unsafe fn run_grid_mode(
    k: &Kernel,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    dynamic_shared: usize,
    tree: &LaunchTree,
    cooperative: bool,
) -> Result<(), Error> {
    let name = || kernel_name(k);
    let memory = check_configuration(k, grid, block, dynamic_shared, registry::max_dynamic_shared(k))?;
    let total = grid.volume();
    if cooperative {
        let per_sm = max_active_blocks_per_sm(k, block.volume(), dynamic_shared as u64);
        let limit = per_sm * pool::num_threads() as u64;
        if total > limit {
            return Err(Error::new(
                crate::error::ErrorCode::CooperativeLaunchTooLarge,
                format!(
                    "kernel '{}': a cooperative launch of {total} blocks exceeds the {limit} blocks that can be resident at once ({per_sm} per multiprocessor for this block size and shared memory, times {} multiprocessors = worker threads)",
                    name(),
                    pool::num_threads()
                ),
            ));
        }
    }
    // Lives until the grid has run; zeroed per launch, as a fresh barrier.
    let mut workspace = GridWorkspace { size: std::mem::size_of::<GridWorkspace>() as u32, barrier: 0 };
    let info = LaunchInfo {
        args,
        grid,
        block,
        // Bounded by MAX_SHARED_OPTIN in `check_configuration`.
        dynamic_shared_bytes: dynamic_shared as u32,
        num_workers: if cooperative { total as u32 } else { pool::num_threads() as u32 },
        grid_id: NEXT_GRID_ID.fetch_add(1, Ordering::Relaxed),
        grid_workspace: if cooperative { &mut workspace } else { std::ptr::null_mut() },
    };
    const WHAT: &str = "ptxrtLaunchKernel";
    let Some(block_fn) = k.block_fn else {
        return Err(Error::invalid_value(format!("{WHAT}: kernel '{}' has no block function", name())));
    };
    let mut job = Job::new(k, block_fn, info, memory.shared_bytes, memory.context_bytes, memory.local_bytes, tree);
    if cooperative {
        pool::run_coresident(&mut job)
    } else {
        pool::run(&mut job)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    fn kernel() -> Kernel {
        unsafe extern "C" fn nop(_: *mut crate::abi::BlockEnv) -> i32 {
            0
        }
        Kernel {
            abi_version: ABI_VERSION,
            num_params: 0,
            name: c"k".as_ptr(),
            block_fn: Some(nop),
            param_sizes: std::ptr::null(),
            param_aligns: std::ptr::null(),
            static_shared_bytes: 100,
            context_bytes_per_thread: 12,
            local_bytes_per_thread: 3,
            flags: 0,
            reqntid: Dim3::default(),
            maxntid: Dim3::default(),
        }
    }

    fn code(r: Result<BlockMemory, Error>) -> Option<ErrorCode> {
        r.err().map(|e| e.code)
    }

    #[test]
    fn memory_sizes() {
        let k = kernel();
        let m = check_configuration(&k, Dim3::new(1, 1, 1), Dim3::new(8, 4, 2), 40, None).unwrap();
        assert_eq!(m, BlockMemory { shared_bytes: 112 + 40, context_bytes: 12 * 64, local_bytes: 3 * 64 });
    }

    #[test]
    fn shared_limits() {
        let k = kernel();
        let g = Dim3::new(1, 1, 1);
        let b = Dim3::new(32, 1, 1);
        let ok = 48 * 1024 - 112;
        assert!(check_configuration(&k, g, b, ok, None).is_ok());
        assert_eq!(code(check_configuration(&k, g, b, ok + 1, None)), Some(ErrorCode::InvalidConfiguration));
        assert!(check_configuration(&k, g, b, 100_000, Some(100_000)).is_ok());
        assert_eq!(code(check_configuration(&k, g, b, 100_001, Some(100_000))), Some(ErrorCode::InvalidConfiguration));
        // An opt-in below the default lowers the limit, as in CUDA.
        assert_eq!(code(check_configuration(&k, g, b, 2000, Some(1000))), Some(ErrorCode::InvalidConfiguration));
    }
}

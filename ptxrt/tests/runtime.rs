//! End-to-end tests of the runtime through its C API, with hand-written block functions
//! standing in for what ptx2llvm emits.

use std::ffi::{c_void, CStr};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, Once};

use ptxrt::abi::{BlockEnv, Dim3, Kernel, LaunchInfo, Module, SymbolInfo, ABI_VERSION};
use ptxrt::capi::*;
use ptxrt::ErrorCode;

// ----------------------------------------------------------------------------------------
// Fixtures
// ----------------------------------------------------------------------------------------

const SUCCESS: i32 = 0;
const INVALID_VALUE: i32 = ErrorCode::InvalidValue as i32;
const INVALID_CONFIGURATION: i32 = ErrorCode::InvalidConfiguration as i32;
const NOT_FOUND: i32 = ErrorCode::NotFound as i32;
const LAUNCH_FAILURE: i32 = ErrorCode::LaunchFailure as i32;

/// Tests that change or depend on the worker count take this lock.
static THREADS_LOCK: Mutex<()> = Mutex::new(());
fn threads_lock() -> MutexGuard<'static, ()> {
    THREADS_LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

const fn kernel(name: &'static CStr, num_params: u32, block_fn: ptxrt::abi::BlockFn, static_shared: u32, context: u32, local: u32) -> Kernel {
    Kernel {
        abi_version: ABI_VERSION,
        num_params,
        name: name.as_ptr(),
        block_fn: Some(block_fn),
        param_sizes: null(),
        param_aligns: null(),
        static_shared_bytes: static_shared,
        context_bytes_per_thread: context,
        local_bytes_per_thread: local,
        flags: 0,
        reqntid: Dim3::new(0, 0, 0),
        maxntid: Dim3::new(0, 0, 0),
    }
}

static K_GRID: Kernel = kernel(c"check_grid", 2, check_grid, 0, 0, 0);
static K_BUFFERS: Kernel = kernel(c"check_buffers", 2, check_buffers, 100, 24, 40);
static K_EMPTY_BUFFERS: Kernel = kernel(c"check_empty_buffers", 2, check_buffers, 0, 0, 0);
static K_FAIL: Kernel = kernel(c"fail_at", 2, fail_at, 0, 0, 0);
static K_NOP: Kernel = kernel(c"nop", 0, nop, 0, 0, 0);
static K_NOP2: Kernel = kernel(c"nop2", 0, nop, 0, 0, 0);
static K_REQNTID: Kernel = Kernel { reqntid: Dim3::new(32, 1, 1), ..kernel(c"reqntid32", 0, nop, 0, 0, 0) };
static K_MAXNTID: Kernel = Kernel { maxntid: Dim3::new(64, 1, 1), ..kernel(c"maxntid64", 0, nop, 0, 0, 0) };
static K_STATIC_SHARED: Kernel = kernel(c"static_shared", 0, nop, 40000, 0, 0);
static K_NESTED: Kernel = kernel(c"nested", 1, nested, 0, 0, 0);
static K_FP: Kernel = kernel(c"fp_env", 2, fp_env, 0, 0, 0);
static K_BAD_ABI: Kernel = Kernel { abi_version: ABI_VERSION + 1, ..kernel(c"bad_abi", 0, nop, 0, 0, 0) };

#[repr(transparent)]
struct KPtr(*const Kernel);
// SAFETY: points at immutable statics.
unsafe impl Sync for KPtr {}

static KERNELS: [KPtr; 12] = [
    KPtr(&K_GRID),
    KPtr(&K_BUFFERS),
    KPtr(&K_EMPTY_BUFFERS),
    KPtr(&K_FAIL),
    KPtr(&K_NOP),
    KPtr(&K_REQNTID),
    KPtr(&K_MAXNTID),
    KPtr(&K_STATIC_SHARED),
    KPtr(&K_NESTED),
    KPtr(&K_FP),
    KPtr(&K_BAD_ABI),
    KPtr(null()),
];

/// A `.global .u32 gvar[4]` of the module.
static GVAR: [AtomicU32; 4] = [AtomicU32::new(1), AtomicU32::new(2), AtomicU32::new(3), AtomicU32::new(4)];
static CVAR: AtomicU64 = AtomicU64::new(0xC0FFEE);

static SYMBOLS: [SymbolInfo; 2] = [
    SymbolInfo { name: c"gvar".as_ptr(), addr: &GVAR as *const _ as *mut c_void, size: 16 },
    SymbolInfo { name: c"cvar".as_ptr(), addr: &CVAR as *const _ as *mut c_void, size: 8 },
];

static MODULE: Module = Module {
    abi_version: ABI_VERSION,
    num_kernels: 12,
    kernels: &KERNELS as *const [KPtr; 12] as *const *const Kernel,
    num_symbols: 2,
    symbols: &SYMBOLS as *const [SymbolInfo; 2] as *const SymbolInfo,
};

/// A second module: "nop" is defined again (the first registration wins) plus "nop2".
static KERNELS2: [KPtr; 2] = [KPtr(&K_NOP2), KPtr(&K_NOP)];
static MODULE2: Module =
    Module { abi_version: ABI_VERSION, num_kernels: 2, kernels: &KERNELS2 as *const [KPtr; 2] as *const *const Kernel, num_symbols: 0, symbols: null() };

/// A module from a future ABI: must never be looked into.
static K_FUTURE: Kernel = kernel(c"future_kernel", 0, nop, 0, 0, 0);
static KERNELS_FUTURE: [KPtr; 1] = [KPtr(&K_FUTURE)];
static MODULE_FUTURE: Module =
    Module { abi_version: 7, num_kernels: 1, kernels: &KERNELS_FUTURE as *const [KPtr; 1] as *const *const Kernel, num_symbols: 0, symbols: null() };

fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: the modules are statics; registering twice or NULL must be harmless.
        unsafe {
            __ptxrt_register_module(&MODULE);
            __ptxrt_register_module(&MODULE2);
            __ptxrt_register_module(&MODULE);
            __ptxrt_register_module(&MODULE_FUTURE);
            __ptxrt_register_module(null());
        }
    });
}

fn launch(k: *const Kernel, grid: Dim3, block: Dim3, args: &mut [*mut c_void], dyn_shared: usize) -> i32 {
    let args = if args.is_empty() { null_mut() } else { args.as_mut_ptr() };
    // SAFETY: the test kernels read exactly the arguments each test passes.
    unsafe { ptxrtLaunchKernel(k, grid, block, args, dyn_shared, null_mut()) }
}

fn arg<T>(v: &T) -> *mut c_void {
    v as *const T as *mut c_void
}

fn last_message() -> String {
    // SAFETY: the runtime returns a NUL-terminated string valid until the next failure.
    unsafe { CStr::from_ptr(ptxrtGetLastErrorMessage()) }.to_string_lossy().into_owned()
}

fn d3(x: u32, y: u32, z: u32) -> Dim3 {
    Dim3::new(x, y, z)
}

// ----------------------------------------------------------------------------------------
// Block functions
// ----------------------------------------------------------------------------------------

/// Fails the block with a static message.
macro_rules! ensure {
    ($env:expr, $cond:expr, $msg:literal) => {
        if !$cond {
            $env.error_code = LAUNCH_FAILURE;
            $env.error_message = concat!($msg, "\0").as_ptr().cast();
            return LAUNCH_FAILURE;
        }
    };
}

/// # Safety (all block functions)
/// Called by the runtime with a valid env whose launch info points at the arguments the
/// test passed.
unsafe fn param<T: Copy>(env: &BlockEnv, i: usize) -> T {
    unsafe { *(*(*env.launch).args.add(i) as *const T) }
}

/// What `check_grid` expects to see in the launch info.
#[derive(Clone, Copy)]
struct Expect {
    grid: Dim3,
    block: Dim3,
    dynamic_shared_bytes: u32,
}

/// params: (counts: *const AtomicU32, expect: Expect). Counts each block once by ctaid.
unsafe extern "C" fn check_grid(env: *mut BlockEnv) -> i32 {
    let env = unsafe { &mut *env };
    let info: &LaunchInfo = unsafe { &*env.launch };
    let counts: *const AtomicU32 = unsafe { param(env, 0) };
    let expect: Expect = unsafe { param(env, 1) };
    ensure!(env, info.grid == expect.grid, "wrong grid");
    ensure!(env, info.block == expect.block, "wrong block");
    ensure!(env, info.dynamic_shared_bytes == expect.dynamic_shared_bytes, "wrong dynamic shared size");
    ensure!(env, info.num_workers >= 1 && env.worker_index < info.num_workers, "bad worker index");
    let c = env.ctaid;
    ensure!(env, c.x < info.grid.x && c.y < info.grid.y && c.z < info.grid.z, "ctaid out of range");
    let lin = c.x as usize + info.grid.x as usize * (c.y as usize + info.grid.y as usize * c.z as usize);
    unsafe { &*counts.add(lin) }.fetch_add(1, Ordering::Relaxed);
    0
}

/// Per worker (`%smid`): the windows it handed out, to check reuse and disjointness.
struct BufferLog {
    windows: Vec<[AtomicUsize; 3]>,
    blocks: AtomicUsize,
}

impl BufferLog {
    fn new() -> Self {
        BufferLog { windows: (0..1024).map(|_| std::array::from_fn(|_| AtomicUsize::new(0))).collect(), blocks: AtomicUsize::new(0) }
    }
}

/// The window sizes the block function must be able to use.
#[derive(Clone, Copy)]
struct BufferSpec {
    static_shared_aligned: usize,
    context_per_thread: usize,
    local_per_thread: usize,
}

/// Writes then verifies every byte of a window.
unsafe fn fill_and_verify(ptr: *mut u8, len: usize, seed: u8) -> bool {
    let bytes = unsafe { std::slice::from_raw_parts_mut(ptr, len) };
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = seed.wrapping_add(i as u8);
    }
    bytes.iter().enumerate().all(|(i, &b)| b == seed.wrapping_add(i as u8))
}

/// params: (log: *const BufferLog, spec: BufferSpec).
unsafe extern "C" fn check_buffers(env: *mut BlockEnv) -> i32 {
    let env = unsafe { &mut *env };
    let info: &LaunchInfo = unsafe { &*env.launch };
    let log: &BufferLog = unsafe { &*param::<*const BufferLog>(env, 0) };
    let spec: BufferSpec = unsafe { param(env, 1) };
    let threads = info.block.x as usize * info.block.y as usize * info.block.z as usize;
    let shared_len = spec.static_shared_aligned + info.dynamic_shared_bytes as usize;
    let context_len = spec.context_per_thread * threads;
    let local_len = spec.local_per_thread * threads;
    ensure!(env, !env.shared.is_null() && !env.context.is_null() && !env.local.is_null(), "null window");
    ensure!(env, env.shared as usize & 15 == 0, "shared window not 16-byte aligned");
    ensure!(env, env.shared as usize & 63 == 0, "shared window not 64-byte aligned");
    ensure!(env, env.context as usize & 63 == 0, "context not 64-byte aligned");
    ensure!(env, env.local as usize & 63 == 0, "local not 64-byte aligned");
    let seed = (env.ctaid.x ^ env.ctaid.y ^ env.ctaid.z) as u8;
    ensure!(env, unsafe { fill_and_verify(env.shared, shared_len, seed) }, "shared window corrupted");
    ensure!(env, unsafe { fill_and_verify(env.context, context_len, seed) }, "context corrupted");
    ensure!(env, unsafe { fill_and_verify(env.local, local_len, seed) }, "local corrupted");
    // The same worker must hand out the same windows for every block of a launch.
    let w = env.worker_index as usize;
    ensure!(env, w < log.windows.len(), "worker index too large for the test");
    for (slot, p) in log.windows[w].iter().zip([env.shared, env.context, env.local]) {
        let prev = slot.swap(p as usize, Ordering::Relaxed);
        ensure!(env, prev == 0 || prev == p as usize, "a worker's window moved between blocks");
    }
    log.blocks.fetch_add(1, Ordering::Relaxed);
    0
}

/// params: (fail_linear_index: u64, executed: *const AtomicU64). The block with that
/// linear index fails; with bit 63 set its message is NULL.
unsafe extern "C" fn fail_at(env: *mut BlockEnv) -> i32 {
    let env = unsafe { &mut *env };
    let info: &LaunchInfo = unsafe { &*env.launch };
    let target: u64 = unsafe { param(env, 0) };
    let executed: &AtomicU64 = unsafe { &*param::<*const AtomicU64>(env, 1) };
    executed.fetch_add(1, Ordering::Relaxed);
    let c = env.ctaid;
    let (gx, gy) = (info.grid.x as u64, info.grid.y as u64);
    let lin = c.x as u64 + gx * (c.y as u64 + gy * c.z as u64);
    if lin == target & !(1 << 63) {
        env.error_code = LAUNCH_FAILURE;
        env.error_message = if target >> 63 == 1 { null() } else { c"trap at test.ptx:1:1".as_ptr() };
        return LAUNCH_FAILURE;
    }
    0
}

unsafe extern "C" fn nop(_env: *mut BlockEnv) -> i32 {
    0
}

/// params: (result: *const AtomicU32). Tries a launch from inside a kernel.
unsafe extern "C" fn nested(env: *mut BlockEnv) -> i32 {
    let env = unsafe { &mut *env };
    let result: &AtomicU32 = unsafe { &*param::<*const AtomicU32>(env, 0) };
    let rc = unsafe { ptxrtLaunchKernel(&K_NOP, d3(1, 1, 1), d3(1, 1, 1), null_mut(), 0, null_mut()) };
    result.store(rc as u32, Ordering::Relaxed);
    0
}

/// The FP control register (MXCSR / FPCR), read independently of the runtime.
fn fp_control() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        let mut csr: u32 = 0;
        // SAFETY: stores MXCSR into a local.
        unsafe { std::arch::asm!("stmxcsr [{0}]", in(reg) &mut csr as *mut u32, options(nostack)) };
        u64::from(csr)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        ptxrt::pool::fpenv::get()
    }
}

fn set_fp_control(v: u64) {
    #[cfg(target_arch = "x86_64")]
    {
        let csr = v as u32;
        // SAFETY: loads a valid MXCSR value from a local.
        unsafe { std::arch::asm!("ldmxcsr [{0}]", in(reg) &csr as *const u32, options(nostack)) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        ptxrt::pool::fpenv::set(v)
    }
}

/// params: (seen: *const AtomicU64 per block, dirty: u64). Records the FP control
/// register per block; with `dirty` != 0 then writes that value to it.
unsafe extern "C" fn fp_env(env: *mut BlockEnv) -> i32 {
    let env = unsafe { &mut *env };
    let seen: *const AtomicU64 = unsafe { param(env, 0) };
    let dirty: u64 = unsafe { param(env, 1) };
    unsafe { &*seen.add(env.ctaid.x as usize) }.store(fp_control(), Ordering::Relaxed);
    if dirty != 0 {
        set_fp_control(dirty);
    }
    0
}

// ----------------------------------------------------------------------------------------
// Tests
// ----------------------------------------------------------------------------------------

fn run_grid(grid: Dim3, block: Dim3, dyn_shared: usize) {
    let total = grid.volume() as usize;
    let counts: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(0)).collect();
    let expect = Expect { grid, block, dynamic_shared_bytes: dyn_shared as u32 };
    let counts_ptr = counts.as_ptr();
    let rc = launch(&K_GRID, grid, block, &mut [arg(&counts_ptr), arg(&expect)], dyn_shared);
    assert_eq!(rc, SUCCESS, "{}", last_message());
    let wrong: Vec<(usize, u32)> = counts.iter().map(|c| c.load(Ordering::Relaxed)).enumerate().filter(|&(_, c)| c != 1).take(5).collect();
    assert!(wrong.is_empty(), "blocks not run exactly once (index, count): {wrong:?}");
}

#[test]
fn every_block_of_a_3d_grid_runs_once_with_its_ctaid() {
    setup();
    run_grid(d3(70, 3, 2), d3(4, 2, 3), 0);
    run_grid(d3(1, 1, 1), d3(1024, 1, 1), 0);
    run_grid(d3(3, 5, 7), d3(1, 1, 64), 1000);
    run_grid(d3(1, 65535, 1), d3(1, 1, 1), 0);
}

#[test]
fn every_block_of_a_large_1d_grid_runs_once() {
    setup();
    run_grid(d3(100_000, 1, 1), d3(32, 1, 1), 16);
}

#[test]
fn windows_have_the_promised_size_and_alignment() {
    setup();
    for (k, grid, block, dyn_shared) in [
        (&K_BUFFERS, d3(50, 2, 1), d3(32, 4, 1), 0usize),
        (&K_BUFFERS, d3(40, 1, 1), d3(1024, 1, 1), 1000),
        (&K_BUFFERS, d3(7, 1, 3), d3(8, 8, 8), 48 * 1024 - 112),
        (&K_EMPTY_BUFFERS, d3(20, 1, 1), d3(1, 1, 1), 0),
        (&K_EMPTY_BUFFERS, d3(20, 1, 1), d3(1, 1, 1), 48 * 1024),
    ] {
        let log = BufferLog::new();
        let spec = BufferSpec {
            static_shared_aligned: (k.static_shared_bytes as usize).div_ceil(16) * 16,
            context_per_thread: k.context_bytes_per_thread as usize,
            local_per_thread: k.local_bytes_per_thread as usize,
        };
        let log_ptr: *const BufferLog = &log;
        let rc = launch(k, grid, block, &mut [arg(&log_ptr), arg(&spec)], dyn_shared);
        assert_eq!(rc, SUCCESS, "{}", last_message());
        assert_eq!(log.blocks.load(Ordering::Relaxed) as u64, grid.volume());
        // Windows of different workers (and the three of one worker) never overlap.
        let threads = block.volume() as usize;
        let lens = [spec.static_shared_aligned + dyn_shared, spec.context_per_thread * threads, spec.local_per_thread * threads];
        let mut ranges: Vec<(usize, usize)> = log
            .windows
            .iter()
            .flat_map(|w| w.iter().zip(lens).map(|(p, len)| (p.load(Ordering::Relaxed), len)))
            .filter(|&(p, len)| p != 0 && len != 0)
            .map(|(p, len)| (p, p + len))
            .collect();
        ranges.sort();
        for pair in ranges.windows(2) {
            assert!(pair[0].1 <= pair[1].0, "windows overlap: {pair:?}");
        }
    }
}

#[test]
fn opted_in_dynamic_shared_memory_is_usable() {
    setup();
    let log = BufferLog::new();
    let spec = BufferSpec { static_shared_aligned: 0, context_per_thread: 0, local_per_thread: 0 };
    let log_ptr: *const BufferLog = &log;
    let big = 200 * 1024;
    // K_EMPTY_BUFFERS is only raised here.
    let rc = launch(&K_EMPTY_BUFFERS, d3(4, 1, 1), d3(64, 1, 1), &mut [arg(&log_ptr), arg(&spec)], big);
    assert_eq!(rc, INVALID_CONFIGURATION);
    assert_eq!(unsafe { ptxrtFuncSetMaxDynamicSharedMemory(&K_EMPTY_BUFFERS, 227 * 1024 + 1) }, INVALID_VALUE);
    assert!(last_message().contains("227"), "{}", last_message());
    assert_eq!(unsafe { ptxrtFuncSetMaxDynamicSharedMemory(&K_EMPTY_BUFFERS, big) }, SUCCESS);
    let rc = launch(&K_EMPTY_BUFFERS, d3(4, 1, 1), d3(64, 1, 1), &mut [arg(&log_ptr), arg(&spec)], big);
    assert_eq!(rc, SUCCESS, "{}", last_message());
    assert_eq!(log.blocks.load(Ordering::Relaxed), 4);
    let rc = launch(&K_EMPTY_BUFFERS, d3(4, 1, 1), d3(64, 1, 1), &mut [arg(&log_ptr), arg(&spec)], big + 1);
    assert_eq!(rc, INVALID_CONFIGURATION);
    // Static shared memory above 48 KiB needs the opt-in too (40000 + 10000 > 48 KiB).
    assert_eq!(launch(&K_STATIC_SHARED, d3(1, 1, 1), d3(1, 1, 1), &mut [], 10000), INVALID_CONFIGURATION);
    assert_eq!(unsafe { ptxrtFuncSetMaxDynamicSharedMemory(&K_STATIC_SHARED, 227 * 1024 - 40000 + 1) }, INVALID_VALUE);
    assert_eq!(unsafe { ptxrtFuncSetMaxDynamicSharedMemory(&K_STATIC_SHARED, 10000) }, SUCCESS);
    assert_eq!(launch(&K_STATIC_SHARED, d3(1, 1, 1), d3(1, 1, 1), &mut [], 10000), SUCCESS);
    assert_eq!(unsafe { ptxrtFuncSetMaxDynamicSharedMemory(null(), 100) }, INVALID_VALUE);
    ptxrtGetLastError();
}

#[test]
fn invalid_configurations_are_rejected() {
    setup();
    let bad_blocks = [d3(1025, 1, 1), d3(1, 1025, 1), d3(1, 1, 65), d3(32, 32, 2), d3(0, 1, 1), d3(1, 0, 1), d3(1, 1, 0)];
    let bad_grids = [d3(1 << 31, 1, 1), d3(1, 65536, 1), d3(1, 1, 65536), d3(0, 1, 1), d3(1, 0, 1), d3(1, 1, 0)];
    let cases = bad_blocks.iter().map(|&b| (&K_NOP, d3(1, 1, 1), b, 0)).chain(bad_grids.iter().map(|&g| (&K_NOP, g, d3(1, 1, 1), 0))).chain([
        (&K_NOP, d3(1, 1, 1), d3(1, 1, 1), 48 * 1024 + 1),
        (&K_REQNTID, d3(1, 1, 1), d3(64, 1, 1), 0),
        (&K_REQNTID, d3(1, 1, 1), d3(16, 2, 1), 0),
        (&K_MAXNTID, d3(1, 1, 1), d3(65, 1, 1), 0),
        (&K_MAXNTID, d3(1, 1, 1), d3(8, 4, 3), 0),
    ]);
    assert_eq!(ptxrtGetLastError(), SUCCESS);
    for (k, grid, block, dyn_shared) in cases {
        let rc = launch(k, grid, block, &mut [], dyn_shared);
        assert_eq!(rc, INVALID_CONFIGURATION, "grid {grid:?} block {block:?} dyn {dyn_shared}");
        assert_eq!(ptxrtPeekAtLastError(), INVALID_CONFIGURATION);
        assert!(last_message().starts_with("kernel '"), "{}", last_message());
        assert_eq!(ptxrtGetLastError(), INVALID_CONFIGURATION);
        assert_eq!(ptxrtGetLastError(), SUCCESS);
    }
    // The limits themselves are fine.
    for (k, grid, block) in [
        (&K_NOP, d3(1, 1, 1), d3(1024, 1, 1)),
        (&K_NOP, d3(1, 1, 1), d3(1, 1024, 1)),
        (&K_NOP, d3(1, 1, 1), d3(16, 1, 64)),
        (&K_NOP, d3(1, 3, 65535), d3(1, 1, 1)),
        (&K_REQNTID, d3(2, 1, 1), d3(32, 1, 1)),
        (&K_MAXNTID, d3(2, 1, 1), d3(64, 1, 1)),
        (&K_MAXNTID, d3(2, 1, 1), d3(4, 4, 4)),
    ] {
        assert_eq!(launch(k, grid, block, &mut [], 0), SUCCESS, "grid {grid:?} block {block:?}");
    }
    assert_eq!(launch(&K_NOP, d3(1, 1, 1), d3(1, 1, 1), &mut [], 48 * 1024), SUCCESS);

    // A failure stays until taken, even across successful calls; messages name the problem.
    assert_eq!(launch(&K_NOP, d3(1, 1, 1), d3(2048, 1, 1), &mut [], 0), INVALID_CONFIGURATION);
    assert!(last_message().contains("(2048,1,1)"), "{}", last_message());
    assert_eq!(launch(&K_NOP, d3(1, 1, 1), d3(1, 1, 1), &mut [], 0), SUCCESS);
    assert_eq!(ptxrtPeekAtLastError(), INVALID_CONFIGURATION);
    assert_eq!(ptxrtGetLastError(), INVALID_CONFIGURATION);
    assert!(last_message().contains("(2048,1,1)"), "message survives GetLastError: {}", last_message());
}

#[test]
fn invalid_values_are_rejected() {
    setup();
    let grid = d3(1, 1, 1);
    let one = d3(1, 1, 1);
    assert_eq!(launch(null(), grid, one, &mut [], 0), INVALID_VALUE);
    assert!(last_message().contains("NULL"), "{}", last_message());
    // Null args for a kernel with parameters, and a null parameter pointer.
    assert_eq!(launch(&K_GRID, grid, one, &mut [], 0), INVALID_VALUE);
    assert!(last_message().contains("args"), "{}", last_message());
    assert_eq!(launch(&K_FAIL, grid, one, &mut [null_mut(), null_mut()], 0), INVALID_VALUE);
    assert!(last_message().contains("args[0]"), "{}", last_message());
    // A stream.
    let fake_stream = 0u8;
    let rc = unsafe { ptxrtLaunchKernel(&K_NOP, grid, one, null_mut(), 0, arg(&fake_stream)) };
    assert_eq!(rc, INVALID_VALUE);
    assert!(last_message().contains("stream"), "{}", last_message());
    // A descriptor of another ABI version.
    assert_eq!(launch(&K_BAD_ABI, grid, one, &mut [], 0), INVALID_VALUE);
    assert!(last_message().contains(&format!("ABI version {}", ABI_VERSION + 1)), "{}", last_message());
    assert_eq!(ptxrtGetLastError(), INVALID_VALUE);
    // A launch from inside a kernel is refused, not a deadlock.
    let result = AtomicU32::new(12345);
    let result_ptr: *const AtomicU32 = &result;
    assert_eq!(launch(&K_NESTED, d3(3, 1, 1), one, &mut [arg(&result_ptr)], 0), SUCCESS);
    assert_eq!(result.load(Ordering::Relaxed), INVALID_VALUE as u32);
}

#[test]
fn a_failing_block_fails_the_launch_and_the_next_launch_works() {
    setup();
    let _g = threads_lock();
    let saved = ptxrtGetNumThreads();
    let executed = AtomicU64::new(0);
    let executed_ptr: *const AtomicU64 = &executed;
    let grid = d3(10, 10, 10);

    let target: u64 = 3 + 10 * (4 + 10 * 5);
    let rc = launch(&K_FAIL, grid, d3(2, 2, 2), &mut [arg(&target), arg(&executed_ptr)], 0);
    assert_eq!(rc, LAUNCH_FAILURE);
    assert_eq!(last_message(), "kernel 'fail_at' block (3,4,5): trap at test.ptx:1:1");
    assert_eq!(ptxrtGetLastError(), LAUNCH_FAILURE);

    let target_no_msg: u64 = (1 << 63) | 7;
    let rc = launch(&K_FAIL, grid, d3(2, 2, 2), &mut [arg(&target_no_msg), arg(&executed_ptr)], 0);
    assert_eq!(rc, LAUNCH_FAILURE);
    assert_eq!(last_message(), "kernel 'fail_at' block (7,0,0): unknown error");

    // With one worker, nothing after the failing block runs.
    assert_eq!(ptxrtSetNumThreads(1), SUCCESS);
    executed.store(0, Ordering::Relaxed);
    let target: u64 = 10;
    let rc = launch(&K_FAIL, grid, d3(1, 1, 1), &mut [arg(&target), arg(&executed_ptr)], 0);
    assert_eq!(rc, LAUNCH_FAILURE);
    assert_eq!(executed.load(Ordering::Relaxed), 11);

    // With several workers the others stop taking blocks: far fewer than all run.
    assert_eq!(ptxrtSetNumThreads(4), SUCCESS);
    executed.store(0, Ordering::Relaxed);
    let target: u64 = 0;
    let rc = launch(&K_FAIL, d3(1_000_000, 1, 1), d3(1, 1, 1), &mut [arg(&target), arg(&executed_ptr)], 0);
    assert_eq!(rc, LAUNCH_FAILURE);
    assert_eq!(last_message(), "kernel 'fail_at' block (0,0,0): trap at test.ptx:1:1");
    assert!(executed.load(Ordering::Relaxed) < 1_000_000);

    // The runtime is fine afterwards.
    assert_eq!(ptxrtSetNumThreads(saved), SUCCESS);
    executed.store(0, Ordering::Relaxed);
    let never = u64::MAX >> 1;
    let rc = launch(&K_FAIL, grid, d3(2, 2, 2), &mut [arg(&never), arg(&executed_ptr)], 0);
    assert_eq!(rc, SUCCESS, "{}", last_message());
    assert_eq!(executed.load(Ordering::Relaxed), 1000);
    run_grid(d3(9, 9, 9), d3(3, 3, 3), 0);
}

/// Launches a grid whose blocks record `%smid` and `%nsmid`; returns (num_workers, max
/// worker index).
fn observed_workers() -> (u32, u32) {
    let grid = d3(64, 1, 1);
    let counts: Vec<AtomicU32> = (0..64).map(|_| AtomicU32::new(0)).collect();
    let expect = Expect { grid, block: d3(1, 1, 1), dynamic_shared_bytes: 0 };
    let counts_ptr = counts.as_ptr();
    assert_eq!(launch(&K_GRID, grid, d3(1, 1, 1), &mut [arg(&counts_ptr), arg(&expect)], 0), SUCCESS);
    let log = BufferLog::new();
    let spec = BufferSpec { static_shared_aligned: 0, context_per_thread: 0, local_per_thread: 0 };
    let log_ptr: *const BufferLog = &log;
    assert_eq!(launch(&K_EMPTY_BUFFERS, grid, d3(1, 1, 1), &mut [arg(&log_ptr), arg(&spec)], 0), SUCCESS);
    let max_worker = log.windows.iter().rposition(|w| w[0].load(Ordering::Relaxed) != 0).unwrap_or(0) as u32;
    (ptxrtGetNumThreads() as u32, max_worker)
}

#[test]
fn set_num_threads_controls_the_pool() {
    setup();
    let _g = threads_lock();
    let saved = ptxrtGetNumThreads();
    assert!(saved >= 1);
    assert_eq!(ptxrtSetNumThreads(0), INVALID_VALUE);
    assert_eq!(ptxrtGetLastError(), INVALID_VALUE);
    assert_eq!(ptxrtSetNumThreads(-3), INVALID_VALUE);
    assert_eq!(ptxrtGetNumThreads(), saved);
    for n in [3, 1, 5, 2] {
        assert_eq!(ptxrtSetNumThreads(n), SUCCESS);
        assert_eq!(ptxrtGetNumThreads(), n);
        let (workers, max_worker) = observed_workers();
        assert_eq!(workers, n as u32);
        assert!(max_worker < n as u32, "worker index {max_worker} with {n} workers");
    }
    assert_eq!(ptxrtSetNumThreads(saved), SUCCESS);
}

/// Run by `num_threads_env_var` in a child process; does nothing otherwise.
#[test]
fn child_env_threads() {
    let Ok(expected) = std::env::var("PTXRT_TEST_EXPECT_THREADS") else {
        return;
    };
    setup();
    let expected: u32 = expected.parse().unwrap();
    assert_eq!(ptxrtGetNumThreads() as u32, expected);
    let grid = d3(16, 1, 1);
    let counts: Vec<AtomicU32> = (0..16).map(|_| AtomicU32::new(0)).collect();
    let expect = Expect { grid, block: d3(1, 1, 1), dynamic_shared_bytes: 0 };
    let counts_ptr = counts.as_ptr();
    assert_eq!(launch(&K_GRID, grid, d3(1, 1, 1), &mut [arg(&counts_ptr), arg(&expect)], 0), SUCCESS);
    let (workers, max_worker) = observed_workers();
    assert_eq!(workers, expected);
    assert!(max_worker < expected);
    println!("CHILD-OK {expected}");
}

#[test]
fn num_threads_env_var() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()).min(1024);
    for (value, expected) in [("3", 3), (" 1 ", 1), ("abc", cores), ("0", cores), ("-4", cores)] {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "child_env_threads", "--test-threads=1", "--nocapture"])
            .env("PTXRT_NUM_THREADS", value)
            .env("PTXRT_TEST_EXPECT_THREADS", expected.to_string())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains(&format!("CHILD-OK {expected}")),
            "PTXRT_NUM_THREADS={value:?}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn kernels_and_symbols_are_found_by_name() {
    setup();
    let k = unsafe { ptxrtFindKernel(c"check_grid".as_ptr()) };
    assert_eq!(k, &K_GRID as *const Kernel);
    // The first registered module wins for duplicate names; later modules are searched.
    assert_eq!(unsafe { ptxrtFindKernel(c"nop".as_ptr()) }, &K_NOP as *const Kernel);
    assert_eq!(unsafe { ptxrtFindKernel(c"nop2".as_ptr()) }, &K_NOP2 as *const Kernel);
    assert_eq!(ptxrtGetLastError(), SUCCESS);

    assert!(unsafe { ptxrtFindKernel(c"no_such_kernel".as_ptr()) }.is_null());
    assert_eq!(ptxrtPeekAtLastError(), NOT_FOUND);
    assert!(last_message().contains("'no_such_kernel'"), "{}", last_message());
    assert_eq!(ptxrtGetLastError(), NOT_FOUND);
    assert!(unsafe { ptxrtFindKernel(null()) }.is_null());
    assert_eq!(ptxrtGetLastError(), INVALID_VALUE);
    // Descriptors of other ABI versions are not used, and the message says why.
    assert!(unsafe { ptxrtFindKernel(c"bad_abi".as_ptr()) }.is_null());
    assert!(unsafe { ptxrtFindKernel(c"future_kernel".as_ptr()) }.is_null());
    assert_eq!(ptxrtGetLastError(), NOT_FOUND);
    assert!(last_message().contains("ABI version"), "{}", last_message());

    let mut addr: *mut c_void = null_mut();
    let mut size: usize = 0;
    assert_eq!(unsafe { ptxrtGetSymbol(c"gvar".as_ptr(), &mut addr, &mut size) }, SUCCESS);
    assert_eq!((addr as *const c_void, size), (&GVAR as *const _ as *const c_void, 16));
    // Writable in place, as cudaMemcpyToSymbol would.
    unsafe { (*(addr as *const [AtomicU32; 4]))[2].store(42, Ordering::Relaxed) };
    assert_eq!(GVAR[2].load(Ordering::Relaxed), 42);
    assert_eq!(unsafe { ptxrtGetSymbol(c"cvar".as_ptr(), &mut addr, &mut size) }, SUCCESS);
    assert_eq!(unsafe { *(addr as *const u64) }, 0xC0FFEE);
    assert_eq!(size, 8);

    assert_eq!(unsafe { ptxrtGetSymbol(c"nothing".as_ptr(), &mut addr, &mut size) }, NOT_FOUND);
    assert!(last_message().contains("'nothing'"), "{}", last_message());
    assert_eq!(unsafe { ptxrtGetSymbol(null(), &mut addr, &mut size) }, INVALID_VALUE);
    assert_eq!(unsafe { ptxrtGetSymbol(c"gvar".as_ptr(), null_mut(), &mut size) }, INVALID_VALUE);
    assert_eq!(unsafe { ptxrtGetSymbol(c"gvar".as_ptr(), &mut addr, null_mut()) }, INVALID_VALUE);
    assert_eq!(ptxrtGetLastError(), INVALID_VALUE);

    // The Rust API agrees.
    assert!(std::ptr::eq(ptxrt::find_kernel(c"fail_at").unwrap(), &K_FAIL));
    assert_eq!(ptxrt::find_kernel(c"zzz").unwrap_err().code, ErrorCode::NotFound);
}

#[test]
fn error_names_and_strings() {
    let name = |c| unsafe { CStr::from_ptr(ptxrtGetErrorName(c)) }.to_str().unwrap().to_owned();
    let string = |c| unsafe { CStr::from_ptr(ptxrtGetErrorString(c)) }.to_str().unwrap().to_owned();
    assert_eq!(name(SUCCESS), "ptxrtSuccess");
    assert_eq!(name(INVALID_VALUE), "ptxrtErrorInvalidValue");
    assert_eq!(name(2), "ptxrtErrorMemoryAllocation");
    assert_eq!(name(INVALID_CONFIGURATION), "ptxrtErrorInvalidConfiguration");
    assert_eq!(name(NOT_FOUND), "ptxrtErrorNotFound");
    assert_eq!(name(LAUNCH_FAILURE), "ptxrtErrorLaunchFailure");
    assert_eq!(name(999), "ptxrtErrorUnknown");
    assert_eq!(name(3), "unrecognized error code");
    assert_eq!(string(3), "unrecognized error code");
    assert!(string(INVALID_CONFIGURATION).starts_with("invalid configuration"));
    assert!(string(LAUNCH_FAILURE).contains("launch failure"));
    // A thread that never failed has no message.
    let fresh = std::thread::spawn(|| (ptxrtPeekAtLastError(), last_message())).join().unwrap();
    assert_eq!(fresh, (SUCCESS, String::new()));
}

#[test]
fn concurrent_launches_from_four_host_threads() {
    setup();
    let results: Vec<Vec<u32>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4u32)
            .map(|t| {
                s.spawn(move || {
                    let grid = d3(37 + t, 5, 1 + t % 2);
                    let block = d3(8, 1, 1);
                    let counts: Vec<AtomicU32> = (0..grid.volume()).map(|_| AtomicU32::new(0)).collect();
                    let expect = Expect { grid, block, dynamic_shared_bytes: 64 * t };
                    let counts_ptr = counts.as_ptr();
                    for i in 0..25 {
                        let rc = launch(&K_GRID, grid, block, &mut [arg(&counts_ptr), arg(&expect)], 64 * t as usize);
                        assert_eq!(rc, SUCCESS, "{}", last_message());
                        if t == 3 && i % 5 == 0 {
                            // Errors stay with the thread that caused them.
                            assert_eq!(launch(&K_NOP, grid, d3(0, 1, 1), &mut [], 0), INVALID_CONFIGURATION);
                        }
                    }
                    let last = ptxrtGetLastError();
                    assert_eq!(last, if t == 3 { INVALID_CONFIGURATION } else { SUCCESS });
                    counts.iter().map(|c| c.load(Ordering::Relaxed)).collect()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (t, counts) in results.iter().enumerate() {
        assert!(counts.iter().all(|&c| c == 25), "host thread {t}: {counts:?}");
    }
}

#[test]
fn workers_run_with_the_default_fp_environment() {
    setup();
    let host_before = fp_control();
    #[cfg(target_arch = "x86_64")]
    let (dirty, default) = (0x9FC0u64, 0x1F80u64); // FTZ | DAZ | all exceptions masked
    #[cfg(target_arch = "aarch64")]
    let (dirty, default) = (1u64 << 24, 0u64); // FZ
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    return;

    set_fp_control(dirty);
    let seen: Vec<AtomicU64> = (0..256).map(|_| AtomicU64::new(u64::MAX)).collect();
    let seen_ptr = seen.as_ptr();
    // First launch: blocks also dirty their worker's register; the second launch must
    // still start from the default everywhere.
    for dirty_in_kernel in [dirty, 0] {
        let rc = launch(&K_FP, d3(256, 1, 1), d3(1, 1, 1), &mut [arg(&seen_ptr), arg(&dirty_in_kernel)], 0);
        assert_eq!(rc, SUCCESS, "{}", last_message());
        assert_eq!(fp_control(), dirty, "the host thread's setting is restored");
    }
    set_fp_control(host_before);
    let wrong: Vec<u64> = seen.iter().map(|s| s.load(Ordering::Relaxed)).filter(|&v| v != default).collect();
    assert!(wrong.is_empty(), "blocks saw {wrong:x?}");
}

#[cfg(unix)]
extern "C" {
    fn fork() -> i32;
    fn waitpid(pid: i32, status: *mut i32, options: i32) -> i32;
    fn _exit(code: i32) -> !;
    fn alarm(seconds: u32) -> u32;
}

/// Run by `a_forked_child_gets_its_own_pool` in a child process; does nothing otherwise.
#[cfg(unix)]
#[test]
fn child_fork() {
    if std::env::var_os("PTXRT_TEST_FORK").is_none() {
        return;
    }
    setup();
    assert_eq!(ptxrtSetNumThreads(3), SUCCESS);
    // The pool now has helper threads.
    run_grid(d3(300, 1, 1), d3(1, 1, 1), 0);
    // SAFETY: the child only launches (which is what is tested) and then _exits.
    let pid = unsafe { fork() };
    assert!(pid >= 0);
    if pid == 0 {
        // A broken runtime hangs here: SIGALRM then ends the child instead of leaving it
        // behind (holding its parents' pipes open).
        // SAFETY: plain syscall wrapper.
        unsafe { alarm(10) };
        let ok = std::panic::catch_unwind(|| run_grid(d3(300, 1, 1), d3(1, 1, 1), 0)).is_ok();
        // SAFETY: ends the forked child without running the parent's atexit handlers.
        unsafe { _exit(if ok { 0 } else { 1 }) };
    }
    let mut status = 0;
    // SAFETY: waits for our own child.
    assert_eq!(unsafe { waitpid(pid, &mut status, 0) }, pid);
    assert_eq!(status, 0, "the forked child failed");
    run_grid(d3(300, 1, 1), d3(1, 1, 1), 0); // the parent's pool still works
    println!("CHILD-OK fork");
}

#[cfg(unix)]
#[test]
fn a_forked_child_gets_its_own_pool() {
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_fork", "--test-threads=1", "--nocapture"])
        .env("PTXRT_TEST_FORK", "1")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A broken runtime hangs in the forked child: give up after a while.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the forked child hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("CHILD-OK fork"), "{stdout}");
}

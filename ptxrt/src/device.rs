//! The functions CUDA device code calls by name: `vprintf`, `malloc`, `free` and
//! `__assertfail` (what `printf`, `new`/`malloc` and `assert` compile to in PTX).
//!
//! A translated module declares them as `.extern .func`; ptx2llvm names every `.func`
//! `__ptx_<name>` and gives it the signature
//! `i32 f(BlockEnv *env, u8 *local, u32 tid_x, u32 tid_y, u32 tid_z, param pointers..., result pointers...)`
//! returning 0, or an error code whose message is in `env` (see ptx2llvm's
//! `lower/exec/function.rs`). Each `.param` argument arrives as a pointer to its bytes.

use crate::abi::{BlockEnv, Kernel};
use crate::error::ErrorCode;
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr, CString};

extern "C" {
    fn snprintf(buf: *mut c_char, size: usize, format: *const c_char, ...) -> c_int;
    fn printf(format: *const c_char, ...) -> c_int;
    fn fflush(stream: *mut c_void) -> c_int;
    fn malloc(size: usize) -> *mut c_void;
    fn free(ptr: *mut c_void);
}

thread_local! {
    /// The message of the last failed assertion on this worker: `BlockEnv::error_message`
    /// must outlive the block function's return, and the worker reads it right after.
    static ASSERT_MESSAGE: RefCell<CString> = RefCell::new(CString::default());
}

/// Stack a device library call needs free when it starts: C's `printf` and `malloc` and
/// the runtime's launch queue take locks, and a stack overflow while one is held would
/// leave it held for the rest of the process (see `crate::stacks`).
const LIBRARY_CALL_STACK_BYTES: usize = 16 << 10;

/// Ends the launch with a stack overflow (returns the status to give back) when the calling
/// thread's stack has no room left for the library call `what`.
unsafe fn check_stack_room(env: *mut BlockEnv, tx: u32, ty: u32, tz: u32, what: &str) -> Result<(), i32> {
    if crate::stacks::check_room(LIBRARY_CALL_STACK_BYTES).is_ok() {
        return Ok(());
    }
    crate::sched::fail(
        env,
        format!(
            "stack overflow in thread ({tx},{ty},{tz}): too little stack left to call `{what}` (unbounded or too deep recursion?); raise PTXRT_STACK_BYTES (or PTXRT_FIBER_STACK_BYTES for a kernel that runs as fibers) if the depth is intended"
        ),
    );
    Err(ErrorCode::LaunchFailure as i32)
}

/// One argument of a device `printf`, as the format string says to read it.
enum Arg {
    Int(i64),
    Float(f64),
    Ptr(u64),
}

/// Reads `size` bytes at `offset` (aligned up to `size`) of the argument buffer.
///
/// # Safety
/// `buf` must hold the arguments the format string describes (CUDA's vprintf layout).
unsafe fn take(buf: *const u8, offset: &mut usize, size: usize) -> u64 {
    *offset = offset.div_ceil(size) * size;
    let p = buf.add(*offset);
    *offset += size;
    match size {
        8 => (p as *const u64).read_unaligned(),
        _ => (p as *const u32).read_unaligned() as u64,
    }
}

/// Formats CUDA's `vprintf(format, args)`: the argument buffer holds each argument at
/// an offset aligned to its size; integers take 4 bytes (8 with `l`/`ll`/`j`/`z`/`t`),
/// floating-point values 8 (promoted to double), strings and pointers 8. Each conversion is
/// formatted by the C library's own `snprintf`, so the output is exactly C's.
///
/// # Safety
/// `format` must be a NUL-terminated string and `buf` must hold its arguments.
pub unsafe fn format_vprintf(format: *const c_char, buf: *const u8) -> (Vec<u8>, i32) {
    let fmt = CStr::from_ptr(format).to_bytes();
    let mut out = Vec::new();
    let mut offset = 0usize;
    let mut count = 0i32;
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        if fmt.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        // Flags, width, precision (`*` reads an int argument), length, conversion.
        let mut spec = vec![b'%'];
        let mut star_args = vec![];
        while i < fmt.len() && b"-+ #0".contains(&fmt[i]) {
            spec.push(fmt[i]);
            i += 1;
        }
        let mut number = |spec: &mut Vec<u8>, i: &mut usize, star_args: &mut Vec<i32>| {
            if fmt.get(*i) == Some(&b'*') {
                star_args.push(take(buf, &mut offset, 4) as u32 as i32);
                spec.push(b'*');
                *i += 1;
            } else {
                while *i < fmt.len() && fmt[*i].is_ascii_digit() {
                    spec.push(fmt[*i]);
                    *i += 1;
                }
            }
        };
        number(&mut spec, &mut i, &mut star_args);
        if fmt.get(i) == Some(&b'.') {
            spec.push(b'.');
            i += 1;
            number(&mut spec, &mut i, &mut star_args);
        }
        let mut long = false;
        while i < fmt.len() && b"hlLqjzt".contains(&fmt[i]) {
            long |= matches!(fmt[i], b'l' | b'L' | b'q' | b'j' | b'z' | b't');
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        let arg = match conv {
            b'd' | b'i' => {
                let raw = take(buf, &mut offset, if long { 8 } else { 4 });
                Arg::Int(if long { raw as i64 } else { raw as u32 as i32 as i64 })
            }
            b'u' | b'x' | b'X' | b'o' | b'c' => {
                let raw = take(buf, &mut offset, if long { 8 } else { 4 });
                Arg::Int(if long { raw as i64 } else { raw as u32 as i64 })
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => Arg::Float(f64::from_bits(take(buf, &mut offset, 8))),
            b's' | b'p' => Arg::Ptr(take(buf, &mut offset, 8)),
            _ => {
                // Unknown conversion: printed as written, consuming nothing.
                out.extend_from_slice(&fmt[start..i]);
                continue;
            }
        };
        count += 1;
        let signed = matches!(conv, b'd' | b'i');
        match (&arg, conv) {
            (Arg::Int(_), b'c') => {}
            (Arg::Int(_), _) => spec.extend_from_slice(b"ll"),
            _ => {}
        }
        spec.push(conv);
        spec.push(0);
        let cfmt = spec.as_ptr() as *const c_char;
        let mut piece = vec![0u8; 64];
        loop {
            let p = piece.as_mut_ptr() as *mut c_char;
            let n = piece.len();
            let (w, pr) = (star_args.first().copied(), star_args.get(1).copied());
            let written = match (arg_ref(&arg), star_args.len()) {
                (ArgRef::Int(v), 0) if signed || conv == b'c' => snprintf(p, n, cfmt, v as std::ffi::c_longlong),
                (ArgRef::Int(v), 0) => snprintf(p, n, cfmt, v as u64 as std::ffi::c_ulonglong),
                (ArgRef::Int(v), 1) => snprintf(p, n, cfmt, w.unwrap_or(0), v),
                (ArgRef::Int(v), _) => snprintf(p, n, cfmt, w.unwrap_or(0), pr.unwrap_or(0), v),
                (ArgRef::Float(v), 0) => snprintf(p, n, cfmt, v),
                (ArgRef::Float(v), 1) => snprintf(p, n, cfmt, w.unwrap_or(0), v),
                (ArgRef::Float(v), _) => snprintf(p, n, cfmt, w.unwrap_or(0), pr.unwrap_or(0), v),
                (ArgRef::Ptr(v), k) => {
                    // `%s` of a null pointer prints "(null)", as glibc and CUDA do.
                    let ptr = if conv == b's' && v == 0 { c"(null)".as_ptr() as u64 } else { v };
                    match k {
                        0 => snprintf(p, n, cfmt, ptr as *const c_void),
                        1 => snprintf(p, n, cfmt, w.unwrap_or(0), ptr as *const c_void),
                        _ => snprintf(p, n, cfmt, w.unwrap_or(0), pr.unwrap_or(0), ptr as *const c_void),
                    }
                }
            };
            if written < 0 {
                break;
            }
            if (written as usize) < n {
                out.extend_from_slice(&piece[..written as usize]);
                break;
            }
            piece.resize(written as usize + 1, 0);
        }
    }
    (out, count)
}

#[derive(Clone, Copy)]
enum ArgRef {
    Int(i64),
    Float(f64),
    Ptr(u64),
}

fn arg_ref(a: &Arg) -> ArgRef {
    match a {
        Arg::Int(v) => ArgRef::Int(*v),
        Arg::Float(v) => ArgRef::Float(*v),
        Arg::Ptr(v) => ArgRef::Ptr(*v),
    }
}

/// `vprintf(.param .b64 format, .param .b64 args) -> .param .b32`: prints on the host's C
/// `stdout` (one call per line of output, so lines of different threads never interleave,
/// and the order with the host program's own `printf` output is kept).
///
/// # Safety
/// Called by generated code with pointers to the `.param` arguments.
#[no_mangle]
pub unsafe extern "C" fn __ptx_vprintf(
    env: *mut BlockEnv,
    _local: *mut u8,
    tx: u32,
    ty: u32,
    tz: u32,
    format: *const u64,
    args: *const u64,
    ret: *mut i32,
) -> i32 {
    if let Err(status) = check_stack_room(env, tx, ty, tz, "printf") {
        return status;
    }
    let fmt = format.read_unaligned() as *const c_char;
    let buf = args.read_unaligned() as *const u8;
    if fmt.is_null() {
        ret.write_unaligned(-1);
        return 0;
    }
    let (text, count) = format_vprintf(fmt, buf);
    printf(c"%.*s".as_ptr(), text.len() as c_int, text.as_ptr() as *const c_char);
    ret.write_unaligned(count);
    0
}

/// Device `malloc(.param .b64 size) -> .param .b64`: the host heap (null when it is exhausted).
///
/// # Safety
/// Called by generated code with pointers to the `.param` arguments.
#[no_mangle]
pub unsafe extern "C" fn __ptx_malloc(env: *mut BlockEnv, _local: *mut u8, tx: u32, ty: u32, tz: u32, size: *const u64, ret: *mut u64) -> i32 {
    if let Err(status) = check_stack_room(env, tx, ty, tz, "malloc") {
        return status;
    }
    ret.write_unaligned(malloc(size.read_unaligned() as usize) as u64);
    0
}

/// Device `free(.param .b64 ptr)`.
///
/// # Safety
/// Called by generated code with pointers to the `.param` arguments; the pointer came
/// from device `malloc` (or is null).
#[no_mangle]
pub unsafe extern "C" fn __ptx_free(env: *mut BlockEnv, _local: *mut u8, tx: u32, ty: u32, tz: u32, ptr: *const u64) -> i32 {
    if let Err(status) = check_stack_room(env, tx, ty, tz, "free") {
        return status;
    }
    free(ptr.read_unaligned() as *mut c_void);
    0
}

/// `__assertfail(message, file, line, function, charSize)`: what a failed `assert` calls.
/// Prints CUDA's message on stderr and ends the launch with `ptxrtErrorLaunchFailure`
/// carrying the same text.
///
/// # Safety
/// Called by generated code with pointers to the `.param` arguments.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __ptx___assertfail(
    env: *mut BlockEnv,
    _local: *mut u8,
    tx: u32,
    ty: u32,
    tz: u32,
    message: *const u64,
    file: *const u64,
    line: *const u32,
    function: *const u64,
    _char_size: *const u64,
) -> i32 {
    if let Err(status) = check_stack_room(env, tx, ty, tz, "__assertfail") {
        return status;
    }
    let text = |p: *const u64| {
        let s = p.read_unaligned() as *const c_char;
        if s.is_null() {
            "?".to_string()
        } else {
            CStr::from_ptr(s).to_string_lossy().into_owned()
        }
    };
    let env = &mut *env;
    let b = env.ctaid;
    let msg = format!(
        "{}:{}: {}: block: [{},{},{}], thread: [{tx},{ty},{tz}] Assertion `{}` failed.",
        text(file),
        line.read_unaligned(),
        text(function),
        b.x,
        b.y,
        b.z,
        text(message)
    );
    fflush(std::ptr::null_mut());
    eprintln!("{msg}");
    let c = CString::new(msg).unwrap_or_default();
    env.error_message = ASSERT_MESSAGE.with(|m| {
        *m.borrow_mut() = c;
        m.borrow().as_ptr()
    });
    env.error_code = ErrorCode::LaunchFailure as i32;
    ErrorCode::LaunchFailure as i32
}

// ----------------------------------------------------------------------------------------
// Hooks of generated code: clocks, `nanosleep`, `brkpt`
// ----------------------------------------------------------------------------------------

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: c_int, tp: *mut Timespec) -> c_int;
    fn raise(signal: c_int) -> c_int;
}

/// `CLOCK_MONOTONIC` on Linux (all architectures).
const CLOCK_MONOTONIC: c_int = 1;
/// `SIGTRAP` on Linux (x86-64 and AArch64).
const SIGTRAP: c_int = 5;

fn monotonic_ns() -> u64 {
    let mut t = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid `struct timespec` (LP64 layout) for the call to fill in.
    if unsafe { clock_gettime(CLOCK_MONOTONIC, &mut t) } != 0 {
        return 0;
    }
    (t.tv_sec as u64).wrapping_mul(1_000_000_000).wrapping_add(t.tv_nsec as u64)
}

/// `%globaltimer`: nanoseconds of the system's monotonic clock (the ISA fixes the unit,
/// not the epoch; a monotonic clock never steps back when the wall clock is adjusted).
#[no_mangle]
pub extern "C" fn __ptxrt_globaltimer() -> u64 {
    monotonic_ns()
}

/// `%clock64` on targets whose cycle counter user code cannot read (x86-64 objects read
/// `rdtsc` inline): the monotonic clock in nanoseconds, which also only goes forward.
#[no_mangle]
pub extern "C" fn __ptxrt_clock64() -> u64 {
    monotonic_ns()
}

/// The ISA's longest `nanosleep`.
const MAX_SLEEP_NS: u32 = 1_000_000;
/// Shorter sleeps spin (yielding the core) instead of asking the OS, whose timer slack
/// (~50 µs) would overshoot the ISA's bound of twice the requested time.
const SPIN_BELOW_NS: u32 = 100_000;

/// `nanosleep.u32 t`: sleeps about `t` ns (at most 1 ms, as on the GPU).
#[no_mangle]
pub extern "C" fn __ptxrt_nanosleep(ns: u32) {
    let ns = ns.min(MAX_SLEEP_NS);
    let wanted = std::time::Duration::from_nanos(u64::from(ns));
    if ns >= SPIN_BELOW_NS {
        std::thread::sleep(wanted);
        return;
    }
    let start = std::time::Instant::now();
    // Another block this one waits for may need the core.
    std::thread::yield_now();
    while start.elapsed() < wanted {
        std::hint::spin_loop();
    }
}

/// `brkpt`: a function to put a debugger breakpoint on (`break __ptxrt_brkpt`). With the
/// environment variable `PTXRT_BRKPT=trap` it raises `SIGTRAP`, which stops the program
/// under a debugger (and ends it without one); otherwise it does nothing, as a GPU
/// without an attached debugger does.
#[no_mangle]
#[inline(never)]
pub extern "C" fn __ptxrt_brkpt() {
    static TRAP: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *TRAP.get_or_init(|| std::env::var("PTXRT_BRKPT").is_ok_and(|v| v == "trap")) {
        // SAFETY: raising a signal has no memory-safety preconditions.
        unsafe {
            raise(SIGTRAP);
        }
    }
}

// ----------------------------------------------------------------------------------------
// Device-side launches (CUDA dynamic parallelism)
// ----------------------------------------------------------------------------------------
//
// A kernel launches a child grid with `cudaGetParameterBuffer` + `cudaLaunchDevice` (or the
// `V2` pair, which names the kernel and configuration when the buffer is requested). The
// child is checked at once (the call returns CUDA's error code for a bad kernel or
// configuration) and queued; queued grids run, in launch order, after the launching grid
// has finished and before the host's launch returns (`run_device_launches`), and they may
// launch grids themselves. The queue and the parameter buffers belong to the host launch
// (its `LaunchTree`): host threads that launch at the same time each have their own, and a
// worker finds the one of the grid it is running through a thread-local (`TreeGuard`). This is one of the schedules CUDA allows: a child grid may start
// any time after its launch and the parent grid is only complete when its children are. A
// parent that waits for its children from the device (the removed device-side
// `cudaDeviceSynchronize`) is not supported.

/// CUDA's `cudaErrorInvalidValue` and `cudaErrorInvalidConfiguration`.
const CUDA_ERROR_INVALID_VALUE: i32 = 1;
const CUDA_ERROR_INVALID_CONFIGURATION: i32 = 9;

#[derive(Clone, Copy)]
struct ChildConfig {
    /// A validated `*const Kernel`.
    kernel: usize,
    grid: crate::abi::Dim3,
    block: crate::abi::Dim3,
    shared: u32,
}

struct ParamBuffer {
    layout: std::alloc::Layout,
    /// Given to `cudaGetParameterBufferV2`.
    config: Option<ChildConfig>,
}

struct DeviceLaunches {
    /// Parameter buffers handed out, by address; freed when the host's launch ends.
    buffers: std::collections::BTreeMap<usize, ParamBuffer>,
    queue: Vec<(ChildConfig, usize)>,
}

/// One host launch and the grids launched from the device during it: where those grids
/// wait to run and the parameter buffers handed out for them. Creating one allocates
/// nothing; a launch without device-side launches never touches its lock.
pub(crate) struct LaunchTree {
    launches: std::sync::Mutex<DeviceLaunches>,
    /// Some block called a device-launch function: there may be something to run or free.
    used: std::sync::atomic::AtomicBool,
}

impl LaunchTree {
    pub(crate) const fn new() -> LaunchTree {
        LaunchTree {
            launches: std::sync::Mutex::new(DeviceLaunches { buffers: std::collections::BTreeMap::new(), queue: Vec::new() }),
            used: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut DeviceLaunches) -> T) -> T {
        self.used.store(true, std::sync::atomic::Ordering::Relaxed);
        f(&mut crate::registry::lock(&self.launches))
    }

    /// Whether any device-launch function ran for this launch. Read by the host thread once
    /// every worker has finished the grid (the pool's hand-back orders their writes first).
    fn used(&self) -> bool {
        self.used.load(std::sync::atomic::Ordering::Acquire)
    }
}

impl Drop for LaunchTree {
    fn drop(&mut self) {
        // Normally done by `run_device_launches`; this covers a launch that ended early.
        if self.used() {
            free_buffers(self);
        }
    }
}

thread_local! {
    /// The tree of the grid whose blocks this thread is running (null: none).
    static TREE: std::cell::Cell<*const LaunchTree> = const { std::cell::Cell::new(std::ptr::null()) };
}

/// Makes `tree` the running thread's launch tree until dropped.
pub(crate) struct TreeGuard {
    previous: *const LaunchTree,
}

impl TreeGuard {
    pub(crate) fn enter(tree: *const LaunchTree) -> TreeGuard {
        TreeGuard { previous: TREE.try_with(|t| t.replace(tree)).unwrap_or(std::ptr::null()) }
    }
}

impl Drop for TreeGuard {
    fn drop(&mut self) {
        let _ = TREE.try_with(|t| t.set(self.previous));
    }
}

/// Runs `f` on the device launches of the grid this thread runs blocks of; `None` outside
/// a launch (a device function called from anywhere else).
fn with_launches<T>(f: impl FnOnce(&mut DeviceLaunches) -> T) -> Option<T> {
    let tree = TREE.try_with(|t| t.get()).unwrap_or(std::ptr::null());
    // SAFETY: a non-null TREE is set by a worker for as long as it runs blocks of a launch,
    // and the launch's tree outlives all of them (it lives until the host launch returns).
    unsafe { tree.as_ref() }.map(|tree| tree.with(f))
}

/// Byte offsets of a kernel's parameters in a parameter buffer (each at its alignment, as
/// CUDA lays them out) and the buffer's size.
fn param_offsets(k: &Kernel) -> (Vec<usize>, usize) {
    let n = k.num_params as usize;
    let mut offsets = Vec::with_capacity(n);
    let mut end = 0usize;
    for i in 0..n {
        // SAFETY: a validated descriptor has `num_params` sizes and alignments.
        let (size, align) = unsafe { (*k.param_sizes.add(i) as usize, *k.param_aligns.add(i) as usize) };
        let at = end.div_ceil(align.max(1)) * align.max(1);
        offsets.push(at);
        end = at + size;
    }
    (offsets, end)
}

fn alloc_param_buffer(align: u64, size: u64, config: Option<ChildConfig>) -> u64 {
    let Ok(layout) = std::alloc::Layout::from_size_align(size.max(1) as usize, align.clamp(16, 4096).next_power_of_two() as usize) else {
        return 0;
    };
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        return 0;
    }
    if with_launches(|l| l.buffers.insert(p as usize, ParamBuffer { layout, config })).is_none() {
        // Not inside a launch: nobody would ever free or run it.
        // SAFETY: allocated just above with this layout.
        unsafe { std::alloc::dealloc(p, layout) };
        return 0;
    }
    p as u64
}

/// Checks a device-side launch like a host launch; CUDA's error code on failure.
fn check_child(func: u64, grid: crate::abi::Dim3, block: crate::abi::Dim3, shared: u32) -> Result<ChildConfig, i32> {
    let k = crate::launch::usable_kernel(func as *const Kernel, "cudaLaunchDevice").map_err(|_| CUDA_ERROR_INVALID_VALUE)?;
    if k.num_params > 0 && (k.param_sizes.is_null() || k.param_aligns.is_null()) {
        // Without the parameter layout the buffer cannot be turned into arguments.
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    crate::launch::check_configuration(k, grid, block, shared as usize, crate::registry::max_dynamic_shared(k))
        .map_err(|_| CUDA_ERROR_INVALID_CONFIGURATION)?;
    Ok(ChildConfig { kernel: func as usize, grid, block, shared })
}

/// Queues the launch of the grid whose parameters are in `buffer`.
fn enqueue(config: ChildConfig, buffer: u64) -> i32 {
    // SAFETY: `check_child` validated the descriptor.
    let k = unsafe { &*(config.kernel as *const Kernel) };
    let (_, needed) = param_offsets(k);
    with_launches(|l| match l.buffers.get(&(buffer as usize)) {
        Some(b) if b.layout.size() >= needed => {
            l.queue.push((config, buffer as usize));
            0
        }
        _ => CUDA_ERROR_INVALID_VALUE,
    })
    .unwrap_or(CUDA_ERROR_INVALID_VALUE)
}

unsafe fn read_dim3(p: *const u32) -> crate::abi::Dim3 {
    crate::abi::Dim3::new(p.read_unaligned(), p.add(1).read_unaligned(), p.add(2).read_unaligned())
}

/// `cudaGetParameterBuffer(.param .b64 alignment, .param .b64 size) -> .param .b64`: a
/// zeroed buffer for a child grid's parameters (null when memory is exhausted).
///
/// # Safety
/// Called by generated code with pointers to the `.param` arguments.
#[no_mangle]
pub unsafe extern "C" fn __ptx_cudaGetParameterBuffer(
    env: *mut BlockEnv,
    _local: *mut u8,
    tx: u32,
    ty: u32,
    tz: u32,
    align: *const u64,
    size: *const u64,
    ret: *mut u64,
) -> i32 {
    if let Err(status) = check_stack_room(env, tx, ty, tz, "cudaGetParameterBuffer") {
        return status;
    }
    ret.write_unaligned(alloc_param_buffer(align.read_unaligned(), size.read_unaligned(), None));
    0
}

/// `cudaGetParameterBufferV2(.param .b64 func, .param .b8 grid[12], .param .b8 block[12],
/// .param .b32 sharedMem) -> .param .b64`: a parameter buffer for launching `func` (a
/// kernel's address) with that configuration by `cudaLaunchDeviceV2`; null when the
/// kernel or configuration is not valid.
///
/// # Safety
/// Called by generated code with pointers to the `.param` arguments.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __ptx_cudaGetParameterBufferV2(
    env: *mut BlockEnv,
    _local: *mut u8,
    tx: u32,
    ty: u32,
    tz: u32,
    func: *const u64,
    grid: *const u32,
    block: *const u32,
    shared: *const u32,
    ret: *mut u64,
) -> i32 {
    if let Err(status) = check_stack_room(env, tx, ty, tz, "cudaGetParameterBufferV2") {
        return status;
    }
    let buffer = match check_child(func.read_unaligned(), read_dim3(grid), read_dim3(block), shared.read_unaligned()) {
        Ok(config) => {
            // SAFETY: validated by `check_child`.
            let (_, size) = param_offsets(&*(config.kernel as *const Kernel));
            alloc_param_buffer(64, size as u64, Some(config))
        }
        Err(_) => 0,
    };
    ret.write_unaligned(buffer);
    0
}

/// `cudaLaunchDevice(.param .b64 func, .param .b64 buffer, .param .b8 grid[12], .param .b8
/// block[12], .param .b32 sharedMem, .param .b64 stream) -> .param .b32`: queues the grid
/// (see above); returns 0 or CUDA's error code. Streams are ignored (children run in order).
///
/// # Safety
/// Called by generated code with pointers to the `.param` arguments.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __ptx_cudaLaunchDevice(
    env: *mut BlockEnv,
    _local: *mut u8,
    tx: u32,
    ty: u32,
    tz: u32,
    func: *const u64,
    buffer: *const u64,
    grid: *const u32,
    block: *const u32,
    shared: *const u32,
    _stream: *const u64,
    ret: *mut i32,
) -> i32 {
    if let Err(status) = check_stack_room(env, tx, ty, tz, "cudaLaunchDevice") {
        return status;
    }
    let status = match check_child(func.read_unaligned(), read_dim3(grid), read_dim3(block), shared.read_unaligned()) {
        Ok(config) => enqueue(config, buffer.read_unaligned()),
        Err(code) => code,
    };
    ret.write_unaligned(status);
    0
}

/// `cudaLaunchDeviceV2(.param .b64 buffer, .param .b64 stream) -> .param .b32`: queues the
/// grid a `cudaGetParameterBufferV2` buffer was requested for.
///
/// # Safety
/// Called by generated code with pointers to the `.param` arguments.
#[no_mangle]
pub unsafe extern "C" fn __ptx_cudaLaunchDeviceV2(
    env: *mut BlockEnv,
    _local: *mut u8,
    tx: u32,
    ty: u32,
    tz: u32,
    buffer: *const u64,
    _stream: *const u64,
    ret: *mut i32,
) -> i32 {
    if let Err(status) = check_stack_room(env, tx, ty, tz, "cudaLaunchDeviceV2") {
        return status;
    }
    let buffer = buffer.read_unaligned();
    let status = match with_launches(|l| l.buffers.get(&(buffer as usize)).and_then(|b| b.config)).flatten() {
        Some(config) => enqueue(config, buffer),
        None => CUDA_ERROR_INVALID_VALUE,
    };
    ret.write_unaligned(status);
    0
}

/// Runs the grids launched from the device during the host launch `tree` whose grid just
/// finished (and those they launch), on the calling (host) thread, then frees every
/// parameter buffer. With `run == false` (the launching grid failed) the queued grids are
/// dropped.
pub(crate) fn run_device_launches(tree: &LaunchTree, mut run: bool) -> Result<(), crate::Error> {
    // The common case: the grid launched nothing (no lock to take).
    if !tree.used() {
        return Ok(());
    }
    let mut result = Ok(());
    loop {
        let batch = tree.with(|l| std::mem::take(&mut l.queue));
        if batch.is_empty() {
            break;
        }
        for (config, buffer) in batch {
            if !run {
                continue;
            }
            // SAFETY: validated when it was queued; descriptors live as long as the program.
            let k = unsafe { &*(config.kernel as *const Kernel) };
            let (offsets, _) = param_offsets(k);
            let mut args: Vec<*mut c_void> = offsets.iter().map(|o| (buffer + o) as *mut c_void).collect();
            // SAFETY: each argument points into the parameter buffer, which holds every
            // parameter at its offset (its size was checked when the grid was queued).
            let launched = unsafe { crate::launch::run_grid(k, config.grid, config.block, args.as_mut_ptr(), config.shared as usize, tree) };
            if let Err(e) = launched {
                result = Err(e);
                run = false;
            }
        }
    }
    free_buffers(tree);
    result
}

/// Frees the parameter buffers of `tree`'s device-side launches.
fn free_buffers(tree: &LaunchTree) {
    let buffers = tree.with(|l| std::mem::take(&mut l.buffers));
    for (p, b) in buffers {
        // SAFETY: allocated by `alloc_param_buffer` with this layout, freed once.
        unsafe { std::alloc::dealloc(p as *mut u8, b.layout) };
    }
}

#[cfg(test)]
mod tests {
    use super::format_vprintf;

    fn fmt(f: &std::ffi::CStr, buf: &[u8]) -> String {
        let (out, _) = unsafe { format_vprintf(f.as_ptr(), buf.as_ptr()) };
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn formats_like_c() {
        let mut buf = vec![];
        buf.extend_from_slice(&(-42i32).to_le_bytes());
        buf.extend_from_slice(&[0; 4]); // the double is 8-aligned
        buf.extend_from_slice(&2.5f64.to_le_bytes());
        buf.extend_from_slice(&0xdeadbeefu32.to_le_bytes());
        buf.extend_from_slice(&[0; 4]);
        buf.extend_from_slice(&(-7i64).to_le_bytes());
        let s = c"hi".as_ptr() as u64;
        buf.extend_from_slice(&s.to_le_bytes());
        assert_eq!(fmt(c"a=%d f=%.3f x=%08X l=%ld s=%-4s|%%", &buf), "a=-42 f=2.500 x=DEADBEEF l=-7 s=hi  |%");
        let mut buf = vec![];
        buf.extend_from_slice(&1e-5f64.to_le_bytes());
        buf.extend_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(fmt(c"%g %llu", &buf), "1e-05 18446744073709551615");
    }
}

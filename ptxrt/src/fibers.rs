//! The fiber scheduler: runs a block whose threads are fibers (stackful coroutines).
//!
//! ptx2llvm compiles a kernel this way when a barrier or warp collective can be reached
//! through recursion or a function pointer (see the compiler's `lower/exec/fibers.rs`): the
//! block function calls [`__ptxrt_run_fibers`] with the kernel's per-thread function. Each
//! thread of the block runs on its own stack until it reaches a sync point, where generated
//! code calls [`__ptxrt_fiber_sync`] with the point's descriptor (operands and results in
//! the thread's context slots, as for region code). When no thread can run, the block
//! scheduler of [`crate::sched`] decides which point completes, exactly as it does for
//! region code, and the threads it releases run on.
//!
//! Stacks come from a per-worker pool and are reused across blocks and launches; their
//! size is `PTXRT_FIBER_STACK_BYTES` (default 256 KiB, at least 64 KiB), reserved address
//! space that the OS commits only as it is used. A thread that overflows its stack (deep
//! recursion) ends the launch with an error naming it (see [`crate::stacks`]).

use crate::abi::BlockEnv;
use crate::sched::{self, Block, SyncPoint, DENSE, DONE, EXITED, REGION_MASK, RELEASED, SCRATCH_WORDS};
use crate::stacks::{GuardedCoroutine, GuardedStack, Trap};
use corosensei::{CoroutineResult, Yielder};
use std::cell::{Cell, RefCell};
use std::sync::OnceLock;

/// The per-thread function of a fiber kernel: the `.func` ABI without parameters,
/// `i32 f(env, local (unused), tid.x, tid.y, tid.z)`; returns 0 or `EXIT_STATUS` when the
/// thread ended, otherwise an error code whose message is in the environment.
pub type ThreadFn = unsafe extern "C" fn(*mut BlockEnv, *mut u8, u32, u32, u32) -> i32;

/// Status of a thread that executed `exit` (the compiler's `EXIT_STATUS`).
const EXIT_STATUS: i32 = -1;

/// A fiber gives control back only to wait at a sync point (this descriptor).
type Fiber = GuardedCoroutine<*const SyncPoint>;

thread_local! {
    /// The yielder of the fiber running on this OS thread (null outside fibers).
    static CURRENT: Cell<*const Yielder<(), *const SyncPoint>> = const { Cell::new(std::ptr::null()) };
    /// Stacks of finished fibers, for the next ones.
    static STACKS: RefCell<Vec<GuardedStack>> = const { RefCell::new(Vec::new()) };
    /// The worker's per-block bookkeeping, reused block after block so that running a
    /// block allocates nothing once the worker has run one of the same size.
    static BUFFERS: RefCell<Buffers> = RefCell::new(Buffers::default());
}

/// What `drive` keeps per block: a fiber, a state word and a runnable flag per thread, and
/// the sync points threads have waited at (by the index the scheduler knows them by).
#[derive(Default)]
struct Buffers {
    fibers: Vec<Option<Fiber>>,
    state: Vec<u32>,
    points: Vec<SyncPoint>,
    point_addrs: Vec<*const SyncPoint>,
    runnable: Vec<usize>,
}

fn stack_bytes() -> usize {
    static BYTES: OnceLock<usize> = OnceLock::new();
    *BYTES.get_or_init(|| std::env::var("PTXRT_FIBER_STACK_BYTES").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(256 << 10).max(64 << 10))
}

fn take_stack() -> Result<GuardedStack, String> {
    match STACKS.with(|s| s.borrow_mut().pop()) {
        Some(s) => Ok(s),
        None => GuardedStack::new(stack_bytes()).map_err(|e| format!("cannot allocate a fiber stack of {} bytes: {e}", stack_bytes())),
    }
}

fn recycle(fiber: Fiber) {
    let stack = fiber.into_stack();
    STACKS.with(|s| s.borrow_mut().push(stack));
}

/// Suspends the running fiber at `point`; `Err` outside fibers.
fn suspend(point: *const SyncPoint) -> Result<(), ()> {
    let y = CURRENT.with(|c| c.get());
    if y.is_null() {
        return Err(());
    }
    // SAFETY: CURRENT is set by the fiber itself while it runs and points at its yielder,
    // which lives on the fiber's stack for the fiber's whole life.
    unsafe { (*y).suspend(point) };
    CURRENT.with(|c| c.set(y));
    Ok(())
}

/// Called by a fiber thread at a sync point: waits until the scheduler completes `point`.
/// Returns 0, or an error code (with the message in `env`) when called outside a fiber.
///
/// # Safety
/// `env` is the block's environment; `point` a descriptor that outlives the launch.
#[no_mangle]
pub unsafe extern "C" fn __ptxrt_fiber_sync(env: *mut BlockEnv, point: *const SyncPoint) -> i32 {
    match suspend(point) {
        Ok(()) => 0,
        Err(()) => {
            let what = sched::what(&*point);
            sched::fail(
                env,
                format!("{what} was reached outside the fiber scheduler (a function that synchronizes called from code the compiler did not expect to)"),
            );
            crate::error::ErrorCode::LaunchFailure as i32
        }
    }
}

/// Runs one block of a fiber kernel. Returns 0 or an error code (message in `env`).
///
/// # Safety
/// Called by generated block functions with their environment and per-thread function;
/// `env.context` holds the kernel's context bytes for every thread of the block.
#[no_mangle]
pub unsafe extern "C" fn __ptxrt_run_fibers(env: *mut BlockEnv, thread_fn: ThreadFn) -> i32 {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_block(env, thread_fn))) {
        Ok(Ok(())) => 0,
        Ok(Err(Failure::Thread(code))) => code,
        Ok(Err(Failure::Message(msg))) => fail(env, msg),
        Ok(Err(Failure::Trap(trap, msg))) => {
            sched::fail(env, msg);
            let code = crate::pool::trap_code(trap) as i32;
            (*env).error_code = code;
            code
        }
        Err(_) => fail(env, "internal error in the fiber scheduler".into()),
    }
}

unsafe fn fail(env: *mut BlockEnv, msg: String) -> i32 {
    sched::fail(env, msg);
    crate::error::ErrorCode::LaunchFailure as i32
}

enum Failure {
    /// A thread returned this error code; its message is in the environment.
    Thread(i32),
    Message(String),
    /// A thread's code faulted (or overflowed its stack): the trap and its message.
    Trap(crate::stacks::Trap, String),
}

unsafe fn run_block(env: *mut BlockEnv, thread_fn: ThreadFn) -> Result<(), Failure> {
    BUFFERS.with(|cell| {
        // A second borrow cannot happen (a block runs one fiber scheduler at a time); were it
        // to, fresh buffers are as correct, only slower.
        let mut fresh = Buffers::default();
        let mut borrowed = cell.try_borrow_mut();
        let bufs = match borrowed.as_deref_mut() {
            Ok(b) => b,
            Err(_) => &mut fresh,
        };
        // SAFETY: per this function's contract.
        unsafe { run_block_with(env, thread_fn, bufs) }
    })
}

unsafe fn run_block_with(env: *mut BlockEnv, thread_fn: ThreadFn, bufs: &mut Buffers) -> Result<(), Failure> {
    let launch = &*(*env).launch;
    let dims = launch.block;
    let n = (dims.x * dims.y * dims.z) as usize;
    bufs.fibers.clear();
    bufs.fibers.resize_with(n, || None);
    let result = drive(env, thread_fn, dims, bufs);
    // Threads left suspended (after an error): their stacks hold only generated code's
    // frames and the suspend call, nothing to drop, so they are reset, not unwound.
    for f in bufs.fibers.iter_mut().filter_map(Option::take) {
        let mut f = f;
        if !f.done() {
            f.force_reset();
        }
        recycle(f);
    }
    result
}

/// `%tid` of the block's `t`-th thread (x fastest).
fn thread_index(t: usize, dims: crate::abi::Dim3) -> (u32, u32, u32) {
    let t = t as u32;
    (t % dims.x, t / dims.x % dims.y, t / (dims.x * dims.y))
}

unsafe fn drive(env: *mut BlockEnv, thread_fn: ThreadFn, dims: crate::abi::Dim3, bufs: &mut Buffers) -> Result<(), Failure> {
    let Buffers { fibers, state, points, point_addrs, runnable } = bufs;
    let n = fibers.len();
    // Overwritten for each thread when it first stops.
    state.clear();
    state.resize(n, EXITED);
    points.clear();
    point_addrs.clear();
    let mut scratch = [0u32; SCRATCH_WORDS];
    runnable.clear();
    runnable.extend(0..n);
    loop {
        for &t in runnable.iter() {
            let fiber = match &mut fibers[t] {
                Some(f) => f,
                slot => {
                    let stack = take_stack().map_err(Failure::Message)?;
                    let (x, y, z) = thread_index(t, dims);
                    slot.insert(GuardedCoroutine::new(stack, move |yielder: &Yielder<(), *const SyncPoint>| {
                        CURRENT.with(|c| c.set(yielder));
                        // SAFETY: the compiler's per-thread function for this block's launch.
                        unsafe { thread_fn(env, std::ptr::null_mut(), x, y, z) }
                    }))
                }
            };
            let outcome = fiber.resume();
            CURRENT.with(|c| c.set(std::ptr::null()));
            match outcome {
                CoroutineResult::Yield(p) => {
                    let k = match point_addrs.iter().position(|&q| q == p) {
                        Some(k) => k,
                        None => {
                            point_addrs.push(p);
                            points.push(std::ptr::read(p));
                            points.len() - 1
                        }
                    };
                    state[t] = k as u32;
                }
                CoroutineResult::Return(Ok(0 | EXIT_STATUS)) => {
                    state[t] = EXITED;
                    if let Some(f) = fibers[t].take() {
                        recycle(f);
                    }
                }
                CoroutineResult::Return(Ok(code)) => return Err(Failure::Thread(code)),
                CoroutineResult::Return(Err(Trap::StackOverflow)) => {
                    let (x, y, z) = thread_index(t, dims);
                    return Err(Failure::Message(format!(
                        "stack overflow in thread ({x},{y},{z}): its calls needed more than its fiber stack of {} bytes (unbounded or too deep recursion?); raise PTXRT_FIBER_STACK_BYTES if the depth is intended",
                        stack_bytes()
                    )));
                }
                CoroutineResult::Return(Err(trap)) => {
                    let (x, y, z) = thread_index(t, dims);
                    return Err(Failure::Trap(trap, format!("{} in thread ({x},{y},{z})", trap.describe())));
                }
            }
        }
        let mut block = Block { nthreads: n, state, context: (*env).context, shared: (*env).shared };
        let r = sched::schedule(&mut block, points, &mut scratch).map_err(Failure::Message)?;
        match r {
            DONE => return Ok(()),
            r if r >= 0 => {
                let k = (r & REGION_MASK) as u32;
                let dense = r & DENSE != 0;
                runnable.clear();
                runnable.extend((0..n).filter(|&t| state[t] == k | RELEASED || (dense && state[t] == k)));
            }
            _ => return Err(Failure::Message("the block scheduler failed".into())),
        }
        if runnable.is_empty() {
            return Err(Failure::Message("internal error in the fiber scheduler: no thread can run".into()));
        }
    }
}

//! The worker pool that runs the blocks of a grid.
//!
//! One pool per process, created on the first launch. The host thread that launches takes
//! part as worker 0 and `n - 1` helper threads join it; all of them take *contiguous
//! ranges* of blocks from one atomic counter that sits alone on its cache line (one grab
//! per block would make the counter the bottleneck for small blocks). Each worker owns its
//! shared/context/local buffers and reuses them across blocks and launches, so running a
//! block never allocates. Launches are serialized by a mutex: the pool runs one grid at a
//! time, which is what keeps concurrent host threads safe.
//!
//! Every worker, the launching thread included, runs its blocks on a block stack of its
//! own (`PTXRT_STACK_BYTES`, default 8 MiB, reserved address space committed as used),
//! entered once per launch: a block that overflows it (deep recursion in region code)
//! fails the launch with an error instead of ending the process (see [`crate::stacks`]).

use std::alloc::{self, Layout};
use std::cell::Cell;
use std::ffi::CStr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use crate::abi::{BlockEnv, BlockFn, Dim3, Kernel, LaunchInfo};
use crate::error::Error;
use crate::registry::lock;
use crate::stacks::{self, GuardedStack};

/// Upper bound on workers: far above any core count ptx2llvm runs on, and low enough that
/// a typo in `PTXRT_NUM_THREADS` cannot make us spawn a million threads.
pub const MAX_THREADS: usize = 1024;

/// Stack size of helper threads: they run blocks on their block stack, so their own stack
/// only holds the pool's loop.
const HELPER_STACK_BYTES: usize = 512 << 10;

/// Default size of a worker's block stack: what a Linux main thread usually has, because
/// generated block functions may keep sizeable per-thread arrays on the stack.
const DEFAULT_BLOCK_STACK_BYTES: usize = 8 << 20;

/// Size of the block stacks: `PTXRT_STACK_BYTES` (bytes, at least 64 KiB) or the default.
pub fn block_stack_bytes() -> usize {
    static BYTES: OnceLock<usize> = OnceLock::new();
    *BYTES.get_or_init(|| {
        std::env::var("PTXRT_STACK_BYTES")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(DEFAULT_BLOCK_STACK_BYTES)
            .max(64 << 10)
    })
}

/// Every buffer is aligned this much (a cache line; the ABI promises 16 for shared and 64
/// for context and local memory).
pub const BUFFER_ALIGN: usize = 64;

// ----------------------------------------------------------------------------------------
// Number of workers
// ----------------------------------------------------------------------------------------

/// Set by `ptxrtSetNumThreads`; 0 = not set.
static THREADS_OVERRIDE: AtomicUsize = AtomicUsize::new(0);
/// The default, from `PTXRT_NUM_THREADS` or the core count, computed once.
static THREADS_DEFAULT: OnceLock<usize> = OnceLock::new();

/// Parses a `PTXRT_NUM_THREADS` value: a whole number in `1..=MAX_THREADS` (surrounding
/// blanks allowed). Anything else is ignored so that a bad setting never stops a program.
pub fn parse_num_threads(value: &str) -> Option<usize> {
    value
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=MAX_THREADS).contains(n))
}

fn default_num_threads() -> usize {
    *THREADS_DEFAULT.get_or_init(|| {
        std::env::var("PTXRT_NUM_THREADS")
            .ok()
            .and_then(|v| parse_num_threads(&v))
            .unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map_or(1, |n| n.get())
                    .min(MAX_THREADS)
            })
    })
}

/// The number of workers the next launch uses.
pub fn num_threads() -> usize {
    match THREADS_OVERRIDE.load(Ordering::Relaxed) {
        0 => default_num_threads(),
        n => n,
    }
}

/// Sets the number of workers for later launches.
pub fn set_num_threads(n: i64) -> Result<(), Error> {
    if n < 1 || n > MAX_THREADS as i64 {
        return Err(Error::invalid_value(format!(
            "ptxrtSetNumThreads({n}): the number of worker threads must be between 1 and {MAX_THREADS}"
        )));
    }
    THREADS_OVERRIDE.store(n as usize, Ordering::Relaxed);
    Ok(())
}

// ----------------------------------------------------------------------------------------
// Floating-point environment
// ----------------------------------------------------------------------------------------

/// Kernels must see IEEE default behaviour whatever the host program did to its own
/// floating-point control register (e.g. FTZ/DAZ set by `-ffast-math` startup code): PTX
/// selects flush-to-zero per instruction, and the generated code implements that itself.
pub mod fpenv {
    /// x86-64 MXCSR: round to nearest, no FTZ/DAZ, all exceptions masked, no flags.
    #[cfg(target_arch = "x86_64")]
    pub const DEFAULT: u64 = 0x1F80;
    /// AArch64 FPCR: round to nearest, no flush-to-zero, no default NaN, no traps.
    #[cfg(not(target_arch = "x86_64"))]
    pub const DEFAULT: u64 = 0;

    /// Reads the control register (MXCSR / FPCR; 0 on other targets).
    #[inline]
    pub fn get() -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            let mut csr: u32 = 0;
            // SAFETY: stmxcsr stores the 4-byte MXCSR into `csr`, a valid local.
            unsafe {
                std::arch::asm!("stmxcsr [{0}]", in(reg) &mut csr as *mut u32,
                    options(nostack, preserves_flags));
            }
            u64::from(csr)
        }
        #[cfg(target_arch = "aarch64")]
        {
            let fpcr: u64;
            // SAFETY: reading FPCR has no side effects and is allowed at EL0.
            unsafe {
                std::arch::asm!("mrs {0}, fpcr", out(reg) fpcr, options(nomem, nostack, preserves_flags));
            }
            fpcr
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            0
        }
    }

    /// Writes the control register (no-op on other targets).
    #[inline]
    pub fn set(value: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let csr = value as u32;
            // SAFETY: ldmxcsr loads 4 bytes from `csr`, a valid local; callers pass values
            // read with `get` or `DEFAULT`, whose reserved bits are zero (no #GP).
            unsafe {
                std::arch::asm!("ldmxcsr [{0}]", in(reg) &csr as *const u32,
                    options(nostack, readonly, preserves_flags));
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            // SAFETY: writing FPCR is allowed at EL0; it only changes FP behaviour.
            unsafe {
                std::arch::asm!("msr fpcr, {0}", in(reg) value, options(nomem, nostack, preserves_flags));
            }
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            let _ = value;
        }
    }

    /// Puts the default environment in place and restores the previous one when dropped
    /// (for the host thread, whose settings belong to the program).
    pub struct Guard {
        saved: u64,
    }

    impl Guard {
        pub fn enter() -> Guard {
            let saved = get();
            if saved != DEFAULT {
                set(DEFAULT);
            }
            Guard { saved }
        }
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            if get() != self.saved {
                set(self.saved);
            }
        }
    }
}

// ----------------------------------------------------------------------------------------
// Per-worker buffers
// ----------------------------------------------------------------------------------------

/// A 64-byte aligned heap buffer that only grows. Its contents are scratch: they are not
/// kept when it grows (shared memory is not zero-filled on GPUs either).
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    capacity: usize,
}

// SAFETY: the buffer exclusively owns its allocation; moving it to another thread moves
// that ownership.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// Smallest allocation, so that even zero-sized windows get a valid, aligned,
    /// non-null pointer.
    const MIN_CAPACITY: usize = BUFFER_ALIGN;

    pub fn new() -> AlignedBuf {
        AlignedBuf {
            ptr: NonNull::dangling(),
            capacity: 0,
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Makes room for `bytes` and returns the start of the buffer.
    pub fn ensure(&mut self, bytes: usize) -> Result<*mut u8, Error> {
        if bytes > self.capacity || self.capacity == 0 {
            let want = bytes.max(Self::MIN_CAPACITY);
            // Round up so that slowly growing sizes do not reallocate every launch.
            let want = want.checked_next_power_of_two().unwrap_or(want).max(want);
            let layout = Layout::from_size_align(want, BUFFER_ALIGN)
                .map_err(|_| Error::memory_allocation(format!("cannot allocate {bytes} bytes")))?;
            self.release();
            // SAFETY: `layout` has a non-zero size.
            let p = unsafe { alloc::alloc(layout) };
            self.ptr = NonNull::new(p).ok_or_else(|| {
                Error::memory_allocation(format!("cannot allocate {bytes} bytes"))
            })?;
            self.capacity = want;
        }
        Ok(self.ptr.as_ptr())
    }

    fn release(&mut self) {
        if self.capacity != 0 {
            // SAFETY: `ptr` was allocated in `ensure` with exactly this layout.
            unsafe {
                alloc::dealloc(
                    self.ptr.as_ptr(),
                    Layout::from_size_align_unchecked(self.capacity, BUFFER_ALIGN),
                )
            };
            self.ptr = NonNull::dangling();
            self.capacity = 0;
        }
    }
}

impl Default for AlignedBuf {
    fn default() -> Self {
        AlignedBuf::new()
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        self.release();
    }
}

/// The three memory windows one worker hands to the blocks it runs, and the stack it runs
/// them on (allocated by the first launch).
#[derive(Default)]
pub struct WorkerBuffers {
    shared: AlignedBuf,
    context: AlignedBuf,
    local: AlignedBuf,
    block_stack: Option<GuardedStack>,
}

impl WorkerBuffers {
    fn prepare(&mut self, job: &Job) -> Result<(*mut u8, *mut u8, *mut u8), Error> {
        let what = |which: &'static str, bytes: usize| {
            move |e: Error| {
                Error::memory_allocation(format!(
                    "kernel '{}': cannot allocate {bytes} bytes of {which} memory for a block ({})",
                    job.kernel_name(),
                    e.message
                ))
            }
        };
        let shared = self
            .shared
            .ensure(job.shared_bytes)
            .map_err(what("shared", job.shared_bytes))?;
        let context = self
            .context
            .ensure(job.context_bytes)
            .map_err(what("context", job.context_bytes))?;
        let local = self
            .local
            .ensure(job.local_bytes)
            .map_err(what("local", job.local_bytes))?;
        Ok((shared, context, local))
    }
}

// ----------------------------------------------------------------------------------------
// One launch
// ----------------------------------------------------------------------------------------

/// Keeps a value alone on its 64-byte cache line so the other fields of the job (read by
/// every worker for every block) do not bounce with the counter.
#[repr(align(64))]
struct CacheLine<T>(T);

/// A validated launch, as the workers see it.
pub(crate) struct Job {
    kernel: *const Kernel,
    block_fn: BlockFn,
    /// What `BlockEnv::launch` points at.
    info: LaunchInfo,
    total_blocks: u64,
    shared_bytes: usize,
    context_bytes: usize,
    local_bytes: usize,
    /// Blocks handed out per grab.
    chunk: u64,
    /// Next block (linear index, x fastest) not yet handed out.
    next: CacheLine<AtomicU64>,
    /// Set on the first error: workers stop taking blocks.
    abort: AtomicBool,
    first_error: Mutex<Option<Error>>,
    /// The kernel runs runs of blocks along x in one call (`KERNEL_FUSE_X`), at most
    /// `max_fused` blocks at a time.
    fuse_x: bool,
    max_fused: u64,
}

impl Job {
    /// `info.num_workers` must be the pool size the launch will use.
    pub(crate) fn new(
        kernel: &Kernel,
        block_fn: BlockFn,
        info: LaunchInfo,
        shared_bytes: usize,
        context_bytes: usize,
        local_bytes: usize,
    ) -> Job {
        let total_blocks = info.grid.volume();
        let workers = u64::from(info.num_workers.max(1));
        // About four grabs per worker: big enough to amortize the atomic, small enough to
        // balance blocks of uneven cost.
        let chunk = (total_blocks / (workers * 4)).max(1);
        Job {
            kernel,
            block_fn,
            info,
            total_blocks,
            shared_bytes,
            context_bytes,
            local_bytes,
            chunk,
            next: CacheLine(AtomicU64::new(0)),
            abort: AtomicBool::new(false),
            first_error: Mutex::new(None),
            fuse_x: kernel.flags & crate::abi::KERNEL_FUSE_X != 0,
            // The row of threads stays below 2^20 (the thread index of a fused call is a
            // 32-bit value, and a row this long already amortizes the call).
            max_fused: ((1u64 << 20) / u64::from(info.block.x.max(1))).max(1),
        }
    }

    fn kernel_name(&self) -> String {
        // SAFETY: the descriptor was validated by the launch and outlives the job.
        let kernel = unsafe { &*self.kernel };
        if kernel.name.is_null() {
            return "<unnamed>".to_string();
        }
        // SAFETY: a non-null kernel name is a NUL-terminated constant string.
        unsafe { CStr::from_ptr(kernel.name) }
            .to_string_lossy()
            .into_owned()
    }

    /// Workers needed: no more than there are grabs.
    fn useful_workers(&self) -> usize {
        let grabs = self.total_blocks.div_ceil(self.chunk);
        (self.info.num_workers as u64).min(grabs).max(1) as usize
    }

    /// Records `err` unless an earlier one exists, and stops the grid.
    fn fail(&self, err: Error) {
        let mut slot = lock(&self.first_error);
        if slot.is_none() {
            *slot = Some(err);
        }
        self.abort.store(true, Ordering::Relaxed);
    }

    fn result(&self) -> Result<(), Error> {
        match lock(&self.first_error).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Runs blocks until the grid is exhausted or aborted. `worker` is `%smid`.
    fn run_blocks(&self, worker: usize, buffers: &mut WorkerBuffers) {
        let (shared, context, local) = match buffers.prepare(self) {
            Ok(windows) => windows,
            Err(e) => return self.fail(e),
        };
        let stack = match buffers.block_stack.take() {
            Some(stack) => stack,
            None => match GuardedStack::new(block_stack_bytes()) {
                Ok(stack) => stack,
                Err(e) => {
                    return self.fail(Error::memory_allocation(format!(
                        "kernel '{}': cannot allocate a block stack of {} bytes ({e})",
                        self.kernel_name(),
                        block_stack_bytes()
                    )))
                }
            },
        };
        let mut env = BlockEnv {
            launch: &self.info,
            ctaid: Dim3::default(),
            worker_index: worker as u32,
            shared,
            context,
            local,
            error_code: 0,
            error_message: std::ptr::null(),
            blocks_x: 1,
        };
        // `env` lives here, outside the block stack, so that after an overflow it still
        // says which block was running.
        let (stack, outcome) = stacks::run_on(stack, || {
            self.block_loop(worker, &mut env);
            0
        });
        buffers.block_stack = Some(stack);
        if outcome.is_err() {
            self.fail(self.overflow_error(&env));
        }
    }

    /// The loop of [`Job::run_blocks`] over the blocks this worker grabs, on its block
    /// stack. `env` holds the worker's windows.
    fn block_loop(&self, worker: usize, env: &mut BlockEnv) {
        let (shared, context, local) = (env.shared, env.context, env.local);
        let grid = self.info.grid;
        let (gx, gy) = (u64::from(grid.x), u64::from(grid.y));
        loop {
            if self.abort.load(Ordering::Relaxed) {
                return;
            }
            let start = self.next.0.fetch_add(self.chunk, Ordering::Relaxed);
            if start >= self.total_blocks {
                return;
            }
            let end = (start + self.chunk).min(self.total_blocks);
            // Linear index -> (x, y, z) once per range, then step x fastest.
            let (mut x, mut y, mut z) = (start % gx, (start / gx) % gy, start / (gx * gy));
            let mut i = start;
            while i < end {
                if self.abort.load(Ordering::Relaxed) {
                    return;
                }
                // A kernel that can (`KERNEL_FUSE_X`) runs the blocks of this range that
                // share y and z in one call, as one long row of threads.
                let run = if self.fuse_x { (end - i).min(gx - x).min(self.max_fused) } else { 1 };
                env.ctaid = Dim3::new(x as u32, y as u32, z as u32);
                env.blocks_x = run as u32;
                env.worker_index = worker as u32;
                env.shared = shared;
                env.context = context;
                env.local = local;
                env.error_code = 0;
                env.error_message = std::ptr::null();
                // SAFETY: `block_fn` comes from a kernel descriptor of the current ABI
                // version and follows the ptxrtBlockFn contract; `env` and everything it
                // points at (launch info, windows sized for this kernel and block shape)
                // stay valid and exclusively this worker's for the call; `blocks_x` is 1
                // unless the kernel declared that it runs runs of blocks.
                let status = unsafe { (self.block_fn)(env) };
                if status != 0 {
                    return self.fail(self.block_error(env));
                }
                i += run;
                x += run;
                if x == gx {
                    x = 0;
                    y += 1;
                    if y == gy {
                        y = 0;
                        z += 1;
                    }
                }
            }
        }
    }

    /// The error of a block whose calls overflowed the block stack. Which of its threads
    /// did is not known: the block function runs them all.
    fn overflow_error(&self, env: &BlockEnv) -> Error {
        let Dim3 { x, y, z } = env.ctaid;
        let blocks = match env.blocks_x {
            0 | 1 => format!("block ({x},{y},{z})"),
            n => format!("blocks ({x}..{},{y},{z})", u64::from(x) + u64::from(n) - 1),
        };
        Error::launch_failure(format!(
            "kernel '{}' {blocks}: stack overflow: a thread's calls needed more than the block \
             stack of {} bytes (unbounded or too deep recursion?); raise PTXRT_STACK_BYTES if \
             the depth is intended",
            self.kernel_name(),
            block_stack_bytes()
        ))
    }

    fn block_error(&self, env: &BlockEnv) -> Error {
        let detail = if env.error_message.is_null() {
            "unknown error".to_string()
        } else {
            // SAFETY: generated code sets `error_message` to null or a NUL-terminated
            // static string.
            unsafe { CStr::from_ptr(env.error_message) }
                .to_string_lossy()
                .into_owned()
        };
        let Dim3 { x, y, z } = env.ctaid;
        Error::launch_failure(format!(
            "kernel '{}' block ({x},{y},{z}): {detail}",
            self.kernel_name()
        ))
    }
}

/// The job pointer handed to helpers.
#[derive(Clone, Copy)]
struct JobPtr(*const Job);

// SAFETY: a `Job` is only touched through shared references, and everything in it that
// workers mutate is atomic or behind a mutex; the launching thread keeps it alive until
// every participating helper has signalled completion (see `Pool::run`).
unsafe impl Send for JobPtr {}

// ----------------------------------------------------------------------------------------
// The pool
// ----------------------------------------------------------------------------------------

thread_local! {
    /// True on pool helpers and on a host thread while it launches: a launch from inside a
    /// kernel would deadlock on the launch lock, so it is refused instead.
    static IN_WORKER: Cell<bool> = const { Cell::new(false) };
}

/// Whether the calling thread is running blocks right now (or is a pool helper).
pub(crate) fn in_worker() -> bool {
    IN_WORKER.try_with(Cell::get).unwrap_or(false)
}

/// State shared with helpers, protected by `Shared::state`.
struct State {
    generation: u64,
    job: JobPtr,
    participants: usize,
    sleepers: usize,
}

struct Shared {
    state: Mutex<State>,
    /// Signals a new generation (a new job) to helpers.
    work: Condvar,
    /// Signals the launching thread that the last helper finished.
    done: Condvar,
    /// Mirror of `State::generation` so idle helpers can spin without the lock.
    generation: AtomicU64,
    /// Participating helpers still working on the current job.
    remaining: AtomicUsize,
}

/// What the launching thread owns (under the launch lock): the helpers and worker 0's
/// buffers.
struct LaunchSide {
    shared: Arc<Shared>,
    helpers: usize,
    buffers: WorkerBuffers,
    /// Value of [`FORKS`] when the helpers were spawned.
    forks_seen: u64,
}

pub(crate) struct Pool {
    launch: Mutex<LaunchSide>,
}

/// Busy-wait rounds before sleeping: back-to-back launches then skip a futex wake-up.
const SPIN_ROUNDS: u32 = 4000;

fn spin_until(mut done: impl FnMut() -> bool) -> bool {
    for i in 0..SPIN_ROUNDS {
        if done() {
            return true;
        }
        if i % 256 == 255 {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
    done()
}

/// Counts `fork()`s, in the child. Helper threads do not survive a fork, so a child (a
/// test framework running each test in a forked process, say) must build its own pool.
static FORKS: AtomicU64 = AtomicU64::new(0);

#[cfg(unix)]
extern "C" fn count_fork_in_child() {
    // Async-signal-safe: a single atomic operation.
    FORKS.fetch_add(1, Ordering::Relaxed);
}

#[cfg(unix)]
extern "C" {
    fn pthread_atfork(
        prepare: Option<extern "C" fn()>,
        parent: Option<extern "C" fn()>,
        child: Option<extern "C" fn()>,
    ) -> std::ffi::c_int;
}

fn new_shared() -> Arc<Shared> {
    Arc::new(Shared {
        state: Mutex::new(State {
            generation: 0,
            job: JobPtr(std::ptr::null()),
            participants: 0,
            sleepers: 0,
        }),
        work: Condvar::new(),
        done: Condvar::new(),
        generation: AtomicU64::new(0),
        remaining: AtomicUsize::new(0),
    })
}

impl Pool {
    /// The process's pool, created on first use.
    pub(crate) fn global() -> &'static Pool {
        static POOL: OnceLock<Pool> = OnceLock::new();
        POOL.get_or_init(|| {
            #[cfg(unix)]
            // SAFETY: registers a handler that only performs an atomic increment, which
            // is allowed in a forked child; the function has static lifetime.
            unsafe {
                pthread_atfork(None, None, Some(count_fork_in_child));
            }
            Pool {
                launch: Mutex::new(LaunchSide {
                    shared: new_shared(),
                    helpers: 0,
                    buffers: WorkerBuffers::default(),
                    forks_seen: FORKS.load(Ordering::Relaxed),
                }),
            }
        })
    }

    /// Spawns helpers until there are `wanted`; returns how many exist (spawning can
    /// fail under resource limits, then the launch simply uses fewer workers).
    fn ensure_helpers(side: &mut LaunchSide, wanted: usize) -> usize {
        let forks = FORKS.load(Ordering::Relaxed);
        if side.forks_seen != forks {
            // We are in a forked child: the helpers (and whatever state their locks were
            // in) stayed in the parent. Start over; the old state is leaked on purpose.
            std::mem::forget(std::mem::replace(&mut side.shared, new_shared()));
            side.helpers = 0;
            side.forks_seen = forks;
        }
        while side.helpers < wanted {
            let index = side.helpers + 1;
            let shared = Arc::clone(&side.shared);
            // No job can be published while we hold the launch lock, so this is the
            // generation the new helper has "seen".
            let seen = side.shared.generation.load(Ordering::Acquire);
            let spawned = std::thread::Builder::new()
                .name(format!("ptxrt-worker-{index}"))
                .stack_size(HELPER_STACK_BYTES)
                .spawn(move || helper_main(shared, index, seen));
            if spawned.is_err() {
                break;
            }
            side.helpers += 1;
        }
        side.helpers
    }

    /// Runs the whole grid of `job` and returns when every block has finished (or the
    /// grid was aborted by an error).
    pub(crate) fn run(&self, job: &Job) -> Result<(), Error> {
        let mut guard = lock(&self.launch);
        let side = &mut *guard;
        let _in_worker = InWorkerGuard::enter();
        let useful = job.useful_workers();
        let helpers = Self::ensure_helpers(side, useful - 1);
        let participants = useful.min(helpers + 1);
        let shared = &*side.shared;

        if participants > 1 {
            shared.remaining.store(participants - 1, Ordering::Relaxed);
            let mut st = lock(&shared.state);
            st.job = JobPtr(job);
            st.participants = participants;
            st.generation += 1;
            shared.generation.store(st.generation, Ordering::Release);
            if st.sleepers > 0 {
                shared.work.notify_all();
            }
        }

        // The launching thread is worker 0.
        let buffers = &mut side.buffers;
        let host = catch_unwind(AssertUnwindSafe(|| {
            let _fp = fpenv::Guard::enter();
            job.run_blocks(0, buffers);
        }));
        if host.is_err() {
            job.fail(Error::internal("panic while running blocks"));
        }

        if participants > 1 {
            // `job` lives on our caller's stack: do not return before every helper is done
            // with it.
            if !spin_until(|| shared.remaining.load(Ordering::Acquire) == 0) {
                let mut st = lock(&shared.state);
                while shared.remaining.load(Ordering::Acquire) != 0 {
                    st = shared.done.wait(st).unwrap_or_else(|p| p.into_inner());
                }
            }
        }
        job.result()
    }
}

/// Marks the launching thread as busy for the duration of a launch.
struct InWorkerGuard {
    previous: bool,
}

impl InWorkerGuard {
    fn enter() -> InWorkerGuard {
        let previous = IN_WORKER.try_with(|f| f.replace(true)).unwrap_or(false);
        InWorkerGuard { previous }
    }
}

impl Drop for InWorkerGuard {
    fn drop(&mut self) {
        let _ = IN_WORKER.try_with(|f| f.set(self.previous));
    }
}

/// Waits for a generation newer than `seen` and returns its job and participant count.
fn wait_for_job(shared: &Shared, seen: &mut u64) -> (JobPtr, usize) {
    let seen_now = *seen;
    spin_until(|| shared.generation.load(Ordering::Acquire) != seen_now);
    let mut st = lock(&shared.state);
    while st.generation == *seen {
        st.sleepers += 1;
        st = shared.work.wait(st).unwrap_or_else(|p| p.into_inner());
        st.sleepers -= 1;
    }
    *seen = st.generation;
    (st.job, st.participants)
}

/// A helper thread: waits for jobs and runs blocks as worker `index`, forever (the pool
/// lives as long as the process).
fn helper_main(shared: Arc<Shared>, index: usize, mut seen: u64) {
    let _ = IN_WORKER.try_with(|f| f.set(true));
    let mut buffers = WorkerBuffers::default();
    loop {
        let (job, participants) = wait_for_job(&shared, &mut seen);
        if index >= participants {
            continue;
        }
        // SAFETY: we are a participant of the current generation, so the launching thread
        // waits for our decrement of `remaining` below before it lets the job go.
        let job = unsafe { &*job.0 };
        fpenv::set(fpenv::DEFAULT);
        let ran = catch_unwind(AssertUnwindSafe(|| job.run_blocks(index, &mut buffers)));
        if ran.is_err() {
            job.fail(Error::internal("panic while running blocks"));
        }
        // From here on `job` must not be touched.
        if shared.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            let _st = lock(&shared.state);
            shared.done.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_num_threads_accepts_only_sane_counts() {
        assert_eq!(parse_num_threads("3"), Some(3));
        assert_eq!(parse_num_threads(" 16\n"), Some(16));
        assert_eq!(parse_num_threads("1"), Some(1));
        assert_eq!(parse_num_threads("0"), None);
        assert_eq!(parse_num_threads("-2"), None);
        assert_eq!(parse_num_threads("abc"), None);
        assert_eq!(parse_num_threads(""), None);
        assert_eq!(parse_num_threads("4x"), None);
        assert_eq!(parse_num_threads("100000"), None);
    }

    #[test]
    fn aligned_buf_grows_only_when_needed() {
        let mut b = AlignedBuf::new();
        let p0 = b.ensure(0).unwrap();
        assert!(!p0.is_null());
        assert_eq!(p0 as usize % BUFFER_ALIGN, 0);
        let p1 = b.ensure(10).unwrap();
        assert_eq!(p0, p1, "a small request must reuse the minimum allocation");
        let p2 = b.ensure(1000).unwrap();
        assert_eq!(p2 as usize % BUFFER_ALIGN, 0);
        assert!(b.capacity() >= 1000);
        // SAFETY: the buffer has at least 1000 bytes.
        unsafe { std::ptr::write_bytes(p2, 0xAB, 1000) };
        let cap = b.capacity();
        let p3 = b.ensure(500).unwrap();
        assert_eq!(
            (p3, b.capacity()),
            (p2, cap),
            "shrinking requests never reallocate"
        );
        assert_eq!(
            b.ensure(usize::MAX / 2).unwrap_err().code,
            crate::ErrorCode::MemoryAllocation
        );
    }
}

//! The worker pool that runs the blocks of grids.
//!
//! One pool per process, created on the first launch: `n - 1` helper threads (`n` =
//! [`num_threads`]). A host thread that launches runs its grid itself as worker 0, on
//! buffers of its own (thread-local), and publishes the grid as a *job* in a small
//! registry of active jobs ([`SLOTS`] slots, each on its own cache line); idle helpers
//! join whichever active job still has blocks left, taking worker indices `1, 2, ...` of
//! that job (so `%smid < %nsmid` for every job). Several host threads may launch at the
//! same time: their grids run side by side, as kernels of different CUDA streams may, and
//! nothing serializes them. All workers of a job take *contiguous ranges* of blocks from
//! the job's counter, which sits alone on its cache line (one grab per block would make the
//! counter the bottleneck for small blocks). Each worker owns its shared/context/local
//! buffers and reuses them across blocks and launches, so running a block never allocates,
//! and what a worker writes per block (its block environment, its buffers, its stack) is
//! on cache lines of its own.
//!
//! A launch publishes its job by claiming a free slot (a compare-and-swap), opening it and
//! bumping the pool's epoch; helpers spin on the epoch for a while before they sleep, so
//! back-to-back launches do not pay for waking threads. A helper joins a job by counting
//! itself in the slot's word while the slot is open, and only then reads the job; the
//! launching thread, once its own blocks are done, closes the slot and waits until every
//! helper that joined has left, so the job (on the launching thread's stack) outlives every
//! use. Nothing on this path allocates or takes a lock, except sleeping and waking.
//!
//! Every worker, the launching thread included, runs its blocks on a block stack of its
//! own (`PTXRT_STACK_BYTES`, default 8 MiB, reserved address space committed as used),
//! entered once per launch: a block that overflows it (deep recursion in region code)
//! fails the launch with an error instead of ending the process (see [`crate::stacks`]).
//!
//! A `fork()`ed child has none of the parent's helpers (and whatever state their locks were
//! in): its first launch builds a new pool; the old one is leaked on purpose.

use std::alloc::{self, Layout};
use std::cell::{Cell, RefCell};
use std::ffi::CStr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, Once, OnceLock};

use crate::abi::{BlockEnv, BlockFn, Dim3, Kernel, LaunchInfo, KERNEL_FUSE_X};
use crate::device::{LaunchTree, TreeGuard};
use crate::error::Error;
use crate::registry::lock;
use crate::stacks::{self, GuardedStack, Trap};

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
    *BYTES.get_or_init(|| std::env::var("PTXRT_STACK_BYTES").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(DEFAULT_BLOCK_STACK_BYTES).max(64 << 10))
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
    value.trim().parse::<usize>().ok().filter(|n| (1..=MAX_THREADS).contains(n))
}

fn default_num_threads() -> usize {
    *THREADS_DEFAULT.get_or_init(|| {
        std::env::var("PTXRT_NUM_THREADS")
            .ok()
            .and_then(|v| parse_num_threads(&v))
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS))
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
        return Err(Error::invalid_value(format!("ptxrtSetNumThreads({n}): the number of worker threads must be between 1 and {MAX_THREADS}")));
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
/// kept when it grows (shared memory is not zero-filled on GPUs either). The allocation
/// has `WINDOW_GUARD_BYTES` more on each side, which generated code may read and write
/// back unchanged (the ABI's `WINDOW_GUARD_BYTES`).
pub struct AlignedBuf {
    /// The buffer's start, `WINDOW_GUARD_BYTES` into the allocation.
    ptr: NonNull<u8>,
    capacity: usize,
}

const GUARD: usize = crate::abi::WINDOW_GUARD_BYTES;
const _: () = assert!(GUARD % BUFFER_ALIGN == 0, "the guard keeps the buffer's alignment");

// SAFETY: the buffer exclusively owns its allocation; moving it to another thread moves
// that ownership.
unsafe impl Send for AlignedBuf {}

impl AlignedBuf {
    /// Smallest allocation, so that even zero-sized windows get a valid, aligned,
    /// non-null pointer.
    const MIN_CAPACITY: usize = BUFFER_ALIGN;

    pub fn new() -> AlignedBuf {
        AlignedBuf { ptr: NonNull::dangling(), capacity: 0 }
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
            let layout = Self::layout(want).ok_or_else(|| Error::memory_allocation(format!("cannot allocate {bytes} bytes")))?;
            self.release();
            // SAFETY: `layout` has a non-zero size.
            let p = unsafe { alloc::alloc(layout) };
            let p = NonNull::new(p).ok_or_else(|| Error::memory_allocation(format!("cannot allocate {bytes} bytes")))?;
            // SAFETY: the allocation has `GUARD` bytes before the buffer's `want`.
            self.ptr = unsafe { p.add(GUARD) };
            self.capacity = want;
        }
        Ok(self.ptr.as_ptr())
    }

    /// The allocation of a buffer of `capacity` bytes: with the guards on both sides.
    fn layout(capacity: usize) -> Option<Layout> {
        Layout::from_size_align(capacity.checked_add(2 * GUARD)?, BUFFER_ALIGN).ok()
    }

    fn release(&mut self) {
        if self.capacity != 0 {
            // SAFETY: `ptr` is `GUARD` bytes into an allocation made in `ensure` with
            // exactly this layout (which `ensure` could build).
            unsafe { alloc::dealloc(self.ptr.as_ptr().sub(GUARD), Self::layout(self.capacity).unwrap_unchecked()) };
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
/// them on (allocated by the first launch). Aligned to a cache line, so that the buffers of
/// two workers never share one.
#[derive(Default)]
#[repr(align(64))]
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
                Error::memory_allocation(format!("kernel '{}': cannot allocate {bytes} bytes of {which} memory for a block ({})", job.kernel_name(), e.message))
            }
        };
        let shared = self.shared.ensure(job.shared_bytes).map_err(what("shared", job.shared_bytes))?;
        let context = self.context.ensure(job.context_bytes).map_err(what("context", job.context_bytes))?;
        let local = self.local.ensure(job.local_bytes).map_err(what("local", job.local_bytes))?;
        Ok((shared, context, local))
    }
}

// ----------------------------------------------------------------------------------------
// One launch
// ----------------------------------------------------------------------------------------

/// Keeps a value alone on its 64-byte cache line, so that the fields around it (read by
/// every worker for every block) do not bounce with it.
#[repr(align(64))]
pub(crate) struct CacheLine<T>(pub(crate) T);

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
    /// The kernel runs runs of blocks along x in one call (`KERNEL_FUSE_X`), at most
    /// `max_fused` blocks at a time.
    fuse_x: bool,
    max_fused: u64,
    /// Workers that may take part: worker indices `0..participants` (set by [`run`]).
    participants: usize,
    /// Where grids launched from the device by this grid's blocks are queued.
    tree: *const LaunchTree,
    /// Set on the first error: workers stop taking blocks. Written once at most.
    abort: AtomicBool,
    first_error: Mutex<Option<Error>>,
    /// Next block (linear index, x fastest) not yet handed out.
    next: CacheLine<AtomicU64>,
    /// Worker indices handed to helpers so far (the next helper gets `joined + 1`).
    joined: CacheLine<AtomicUsize>,
}

/// The most context area a fused run of blocks may use (see `Job::new`): a run's
/// per-thread words stay in a core's L2 cache.
const FUSED_CONTEXT_BYTES: u64 = 256 << 10;

impl Job {
    /// `info.num_workers` must be the pool size the launch will use; `tree` must outlive
    /// the job.
    pub(crate) fn new(
        kernel: &Kernel,
        block_fn: BlockFn,
        info: LaunchInfo,
        shared_bytes: usize,
        context_bytes: usize,
        local_bytes: usize,
        tree: &LaunchTree,
    ) -> Job {
        let total_blocks = info.grid.volume();
        let workers = u64::from(info.num_workers.max(1));
        // About four grabs per worker: big enough to amortize the atomic, small enough to
        // balance blocks of uneven cost.
        let chunk = (total_blocks / (workers * 4)).max(1);
        let fuse_x = kernel.flags & KERNEL_FUSE_X != 0;
        // The row of threads stays below 2^20 (the thread index of a fused call is a
        // 32-bit value, and a row this long already amortizes the call).
        let mut max_fused = ((1u64 << 20) / u64::from(info.block.x.max(1))).max(1);
        let mut context_bytes = context_bytes;
        if fuse_x && context_bytes > 0 {
            // A fused call keeps every thread of its run in the context area (an
            // interchanged grid-stride loop's per-thread words): runs stay within
            // FUSED_CONTEXT_BYTES of context, and the worker's area holds the longest run.
            max_fused = max_fused.min((FUSED_CONTEXT_BYTES / context_bytes as u64).max(1));
            context_bytes *= max_fused as usize;
        }
        Job {
            kernel,
            block_fn,
            info,
            total_blocks,
            shared_bytes,
            context_bytes,
            local_bytes,
            chunk,
            fuse_x,
            max_fused,
            participants: 1,
            tree,
            abort: AtomicBool::new(false),
            first_error: Mutex::new(None),
            next: CacheLine(AtomicU64::new(0)),
            joined: CacheLine(AtomicUsize::new(0)),
        }
    }

    fn kernel_name(&self) -> String {
        // SAFETY: the descriptor was validated by the launch and outlives the job.
        let kernel = unsafe { &*self.kernel };
        if kernel.name.is_null() {
            return "<unnamed>".to_string();
        }
        // SAFETY: a non-null kernel name is a NUL-terminated constant string.
        unsafe { CStr::from_ptr(kernel.name) }.to_string_lossy().into_owned()
    }

    /// Workers needed: no more than there are grabs.
    fn useful_workers(&self) -> usize {
        let grabs = self.total_blocks.div_ceil(self.chunk);
        (self.info.num_workers as u64).min(grabs).max(1) as usize
    }

    /// Whether blocks are left to hand out.
    fn has_blocks(&self) -> bool {
        !self.abort.load(Ordering::Relaxed) && self.next.0.load(Ordering::Relaxed) < self.total_blocks
    }

    /// Records `err` unless an earlier one exists, and stops the grid.
    fn fail(&self, err: Error) {
        let mut slot = lock(&self.first_error);
        if slot.is_none() {
            *slot = Some(err);
        }
        self.abort.store(true, Ordering::Release);
    }

    fn result(&self) -> Result<(), Error> {
        if !self.abort.load(Ordering::Acquire) {
            return Ok(());
        }
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
        // Device-side launches of these blocks go to this launch's tree.
        let _tree = TreeGuard::enter(self.tree);
        // `env` lives here, outside the block stack, so that after an overflow it still
        // says which block was running.
        let (stack, outcome) = stacks::run_on(stack, || {
            self.block_loop(worker, &mut env);
            0
        });
        buffers.block_stack = Some(stack);
        if let Err(trap) = outcome {
            self.fail(self.trap_error(&env, trap));
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

    /// The error of a block whose code overflowed the block stack or faulted. Which of its
    /// threads did is not known: the block function runs them all.
    fn trap_error(&self, env: &BlockEnv, trap: Trap) -> Error {
        let Dim3 { x, y, z } = env.ctaid;
        let blocks = match env.blocks_x {
            0 | 1 => format!("block ({x},{y},{z})"),
            n => format!("blocks ({x}..{},{y},{z})", u64::from(x) + u64::from(n) - 1),
        };
        match trap {
            Trap::StackOverflow => Error::launch_failure(format!(
                "kernel '{}' {blocks}: stack overflow: a thread's calls needed more than the block \
                 stack of {} bytes (unbounded or too deep recursion?); raise PTXRT_STACK_BYTES if \
                 the depth is intended",
                self.kernel_name(),
                block_stack_bytes()
            )),
            Trap::Fault { .. } => Error::new(trap_code(trap), format!("kernel '{}' {blocks}: {} in the kernel's code", self.kernel_name(), trap.describe())),
        }
    }

    fn block_error(&self, env: &BlockEnv) -> Error {
        let detail = if env.error_message.is_null() {
            "unknown error".to_string()
        } else {
            // SAFETY: generated code sets `error_message` to null or a NUL-terminated
            // string that stays valid until the worker's next block.
            unsafe { CStr::from_ptr(env.error_message) }.to_string_lossy().into_owned()
        };
        let Dim3 { x, y, z } = env.ctaid;
        // A fault in a fiber kernel keeps its code (illegal address, ...); every other
        // block error is a launch failure.
        let code = match crate::error::ErrorCode::from_raw(env.error_code) {
            Some(c @ (crate::error::ErrorCode::IllegalAddress | crate::error::ErrorCode::IllegalInstruction)) => c,
            _ => crate::error::ErrorCode::LaunchFailure,
        };
        Error::new(code, format!("kernel '{}' block ({x},{y},{z}): {detail}", self.kernel_name()))
    }

    /// Runs blocks as worker `worker`, catching panics (there should be none) so that the
    /// launch reports them instead of losing a worker.
    fn run_guarded(&self, worker: usize, buffers: &mut WorkerBuffers) {
        if catch_unwind(AssertUnwindSafe(|| self.run_blocks(worker, buffers))).is_err() {
            self.fail(Error::internal("panic while running blocks"));
        }
    }
}

// ----------------------------------------------------------------------------------------
// The registry of active jobs
// ----------------------------------------------------------------------------------------

/// Jobs that can be active at once with helpers. A launch that finds every slot taken runs
/// its grid on the launching thread alone (correct, only without help).
pub const SLOTS: usize = 64;

/// `Slot::word`: the slot is published and helpers may join.
const OPEN: u64 = 1 << 63;
/// `Slot::word`: a launching thread owns the slot.
const CLAIMED: u64 = 1 << 62;
/// `Slot::word`: the owner sleeps until the last helper leaves.
const WAITING: u64 = 1 << 61;
/// `Slot::word`: helpers inside the job (low bits).
const INSIDE: u64 = (1 << 32) - 1;

/// One active job. The owner publishes `job` before it sets `OPEN`; a helper reads `job`
/// only after counting itself in `word` while `OPEN` was set, and the owner waits for the
/// count to drop to zero after clearing `OPEN`, so the job stays alive for every reader.
#[repr(align(64))]
struct Slot {
    word: AtomicU64,
    job: AtomicPtr<Job>,
    lock: Mutex<()>,
    /// Signalled by the last helper to leave when the owner waits.
    left: Condvar,
}

impl Slot {
    fn new() -> Slot {
        Slot { word: AtomicU64::new(0), job: AtomicPtr::new(std::ptr::null_mut()), lock: Mutex::new(()), left: Condvar::new() }
    }

    /// Counts a helper in if the slot is open; the job it holds then stays alive until
    /// [`Slot::leave`].
    fn join(&self) -> Option<&Job> {
        let mut word = self.word.load(Ordering::Relaxed);
        loop {
            if word & OPEN == 0 || word & INSIDE == INSIDE {
                return None;
            }
            match self.word.compare_exchange_weak(word, word + 1, Ordering::Acquire, Ordering::Relaxed) {
                Ok(_) => break,
                Err(now) => word = now,
            }
        }
        // SAFETY: the owner stored the job before opening the slot (our acquire saw the
        // open slot), and it waits for us to leave before the job goes away.
        unsafe { self.job.load(Ordering::Relaxed).as_ref() }
    }

    /// The helper is done with the job; it must not touch it any more.
    fn leave(&self) {
        let before = self.word.fetch_sub(1, Ordering::Release);
        if before & INSIDE == 1 && before & WAITING != 0 {
            let _guard = lock(&self.lock);
            self.left.notify_all();
        }
    }
}

/// The pool of one process (a forked child builds its own).
struct PoolState {
    /// [`FORKS`] when it was built.
    forks: u64,
    slots: [Slot; SLOTS],
    /// Bit `i`: slot `i` is open (where helpers look for work).
    open: CacheLine<AtomicU64>,
    /// Bumped by every published job: idle helpers watch it.
    epoch: CacheLine<AtomicU64>,
    /// Helpers asleep on `wake`.
    sleepers: CacheLine<AtomicUsize>,
    sleep_lock: Mutex<()>,
    wake: Condvar,
    /// Helper threads started.
    helpers: AtomicUsize,
    spawn_lock: Mutex<()>,
}

impl PoolState {
    fn new(forks: u64) -> PoolState {
        PoolState {
            forks,
            slots: std::array::from_fn(|_| Slot::new()),
            open: CacheLine(AtomicU64::new(0)),
            epoch: CacheLine(AtomicU64::new(0)),
            sleepers: CacheLine(AtomicUsize::new(0)),
            sleep_lock: Mutex::new(()),
            wake: Condvar::new(),
            helpers: AtomicUsize::new(0),
            spawn_lock: Mutex::new(()),
        }
    }
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
    fn pthread_atfork(prepare: Option<extern "C" fn()>, parent: Option<extern "C" fn()>, child: Option<extern "C" fn()>) -> std::ffi::c_int;
}

static STATE: AtomicPtr<PoolState> = AtomicPtr::new(std::ptr::null_mut());

/// The process's pool, built on first use (and again in a forked child).
fn state() -> &'static PoolState {
    let current = STATE.load(Ordering::Acquire);
    let forks = FORKS.load(Ordering::Relaxed);
    // SAFETY: a non-null STATE points at a leaked, never freed PoolState.
    match unsafe { current.as_ref() } {
        Some(st) if st.forks == forks => st,
        _ => new_state(current, forks),
    }
}

#[cold]
fn new_state(current: *mut PoolState, forks: u64) -> &'static PoolState {
    static ATFORK: Once = Once::new();
    ATFORK.call_once(|| {
        #[cfg(unix)]
        // SAFETY: registers a handler that only performs an atomic increment, which is
        // allowed in a forked child; the function has static lifetime.
        unsafe {
            pthread_atfork(None, None, Some(count_fork_in_child));
        }
    });
    let fresh = Box::into_raw(Box::new(PoolState::new(forks)));
    match STATE.compare_exchange(current, fresh, Ordering::AcqRel, Ordering::Acquire) {
        // The previous pool (a forked parent's) is leaked: its helpers are not here, and
        // its locks may be held by threads that do not exist in this process.
        // SAFETY: just leaked from a Box; never freed.
        Ok(_) => unsafe { &*fresh },
        Err(winner) => {
            // SAFETY: `fresh` was never shared: nobody else can have seen it.
            drop(unsafe { Box::from_raw(fresh) });
            // SAFETY: as in `state`.
            match unsafe { winner.as_ref() } {
                Some(st) if st.forks == forks => st,
                _ => new_state(winner, forks),
            }
        }
    }
}

// ----------------------------------------------------------------------------------------
// Launching
// ----------------------------------------------------------------------------------------

thread_local! {
    /// True on pool helpers and on a host thread while it launches: a launch from inside a
    /// kernel would reuse the thread's busy buffers, so it is refused instead.
    static IN_WORKER: Cell<bool> = const { Cell::new(false) };
    /// The buffers a host thread runs its grids' blocks with (as worker 0).
    static HOST_BUFFERS: RefCell<WorkerBuffers> = RefCell::new(WorkerBuffers::default());
    /// The slot this thread published its last job in: tried first next time.
    static LAST_SLOT: Cell<usize> = const { Cell::new(0) };
}

/// Whether the calling thread is running blocks right now (or is a pool helper).
pub(crate) fn in_worker() -> bool {
    IN_WORKER.try_with(Cell::get).unwrap_or(false)
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

/// Starts helpers until there are `wanted`; returns how many exist (starting one can fail
/// under resource limits, then launches simply use fewer workers).
fn ensure_helpers(st: &'static PoolState, wanted: usize) -> usize {
    let have = st.helpers.load(Ordering::Acquire);
    if have >= wanted {
        return have;
    }
    let _guard = lock(&st.spawn_lock);
    let mut have = st.helpers.load(Ordering::Acquire);
    while have < wanted {
        let index = have + 1;
        let spawned = std::thread::Builder::new().name(format!("ptxrt-worker-{index}")).stack_size(HELPER_STACK_BYTES).spawn(move || helper_main(st, index));
        if spawned.is_err() {
            break;
        }
        have += 1;
        st.helpers.store(have, Ordering::Release);
    }
    have
}

/// Runs the whole grid of `job` (the calling thread as worker 0, helpers joining) and
/// returns when every block has finished or the grid was aborted by an error.
pub(crate) fn run(job: &mut Job) -> Result<(), Error> {
    let _in_worker = InWorkerGuard::enter();
    let st = state();
    let useful = job.useful_workers();
    job.participants = if useful > 1 { useful.min(ensure_helpers(st, useful - 1) + 1) } else { 1 };
    let job = &*job;
    let slot = if job.participants > 1 { publish(st, job) } else { None };

    // The launching thread is worker 0.
    {
        let _fp = fpenv::Guard::enter();
        let ran = HOST_BUFFERS.try_with(|cell| match cell.try_borrow_mut() {
            Ok(mut buffers) => job.run_guarded(0, &mut buffers),
            // Cannot happen (a launch from inside a launch is refused); fresh buffers would
            // be as correct.
            Err(_) => job.run_guarded(0, &mut WorkerBuffers::default()),
        });
        if ran.is_err() {
            // The thread is exiting (its thread-locals are gone).
            job.run_guarded(0, &mut WorkerBuffers::default());
        }
    }

    if let Some(s) = slot {
        // `job` lives on our caller's stack: do not return before every helper is done
        // with it.
        close(st, s);
    }
    job.result()
}

/// Runs the whole grid of `job` with every block resident at once, as CUDA's cooperative
/// launches guarantee: one dedicated thread per block (the calling thread is worker 0), all
/// started before any block runs, each taking one block at a time. Blocks may then wait for
/// each other (a grid-wide barrier spun on global atomics). `info.num_workers` must be the
/// number of blocks. If a thread cannot be started, no block runs and the launch fails.
pub(crate) fn run_coresident(job: &mut Job) -> Result<(), Error> {
    let _in_worker = InWorkerGuard::enter();
    let n = usize::try_from(job.total_blocks).unwrap_or(usize::MAX);
    job.chunk = 1;
    job.participants = n;
    let job = &*job;
    // Held for writing while the threads start: none takes a block before all exist.
    let gate = std::sync::RwLock::new(());
    std::thread::scope(|scope| {
        let start = gate.write().unwrap_or_else(|p| p.into_inner());
        /// The job as the block threads see it.
        struct JobRef(*const Job);
        // SAFETY: the job outlives the scope (its threads are joined before it ends), and
        // what workers touch of it is atomics, the error mutex and immutable fields, as for
        // pool helpers.
        unsafe impl Send for JobRef {}
        for worker in 1..n {
            let gate = &gate;
            let job_ref = JobRef(job);
            let spawned = std::thread::Builder::new().name(format!("ptxrt-coop-{worker}")).stack_size(HELPER_STACK_BYTES).spawn_scoped(scope, move || {
                let job_ref = job_ref;
                // SAFETY: see `JobRef`.
                let job = unsafe { &*job_ref.0 };
                let _ = IN_WORKER.try_with(|f| f.set(true));
                drop(gate.read().unwrap_or_else(|p| p.into_inner()));
                if job.abort.load(Ordering::Acquire) {
                    return;
                }
                fpenv::set(fpenv::DEFAULT);
                job.run_guarded(worker, &mut WorkerBuffers::default());
            });
            if let Err(e) = spawned {
                job.fail(Error::memory_allocation(format!(
                    "kernel '{}': a cooperative launch of {n} blocks needs one thread per block, and starting thread {worker} failed ({e})",
                    job.kernel_name()
                )));
                break;
            }
        }
        drop(start);
        if !job.abort.load(Ordering::Acquire) {
            let _fp = fpenv::Guard::enter();
            job.run_guarded(0, &mut WorkerBuffers::default());
        }
    });
    job.result()
}

/// Publishes `job` in a free slot and wakes helpers for it; the slot, or `None` when all
/// are taken.
fn publish(st: &PoolState, job: &Job) -> Option<usize> {
    let hint = LAST_SLOT.try_with(Cell::get).unwrap_or(0);
    let s = (0..SLOTS).map(|i| (hint + i) % SLOTS).find(|&s| st.slots[s].word.compare_exchange(0, CLAIMED, Ordering::Acquire, Ordering::Relaxed).is_ok())?;
    let _ = LAST_SLOT.try_with(|c| c.set(s));
    let slot = &st.slots[s];
    slot.job.store(job as *const Job as *mut Job, Ordering::Relaxed);
    slot.word.fetch_or(OPEN, Ordering::Release);
    st.open.0.fetch_or(1 << s, Ordering::Release);
    // Helpers that watch the epoch see the job; sleeping ones need a wake-up. (SeqCst
    // pairs with the sleepers' increment-then-check in `wait_for_work`.)
    st.epoch.0.fetch_add(1, Ordering::SeqCst);
    let sleepers = st.sleepers.0.load(Ordering::SeqCst);
    if sleepers > 0 {
        let wanted = job.participants - 1;
        let _guard = lock(&st.sleep_lock);
        if wanted >= sleepers {
            st.wake.notify_all();
        } else {
            for _ in 0..wanted {
                st.wake.notify_one();
            }
        }
    }
    Some(s)
}

/// Closes slot `s` to new helpers, waits until those inside have left, and frees it.
fn close(st: &PoolState, s: usize) {
    let slot = &st.slots[s];
    st.open.0.fetch_and(!(1 << s), Ordering::Relaxed);
    let before = slot.word.fetch_and(!OPEN, Ordering::AcqRel);
    if before & INSIDE != 0 && !spin_until(|| slot.word.load(Ordering::Acquire) & INSIDE == 0) {
        let mut guard = lock(&slot.lock);
        slot.word.fetch_or(WAITING, Ordering::SeqCst);
        while slot.word.load(Ordering::Acquire) & INSIDE != 0 {
            guard = slot.left.wait(guard).unwrap_or_else(|p| p.into_inner());
        }
    }
    slot.job.store(std::ptr::null_mut(), Ordering::Relaxed);
    slot.word.store(0, Ordering::Release);
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

// ----------------------------------------------------------------------------------------
// Helpers
// ----------------------------------------------------------------------------------------

/// A helper thread: runs blocks of whichever jobs need help, forever (the pool lives as
/// long as the process). `index` spreads helpers over jobs when several are active.
fn helper_main(st: &'static PoolState, index: usize) {
    let _ = IN_WORKER.try_with(|f| f.set(true));
    // Boxed: the buffers sit on cache lines of their own, away from any other worker's.
    let mut buffers = Box::<WorkerBuffers>::default();
    loop {
        // Read before looking: a job published after this is announced by a new epoch.
        let seen = st.epoch.0.load(Ordering::Acquire);
        while help_once(st, index, &mut buffers) {}
        wait_for_work(st, seen);
    }
}

/// Joins one open job with blocks left and room for another worker, and runs blocks of it
/// until none are left. Returns whether it found such a job.
fn help_once(st: &PoolState, index: usize, buffers: &mut WorkerBuffers) -> bool {
    let open = st.open.0.load(Ordering::Acquire);
    if open == 0 {
        return false;
    }
    // Start at a different slot per helper, so that concurrent jobs get helpers each.
    let start = (index * 7) % SLOTS;
    let mut rotated = open.rotate_right(start as u32);
    while rotated != 0 {
        let s = (rotated.trailing_zeros() as usize + start) % SLOTS;
        rotated &= rotated - 1;
        let slot = &st.slots[s];
        let Some(job) = slot.join() else { continue };
        let mut ran = false;
        if job.has_blocks() {
            let worker = job.joined.0.fetch_add(1, Ordering::Relaxed) + 1;
            if worker < job.participants {
                fpenv::set(fpenv::DEFAULT);
                job.run_guarded(worker, buffers);
                ran = true;
            }
        }
        // From here on `job` must not be touched.
        slot.leave();
        if ran {
            return true;
        }
    }
    false
}

/// Returns once the epoch differs from `seen`: spinning first, then asleep.
fn wait_for_work(st: &PoolState, seen: u64) {
    if spin_until(|| st.epoch.0.load(Ordering::Acquire) != seen) {
        return;
    }
    let mut guard = lock(&st.sleep_lock);
    st.sleepers.0.fetch_add(1, Ordering::SeqCst);
    while st.epoch.0.load(Ordering::SeqCst) == seen {
        guard = st.wake.wait(guard).unwrap_or_else(|p| p.into_inner());
    }
    st.sleepers.0.fetch_sub(1, Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    #[test]
    fn what_workers_write_sits_on_lines_of_its_own() {
        // Per-worker buffers (a helper's, boxed; a host thread's, thread-local).
        assert_eq!(align_of::<WorkerBuffers>(), 64);
        assert_eq!(size_of::<WorkerBuffers>() % 64, 0);
        // The registry's slots and counters.
        assert_eq!(align_of::<Slot>(), 64);
        assert_eq!(size_of::<Slot>() % 64, 0);
        assert_eq!(align_of::<CacheLine<AtomicU64>>(), 64);
        // A job's block counter and helper count are apart from each other and from what
        // every block reads (the launch info, the abort flag).
        let next = offset_of!(Job, next);
        let joined = offset_of!(Job, joined);
        let line = |o: usize| o / 64;
        for read_mostly in [offset_of!(Job, info), offset_of!(Job, abort), offset_of!(Job, total_blocks), offset_of!(Job, block_fn)] {
            assert_ne!(line(read_mostly), line(next));
            assert_ne!(line(read_mostly), line(joined));
        }
        assert_ne!(line(next), line(joined));
        assert_eq!(align_of::<Job>(), 64);
    }

    #[test]
    fn slots_count_helpers_only_while_open() {
        let slot = Slot::new();
        assert!(slot.join().is_none(), "a free slot cannot be joined");
        let tree = LaunchTree::new();
        let kernel = Kernel {
            abi_version: crate::abi::ABI_VERSION,
            num_params: 0,
            name: std::ptr::null(),
            block_fn: None,
            param_sizes: std::ptr::null(),
            param_aligns: std::ptr::null(),
            static_shared_bytes: 0,
            context_bytes_per_thread: 0,
            local_bytes_per_thread: 0,
            flags: 0,
            reqntid: Dim3::default(),
            maxntid: Dim3::default(),
        };
        unsafe extern "C" fn nop(_: *mut BlockEnv) -> i32 {
            0
        }
        let info = LaunchInfo {
            args: std::ptr::null_mut(),
            grid: Dim3::new(4, 1, 1),
            block: Dim3::new(1, 1, 1),
            dynamic_shared_bytes: 0,
            num_workers: 2,
            grid_id: 1,
            grid_workspace: std::ptr::null_mut(),
        };
        let job = Job::new(&kernel, nop, info, 0, 0, 0, &tree);
        slot.word.store(CLAIMED, Ordering::Relaxed);
        slot.job.store(&job as *const Job as *mut Job, Ordering::Relaxed);
        assert!(slot.join().is_none(), "claimed but not open");
        slot.word.fetch_or(OPEN, Ordering::Release);
        let joined = slot.join().expect("open");
        assert!(std::ptr::eq(joined, &job));
        assert!(slot.join().is_some());
        assert_eq!(slot.word.load(Ordering::Relaxed) & INSIDE, 2);
        slot.word.fetch_and(!OPEN, Ordering::AcqRel);
        assert!(slot.join().is_none(), "closed");
        slot.leave();
        slot.leave();
        assert_eq!(slot.word.load(Ordering::Relaxed), CLAIMED);
    }

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
        assert_eq!((p3, b.capacity()), (p2, cap), "shrinking requests never reallocate");
        assert_eq!(b.ensure(usize::MAX / 2).unwrap_err().code, crate::ErrorCode::MemoryAllocation);
    }

    #[test]
    fn aligned_buf_has_guards_on_both_sides() {
        let mut b = AlignedBuf::new();
        for want in [0, 100, 5000] {
            let p = b.ensure(want).unwrap();
            let cap = b.capacity();
            // SAFETY: the ABI's guards are part of the allocation (a sanitizer or the
            // allocator's own checks would catch a write past it).
            unsafe {
                std::ptr::write_bytes(p.sub(GUARD), 0x5A, GUARD);
                std::ptr::write_bytes(p.add(cap), 0xA5, GUARD);
                assert_eq!((*p.sub(GUARD), *p.add(cap + GUARD - 1)), (0x5A, 0xA5));
            }
        }
    }
}

/// The error code of a launch that a trap ended: CUDA's for an invalid address or an
/// illegal instruction, the general launch failure otherwise.
pub(crate) fn trap_code(trap: Trap) -> crate::error::ErrorCode {
    use crate::error::ErrorCode;
    match trap {
        Trap::Fault { signal, .. } if signal == libc::SIGSEGV || signal == libc::SIGBUS => ErrorCode::IllegalAddress,
        Trap::Fault { signal, .. } if signal == libc::SIGILL => ErrorCode::IllegalInstruction,
        _ => ErrorCode::LaunchFailure,
    }
}

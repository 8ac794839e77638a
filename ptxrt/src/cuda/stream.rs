//! Streams and events of the CUDA runtime API.
//!
//! Every stream (the legacy default stream, the per-thread default streams and the ones
//! `cudaStreamCreate` makes) is a queue of operations and a host thread that runs them in
//! order: a kernel launch runs its grid from that thread (as worker 0, the pool's helpers
//! joining), so launches on one stream are asynchronous for the caller and ordered among
//! themselves, and launches on different streams run at the same time, as launches from
//! different host threads always do in ptxrt.
//!
//! Each operation has a sequence number; a stream counts the operations enqueued and
//! completed. Dependencies between streams are (stream, sequence number) pairs an operation
//! waits for before it runs: `cudaStreamWaitEvent`, and CUDA's legacy default stream
//! semantics, where an operation on the legacy stream waits for all work enqueued before it
//! on every blocking stream, and an operation on a blocking stream waits for the work
//! enqueued before it on the legacy stream (non-blocking streams take part in neither).
//! Every dependency points at an operation enqueued earlier, so there are no cycles.
//!
//! Enqueueing takes the stream's queue lock (and, for blocking streams, one global lock
//! that orders them against the legacy stream) and allocates the operation: per launch,
//! never per thread or per block. A stream thread that runs out of work spins briefly
//! before it sleeps, so back-to-back launches do not pay for a wake-up.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::error::Error;
use crate::registry::lock;

/// What an operation does, on its stream's thread.
pub(crate) type Work = Box<dyn FnOnce() -> Result<(), Error> + Send>;

struct Op {
    seq: u64,
    deps: Vec<(Arc<Stream>, u64)>,
    work: Work,
}

struct Queue {
    ops: VecDeque<Op>,
    /// The stream thread sleeps on `wake` (enqueuers only notify then).
    idle: bool,
    /// Destroyed: the thread finishes the queued work and exits.
    closed: bool,
}

pub(crate) struct Stream {
    /// Synchronizes with the legacy default stream (not `cudaStreamNonBlocking`).
    pub(crate) blocking: bool,
    pub(crate) legacy: bool,
    /// `cudaStreamDestroy` was called: the handle is invalid, queued work still runs (and
    /// still counts for the legacy stream and `cudaDeviceSynchronize`).
    destroyed: AtomicBool,
    queue: Mutex<Queue>,
    wake: Condvar,
    enqueued: AtomicU64,
    completed: AtomicU64,
}

/// `cudaStreamNonBlocking`.
pub const NON_BLOCKING: u32 = 1;

impl Stream {
    /// A new stream with its thread.
    pub(crate) fn new(blocking: bool, legacy: bool) -> Result<Arc<Stream>, Error> {
        let s = Arc::new(Stream {
            blocking,
            legacy,
            destroyed: AtomicBool::new(false),
            queue: Mutex::new(Queue { ops: VecDeque::new(), idle: false, closed: false }),
            wake: Condvar::new(),
            enqueued: AtomicU64::new(0),
            completed: AtomicU64::new(0),
        });
        let runner = Arc::clone(&s);
        std::thread::Builder::new()
            .name("ptxrt-stream".into())
            .stack_size(1 << 20)
            .spawn(move || stream_main(runner))
            .map_err(|e| Error::memory_allocation(format!("cannot start the thread of a new stream: {e}")))?;
        Ok(s)
    }

    /// Sequence number of the last enqueued operation.
    pub(crate) fn last_enqueued(&self) -> u64 {
        self.enqueued.load(Ordering::Acquire)
    }

    /// Whether operation `seq` (and everything before it) has completed.
    pub(crate) fn done(&self, seq: u64) -> bool {
        self.completed.load(Ordering::Acquire) >= seq
    }

    /// Whether all work enqueued so far has completed.
    pub(crate) fn idle(&self) -> bool {
        self.done(self.last_enqueued())
    }

    /// Waits for all work enqueued before the call.
    pub(crate) fn synchronize(&self) {
        let target = self.last_enqueued();
        wait_until(|| self.done(target));
    }

    fn close(&self) {
        let mut q = lock(&self.queue);
        q.closed = true;
        self.wake.notify_all();
    }
}

/// The stream thread: runs operations in order until the stream is destroyed and drained.
fn stream_main(s: Arc<Stream>) {
    loop {
        // Spin a little before taking the lock to sleep: the next launch usually comes soon.
        for i in 0..4000u32 {
            if s.enqueued.load(Ordering::Acquire) > s.completed.load(Ordering::Relaxed) {
                break;
            }
            if i < 200 {
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
        let op = {
            let mut q = lock(&s.queue);
            loop {
                if let Some(op) = q.ops.pop_front() {
                    break op;
                }
                if q.closed {
                    return;
                }
                q.idle = true;
                q = s.wake.wait(q).unwrap_or_else(|p| p.into_inner());
                q.idle = false;
            }
        };
        for (dep, seq) in &op.deps {
            wait_until(|| dep.done(*seq));
        }
        if super::sticky().is_none() {
            let result = catch_unwind(AssertUnwindSafe(op.work)).unwrap_or_else(|_| Err(Error::internal("panic in a stream operation")));
            if let Err(e) = result {
                super::set_sticky(e);
            }
        }
        s.completed.store(op.seq, Ordering::Release);
        notify_progress();
    }
}

// ---- waiting for progress ---------------------------------------------------------------

static PROGRESS_LOCK: Mutex<()> = Mutex::new(());
static PROGRESS: Condvar = Condvar::new();
static WAITERS: AtomicUsize = AtomicUsize::new(0);

/// Wakes threads in [`wait_until`] (after an operation completed).
fn notify_progress() {
    if WAITERS.load(Ordering::SeqCst) > 0 {
        let _g = lock(&PROGRESS_LOCK);
        PROGRESS.notify_all();
    }
}

/// Returns once `cond` holds; `cond` must become true through stream progress.
pub(crate) fn wait_until(cond: impl Fn() -> bool) {
    for i in 0..2000u32 {
        if cond() {
            return;
        }
        if i < 100 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
    WAITERS.fetch_add(1, Ordering::SeqCst);
    let mut g = lock(&PROGRESS_LOCK);
    while !cond() {
        // The timeout is a safety net only; completions notify under the lock.
        g = PROGRESS.wait_timeout(g, Duration::from_millis(50)).unwrap_or_else(|p| p.into_inner()).0;
    }
    drop(g);
    WAITERS.fetch_sub(1, Ordering::SeqCst);
}

// ---- the streams of the process ---------------------------------------------------------

/// Orders enqueues on blocking streams against the legacy default stream.
static ENQUEUE: Mutex<()> = Mutex::new(());
/// Created blocking and non-blocking streams and per-thread default streams (not the
/// legacy one): handle validation and `cudaDeviceSynchronize`.
static LIVE: Mutex<Vec<Arc<Stream>>> = Mutex::new(Vec::new());
static LEGACY: OnceLock<Result<Arc<Stream>, Error>> = OnceLock::new();

/// Set when the program was compiled for per-thread default streams (nvcc's
/// `--default-stream per-thread`, `CUDA_API_PER_THREAD_DEFAULT_STREAM`): stream 0 is then
/// the calling thread's default stream.
pub(crate) static PER_THREAD_DEFAULT: AtomicBool = AtomicBool::new(false);

/// `cudaStreamLegacy`, also what stream 0 means.
pub const HANDLE_LEGACY: usize = 1;
/// `cudaStreamPerThread`.
pub const HANDLE_PER_THREAD: usize = 2;

pub(crate) fn legacy() -> Result<Arc<Stream>, Error> {
    LEGACY.get_or_init(|| Stream::new(true, true)).clone()
}

/// Closes a per-thread default stream when its host thread exits.
struct PerThread(Option<Arc<Stream>>);

impl Drop for PerThread {
    fn drop(&mut self) {
        if let Some(s) = self.0.take() {
            s.destroyed.store(true, Ordering::Release);
            s.close();
        }
    }
}

thread_local! {
    static PER_THREAD: std::cell::RefCell<PerThread> = const { std::cell::RefCell::new(PerThread(None)) };
}

fn per_thread() -> Result<Arc<Stream>, Error> {
    PER_THREAD
        .try_with(|cell| {
            let mut slot = cell.borrow_mut();
            if let Some(s) = &slot.0 {
                return Ok(Arc::clone(s));
            }
            let s = Stream::new(true, false)?;
            lock(&LIVE).push(Arc::clone(&s));
            slot.0 = Some(Arc::clone(&s));
            Ok(s)
        })
        .unwrap_or_else(|_| legacy())
}

/// `cudaStreamCreateWithFlags`: the handle (an `Arc` pointer).
pub(crate) fn create(flags: u32) -> Result<usize, Error> {
    if flags & !NON_BLOCKING != 0 {
        return Err(Error::invalid_value(format!("cudaStreamCreateWithFlags: unknown flags {flags:#x}")));
    }
    let s = Stream::new(flags & NON_BLOCKING == 0, false)?;
    let handle = Arc::as_ptr(&s) as usize;
    let mut live = lock(&LIVE);
    live.retain(|s| !(s.destroyed.load(Ordering::Acquire) && s.idle()));
    live.push(s);
    Ok(handle)
}

/// The stream behind a handle: 0 and `cudaStreamLegacy` are the legacy default stream,
/// `cudaStreamPerThread` the calling thread's default stream.
pub(crate) fn resolve(handle: usize) -> Result<Arc<Stream>, Error> {
    match handle {
        0 if PER_THREAD_DEFAULT.load(Ordering::Relaxed) => per_thread(),
        0 | HANDLE_LEGACY => legacy(),
        HANDLE_PER_THREAD => per_thread(),
        h => lock(&LIVE).iter().find(|s| Arc::as_ptr(s) as usize == h && !s.destroyed.load(Ordering::Acquire)).cloned().ok_or_else(|| {
            Error::new(crate::error::ErrorCode::InvalidResourceHandle, format!("stream {h:#x} was not created by cudaStreamCreate or is already destroyed"))
        }),
    }
}

/// `cudaStreamDestroy`: queued work still runs; the handle is invalid from now on.
pub(crate) fn destroy(handle: usize) -> Result<(), Error> {
    if handle == 0 || handle == HANDLE_LEGACY || handle == HANDLE_PER_THREAD {
        return Err(Error::new(crate::error::ErrorCode::InvalidResourceHandle, "cudaStreamDestroy: the default streams cannot be destroyed"));
    }
    let mut live = lock(&LIVE);
    // Destroyed streams stay listed until their work is done.
    live.retain(|s| !(s.destroyed.load(Ordering::Acquire) && s.idle()));
    let Some(s) = live.iter().find(|s| Arc::as_ptr(s) as usize == handle && !s.destroyed.load(Ordering::Acquire)) else {
        return Err(Error::new(
            crate::error::ErrorCode::InvalidResourceHandle,
            format!("cudaStreamDestroy: stream {handle:#x} was not created by cudaStreamCreate or is already destroyed"),
        ));
    };
    s.destroyed.store(true, Ordering::Release);
    s.close();
    Ok(())
}

/// Enqueues `work` on `s` after `extra` dependencies and the legacy-stream ones; returns
/// its sequence number.
pub(crate) fn enqueue(s: &Arc<Stream>, extra: Vec<(Arc<Stream>, u64)>, work: Work) -> u64 {
    let mut deps = extra;
    let _order = s.blocking.then(|| lock(&ENQUEUE));
    if s.legacy {
        for other in lock(&LIVE).iter() {
            if other.blocking && !other.idle() {
                deps.push((Arc::clone(other), other.last_enqueued()));
            }
        }
    } else if s.blocking {
        if let Some(Ok(l)) = LEGACY.get() {
            if !l.idle() {
                deps.push((Arc::clone(l), l.last_enqueued()));
            }
        }
    }
    let mut q = lock(&s.queue);
    let seq = s.enqueued.load(Ordering::Relaxed) + 1;
    q.ops.push_back(Op { seq, deps, work });
    s.enqueued.store(seq, Ordering::Release);
    if q.idle {
        s.wake.notify_one();
    }
    seq
}

/// A synchronous operation on the legacy default stream (`cudaMemcpy`, `cudaMemset`, ...)
/// when nothing it would have to wait for is pending: the legacy stream and every blocking
/// stream are idle. Then it runs on the calling thread, without the round trip through the
/// stream's thread, under the enqueue lock (no operation it must be ordered with can be
/// enqueued meanwhile). Otherwise the work is handed back to be enqueued.
pub(crate) fn try_run_inline(s: &Arc<Stream>, work: Work) -> Result<Result<(), Error>, Work> {
    if !s.legacy {
        return Err(work);
    }
    let _order = lock(&ENQUEUE);
    if !s.idle() || lock(&LIVE).iter().any(|o| o.blocking && !o.idle()) {
        return Err(work);
    }
    Ok(catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|_| Err(Error::internal("panic in a copy"))))
}

/// `cudaDeviceSynchronize`: waits for all work enqueued on every stream before the call.
pub(crate) fn synchronize_all() {
    let mut all: Vec<(Arc<Stream>, u64)> = lock(&LIVE).iter().map(|s| (Arc::clone(s), s.last_enqueued())).collect();
    if let Some(Ok(l)) = LEGACY.get() {
        all.push((Arc::clone(l), l.last_enqueued()));
    }
    for (s, seq) in all {
        wait_until(|| s.done(seq));
    }
}

// ---- events -----------------------------------------------------------------------------

/// `cudaEventDisableTiming`.
pub const EVENT_DISABLE_TIMING: u32 = 2;
/// Flags `cudaEventCreateWithFlags` accepts: Default 0, BlockingSync 1, DisableTiming 2,
/// Interprocess 4 (refused: no IPC).
const EVENT_FLAGS: u32 = 1 | 2;

pub(crate) struct Event {
    flags: u32,
    /// The operation of the last record: (stream, sequence number, the time it ran in
    /// nanoseconds since [`epoch`], 0 until then).
    recorded: Mutex<Option<Record>>,
}

type Record = (Arc<Stream>, u64, Arc<AtomicU64>);

static EVENTS: Mutex<Vec<usize>> = Mutex::new(Vec::new());

fn epoch() -> Instant {
    static START: OnceLock<Instant> = OnceLock::new();
    *START.get_or_init(Instant::now)
}

fn bad_event(what: &str, handle: usize) -> Error {
    Error::new(crate::error::ErrorCode::InvalidResourceHandle, format!("{what}: event {handle:#x} was not created by cudaEventCreate or is already destroyed"))
}

/// Runs `f` on a live event.
fn with_event<T>(what: &str, handle: usize, f: impl FnOnce(&Event) -> Result<T, Error>) -> Result<T, Error> {
    let events = lock(&EVENTS);
    if handle == 0 || !events.contains(&handle) {
        return Err(bad_event(what, handle));
    }
    // SAFETY: listed handles are live `Box<Event>` pointers; destroy removes the handle
    // under the same lock before freeing, so the event outlives this call.
    let ev = unsafe { &*(handle as *const Event) };
    f(ev)
}

pub(crate) fn event_create(flags: u32) -> Result<usize, Error> {
    if flags & !EVENT_FLAGS != 0 {
        return Err(Error::invalid_value(format!(
            "cudaEventCreateWithFlags: flags {flags:#x} are not supported (cudaEventDefault, \
             cudaEventBlockingSync and cudaEventDisableTiming are)"
        )));
    }
    let _ = epoch();
    let handle = Box::into_raw(Box::new(Event { flags, recorded: Mutex::new(None) })) as usize;
    lock(&EVENTS).push(handle);
    Ok(handle)
}

pub(crate) fn event_destroy(handle: usize) -> Result<(), Error> {
    let mut events = lock(&EVENTS);
    let Some(i) = events.iter().position(|&e| e == handle) else {
        return Err(bad_event("cudaEventDestroy", handle));
    };
    events.swap_remove(i);
    // SAFETY: a live handle from `Box::into_raw`, now unlisted, so no other call uses it.
    drop(unsafe { Box::from_raw(handle as *mut Event) });
    Ok(())
}

pub(crate) fn event_record(handle: usize, stream: &Arc<Stream>) -> Result<(), Error> {
    with_event("cudaEventRecord", handle, |ev| {
        let time = Arc::new(AtomicU64::new(0));
        let t = Arc::clone(&time);
        let mut rec = lock(&ev.recorded);
        let seq = enqueue(
            stream,
            vec![],
            Box::new(move || {
                t.store((epoch().elapsed().as_nanos() as u64).max(1), Ordering::Release);
                Ok(())
            }),
        );
        *rec = Some((Arc::clone(stream), seq, time));
        Ok(())
    })
}

/// The (stream, seq) of an event's latest record, if any.
pub(crate) fn event_target(what: &str, handle: usize) -> Result<Option<(Arc<Stream>, u64)>, Error> {
    with_event(what, handle, |ev| Ok(lock(&ev.recorded).as_ref().map(|(s, seq, _)| (Arc::clone(s), *seq))))
}

/// `cudaEventQuery`: whether the latest record has run (true if never recorded).
pub(crate) fn event_done(handle: usize) -> Result<bool, Error> {
    Ok(match event_target("cudaEventQuery", handle)? {
        Some((s, seq)) => s.done(seq),
        None => true,
    })
}

/// `cudaEventElapsedTime` in milliseconds.
pub(crate) fn elapsed_ms(start: usize, end: usize) -> Result<f32, Error> {
    let mut times = [0u64; 2];
    for (i, h) in [start, end].into_iter().enumerate() {
        let (flags, rec) = with_event("cudaEventElapsedTime", h, |ev| Ok((ev.flags, lock(&ev.recorded).clone())))?;
        if flags & EVENT_DISABLE_TIMING != 0 {
            return Err(Error::new(
                crate::error::ErrorCode::InvalidResourceHandle,
                "cudaEventElapsedTime: an event created with cudaEventDisableTiming has no time",
            ));
        }
        let Some((s, seq, time)) = rec else {
            return Err(Error::new(crate::error::ErrorCode::InvalidResourceHandle, "cudaEventElapsedTime: an event was never recorded"));
        };
        if !s.done(seq) {
            return Err(Error::new(crate::error::ErrorCode::NotReady, "cudaEventElapsedTime: an event has not completed yet"));
        }
        times[i] = time.load(Ordering::Acquire);
        if times[i] == 0 {
            // Skipped because of a sticky error: no time was taken.
            return Err(Error::new(crate::error::ErrorCode::NotReady, "cudaEventElapsedTime: an event's record did not run"));
        }
    }
    Ok((times[1] as f64 - times[0] as f64) as f32 / 1.0e6)
}

//! The block scheduler: which threads of a block run next, after they stopped at sync
//! points (barriers and warp collectives).
//!
//! A block function runs the code between sync points as thread loops ("regions"). Each
//! thread records in a per-thread `state` word the region it waits to enter — the region
//! after the sync point it reached — or `EXITED`. Between regions the block function calls
//! [`__ptxrt_schedule`], which picks a sync point that can complete, computes what it
//! produces (a shuffle's values, a vote, a `bar.red` reduction) into the waiting threads'
//! context slots, marks the released threads with the `RELEASED` bit and returns the region
//! to run for them. The decision follows the ISA:
//!
//! 1. Warp collectives complete per warp once every non-exited lane of the membermask waits
//!    at the same instruction. Forms without a membermask (legacy `shfl`/`vote`,
//!    `activemask`) work on the lanes that arrived together.
//! 2. `bar.arrive` never waits: it counts towards its barrier and releases the thread.
//! 3. `bar.sync`/`bar.red` with id `b` complete when the threads waiting on `b` plus the
//!    arrivals reach the thread count (without a count: every non-exited thread). Threads may
//!    wait on the same id at different instructions unless the barrier is `.aligned`.
//! 4. If nothing can complete, the block can never finish: the launch fails with a message.
//!
//! When threads are back at the warp point served last (a spin-wait), steps 2 and 3 come
//! first: warps spinning at warp points (polls of a flag or an mbarrier) must not keep
//! threads at a barrier waiting.
//!
//! Registers are read and written in the context area as the block function lays them out:
//! structure of arrays, the slot of thread `t` for a register with per-thread prefix `p` and
//! element size `s` at `context + nthreads * p + t * s`.
//!
//! # Cost
//! The scheduler runs between regions, so it must be cheap and it must never allocate
//! (workers on all cores call it at once; a shared allocator would serialize them).
//! Everything it keeps is on the stack: per-warp lane masks (a block has at most 32 warps),
//! per-barrier-id tallies, and a bitset over the first [`POINT_SET_BITS`] sync points for
//! the warp points threads wait at (kernels with more sync points fall back to finding
//! them by scanning the thread states, which needs no memory either). One survey pass over
//! the thread states gathers what every step needs; a warp whose live lanes all wait at one
//! point (the common case) is recognised from that pass alone, without looking at its
//! lanes again or reading their membermasks. Operands are resolved once per sync point
//! ([`Access`]: immediate, or a slot array with its element size), not per lane. Messages
//! are formatted only when a launch fails.

use crate::abi::BlockEnv;
pub use crate::abi::{SyncOperand, SyncPoint};
use crate::error::ErrorCode;
use std::cell::RefCell;
use std::ffi::{CStr, CString};

pub use ptx2llvm_abi::{
    scratch, sync_flags, BarRedOp, MatchMode, OperandKind, ReduxMode, ShflMode, SyncKind, VoteMode, WarpOp, BARRIER_IDS, DENSE, DONE, EXITED, FAILED,
    REGION_MASK, RELEASED,
};

/// Words of per-block scheduler scratch the block function provides (zeroed at its start);
/// see [`scratch`] for their layout.
pub const SCRATCH_WORDS: usize = scratch::WORDS;
const LAST_WARP_POINT: usize = scratch::LAST_WARP_POINT;
const SERVED_WARP_POINT: usize = scratch::SERVED_WARP_POINT;

/// Most threads in a block (CUDA's limit, checked by every launch), and warps.
const MAX_THREADS: usize = 1024;
const MAX_WARPS: usize = MAX_THREADS / 32;

/// Sync points the waiting-point bitset covers; beyond, a scan of the states is used.
pub const POINT_SET_BITS: usize = 1024;

thread_local! {
    static MESSAGE: RefCell<CString> = RefCell::new(CString::default());
}

pub(crate) struct Block<'a> {
    pub(crate) nthreads: usize,
    pub(crate) state: &'a mut [u32],
    pub(crate) context: *mut u8,
    /// The block's shared memory (matrix instructions address it).
    pub(crate) shared: *mut u8,
}

/// An operand resolved for one block: how to read and write it for any thread, with the
/// kind and element size decided once.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Access {
    /// No operand: reads 0, writes nothing.
    None,
    Imm(u64),
    /// The slot array (`context + nthreads * prefix`) of 1-, 2-, 4- or 8-byte elements.
    S1(*mut u8),
    S2(*mut u8),
    S4(*mut u8),
    S8(*mut u8),
    /// A slot of another declared size: 8 bytes read at `t * stride` (what a descriptor
    /// with a size other than 1, 2, 4 or 8 always meant).
    Other(*mut u8, usize),
}

/// The lanes (bit positions) of a lane mask, lowest first.
#[derive(Clone, Copy)]
struct Lanes(u32);

impl Iterator for Lanes {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let l = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(l)
    }
}

impl Access {
    /// The value for thread `t`.
    #[inline]
    pub(crate) fn get(self, t: usize) -> u64 {
        // SAFETY (all arms): by the block function's contract the context area holds
        // every slot its sync points name, for all `nthreads` threads, and `t` is one of
        // them; elements may be unaligned.
        unsafe {
            match self {
                Access::None => 0,
                Access::Imm(v) => v,
                Access::S1(p) => u64::from(p.add(t).read()),
                Access::S2(p) => u64::from((p.add(2 * t) as *const u16).read_unaligned()),
                Access::S4(p) => u64::from((p.add(4 * t) as *const u32).read_unaligned()),
                Access::S8(p) => (p.add(8 * t) as *const u64).read_unaligned(),
                Access::Other(p, stride) => (p.add(stride * t) as *const u64).read_unaligned(),
            }
        }
    }

    /// Stores `v` (truncated to the element size) for thread `t`.
    #[inline]
    pub(crate) fn set(self, t: usize, v: u64) {
        // SAFETY: see `get`.
        unsafe {
            match self {
                Access::None | Access::Imm(_) => {}
                Access::S1(p) => p.add(t).write(v as u8),
                Access::S2(p) => (p.add(2 * t) as *mut u16).write_unaligned(v as u16),
                Access::S4(p) => (p.add(4 * t) as *mut u32).write_unaligned(v as u32),
                Access::S8(p) => (p.add(8 * t) as *mut u64).write_unaligned(v),
                Access::Other(p, stride) => (p.add(stride * t) as *mut u64).write_unaligned(v),
            }
        }
    }

    /// The value every thread reads, if it does not depend on the thread.
    #[inline]
    fn uniform(self) -> Option<u64> {
        match self {
            Access::None => Some(0),
            Access::Imm(v) => Some(v),
            _ => None,
        }
    }

    /// Reads lanes `at` of the warp whose lane 0 is thread `base` into `out[lane]`.
    #[inline]
    fn gather(self, base: usize, at: u32, out: &mut [u64; 32]) {
        macro_rules! typed {
            ($p:expr, $ty:ty, $stride:expr) => {{
                // SAFETY: see `get`: every lane of `at` is a thread of the block.
                let p = unsafe { $p.add(base * $stride) };
                if at == u32::MAX {
                    for (l, o) in out.iter_mut().enumerate() {
                        // SAFETY: as above.
                        *o = unsafe { (p.add(l * $stride) as *const $ty).read_unaligned() } as u64;
                    }
                } else {
                    for l in Lanes(at) {
                        // SAFETY: as above.
                        out[l] = unsafe { (p.add(l * $stride) as *const $ty).read_unaligned() } as u64;
                    }
                }
            }};
        }
        match self {
            Access::None | Access::Imm(_) => {
                let v = self.uniform().unwrap_or(0);
                for l in Lanes(at) {
                    out[l] = v;
                }
            }
            Access::S1(p) => typed!(p, u8, 1),
            Access::S2(p) => typed!(p, u16, 2),
            Access::S4(p) => typed!(p, u32, 4),
            Access::S8(p) => typed!(p, u64, 8),
            Access::Other(p, stride) => typed!(p, u64, stride),
        }
    }

    /// Writes `vals[lane]` for lanes `at` of the warp whose lane 0 is thread `base`.
    #[inline]
    fn scatter(self, base: usize, at: u32, vals: &[u64; 32]) {
        macro_rules! typed {
            ($p:expr, $ty:ty, $stride:expr) => {{
                // SAFETY: see `get`.
                let p = unsafe { $p.add(base * $stride) };
                if at == u32::MAX {
                    for (l, v) in vals.iter().enumerate() {
                        // SAFETY: as above.
                        unsafe { (p.add(l * $stride) as *mut $ty).write_unaligned(*v as $ty) };
                    }
                } else {
                    for l in Lanes(at) {
                        // SAFETY: as above.
                        unsafe { (p.add(l * $stride) as *mut $ty).write_unaligned(vals[l] as $ty) };
                    }
                }
            }};
        }
        match self {
            Access::None | Access::Imm(_) => {}
            Access::S1(p) => typed!(p, u8, 1),
            Access::S2(p) => typed!(p, u16, 2),
            Access::S4(p) => typed!(p, u32, 4),
            Access::S8(p) => typed!(p, u64, 8),
            Access::Other(p, stride) => typed!(p, u64, stride),
        }
    }

    /// Writes `v` for lanes `at` of the warp whose lane 0 is thread `base`.
    #[inline]
    fn fill(self, base: usize, at: u32, v: u64) {
        if matches!(self, Access::None | Access::Imm(_)) {
            return;
        }
        for l in Lanes(at) {
            self.set(base + l, v);
        }
    }
}

impl Block<'_> {
    /// How to read and write `op` in this block.
    #[inline]
    pub(crate) fn access(&self, op: &SyncOperand) -> Access {
        match OperandKind::from_raw(op.kind) {
            Some(OperandKind::Imm) => Access::Imm(op.value),
            Some(OperandKind::Slot) => {
                // Only an address computation: nothing is read until a thread's element is.
                let base = self.context.wrapping_add(self.nthreads.wrapping_mul(op.value as usize));
                match op.size {
                    1 => Access::S1(base),
                    2 => Access::S2(base),
                    4 => Access::S4(base),
                    8 => Access::S8(base),
                    other => Access::Other(base, other as usize),
                }
            }
            _ => Access::None,
        }
    }

    pub(crate) fn read(&self, op: &SyncOperand, t: usize) -> u64 {
        self.access(op).get(t)
    }

    pub(crate) fn write(&self, op: &SyncOperand, t: usize, v: u64) {
        self.access(op).set(t, v)
    }
}

pub(crate) fn what(p: &SyncPoint) -> String {
    if p.what.is_null() {
        "a sync point".into()
    } else {
        // SAFETY: the compiler emits NUL-terminated constant strings.
        format!("`{}`", unsafe { CStr::from_ptr(p.what) }.to_string_lossy())
    }
}

/// Picks the next region to run. See the module documentation.
///
/// # Safety
/// Called by generated block functions: `env` is the block's environment, `state` holds
/// `nthreads` words, `context` the block's context area, `points` `npoints` descriptors,
/// `scratch` `SCRATCH_WORDS` words the block function zeroed at its start.
#[no_mangle]
pub unsafe extern "C" fn __ptxrt_schedule(
    env: *mut BlockEnv,
    nthreads: u32,
    state: *mut u32,
    context: *mut u8,
    points: *const SyncPoint,
    npoints: u32,
    scratch: *mut u32,
) -> i32 {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // SAFETY: per this function's contract.
        let (mut block, points, scratch) = unsafe {
            let shared = (*env).shared;
            let block = Block { nthreads: nthreads as usize, state: std::slice::from_raw_parts_mut(state, nthreads as usize), context, shared };
            (block, std::slice::from_raw_parts(points, npoints as usize), &mut *(scratch as *mut [u32; SCRATCH_WORDS]))
        };
        schedule(&mut block, points, scratch)
    }));
    // SAFETY: `env` is the block's environment.
    unsafe {
        match result {
            Ok(Ok(r)) => r,
            Ok(Err(msg)) => fail(env, msg),
            Err(_) => fail(env, "internal error in the block scheduler".into()),
        }
    }
}

/// Ends the block with `msg` as its error: the message is kept in a thread-local until the
/// worker has read it (right after the block function returns).
///
/// # Safety
/// `env` is the running block's environment.
pub(crate) unsafe fn fail(env: *mut BlockEnv, msg: String) -> i32 {
    // SAFETY: per this function's contract.
    let env = unsafe { &mut *env };
    let c = CString::new(msg).unwrap_or_default();
    env.error_message = MESSAGE.with(|m| {
        *m.borrow_mut() = c;
        m.borrow().as_ptr()
    });
    env.error_code = ErrorCode::LaunchFailure as i32;
    FAILED
}

/// Sync point indices, as a bitset over the first [`POINT_SET_BITS`] points.
struct PointSet {
    words: [u64; POINT_SET_BITS / 64],
    /// A point at or beyond [`POINT_SET_BITS`] belongs to the set: only a scan finds it.
    beyond: bool,
}

impl PointSet {
    fn new() -> PointSet {
        PointSet { words: [0; POINT_SET_BITS / 64], beyond: false }
    }

    #[inline]
    fn insert(&mut self, k: u32) {
        match self.words.get_mut(k as usize / 64) {
            Some(w) => *w |= 1 << (k % 64),
            None => self.beyond = true,
        }
    }

    /// The smallest member at or above `from` below [`POINT_SET_BITS`].
    fn next_from(&self, from: u32) -> Option<u32> {
        let from = from as usize;
        let mut i = from / 64;
        let mut word = *self.words.get(i)? & (u64::MAX << (from % 64));
        loop {
            if word != 0 {
                return Some((i * 64) as u32 + word.trailing_zeros());
            }
            i += 1;
            word = *self.words.get(i)?;
        }
    }
}

/// What one pass over the thread states finds.
struct Survey {
    /// The lowest region of a live thread already released (`u32::MAX`: none).
    released_min: u32,
    /// Live threads.
    live: usize,
    /// Per warp: its live lanes, and the point they all wait at ([`MIXED`] when they wait
    /// at several).
    warp_live: [u32; MAX_WARPS],
    warp_point: [u32; MAX_WARPS],
    /// Warp points (`SyncKind::Warp`) some thread waits at.
    warp_points: PointSet,
    /// The lowest `bar.arrive` some thread waits at (`u32::MAX`: none).
    min_arrive: u32,
    /// Some thread waits at a barrier (`bar.sync`, `bar.red`, `bar.arrive`).
    at_barrier: bool,
    /// Some thread waits at the warp point served last.
    at_last: bool,
}

/// `Survey::warp_point` of a warp whose live lanes wait at different points (no point has
/// this index: it is `EXITED`).
const MIXED: u32 = EXITED;

fn no_point(k: u32) -> String {
    format!("thread state {k} names no sync point")
}

impl Survey {
    fn take(b: &Block, points: &[SyncPoint], last: u32) -> Result<Survey, String> {
        let n = b.nthreads;
        let mut s = Survey {
            released_min: u32::MAX,
            live: 0,
            warp_live: [0; MAX_WARPS],
            warp_point: [MIXED; MAX_WARPS],
            warp_points: PointSet::new(),
            min_arrive: u32::MAX,
            at_barrier: false,
            at_last: false,
        };
        // Classifies a state (the same state is seen by many threads in a row: once is enough).
        let mut prev = EXITED;
        let mut classify = |s: &mut Survey, k: u32| -> Result<(), String> {
            if k == prev {
                return Ok(());
            }
            prev = k;
            if k & RELEASED != 0 {
                s.released_min = s.released_min.min(k & !RELEASED);
                return Ok(());
            }
            let p = points.get(k as usize).ok_or_else(|| no_point(k))?;
            match SyncKind::from_raw(p.kind) {
                Some(SyncKind::Warp) => s.warp_points.insert(k),
                Some(SyncKind::BarArrive) => {
                    s.min_arrive = s.min_arrive.min(k);
                    s.at_barrier = true;
                }
                Some(SyncKind::BarSync | SyncKind::BarRed) => s.at_barrier = true,
                _ => {}
            }
            s.at_last |= k == last;
            Ok(())
        };
        for (w, chunk) in b.state.chunks(32).enumerate() {
            let first = chunk[0];
            if chunk.iter().all(|&k| k == first) {
                // The whole warp at one point (or exited): one look is enough.
                if first != EXITED {
                    s.warp_live[w] = u32::MAX >> (32 - chunk.len());
                    s.warp_point[w] = first;
                    s.live += chunk.len();
                    classify(&mut s, first)?;
                }
                continue;
            }
            let (mut live, mut first, mut mixed) = (0u32, EXITED, false);
            for (l, &k) in chunk.iter().enumerate() {
                if k == EXITED {
                    continue;
                }
                live |= 1 << l;
                if first == EXITED {
                    first = k;
                } else {
                    mixed |= k != first;
                }
                classify(&mut s, k)?;
            }
            s.warp_live[w] = live;
            s.warp_point[w] = if mixed { MIXED } else { first };
            s.live += live.count_ones() as usize;
        }
        debug_assert!(b.state.len() == n);
        Ok(s)
    }
}

pub(crate) fn schedule(b: &mut Block, points: &[SyncPoint], scratch: &mut [u32; SCRATCH_WORDS]) -> Result<i32, String> {
    let n = b.nthreads;
    // The common case first, in one read-only pass: every thread waits at the same plain
    // barrier (no count, not `bar.red`). The dense region loop runs all threads without
    // looking at their state, so nothing needs marking.
    if let Some(&k) = b.state.first() {
        if k & RELEASED == 0 && b.state.iter().all(|&s| s == k) {
            if let Some(p) = points.get(k as usize) {
                if p.kind == SyncKind::BarSync as u32 && p.b.kind == OperandKind::None as u32 && p.a.kind == OperandKind::Imm as u32 {
                    return Ok(k as i32 | DENSE);
                }
            }
        }
    }
    if n > MAX_THREADS || b.state.len() != n {
        return Err(format!("a block of {n} threads: the scheduler handles at most {MAX_THREADS}"));
    }
    let survey = Survey::take(b, points, scratch[LAST_WARP_POINT])?;
    // Threads released together with others that already ran (one barrier, several sites).
    if survey.released_min != u32::MAX {
        return Ok(survey.released_min as i32);
    }
    if survey.live == 0 {
        return Ok(DONE);
    }

    // When threads are back at the warp point served last (a spin-wait: polls of a flag or
    // an mbarrier) while others wait at a barrier, a barrier that can complete goes first:
    // the spinning warps would otherwise be served again and again while the threads they
    // wait for sit at the barrier.
    let spinning = std::mem::take(&mut scratch[SERVED_WARP_POINT]) != 0 && survey.at_last;
    if spinning && survey.at_barrier {
        if let Some(r) = complete_barriers(b, points, &survey, scratch)? {
            return Ok(r);
        }
    }

    // 1. Warp collectives, per warp; round robin from the point after the one served
    //    last, so that warps spinning on a flag another warp sets let that warp run.
    let last = scratch[LAST_WARP_POINT];
    let mut cursor = WarpPointCursor::new(&survey.warp_points, last);
    while let Some(k) = cursor.next(b, points) {
        if let Some(r) = serve_warp_point(b, points, &survey, k)? {
            scratch[LAST_WARP_POINT] = k;
            scratch[SERVED_WARP_POINT] = 1;
            return Ok(r);
        }
    }

    if let Some(r) = complete_barriers(b, points, &survey, scratch)? {
        return Ok(r);
    }

    // 4. Nothing can complete.
    Err(deadlock_message(b, points))
}

/// The waiting warp points in round-robin order: those after `last`, then those up to it,
/// each part in increasing order.
struct WarpPointCursor<'s> {
    set: &'s PointSet,
    last: u32,
    /// The next candidate is the smallest waiting warp point at or above `from`.
    from: u32,
    wrapped: bool,
}

impl<'s> WarpPointCursor<'s> {
    fn new(set: &'s PointSet, last: u32) -> Self {
        WarpPointCursor { set, last, from: last.saturating_add(1), wrapped: false }
    }

    fn next(&mut self, b: &Block, points: &[SyncPoint]) -> Option<u32> {
        if !self.wrapped {
            if let Some(k) = self.next_at_or_above(b, points, self.from) {
                self.from = k.saturating_add(1);
                return Some(k);
            }
            self.wrapped = true;
            self.from = 0;
        }
        let k = self.next_at_or_above(b, points, self.from).filter(|&k| k <= self.last)?;
        self.from = k.saturating_add(1);
        Some(k)
    }

    /// The smallest waiting warp point `>= from`.
    fn next_at_or_above(&self, b: &Block, points: &[SyncPoint], from: u32) -> Option<u32> {
        let in_set = self.set.next_from(from);
        if !self.set.beyond {
            return in_set;
        }
        // Points beyond the bitset: scan the states for the smallest one at or above
        // `max(from, POINT_SET_BITS)`.
        let floor = from.max(POINT_SET_BITS as u32);
        let mut best: Option<u32> = None;
        let mut prev = EXITED;
        for &k in b.state.iter() {
            if k == EXITED || k < floor || k == prev || best.is_some_and(|m| k >= m) {
                continue;
            }
            prev = k;
            if points.get(k as usize).is_some_and(|p| p.kind == SyncKind::Warp as u32) {
                best = Some(k);
            }
        }
        match (in_set, best) {
            (Some(a), Some(c)) => Some(a.min(c)),
            (a, c) => a.or(c),
        }
    }
}

/// A warp point's operands, resolved once for the block.
struct Prepared {
    op: Option<WarpOp>,
    a: Access,
    b: Access,
    c: Access,
    mask: Access,
    dst: Access,
    pred: Access,
}

impl Prepared {
    fn new(b: &Block, p: &SyncPoint) -> Prepared {
        Prepared {
            op: WarpOp::from_raw(p.op),
            a: b.access(&p.a),
            b: b.access(&p.b),
            c: b.access(&p.c),
            mask: b.access(&p.mask),
            dst: b.access(&p.dst),
            pred: b.access(&p.pred),
        }
    }
}

/// Serves warp point `k` for every warp whose membermask lanes have all arrived; the
/// scheduler's result if any warp was served.
fn serve_warp_point(b: &mut Block, points: &[SyncPoint], survey: &Survey, k: u32) -> Result<Option<i32>, String> {
    let n = b.nthreads;
    let p = &points[k as usize];
    let ops = Prepared::new(b, p);
    let has_mask = p.mask.kind != OperandKind::None as u32;
    let mut released = 0usize;
    for w in 0..n.div_ceil(32) {
        let live = survey.warp_live[w];
        if live == 0 {
            continue;
        }
        let at = match survey.warp_point[w] {
            // Every live lane waits here: whatever the membermasks, none is missing.
            point if point == k => live,
            MIXED => {
                let base = 32 * w;
                let lanes = &b.state[base..(base + 32).min(n)];
                let mut at = 0u32;
                for (l, &s) in lanes.iter().enumerate() {
                    at |= ((s == k) as u32) << l;
                }
                if at == 0 {
                    continue;
                }
                if has_mask {
                    let mut mask = 0u32;
                    for l in Lanes(at) {
                        mask |= ops.mask.get(base + l) as u32;
                    }
                    if (mask & live) & !at != 0 {
                        continue;
                    }
                }
                at
            }
            _ => continue,
        };
        collective(b, p, &ops, w, at)?;
        let base = 32 * w;
        for (l, s) in b.state[base..(base + 32).min(n)].iter_mut().enumerate() {
            *s |= ((at >> l) & 1) * RELEASED;
        }
        released += at.count_ones() as usize;
    }
    Ok((released > 0).then(|| k as i32 | dense_flag(n, released)))
}

/// What the threads waiting on one barrier id amount to.
#[derive(Clone, Copy)]
struct OnId {
    /// Threads waiting on the id.
    count: u32,
    /// The lowest of them, and the lowest sync point among theirs.
    first_thread: u32,
    min_point: u32,
    /// The first point seen, and whether another point waits on the same id.
    some_point: u32,
    several_points: bool,
    /// Some point on the id is `.aligned`; some is `bar.red`.
    aligned: bool,
    red: bool,
}

const NO_ONE: OnId = OnId { count: 0, first_thread: 0, min_point: u32::MAX, some_point: u32::MAX, several_points: false, aligned: false, red: false };

/// The barrier id thread `t` waits on, if it waits at `bar.sync`/`bar.red`.
#[inline]
fn barrier_of(b: &Block, points: &[SyncPoint], t: usize) -> Option<(u32, usize)> {
    let k = b.state[t];
    if k == EXITED {
        return None;
    }
    let p = points.get(k as usize)?;
    if p.kind != SyncKind::BarSync as u32 && p.kind != SyncKind::BarRed as u32 {
        return None;
    }
    Some((k, (b.read(&p.a, t) & 15) as usize))
}

/// Steps 2 and 3 of `schedule`: releases the threads of a `bar.arrive` or of a barrier
/// that can complete, if there is one.
fn complete_barriers(b: &mut Block, points: &[SyncPoint], survey: &Survey, scratch: &mut [u32; SCRATCH_WORDS]) -> Result<Option<i32>, String> {
    let n = b.nthreads;
    // 2. `bar.arrive`: counts and goes on.
    if survey.min_arrive != u32::MAX {
        let k = survey.min_arrive;
        let a = b.access(&points[k as usize].a);
        for t in 0..n {
            if b.state[t] == k {
                let id = (a.get(t) & 15) as usize;
                scratch[scratch::ARRIVALS + id] = scratch[scratch::ARRIVALS + id].wrapping_add(1);
                b.state[t] |= RELEASED;
            }
        }
        return Ok(Some(k as i32));
    }
    if !survey.at_barrier {
        return Ok(None);
    }

    // 3. Barriers that can complete: tally the waiting threads per id in one pass.
    let mut ids = [NO_ONE; BARRIER_IDS];
    let mut prev = (EXITED, Access::None, 0u32, 0u32);
    for t in 0..n {
        let k = b.state[t];
        if k == EXITED {
            continue;
        }
        if k != prev.0 {
            let Some(p) = points.get(k as usize) else {
                continue;
            };
            prev = (k, b.access(&p.a), p.kind, p.flags);
        }
        let (_, a, kind, flags) = prev;
        if kind != SyncKind::BarSync as u32 && kind != SyncKind::BarRed as u32 {
            continue;
        }
        let on = &mut ids[(a.get(t) & 15) as usize];
        if on.count == 0 {
            on.first_thread = t as u32;
            on.some_point = k;
        }
        on.count += 1;
        on.min_point = on.min_point.min(k);
        on.several_points |= k != on.some_point;
        on.aligned |= flags & sync_flags::ALIGNED != 0;
        on.red |= kind == SyncKind::BarRed as u32;
    }
    for (id, on) in ids.iter().enumerate() {
        if on.count == 0 {
            continue;
        }
        let p0 = &points[on.min_point as usize];
        let expected = if p0.b.kind == OperandKind::None as u32 { survey.live as u64 } else { b.read(&p0.b, on.first_thread as usize) };
        if u64::from(on.count) + u64::from(scratch[scratch::ARRIVALS + id]) < expected {
            continue;
        }
        if on.several_points && on.aligned {
            return Err(divergent_message(b, points, id));
        }
        // `bar.red`: the reduction over every waiting thread.
        let (mut popc, mut all, mut any) = (0u64, true, false);
        if on.red {
            for t in 0..n {
                let Some((k, on_id)) = barrier_of(b, points, t) else {
                    continue;
                };
                let p = &points[k as usize];
                if on_id == id && p.kind == SyncKind::BarRed as u32 {
                    let v = (b.read(&p.c, t) & 1 != 0) ^ (p.flags & sync_flags::NEGATE != 0);
                    popc += v as u64;
                    all &= v;
                    any |= v;
                }
            }
        }
        let mut at_first = 0usize;
        for t in 0..n {
            let Some((k, on_id)) = barrier_of(b, points, t) else {
                continue;
            };
            if on_id != id {
                continue;
            }
            let p = &points[k as usize];
            if p.kind == SyncKind::BarRed as u32 {
                let v = match BarRedOp::from_raw(p.op) {
                    Some(BarRedOp::Popc) => popc,
                    Some(BarRedOp::And) => all as u64,
                    _ => any as u64,
                };
                b.write(&p.dst, t, v);
            }
            at_first += (k == on.min_point) as usize;
            b.state[t] = k | RELEASED;
        }
        scratch[scratch::ARRIVALS + id] = 0;
        return Ok(Some(on.min_point as i32 | dense_flag(n, at_first)));
    }
    Ok(None)
}

/// `DENSE` when all `nthreads` threads were released into the region.
fn dense_flag(nthreads: usize, released_into_region: usize) -> i32 {
    if released_into_region == nthreads {
        DENSE
    } else {
        0
    }
}

/// The message of a barrier reached at different `.aligned` instructions (a failure: it
/// may allocate).
fn divergent_message(b: &Block, points: &[SyncPoint], id: usize) -> String {
    let mut sites: Vec<u32> = (0..b.nthreads).filter_map(|t| barrier_of(b, points, t).filter(|&(_, i)| i == id).map(|(k, _)| k)).collect();
    sites.sort_unstable();
    sites.dedup();
    let names: Vec<String> = sites.iter().map(|&k| what(&points[k as usize])).collect();
    format!("threads of the block reached different barriers (divergent barrier): {} are different instructions of aligned barrier {id}", names.join(" and "))
}

/// The message of a block that can never finish (a failure: it may allocate).
fn deadlock_message(b: &Block, points: &[SyncPoint]) -> String {
    let mut waiting = std::collections::BTreeMap::<u32, usize>::new();
    for &k in b.state.iter().filter(|&&k| k != EXITED) {
        *waiting.entry(k).or_default() += 1;
    }
    let parts: Vec<String> = waiting
        .iter()
        .map(|(&k, threads)| match points.get(k as usize) {
            Some(p) => format!("{threads} thread(s) at {}", what(p)),
            None => no_point(k),
        })
        .collect();
    format!("the block can never finish (deadlock at barriers or warp collectives): {}", parts.join(", "))
}

/// `shfl` for the lanes `at` of the warp whose lane 0 is thread `base`. Every input is read
/// before any output is written (an output may be an input's register).
fn shuffle(ops: &Prepared, mode: u32, base: usize, at: u32) {
    let (mut a, mut b, mut c) = ([0u64; 32], [0u64; 32], [0u64; 32]);
    ops.a.gather(base, at, &mut a);
    ops.b.gather(base, at, &mut b);
    ops.c.gather(base, at, &mut c);
    let mut src = [0u32; 32];
    let mut ok = [false; 32];
    // A whole warp (the common case) needs no check that the source lane takes part.
    match (ShflMode::from_raw(mode), at == u32::MAX) {
        (Some(ShflMode::Up), true) => shuffle_sources::<0, true>(&b, &c, at, &mut src, &mut ok),
        (Some(ShflMode::Down), true) => shuffle_sources::<1, true>(&b, &c, at, &mut src, &mut ok),
        (Some(ShflMode::Bfly), true) => shuffle_sources::<2, true>(&b, &c, at, &mut src, &mut ok),
        (_, true) => shuffle_sources::<3, true>(&b, &c, at, &mut src, &mut ok),
        (Some(ShflMode::Up), false) => shuffle_sources::<0, false>(&b, &c, at, &mut src, &mut ok),
        (Some(ShflMode::Down), false) => shuffle_sources::<1, false>(&b, &c, at, &mut src, &mut ok),
        (Some(ShflMode::Bfly), false) => shuffle_sources::<2, false>(&b, &c, at, &mut src, &mut ok),
        (_, false) => shuffle_sources::<3, false>(&b, &c, at, &mut src, &mut ok),
    }
    let out: [u64; 32] = std::array::from_fn(|l| a[src[l] as usize & 31]);
    ops.dst.scatter(base, at, &out);
    if !matches!(ops.pred, Access::None) {
        let oks: [u64; 32] = std::array::from_fn(|l| ok[l] as u64);
        ops.pred.scatter(base, at, &oks);
    }
}

/// The lane each lane of a `shfl` (mode `MODE`: up, down, bfly, idx) reads, and whether
/// the source lane is in range (the predicate), for all 32 lanes at once (branch-free, so
/// that it vectorizes; lanes outside `at` compute values nobody uses).
#[inline(always)]
fn shuffle_sources<const MODE: u32, const FULL: bool>(b: &[u64; 32], c: &[u64; 32], at: u32, src: &mut [u32; 32], ok: &mut [bool; 32]) {
    for l in 0..32 {
        let lane = l as i32;
        let bval = (b[l] & 0x1f) as i32;
        let cval = (c[l] & 0x1f) as i32;
        let seg = ((c[l] >> 8) & 0x1f) as i32;
        let max_lane = (lane & seg) | (cval & !seg);
        let min_lane = lane & seg;
        let (j, in_range) = match MODE {
            0 => (lane - bval, lane - bval >= max_lane),
            1 => (lane + bval, lane + bval <= max_lane),
            2 => (lane ^ bval, (lane ^ bval) <= max_lane),
            _ => {
                let j = min_lane | (bval & !seg);
                (j, j <= max_lane)
            }
        };
        // Out of range: the lane keeps its own value. In range, `j` is a lane (0..=31).
        let j = if in_range { j } else { lane };
        // A source lane that does not take part: its value is undefined by the ISA; this
        // lane keeps its own.
        let j = if FULL || (at >> (j & 31)) & 1 != 0 { j } else { lane };
        src[l] = j as u32;
        ok[l] = in_range;
    }
}

/// Computes a warp collective for the lanes `at` of warp `w` and writes their outputs.
fn collective(b: &Block, p: &SyncPoint, ops: &Prepared, w: usize, at: u32) -> Result<(), String> {
    let base = 32 * w;
    let negate = p.flags & sync_flags::NEGATE != 0;
    match ops.op {
        Some(WarpOp::Shfl) => shuffle(ops, p.mode, base, at),
        Some(WarpOp::Vote) => {
            let mut ballot = 0u32;
            match ops.a.uniform() {
                Some(v) => {
                    if (v & 1 != 0) ^ negate {
                        ballot = at;
                    }
                }
                None => {
                    let mut a = [0u64; 32];
                    ops.a.gather(base, at, &mut a);
                    for l in Lanes(at) {
                        ballot |= (((a[l] & 1 != 0) ^ negate) as u32) << l;
                    }
                }
            }
            let v = match VoteMode::from_raw(p.mode) {
                Some(VoteMode::All) => (ballot == at) as u64,
                Some(VoteMode::Any) => (ballot != 0) as u64,
                Some(VoteMode::Uni) => (ballot == at || ballot == 0) as u64,
                _ => ballot as u64,
            };
            ops.dst.fill(base, at, v);
        }
        Some(WarpOp::Match) => {
            let mut vals = [0u64; 32];
            ops.a.gather(base, at, &mut vals);
            let first = vals[at.trailing_zeros() as usize];
            let all_equal = Lanes(at).all(|l| vals[l] == first);
            let mut out = [0u64; 32];
            for l in Lanes(at) {
                out[l] = if p.mode == MatchMode::Any as u32 {
                    let mut same = 0u32;
                    for m in Lanes(at) {
                        same |= ((vals[m] == vals[l]) as u32) << m;
                    }
                    same as u64
                } else if all_equal {
                    at as u64
                } else {
                    0
                };
            }
            ops.dst.scatter(base, at, &out);
            ops.pred.fill(base, at, all_equal as u64);
        }
        Some(WarpOp::Redux) => {
            let signed = p.flags & sync_flags::SIGNED != 0;
            let mut vals = [0u64; 32];
            ops.a.gather(base, at, &mut vals);
            let lanes = || Lanes(at).map(|l| vals[l] as u32);
            let v = match ReduxMode::from_raw(p.mode) {
                Some(ReduxMode::Add) => lanes().fold(0u32, |s, v| s.wrapping_add(v)),
                Some(ReduxMode::Min) if signed => lanes().map(|v| v as i32).min().unwrap_or(0) as u32,
                Some(ReduxMode::Min) => lanes().min().unwrap_or(0),
                Some(ReduxMode::Max) if signed => lanes().map(|v| v as i32).max().unwrap_or(0) as u32,
                Some(ReduxMode::Max) => lanes().max().unwrap_or(0),
                Some(ReduxMode::And) => lanes().fold(u32::MAX, |s, v| s & v),
                Some(ReduxMode::Or) => lanes().fold(0, |s, v| s | v),
                _ => lanes().fold(0, |s, v| s ^ v),
            };
            ops.dst.fill(base, at, v as u64);
        }
        Some(WarpOp::ActiveMask) => ops.dst.fill(base, at, at as u64),
        Some(WarpOp::Elect) => {
            // The leader: the lowest-numbered lane of the membermask among the lanes that
            // arrived (lanes with another membermask at the same instruction elect their own).
            for l in Lanes(at) {
                let members = ops.mask.get(base + l) as u32 & at;
                let leader = if members == 0 { l as u32 } else { members.trailing_zeros() };
                ops.dst.set(base + l, leader as u64);
                ops.pred.set(base + l, (leader == l as u32) as u64);
            }
        }
        Some(WarpOp::WarpSync) => {}
        Some(op) if op.is_matrix() => crate::matrix::run(b, p, w, at).map_err(|e| format!("{e} at {}", what(p)))?,
        _ => return Err(format!("unknown warp collective {} at {}", p.op, what(p))),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    mod kind {
        use super::SyncKind;
        pub const ENTRY: u32 = SyncKind::Entry as u32;
        pub const BAR_SYNC: u32 = SyncKind::BarSync as u32;
        pub const BAR_ARRIVE: u32 = SyncKind::BarArrive as u32;
        pub const BAR_RED: u32 = SyncKind::BarRed as u32;
        pub const WARP: u32 = SyncKind::Warp as u32;
    }

    mod warp_op {
        use super::WarpOp;
        pub const SHFL: u32 = WarpOp::Shfl as u32;
        pub const VOTE: u32 = WarpOp::Vote as u32;
        pub const MATCH: u32 = WarpOp::Match as u32;
        pub const REDUX: u32 = WarpOp::Redux as u32;
        pub const WARP_SYNC: u32 = WarpOp::WarpSync as u32;
        pub const ELECT: u32 = WarpOp::Elect as u32;
    }

    fn none() -> SyncOperand {
        SyncOperand::default()
    }

    fn point(kind: u32, op: u32, mode: u32, a: SyncOperand, b: SyncOperand, c: SyncOperand, dst: SyncOperand) -> SyncPoint {
        SyncPoint { kind, op, mode, flags: 0, a, b, c, mask: none(), dst, pred: none(), what: std::ptr::null(), operands: std::ptr::null(), num_operands: 0 }
    }

    #[test]
    fn elect_picks_the_lowest_live_lane_of_each_membermask() {
        // 40 threads: a full warp whose lanes 0-2 exited, electing over half-warp masks, and
        // 8 lanes of a second warp with a full membermask. Slots: mask (prefix 0, 4 bytes),
        // leader (prefix 4, 4 bytes), is-leader (prefix 8, 1 byte).
        let n = 40usize;
        let mut ctx = vec![0u8; n * 9];
        for t in 0..n {
            let mask: u32 = if t >= 32 {
                u32::MAX
            } else if t % 32 < 16 {
                0x0000_ffff
            } else {
                0xffff_0000
            };
            ctx[t * 4..t * 4 + 4].copy_from_slice(&mask.to_le_bytes());
        }
        let slot = |prefix, size| SyncOperand { kind: 2, size, value: prefix };
        let points = [
            point(kind::ENTRY, 0, 0, none(), none(), none(), none()),
            SyncPoint { mask: slot(0, 4), pred: slot(8, 1), ..point(kind::WARP, warp_op::ELECT, 0, none(), none(), none(), slot(4, 4)) },
        ];
        let mut state = vec![1u32; n];
        state[..3].fill(EXITED);
        let mut scratch = [0u32; SCRATCH_WORDS];
        let mut block = Block { nthreads: n, state: &mut state, context: ctx.as_mut_ptr(), shared: std::ptr::null_mut() };
        assert_eq!(schedule(&mut block, &points, &mut scratch).unwrap() & 0xffff, 1);
        assert_eq!(schedule(&mut block, &points, &mut scratch).unwrap() & 0xffff, 1, "the second warp is released next");
        let leader = |t: usize| u32::from_le_bytes(ctx[n * 4 + t * 4..n * 4 + t * 4 + 4].try_into().unwrap());
        let is_leader = |t: usize| ctx[n * 8 + t] != 0;
        for t in 3..n {
            let want = if t >= 32 {
                0
            } else if t < 16 {
                3
            } else {
                16
            };
            assert_eq!(leader(t), want, "thread {t}");
            assert_eq!(is_leader(t), t % 32 == want as usize, "thread {t}");
        }
    }

    #[test]
    fn a_spinning_warp_lets_a_barrier_complete() {
        // 64 threads: warp 0 polls at a warp lockstep point (a spin-wait), warp 1 waits at
        // `bar.sync 1, 32`. The poll is served, comes back to its point, and then the
        // barrier completes instead of the poll being served forever.
        let n = 64usize;
        let imm = |v| SyncOperand { kind: 1, size: 4, value: v };
        let points = [
            point(kind::ENTRY, 0, 0, none(), none(), none(), none()),
            point(kind::WARP, warp_op::WARP_SYNC, 0, none(), none(), none(), none()),
            point(kind::BAR_SYNC, 0, 0, imm(1), imm(32), none(), none()),
        ];
        let mut state: Vec<u32> = (0..n).map(|t| if t < 32 { 1 } else { 2 }).collect();
        let mut scratch = [0u32; SCRATCH_WORDS];
        let mut block = Block { nthreads: n, state: &mut state, context: std::ptr::null_mut(), shared: std::ptr::null_mut() };
        assert_eq!(schedule(&mut block, &points, &mut scratch).unwrap() & 0xffff, 1);
        // Warp 0 polled and is back at its point.
        block.state[..32].fill(1);
        assert_eq!(schedule(&mut block, &points, &mut scratch).unwrap() & 0xffff, 2, "the barrier completes next");
        assert!(block.state[32..].iter().all(|&s| s == 2 | RELEASED));
        block.state[32..].fill(EXITED);
        assert_eq!(schedule(&mut block, &points, &mut scratch).unwrap() & 0xffff, 1);
    }

    #[test]
    fn shfl_down_and_barrier() {
        // 40 threads: one full warp and one of 8 lanes. Slots: value (prefix 0, 4 bytes),
        // result (prefix 4, 4 bytes).
        let n = 40usize;
        let mut ctx = vec![0u8; n * 8];
        for t in 0..n {
            ctx[t * 4..t * 4 + 4].copy_from_slice(&(t as u32 * 10).to_le_bytes());
        }
        let slot = |prefix, size| SyncOperand { kind: 2, size, value: prefix };
        let imm = |v| SyncOperand { kind: 1, size: 4, value: v };
        let points = [
            point(kind::ENTRY, 0, 0, none(), none(), none(), none()),
            SyncPoint { mask: imm(0xffff_ffff), ..point(kind::WARP, warp_op::SHFL, 1, slot(0, 4), imm(1), imm(0x1f), slot(4, 4)) },
            point(kind::BAR_SYNC, 0, 0, imm(0), none(), none(), none()),
        ];
        let mut state = vec![1u32; n];
        state[39] = EXITED;
        let mut arrivals = [0u32; SCRATCH_WORDS];
        let mut block = Block { nthreads: n, state: &mut state, context: ctx.as_mut_ptr(), shared: std::ptr::null_mut() };
        let r = schedule(&mut block, &points, &mut arrivals).unwrap();
        assert_eq!(r, 1);
        let get = |ctx: &[u8], t: usize| u32::from_le_bytes(ctx[n * 4 + t * 4..n * 4 + t * 4 + 4].try_into().unwrap());
        assert_eq!(get(&ctx, 0), 10);
        assert_eq!(get(&ctx, 30), 310);
        assert_eq!(get(&ctx, 31), 310, "lane 31 of a full warp has no lane below to read: keeps its own");
        assert_eq!(get(&ctx, 32), 330);
        assert_eq!(get(&ctx, 38), 380, "lane 7 of the partial warp: source lane 8 exited");
        // All released; now they wait at the barrier, except one still at the shuffle.
        for t in 0..39 {
            state[t] = 2;
        }
        let mut block = Block { nthreads: n, state: &mut state, context: ctx.as_mut_ptr(), shared: std::ptr::null_mut() };
        assert_eq!(schedule(&mut block, &points, &mut arrivals).unwrap(), 2);
        state[5] = 2;
        state[6] = 1; // lane 6 alone at shfl.sync with a full membermask: it waits for the others
        for t in 0..39 {
            if t != 6 {
                state[t] = 2;
            }
        }
        let mut block = Block { nthreads: n, state: &mut state, context: ctx.as_mut_ptr(), shared: std::ptr::null_mut() };
        let e = schedule(&mut block, &points, &mut arrivals).unwrap_err();
        assert!(e.contains("never finish"), "{e}");
    }

    /// A block of `n` threads with a context of 4-byte slots (prefixes 0, 4, 8, ...).
    struct Harness {
        n: usize,
        ctx: Vec<u8>,
        state: Vec<u32>,
        scratch: [u32; SCRATCH_WORDS],
    }

    impl Harness {
        fn new(n: usize, slots: usize) -> Harness {
            Harness { n, ctx: vec![0; n * 4 * slots], state: vec![EXITED; n], scratch: [0; SCRATCH_WORDS] }
        }

        fn set(&mut self, prefix: usize, t: usize, v: u32) {
            let at = self.n * prefix + 4 * t;
            self.ctx[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }

        fn get(&self, prefix: usize, t: usize) -> u32 {
            let at = self.n * prefix + 4 * t;
            u32::from_le_bytes(self.ctx[at..at + 4].try_into().unwrap())
        }

        fn schedule(&mut self, points: &[SyncPoint]) -> Result<i32, String> {
            let mut block = Block { nthreads: self.n, state: &mut self.state, context: self.ctx.as_mut_ptr(), shared: std::ptr::null_mut() };
            schedule(&mut block, points, &mut self.scratch)
        }

        /// Threads released into `k` since the last call, and their states reset to waiting
        /// at `next` (as if they had run region `k` and stopped at the next sync point).
        fn released(&mut self, k: u32, next: u32) -> Vec<usize> {
            let mut r = vec![];
            for (t, s) in self.state.iter_mut().enumerate() {
                if *s == k | RELEASED {
                    r.push(t);
                    *s = next;
                }
            }
            r
        }
    }

    fn slot4(prefix: u64) -> SyncOperand {
        SyncOperand::slot(prefix, 4)
    }

    fn imm(v: u64) -> SyncOperand {
        SyncOperand::imm(v)
    }

    fn shfl(mode: ShflMode, a: SyncOperand, b: SyncOperand, c: SyncOperand, mask: SyncOperand, dst: SyncOperand) -> SyncPoint {
        SyncPoint { mask, ..point(kind::WARP, warp_op::SHFL, mode as u32, a, b, c, dst) }
    }

    fn entry() -> SyncPoint {
        point(kind::ENTRY, 0, 0, none(), none(), none(), none())
    }

    #[test]
    fn a_shuffling_warp_is_served_while_others_exited_or_wait_at_a_barrier() {
        // 96 threads: warp 0 at a butterfly shuffle, warp 1 exited but for lanes 16..32
        // (which shuffle too: exited lanes of the membermask do not hold them back), warp 2
        // at `bar.sync 0`.
        let mut h = Harness::new(96, 2);
        for t in 0..96 {
            h.set(0, t, 100 + t as u32);
        }
        let points = [
            entry(),
            shfl(ShflMode::Bfly, slot4(0), imm(1), imm(0x1f), imm(0xffff_ffff), slot4(4)),
            point(kind::BAR_SYNC, 0, 0, imm(0), none(), none(), none()),
        ];
        h.state[..32].fill(1);
        h.state[48..64].fill(1);
        h.state[64..].fill(2);
        assert_eq!(h.schedule(&points), Ok(1));
        assert_eq!(h.released(1, 2), (0..32).chain(48..64).collect::<Vec<_>>());
        for t in (0..32).chain(48..64) {
            assert_eq!(h.get(4, t), 100 + (t ^ 1) as u32, "thread {t}");
        }
        assert!(h.state[64..].iter().all(|&s| s == 2), "the barrier's warp is untouched");
        // Now every live thread waits at the barrier: it completes (not densely: some exited).
        assert_eq!(h.schedule(&points), Ok(2));
        assert_eq!(h.released(2, EXITED).len(), 80);
        assert_eq!(h.schedule(&points), Ok(DONE));
    }

    #[test]
    fn a_split_warp_waits_for_the_lanes_of_its_membermask() {
        // One warp: lanes 0..16 at a shuffle whose membermask is their half (they go), lanes
        // 16..32 at another shuffle with a full membermask (they wait for lanes 0..16).
        let mut h = Harness::new(32, 3);
        for t in 0..32 {
            h.set(0, t, t as u32);
            h.set(4, t, if t < 16 { 0xffff } else { u32::MAX });
        }
        let points = [
            entry(),
            shfl(ShflMode::Idx, slot4(0), imm(3), imm(0x1f), slot4(4), slot4(8)),
            shfl(ShflMode::Idx, slot4(0), imm(20), imm(0x1f), slot4(4), slot4(8)),
        ];
        h.state[..16].fill(1);
        h.state[16..].fill(2);
        assert_eq!(h.schedule(&points), Ok(1));
        assert_eq!(h.released(1, 2), (0..16).collect::<Vec<_>>());
        assert_eq!(h.get(8, 5), 3);
        // Lanes 0..16 reach the second shuffle: now the whole warp goes, densely.
        assert_eq!(h.schedule(&points), Ok(2 | DENSE));
        assert!((0..32).all(|t| h.get(8, t) == 20));
    }

    #[test]
    fn a_full_membermask_with_a_lane_elsewhere_deadlocks() {
        let mut h = Harness::new(32, 3);
        for t in 0..32 {
            h.set(4, t, u32::MAX);
        }
        let points =
            [entry(), shfl(ShflMode::Down, slot4(0), imm(1), imm(0x1f), slot4(4), slot4(8)), point(kind::BAR_SYNC, 0, 0, imm(0), none(), none(), none())];
        h.state.fill(1);
        h.state[7] = 2;
        let e = h.schedule(&points).unwrap_err();
        assert!(e.contains("31 thread(s) at a sync point") && e.contains("1 thread(s) at a sync point"), "{e}");
    }

    #[test]
    fn warp_points_are_served_round_robin() {
        // Warp 0 at point 1 (a lockstep poll), warp 1 at point 2, both complete each time:
        // after serving 1 the scheduler serves 2 even though warp 0 is back at 1.
        let mut h = Harness::new(64, 1);
        let poll = point(kind::WARP, warp_op::WARP_SYNC, 0, none(), none(), none(), none());
        let points = [entry(), poll, poll];
        h.state[..32].fill(1);
        h.state[32..].fill(2);
        let mut served = vec![];
        for _ in 0..4 {
            let r = h.schedule(&points).unwrap() & REGION_MASK;
            served.push(r);
            h.released(r as u32, r as u32);
        }
        assert_eq!(served, [1, 2, 1, 2]);
    }

    #[test]
    fn sync_points_beyond_the_bitset_are_found_by_scanning() {
        // 1500 points: warps wait at 5, 1100 and 1300 (warp points); round robin from the
        // last served (1100) goes to 1300, then wraps to 5, then 1100.
        let n = 96;
        let mut h = Harness::new(n, 1);
        let poll = point(kind::WARP, warp_op::WARP_SYNC, 0, none(), none(), none(), none());
        let mut points = vec![entry()];
        points.extend((1..1500).map(|_| poll));
        h.state[..32].fill(1300);
        h.state[32..64].fill(5);
        h.state[64..].fill(1100);
        h.scratch[LAST_WARP_POINT] = 1100;
        let mut served = vec![];
        for _ in 0..4 {
            let r = h.schedule(&points).unwrap();
            served.push(r);
            h.released(r as u32, r as u32);
        }
        assert_eq!(served, [1300, 5, 1100, 1300]);
        // A barrier among them still completes once the warps are there.
        points[1400] = point(kind::BAR_SYNC, 0, 0, imm(3), none(), none(), none());
        h.state.fill(1400);
        h.state[0] = EXITED;
        assert_eq!(h.schedule(&points), Ok(1400));
        assert!(h.state[1..].iter().all(|&s| s == 1400 | RELEASED));
    }

    #[test]
    fn bar_arrive_counts_towards_a_counted_barrier() {
        // Producer warp 0: `bar.arrive 1, 64`; consumer warp 1: `bar.sync 1, 64`.
        let mut h = Harness::new(64, 1);
        let points = [entry(), point(kind::BAR_ARRIVE, 0, 0, imm(1), imm(64), none(), none()), point(kind::BAR_SYNC, 0, 0, imm(1), imm(64), none(), none())];
        h.state[..32].fill(1);
        h.state[32..].fill(2);
        assert_eq!(h.schedule(&points), Ok(1), "bar.arrive never waits");
        assert_eq!(h.scratch[1], 32);
        assert_eq!(h.released(1, EXITED).len(), 32);
        // 32 waiting + 32 arrivals = 64: the consumers go, and the count is used up.
        assert_eq!(h.schedule(&points), Ok(2));
        assert_eq!(h.scratch[1], 0);
        assert_eq!(h.released(2, EXITED).len(), 32);
    }

    #[test]
    fn bar_red_reduces_over_the_live_threads() {
        // 40 threads, 3 exited; popc/and/or of `t % 3 == 0` (negated for one `and`).
        let n = 40;
        let mut h = Harness::new(n, 2);
        for t in 0..n {
            h.set(0, t, (t % 3 == 0) as u32);
        }
        let red = |op: BarRedOp, flags: u32| SyncPoint { flags, ..point(kind::BAR_RED, op as u32, 0, imm(2), none(), slot4(0), slot4(4)) };
        for (op, flags, want) in [(BarRedOp::Popc, 0, 13), (BarRedOp::And, sync_flags::NEGATE, 0), (BarRedOp::Or, 0, 1), (BarRedOp::And, 0, 0)] {
            let points = [entry(), red(op, flags)];
            h.state.fill(1);
            h.state[1] = EXITED;
            h.state[2] = EXITED;
            h.state[3] = EXITED;
            assert_eq!(h.schedule(&points), Ok(1));
            // Live threads 0, 4..40: multiples of 3 among them: 0, 6, 9, ..., 39 -> 13.
            assert_eq!(h.get(4, 0), want, "{op:?} {flags}");
            assert_eq!(h.get(4, 39), want);
        }
    }

    #[test]
    fn different_aligned_barrier_instructions_fail() {
        let mut h = Harness::new(64, 1);
        let aligned = |what: &'static std::ffi::CStr| SyncPoint {
            flags: sync_flags::ALIGNED,
            what: what.as_ptr(),
            ..point(kind::BAR_SYNC, 0, 0, imm(0), none(), none(), none())
        };
        let points = [entry(), aligned(c"bar.sync 0 (first)"), aligned(c"bar.sync 0 (second)")];
        h.state[..32].fill(1);
        h.state[32..].fill(2);
        let e = h.schedule(&points).unwrap_err();
        assert!(e.contains("divergent barrier") && e.contains("(first)") && e.contains("(second)"), "{e}");
        // Not `.aligned`: the same barrier reached from two instructions is fine.
        let plain = [entry(), point(kind::BAR_SYNC, 0, 0, imm(0), none(), none(), none()), point(kind::BAR_SYNC, 0, 0, imm(0), none(), none(), none())];
        assert_eq!(h.schedule(&plain), Ok(1));
        assert_eq!(h.released(1, EXITED).len(), 32);
        assert_eq!(h.schedule(&plain), Ok(2), "the other site's threads were released together");
    }

    #[test]
    fn votes_matches_and_reductions_of_a_partial_warp() {
        // 20 threads (a partial warp), lanes 0..4 exited; values t % 4.
        let n = 20;
        let mut h = Harness::new(n, 3);
        for t in 0..n {
            h.set(0, t, (t % 4) as u32);
        }
        let full = imm(0xffff_ffff);
        let live = 0x000f_fff0u32;
        let cases: [(u32, u32, u32, Box<dyn Fn(usize) -> u32>); 6] = [
            // The predicate is bit 0: the odd lanes among 4..20.
            (warp_op::VOTE, VoteMode::Ballot as u32, 0, Box::new(|_| 0x000a_aaa0)),
            (warp_op::VOTE, VoteMode::All as u32, 0, Box::new(|_| 0)),
            (warp_op::VOTE, VoteMode::Any as u32, sync_flags::NEGATE, Box::new(|_| 1)),
            (warp_op::MATCH, MatchMode::Any as u32, 0, Box::new(move |t| live & (0x1111_1111 << (t % 4)))),
            (warp_op::REDUX, ReduxMode::Add as u32, 0, Box::new(|_| (4..20).map(|t| t % 4).sum::<usize>() as u32)),
            (warp_op::REDUX, ReduxMode::Max as u32, sync_flags::SIGNED, Box::new(|_| 3)),
        ];
        for (op, mode, flags, want) in cases {
            let points = [entry(), SyncPoint { mask: full, flags, ..point(kind::WARP, op, mode, slot4(0), none(), none(), slot4(4)) }];
            h.state.fill(1);
            h.state[..4].fill(EXITED);
            assert_eq!(h.schedule(&points), Ok(1));
            for t in 4..n {
                assert_eq!(h.get(4, t), want(t), "op {op} mode {mode} thread {t}");
            }
        }
    }

    #[test]
    fn operands_of_every_size_are_read_and_written() {
        let n = 32;
        let mut ctx = vec![0u8; n * 32];
        let points_for =
            |size: u32| [entry(), shfl(ShflMode::Idx, SyncOperand::slot(0, size), imm(31), imm(0x1f), imm(u32::MAX as u64), SyncOperand::slot(8, size))];
        for size in [1u32, 2, 4, 8] {
            for t in 0..n {
                let v = 0x1122_3344_5566_7700u64 | t as u64;
                ctx[t * size as usize..(t + 1) * size as usize].copy_from_slice(&v.to_le_bytes()[..size as usize]);
            }
            let mut state = vec![1u32; n];
            let mut scratch = [0u32; SCRATCH_WORDS];
            let mut block = Block { nthreads: n, state: &mut state, context: ctx.as_mut_ptr(), shared: std::ptr::null_mut() };
            assert_eq!(schedule(&mut block, &points_for(size), &mut scratch), Ok(1 | DENSE));
            let out = n * 8;
            let mut want = 0x1122_3344_5566_771fu64.to_le_bytes();
            want[size as usize..].fill(0);
            let mut got = [0u8; 8];
            got[..size as usize].copy_from_slice(&ctx[out + 5 * size as usize..out + 6 * size as usize]);
            assert_eq!(got, want, "size {size}");
        }
    }
}

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

use crate::abi::BlockEnv;
use crate::error::ErrorCode;
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};

/// `state` of a thread that executed `exit`.
pub const EXITED: u32 = u32::MAX;
/// Set in `state` when the scheduler released the thread into its region.
pub const RELEASED: u32 = 0x8000_0000;
/// Set in the result when every thread of the block runs the region (no filter needed).
pub const DENSE: i32 = 0x4000_0000;
/// Result: every thread has exited.
pub const DONE: i32 = -1;
/// Result: the launch fails; the message is in the block environment.
pub const FAILED: i32 = -2;

pub mod kind {
    pub const ENTRY: u32 = 0;
    pub const BAR_SYNC: u32 = 1;
    pub const BAR_ARRIVE: u32 = 2;
    pub const BAR_RED: u32 = 3;
    pub const WARP: u32 = 4;
}

pub mod warp_op {
    pub const SHFL: u32 = 1;
    pub const VOTE: u32 = 2;
    pub const MATCH: u32 = 3;
    pub const REDUX: u32 = 4;
    pub const ACTIVEMASK: u32 = 5;
    pub const WARP_SYNC: u32 = 6;
    /// Codes 7..=39 belong to matrix instructions (`matrix::op`).
    pub const ELECT: u32 = 40;
}

pub mod flags {
    pub const ALIGNED: u32 = 1;
    pub const SIGNED: u32 = 2;
    /// The predicate input is negated (`vote.any.pred p, !q`).
    pub const NEGATE: u32 = 4;
}

/// Words of per-block scheduler scratch the block function provides (zeroed at its start):
/// arrivals per barrier id (16), then the warp point served last (round robin), then
/// whether the last decision served a warp point.
pub const SCRATCH_WORDS: usize = 32;
const LAST_WARP_POINT: usize = 16;
const SERVED_WARP_POINT: usize = 17;

/// `ptxrtSyncOperand`: where a sync point's operand comes from, per thread.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SyncOperand {
    /// 0: none, 1: the immediate `value`, 2: the context slot with prefix `value`.
    pub kind: u32,
    /// Slot element size in bytes (1, 2, 4 or 8).
    pub size: u32,
    pub value: u64,
}

/// `ptxrtSyncPoint`: one per region of a block function (index 0: the entry).
#[repr(C)]
#[derive(Debug)]
pub struct SyncPoint {
    pub kind: u32,
    /// `bar.red`: 0 popc, 1 and, 2 or. Warp: `warp_op::*`.
    pub op: u32,
    /// shfl: 0 up, 1 down, 2 bfly, 3 idx; vote: 0 all, 1 any, 2 uni, 3 ballot;
    /// match: 0 any, 1 all; redux: 0 add, 1 min, 2 max, 3 and, 4 or, 5 xor.
    pub mode: u32,
    pub flags: u32,
    /// Barriers: id, count, predicate (`bar.red`). shfl: a, b, c. vote: the predicate.
    /// match/redux: the value.
    pub a: SyncOperand,
    pub b: SyncOperand,
    pub c: SyncOperand,
    /// The membermask of `.sync` warp collectives (kind 0: the lanes that arrived together).
    pub mask: SyncOperand,
    pub dst: SyncOperand,
    pub pred: SyncOperand,
    /// The instruction as written, for messages.
    pub what: *const c_char,
    /// Matrix instructions: their fragment registers (see `matrix`); null otherwise.
    pub operands: *const SyncOperand,
    pub num_operands: u32,
}

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

impl Block<'_> {
    fn slot(&self, op: &SyncOperand, t: usize) -> *mut u8 {
        // SAFETY (by the block function's contract): the context area holds every slot
        // the sync points name, for `nthreads` threads.
        unsafe { self.context.add(self.nthreads * op.value as usize + t * op.size as usize) }
    }

    pub(crate) fn read(&self, op: &SyncOperand, t: usize) -> u64 {
        match op.kind {
            1 => op.value,
            2 => {
                let p = self.slot(op, t);
                // SAFETY: see `slot`; unaligned reads are fine for any element size.
                unsafe {
                    match op.size {
                        1 => p.read() as u64,
                        2 => (p as *const u16).read_unaligned() as u64,
                        4 => (p as *const u32).read_unaligned() as u64,
                        _ => (p as *const u64).read_unaligned(),
                    }
                }
            }
            _ => 0,
        }
    }

    pub(crate) fn write(&self, op: &SyncOperand, t: usize, v: u64) {
        if op.kind != 2 {
            return;
        }
        let p = self.slot(op, t);
        // SAFETY: see `slot`.
        unsafe {
            match op.size {
                1 => p.write(v as u8),
                2 => (p as *mut u16).write_unaligned(v as u16),
                4 => (p as *mut u32).write_unaligned(v as u32),
                _ => (p as *mut u64).write_unaligned(v),
            }
        }
    }

    fn live(&self, t: usize) -> bool {
        self.state[t] != EXITED
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
        let shared = (*env).shared;
        let mut block = Block { nthreads: nthreads as usize, state: std::slice::from_raw_parts_mut(state, nthreads as usize), context, shared };
        let points = std::slice::from_raw_parts(points, npoints as usize);
        let scratch = &mut *(scratch as *mut [u32; SCRATCH_WORDS]);
        schedule(&mut block, points, scratch)
    }));
    match result {
        Ok(Ok(r)) => r,
        Ok(Err(msg)) => fail(env, msg),
        Err(_) => fail(env, "internal error in the block scheduler".into()),
    }
}

pub(crate) unsafe fn fail(env: *mut BlockEnv, msg: String) -> i32 {
    let env = &mut *env;
    let c = CString::new(msg).unwrap_or_default();
    env.error_message = MESSAGE.with(|m| {
        *m.borrow_mut() = c;
        m.borrow().as_ptr()
    });
    env.error_code = ErrorCode::LaunchFailure as i32;
    FAILED
}

pub(crate) fn schedule(b: &mut Block, points: &[SyncPoint], scratch: &mut [u32; SCRATCH_WORDS]) -> Result<i32, String> {
    let n = b.nthreads;
    // The common case first, in one read-only pass: every thread waits at the same plain
    // barrier (no count, not `bar.red`). The dense region loop runs all threads without
    // looking at their state, so nothing needs marking.
    if let Some(&k) = b.state.first() {
        if k & RELEASED == 0 && b.state.iter().all(|&s| s == k) {
            if let Some(p) = points.get(k as usize) {
                if p.kind == kind::BAR_SYNC && p.b.kind == 0 && p.a.kind == 1 {
                    return Ok(k as i32 | DENSE);
                }
            }
        }
    }
    // Threads released together with others that already ran (one barrier, several sites).
    if let Some(k) = (0..n).filter(|&t| b.live(t) && b.state[t] & RELEASED != 0).map(|t| b.state[t] & !RELEASED).min() {
        return Ok(k as i32);
    }
    let mut waiting: Vec<u32> = (0..n).filter(|&t| b.live(t)).map(|t| b.state[t]).collect();
    if waiting.is_empty() {
        return Ok(DONE);
    }
    waiting.sort_unstable();
    waiting.dedup();
    let point = |k: u32| points.get(k as usize).ok_or_else(|| format!("thread state {k} names no sync point"));

    // When threads are back at the warp point served last (a spin-wait: polls of a flag or
    // an mbarrier) while others wait at a barrier, a barrier that can complete goes first:
    // the spinning warps would otherwise be served again and again while the threads they
    // wait for sit at the barrier.
    let spinning = std::mem::take(&mut scratch[SERVED_WARP_POINT]) != 0 && waiting.binary_search(&scratch[LAST_WARP_POINT]).is_ok();
    let at_barrier = || waiting.iter().any(|&k| points.get(k as usize).is_some_and(|p| matches!(p.kind, kind::BAR_SYNC | kind::BAR_RED | kind::BAR_ARRIVE)));
    if spinning && at_barrier() {
        if let Some(r) = complete_barriers(b, points, &waiting, scratch)? {
            return Ok(r);
        }
    }

    // 1. Warp collectives, per warp; round robin from the point after the one served
    //    last, so that warps spinning on a flag another warp sets let that warp run.
    let last = scratch[LAST_WARP_POINT];
    let (after, upto): (Vec<u32>, Vec<u32>) = waiting.iter().partition(|&&k| k > last);
    for &k in after.iter().chain(&upto) {
        let p = point(k)?;
        if p.kind != kind::WARP {
            continue;
        }
        let mut released = 0usize;
        for w in 0..n.div_ceil(32) {
            let lanes = (32 * w)..(32 * w + 32).min(n);
            let mut at = 0u32;
            let mut live = 0u32;
            let mut mask = 0u32;
            for t in lanes.clone() {
                let bit = 1u32 << (t - 32 * w);
                if b.live(t) {
                    live |= bit;
                }
                if b.state[t] == k {
                    at |= bit;
                    if p.mask.kind != 0 {
                        mask |= b.read(&p.mask, t) as u32;
                    }
                }
            }
            if at == 0 || (mask & live) & !at != 0 {
                continue;
            }
            collective(b, p, w, at)?;
            for t in lanes {
                if at & (1 << (t - 32 * w)) != 0 {
                    b.state[t] |= RELEASED;
                    released += 1;
                }
            }
        }
        if released > 0 {
            scratch[LAST_WARP_POINT] = k;
            scratch[SERVED_WARP_POINT] = 1;
            return Ok(k as i32 | dense_flag(b, k, released));
        }
    }

    if let Some(r) = complete_barriers(b, points, &waiting, scratch)? {
        return Ok(r);
    }

    // 4. Nothing can complete.
    let mut parts = vec![];
    for &k in &waiting {
        let p = point(k)?;
        let threads = (0..n).filter(|&t| b.state[t] == k).count();
        parts.push(format!("{threads} thread(s) at {}", what(p)));
    }
    Err(format!("the block can never finish (deadlock at barriers or warp collectives): {}", parts.join(", ")))
}

/// Steps 2 and 3 of `schedule`: releases the threads of a `bar.arrive` or of a barrier
/// that can complete, if there is one.
fn complete_barriers(b: &mut Block, points: &[SyncPoint], waiting: &[u32], scratch: &mut [u32; SCRATCH_WORDS]) -> Result<Option<i32>, String> {
    let n = b.nthreads;
    let point = |k: u32| points.get(k as usize).ok_or_else(|| format!("thread state {k} names no sync point"));
    // 2. `bar.arrive`: counts and goes on.
    for &k in waiting {
        let p = point(k)?;
        if p.kind != kind::BAR_ARRIVE {
            continue;
        }
        for t in 0..n {
            if b.state[t] == k {
                let id = (b.read(&p.a, t) & 15) as usize;
                scratch[id] += 1;
                b.state[t] |= RELEASED;
            }
        }
        return Ok(Some(k as i32));
    }

    // 3. Barriers that can complete.
    let live_count = (0..n).filter(|&t| b.live(t)).count() as u64;
    for id in 0..16u64 {
        let on_id = |t: usize, b: &Block| -> Option<u32> {
            let k = b.state[t];
            let p = points.get(k as usize)?;
            (b.live(t) && matches!(p.kind, kind::BAR_SYNC | kind::BAR_RED) && b.read(&p.a, t) & 15 == id).then_some(k)
        };
        let mut sites: Vec<u32> = (0..n).filter_map(|t| on_id(t, b)).collect();
        if sites.is_empty() {
            continue;
        }
        let count = sites.len() as u64;
        sites.sort_unstable();
        sites.dedup();
        let first_thread = (0..n).find(|&t| on_id(t, b).is_some()).unwrap_or(0);
        let p0 = point(sites[0])?;
        let expected = if p0.b.kind == 0 { live_count } else { b.read(&p0.b, first_thread) };
        if count + (scratch[id as usize] as u64) < expected {
            continue;
        }
        if sites.len() > 1 && sites.iter().any(|&k| points[k as usize].flags & flags::ALIGNED != 0) {
            let names: Vec<String> = sites.iter().map(|&k| what(&points[k as usize])).collect();
            return Err(format!(
                "threads of the block reached different barriers (divergent barrier): {} are different instructions of aligned barrier {id}",
                names.join(" and ")
            ));
        }
        // `bar.red`: the reduction over every waiting thread.
        let mut popc = 0u64;
        let mut all = true;
        let mut any = false;
        for t in 0..n {
            if let Some(k) = on_id(t, b) {
                let p = &points[k as usize];
                if p.kind == kind::BAR_RED {
                    let v = (b.read(&p.c, t) & 1 != 0) ^ (p.flags & flags::NEGATE != 0);
                    popc += v as u64;
                    all &= v;
                    any |= v;
                }
            }
        }
        let released: Vec<usize> = (0..n).filter(|&t| on_id(t, b).is_some()).collect();
        for &t in &released {
            let p = &points[b.state[t] as usize];
            if p.kind == kind::BAR_RED {
                let v = match p.op {
                    0 => popc,
                    1 => all as u64,
                    _ => any as u64,
                };
                b.write(&p.dst, t, v);
            }
        }
        scratch[id as usize] = 0;
        for &t in &released {
            b.state[t] |= RELEASED;
        }
        let k = sites[0];
        let at_k = released.iter().filter(|&&t| b.state[t] & !RELEASED == k).count();
        return Ok(Some(k as i32 | dense_flag(b, k, at_k)));
    }

    Ok(None)
}

/// `DENSE` when all `nthreads` threads were released into region `k`.
fn dense_flag(b: &Block, k: u32, released_at_k: usize) -> i32 {
    if released_at_k == b.nthreads && b.state.iter().all(|&s| s == k | RELEASED) {
        DENSE
    } else {
        0
    }
}

/// Computes a warp collective for the lanes `at` of warp `w` and writes their outputs.
fn collective(b: &Block, p: &SyncPoint, w: usize, at: u32) -> Result<(), String> {
    let lanes: Vec<usize> = (0..32).filter(|l| at & (1 << l) != 0).collect();
    let t = |l: usize| 32 * w + l;
    let negate = p.flags & flags::NEGATE != 0;
    match p.op {
        warp_op::SHFL => {
            let mut a = [0u64; 32];
            for &l in &lanes {
                a[l] = b.read(&p.a, t(l));
            }
            let mut out = vec![];
            for &l in &lanes {
                let bval = (b.read(&p.b, t(l)) & 0x1f) as i64;
                let c = b.read(&p.c, t(l));
                let cval = (c & 0x1f) as i64;
                let seg = ((c >> 8) & 0x1f) as i64;
                let lane = l as i64;
                let max_lane = (lane & seg) | (cval & !seg);
                let min_lane = lane & seg;
                let (j, ok) = match p.mode {
                    0 => (lane - bval, lane - bval >= max_lane),
                    1 => (lane + bval, lane + bval <= max_lane),
                    2 => (lane ^ bval, (lane ^ bval) <= max_lane),
                    _ => {
                        let j = min_lane | (bval & !seg);
                        (j, j <= max_lane)
                    }
                };
                let j = if ok { j as usize } else { l };
                // A source lane that does not take part: its value is undefined by the ISA;
                // this lane keeps its own.
                let v = if at & (1 << j) != 0 { a[j] } else { a[l] };
                out.push((l, v, ok));
            }
            for (l, v, ok) in out {
                b.write(&p.dst, t(l), v);
                b.write(&p.pred, t(l), ok as u64);
            }
        }
        warp_op::VOTE => {
            let mut ballot = 0u32;
            for &l in &lanes {
                if (b.read(&p.a, t(l)) & 1 != 0) ^ negate {
                    ballot |= 1 << l;
                }
            }
            let v = match p.mode {
                0 => (ballot == at) as u64,
                1 => (ballot != 0) as u64,
                2 => (ballot == at || ballot == 0) as u64,
                _ => ballot as u64,
            };
            for &l in &lanes {
                b.write(&p.dst, t(l), v);
            }
        }
        warp_op::MATCH => {
            let vals: Vec<u64> = lanes.iter().map(|&l| b.read(&p.a, t(l))).collect();
            let all_equal = vals.iter().all(|v| *v == vals[0]);
            for (i, &l) in lanes.iter().enumerate() {
                let d = if p.mode == 0 {
                    lanes.iter().zip(&vals).filter(|(_, v)| **v == vals[i]).fold(0u32, |m, (&m2, _)| m | (1 << m2))
                } else if all_equal {
                    at
                } else {
                    0
                };
                b.write(&p.dst, t(l), d as u64);
                b.write(&p.pred, t(l), all_equal as u64);
            }
        }
        warp_op::REDUX => {
            let signed = p.flags & flags::SIGNED != 0;
            let vals: Vec<u32> = lanes.iter().map(|&l| b.read(&p.a, t(l)) as u32).collect();
            let v = match p.mode {
                0 => vals.iter().fold(0u32, |s, v| s.wrapping_add(*v)),
                1 if signed => vals.iter().map(|v| *v as i32).min().unwrap_or(0) as u32,
                1 => vals.iter().copied().min().unwrap_or(0),
                2 if signed => vals.iter().map(|v| *v as i32).max().unwrap_or(0) as u32,
                2 => vals.iter().copied().max().unwrap_or(0),
                3 => vals.iter().fold(u32::MAX, |s, v| s & v),
                4 => vals.iter().fold(0, |s, v| s | v),
                _ => vals.iter().fold(0, |s, v| s ^ v),
            };
            for &l in &lanes {
                b.write(&p.dst, t(l), v as u64);
            }
        }
        warp_op::ACTIVEMASK => {
            for &l in &lanes {
                b.write(&p.dst, t(l), at as u64);
            }
        }
        warp_op::ELECT => {
            // The leader: the lowest-numbered lane of the membermask among the lanes that
            // arrived (lanes with another membermask at the same instruction elect their own).
            for &l in &lanes {
                let members = b.read(&p.mask, t(l)) as u32 & at;
                let leader = if members == 0 { l as u32 } else { members.trailing_zeros() };
                b.write(&p.dst, t(l), leader as u64);
                b.write(&p.pred, t(l), (leader == l as u32) as u64);
            }
        }
        warp_op::WARP_SYNC => {}
        op if crate::matrix::is_matrix_op(op) => crate::matrix::run(b, p, w, at).map_err(|e| format!("{e} at {}", what(p)))?,
        other => return Err(format!("unknown warp collective {other} at {}", what(p))),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn layouts_match_the_c_header() {
        assert_eq!(size_of::<SyncOperand>(), 16);
        assert_eq!(offset_of!(SyncPoint, a), 16);
        assert_eq!(offset_of!(SyncPoint, mask), 64);
        assert_eq!(offset_of!(SyncPoint, pred), 96);
        assert_eq!(offset_of!(SyncPoint, what), 112);
        assert_eq!(offset_of!(SyncPoint, operands), 120);
        assert_eq!(offset_of!(SyncPoint, num_operands), 128);
        assert_eq!(size_of::<SyncPoint>(), 136);
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
            let mask: u32 = if t >= 32 { u32::MAX } else if t % 32 < 16 { 0x0000_ffff } else { 0xffff_0000 };
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
            let want = if t >= 32 { 0 } else if t < 16 { 3 } else { 16 };
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
}

//! Running blocks allocates nothing once the workers are warm: not the block scheduler
//! (per collective), not the fiber scheduler or the matrix instructions (per block), not
//! the pool (per launch). A counting global allocator checks it; this file holds one test
//! so that nothing else allocates while it counts.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ptr::null;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::*;
use ptxrt::abi::{BlockEnv, Dim3, Kernel, SyncOperand, SyncPoint};
use ptxrt::capi::*;
use ptxrt::sched::{ShflMode, SyncKind, WarpOp};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static THIS_THREAD: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    let _ = THIS_THREAD.try_with(|c| c.set(c.get() + 1));
}

// SAFETY: forwards to the system allocator, counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn this_thread() -> usize {
    THIS_THREAD.with(Cell::get)
}

// ----------------------------------------------------------------------------------------
// A fiber kernel: every thread shuffles its value down by one, three times
// ----------------------------------------------------------------------------------------

static FIBER_SHFL: SyncPoint = SyncPoint {
    kind: SyncKind::Warp as u32,
    op: WarpOp::Shfl as u32,
    mode: ShflMode::Down as u32,
    flags: 0,
    a: SyncOperand::slot(0, 4),
    b: SyncOperand::imm(1),
    c: SyncOperand::imm(0x1f),
    mask: SyncOperand::imm(0xffff_ffff),
    dst: SyncOperand::slot(0, 4),
    pred: SyncOperand::NONE,
    what: c"shfl.sync.down (fiber)".as_ptr(),
    operands: null(),
    num_operands: 0,
};

/// The per-thread function: value = tid.x, three shuffles down by one, then
/// `out[ctaid * ntid + tid] = value`.
unsafe extern "C" fn fiber_thread(env: *mut BlockEnv, _local: *mut u8, tx: u32, _ty: u32, _tz: u32) -> i32 {
    let (n, ctx, out, b) = {
        let e = unsafe { &*env };
        (unsafe { (*e.launch).block.x } as usize, e.context as *mut u32, unsafe { param::<*mut u32>(e, 0) }, e.ctaid.x as usize)
    };
    let t = tx as usize;
    unsafe { *ctx.add(t) = tx };
    for _ in 0..3 {
        let rc = unsafe { ptxrt::fibers::__ptxrt_fiber_sync(env, &FIBER_SHFL) };
        if rc != 0 {
            return rc;
        }
    }
    unsafe { *out.add(b * n + t) = *ctx.add(t) };
    0
}

unsafe extern "C" fn fiber_block(env: *mut BlockEnv) -> i32 {
    unsafe { ptxrt::fibers::__ptxrt_run_fibers(env, fiber_thread) }
}

static K_FIBERS: Kernel = kernel(c"fibers", 1, fiber_block, 0, 4);

// ----------------------------------------------------------------------------------------
// A matrix instruction through the scheduler: movmatrix (an 8x8 transpose)
// ----------------------------------------------------------------------------------------

static MOV_OPERANDS: [SyncOperand; 2] = [SyncOperand::slot(4, 4), SyncOperand::slot(0, 4)];

static MOVMATRIX_POINTS: [SyncPoint; 2] = [
    SyncPoint { kind: SyncKind::Entry as u32, ..FIBER_SHFL },
    SyncPoint {
        kind: SyncKind::Warp as u32,
        op: WarpOp::MovMatrix as u32,
        mode: 8 | 8 << 8,
        flags: ptx2llvm_abi::matrix::TRANS,
        a: SyncOperand::NONE,
        b: SyncOperand::NONE,
        c: SyncOperand::imm(1 | 1 << 8),
        mask: SyncOperand::imm(0xffff_ffff),
        dst: SyncOperand::NONE,
        pred: SyncOperand::NONE,
        what: c"movmatrix".as_ptr(),
        operands: MOV_OPERANDS.as_ptr(),
        num_operands: 2,
    },
];

/// One warp: lane l holds the 16-bit elements 2l and 2l + 1 of an 8x8 matrix; after
/// `movmatrix.trans` it holds those of the transpose. params: (out: *mut u32).
unsafe extern "C" fn movmatrix_block(env: *mut BlockEnv) -> i32 {
    let (ctx, out) = {
        let e = unsafe { &*env };
        (e.context as *mut u32, unsafe { param::<*mut u32>(e, 0) })
    };
    let state = unsafe { ctx.add(2 * 32) };
    for l in 0..32u32 {
        unsafe {
            *ctx.add(l as usize) = (2 * l) | (2 * l + 1) << 16;
            *state.add(l as usize) = 1;
        }
    }
    let mut scratch = [0u32; ptxrt::sched::SCRATCH_WORDS];
    let r = unsafe { ptxrt::sched::__ptxrt_schedule(env, 32, state, ctx as *mut u8, MOVMATRIX_POINTS.as_ptr(), 2, scratch.as_mut_ptr()) };
    if r & ptxrt::sched::REGION_MASK != 1 {
        return LAUNCH_FAILURE;
    }
    for l in 0..32 {
        unsafe { *out.add(l) = *ctx.add(32 + l) };
    }
    0
}

static K_MOVMATRIX: Kernel = kernel(c"movmatrix", 1, movmatrix_block, 0, 12);

// ----------------------------------------------------------------------------------------

/// Launches `f` `times` times; how many of the launches allocated anything (anywhere).
fn allocating_launches(times: usize, mut f: impl FnMut()) -> usize {
    (0..times)
        .filter(|_| {
            let before = ALLOCATIONS.load(Ordering::SeqCst);
            f();
            ALLOCATIONS.load(Ordering::SeqCst) != before
        })
        .count()
}

#[test]
fn nothing_allocates_per_block_collective_or_launch() {
    // The scheduler alone, on this thread: a block sum (shuffles, a barrier, warps that
    // exited) run through `block_sum`'s region code on one worker.
    assert_eq!(ptxrtSetNumThreads(1), SUCCESS);
    let (blocks, threads) = (64u32, 256u32);
    let input: Vec<u32> = (0..blocks * threads).collect();
    let mut sums = vec![0u32; blocks as usize];
    let (ip, sp) = (input.as_ptr(), sums.as_mut_ptr());
    let mut block_sums = || {
        let rc = launch(&K_BLOCK_SUM, Dim3::new(blocks, 1, 1), Dim3::new(threads, 1, 1), &mut [arg(&ip), arg(&sp)]);
        assert_eq!(rc, SUCCESS, "{}", last_message());
    };
    block_sums();
    let before = this_thread();
    for _ in 0..20 {
        block_sums();
    }
    assert_eq!(this_thread() - before, 0, "launches on one worker allocated");
    assert_eq!(sums[3], (3 * threads..4 * threads).sum::<u32>());

    // Fibers and a matrix instruction, on one worker.
    let mut out = vec![0u32; 8 * 64];
    let op = out.as_mut_ptr();
    let mut fibers = || {
        let rc = launch(&K_FIBERS, Dim3::new(8, 1, 1), Dim3::new(64, 1, 1), &mut [arg(&op)]);
        assert_eq!(rc, SUCCESS, "{}", last_message());
    };
    fibers();
    let before = this_thread();
    for _ in 0..10 {
        fibers();
    }
    assert_eq!(this_thread() - before, 0, "fiber blocks allocated");
    // Lane l ends with lane l + 3's value (within its warp; lanes past the end keep theirs).
    assert_eq!(out[64 + 5], 5 + 3);
    assert_eq!(out[64 + 30], 31);
    let mut mov = vec![0u32; 32];
    let mp = mov.as_mut_ptr();
    let movmatrix = || {
        let rc = launch(&K_MOVMATRIX, Dim3::new(4, 1, 1), Dim3::new(32, 1, 1), &mut [arg(&mp)]);
        assert_eq!(rc, SUCCESS, "{}", last_message());
    };
    movmatrix();
    let before = this_thread();
    for _ in 0..10 {
        movmatrix();
    }
    assert_eq!(this_thread() - before, 0, "matrix instructions allocated");
    // Element (r, c) = 8r + c; lane 0 now holds (0,0) and (1,0) of the original: 0 and 8.
    assert_eq!(mov[0], 8 << 16);

    // Several workers: once every helper has run blocks (its buffers are allocated on
    // first use), launches allocate nothing anywhere. A helper that joins late allocates
    // once; an allocation per launch would show in every launch.
    assert_eq!(ptxrtSetNumThreads(3), SUCCESS);
    let many = allocating_launches(200, &mut block_sums) + allocating_launches(100, &mut fibers);
    assert!(many <= 10, "{many} of 300 launches with 3 workers allocated");
    assert_eq!(ptxrtGetLastError(), SUCCESS);
}

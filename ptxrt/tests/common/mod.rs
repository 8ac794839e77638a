//! What the integration tests share: launching from Rust, and a hand-written stand-in for
//! the region code ptx2llvm emits for a shuffle-and-barrier block sum.
#![allow(dead_code)]

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use ptxrt::abi::{BlockEnv, Dim3, Kernel, SyncOperand, SyncPoint, ABI_VERSION};
use ptxrt::capi::*;
use ptxrt::sched::{ShflMode, SyncKind, WarpOp, DENSE, DONE, EXITED, REGION_MASK, RELEASED, SCRATCH_WORDS};
use ptxrt::ErrorCode;

pub const SUCCESS: i32 = 0;
pub const LAUNCH_FAILURE: i32 = ErrorCode::LaunchFailure as i32;

pub const fn kernel(name: &'static std::ffi::CStr, num_params: u32, block_fn: ptxrt::abi::BlockFn, static_shared: u32, context: u32) -> Kernel {
    Kernel {
        abi_version: ABI_VERSION,
        num_params,
        name: name.as_ptr(),
        block_fn: Some(block_fn),
        param_sizes: null(),
        param_aligns: null(),
        static_shared_bytes: static_shared,
        context_bytes_per_thread: context,
        local_bytes_per_thread: 0,
        flags: 0,
        reqntid: Dim3::new(0, 0, 0),
        maxntid: Dim3::new(0, 0, 0),
    }
}

pub fn launch(k: &Kernel, grid: Dim3, block: Dim3, args: &mut [*mut c_void]) -> i32 {
    // SAFETY: each kernel reads exactly the arguments its tests pass.
    unsafe { ptxrtLaunchKernel(k, grid, block, args.as_mut_ptr(), 0, null_mut()) }
}

pub fn arg<T>(v: &T) -> *mut c_void {
    v as *const T as *mut c_void
}

pub fn last_message() -> String {
    // SAFETY: a NUL-terminated string valid until this thread's next failure.
    unsafe { std::ffi::CStr::from_ptr(ptxrtGetLastErrorMessage()) }.to_string_lossy().into_owned()
}

/// # Safety
/// `env` is a block's environment whose launch has at least `i + 1` arguments of type `T`.
pub unsafe fn param<T: Copy>(env: &BlockEnv, i: usize) -> T {
    unsafe { *(*(*env.launch).args.add(i) as *const T) }
}

pub fn fail(env: &mut BlockEnv, msg: &'static std::ffi::CStr) -> i32 {
    env.error_code = LAUNCH_FAILURE;
    env.error_message = msg.as_ptr();
    LAUNCH_FAILURE
}

// ----------------------------------------------------------------------------------------
// Region code: a block sum by shuffles and a barrier
// ----------------------------------------------------------------------------------------

/// Context slots (4 bytes per thread each): the running value, the shuffle's result, the
/// thread's state word.
pub const VALUE: u64 = 0;
pub const SHUFFLED: u64 = 4;
pub const STATE: u64 = 8;

pub const fn shfl_down(offset: u64) -> SyncPoint {
    SyncPoint {
        kind: SyncKind::Warp as u32,
        op: WarpOp::Shfl as u32,
        mode: ShflMode::Down as u32,
        flags: 0,
        a: SyncOperand::slot(VALUE, 4),
        b: SyncOperand::imm(offset),
        c: SyncOperand::imm(0x1f),
        mask: SyncOperand::imm(0xffff_ffff),
        dst: SyncOperand::slot(SHUFFLED, 4),
        pred: SyncOperand::NONE,
        what: c"shfl.sync.down".as_ptr(),
        operands: null(),
        num_operands: 0,
    }
}

/// Region k (1..=5) follows the shuffle by 16 >> (k - 1); region 6 the barrier.
pub static BLOCK_SUM_POINTS: [SyncPoint; 7] = [
    SyncPoint { kind: SyncKind::Entry as u32, what: null(), ..shfl_down(0) },
    shfl_down(16),
    shfl_down(8),
    shfl_down(4),
    shfl_down(2),
    shfl_down(1),
    SyncPoint {
        kind: SyncKind::BarSync as u32,
        op: 0,
        mode: 0,
        flags: ptx2llvm_abi::sync_flags::ALIGNED,
        a: SyncOperand::imm(0),
        b: SyncOperand::NONE,
        c: SyncOperand::NONE,
        mask: SyncOperand::NONE,
        dst: SyncOperand::NONE,
        pred: SyncOperand::NONE,
        what: c"bar.sync 0".as_ptr(),
        operands: null(),
        num_operands: 0,
    },
];

/// params: (input: *const u32, sums: *mut u32). `sums[ctaid.x]` = the sum of the block's
/// inputs: each warp reduces by `shfl.down`, lane 0 stores the warp's sum in shared memory,
/// `bar.sync 0`, thread 0 adds the warp sums. Block sizes must be multiples of 32.
pub unsafe extern "C" fn block_sum(env: *mut BlockEnv) -> i32 {
    let e = unsafe { &mut *env };
    let info = unsafe { &*e.launch };
    if e.worker_index >= info.num_workers {
        return fail(e, c"%smid out of range");
    }
    let input: *const u32 = unsafe { param(e, 0) };
    let sums: *mut u32 = unsafe { param(e, 1) };
    let n = info.block.x as usize;
    let ctx = e.context;
    // SAFETY: the context holds 12 bytes per thread (three 4-byte slots).
    let slot = |prefix: u64, t: usize| unsafe { (ctx.add(n * prefix as usize + 4 * t)) as *mut u32 };
    let shared = e.shared as *mut u32;
    let mut scratch = [0u32; SCRATCH_WORDS];
    // Region 0 (the entry): load, then wait at the first shuffle.
    for t in 0..n {
        unsafe {
            *slot(VALUE, t) = *input.add(e.ctaid.x as usize * n + t);
            *slot(STATE, t) = 1;
        }
    }
    loop {
        let r = unsafe {
            ptxrt::sched::__ptxrt_schedule(env, n as u32, slot(STATE, 0), ctx, BLOCK_SUM_POINTS.as_ptr(), BLOCK_SUM_POINTS.len() as u32, scratch.as_mut_ptr())
        };
        if r == DONE {
            return 0;
        }
        if r < 0 {
            return LAUNCH_FAILURE;
        }
        let k = (r & REGION_MASK) as u32;
        for t in 0..n {
            let state = unsafe { *slot(STATE, t) };
            if state != k | RELEASED && !(r & DENSE != 0 && state == k) {
                continue;
            }
            unsafe {
                let next = match k {
                    1..=4 => {
                        *slot(VALUE, t) = (*slot(VALUE, t)).wrapping_add(*slot(SHUFFLED, t));
                        k + 1
                    }
                    5 => {
                        let v = (*slot(VALUE, t)).wrapping_add(*slot(SHUFFLED, t));
                        if t % 32 == 0 {
                            *shared.add(t / 32) = v;
                        }
                        6
                    }
                    6 => {
                        if t == 0 {
                            *sums.add(e.ctaid.x as usize) = (0..n / 32).map(|w| *shared.add(w)).fold(0u32, u32::wrapping_add);
                        }
                        EXITED
                    }
                    _ => return fail(e, c"unexpected region"),
                };
                *slot(STATE, t) = next;
            }
        }
    }
}

pub static K_BLOCK_SUM: Kernel = kernel(c"block_sum", 2, block_sum, 128, 12);

/// Runs `block_sum` over `blocks` blocks of `threads` threads on data seeded by `seed`;
/// panics with the details unless every block's sum is right.
pub fn check_block_sums(blocks: u32, threads: u32, seed: u32) {
    let n = (blocks * threads) as usize;
    let input: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761).wrapping_add(seed) >> 7).collect();
    let mut sums = vec![0xdead_beefu32; blocks as usize];
    let (ip, sp) = (input.as_ptr(), sums.as_mut_ptr());
    let rc = launch(&K_BLOCK_SUM, Dim3::new(blocks, 1, 1), Dim3::new(threads, 1, 1), &mut [arg(&ip), arg(&sp)]);
    assert_eq!(rc, SUCCESS, "{}", last_message());
    for (b, &got) in sums.iter().enumerate() {
        let want = input[b * threads as usize..][..threads as usize].iter().fold(0u32, |s, &v| s.wrapping_add(v));
        assert_eq!(got, want, "block {b} of {blocks}x{threads} (seed {seed})");
    }
}

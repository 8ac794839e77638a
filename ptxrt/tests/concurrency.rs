//! Launches from several host threads at once: each runs its own grid with its own data and
//! gets its own results and errors; launches run at the same time (two grids that wait for
//! each other finish); grids launched from the device stay with their host launch. The
//! block functions are hand-written stand-ins for what ptx2llvm emits, including region
//! code that calls the block scheduler for shuffles and a barrier.

mod common;

use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::*;
use ptxrt::abi::{BlockEnv, Dim3, Kernel};
use ptxrt::capi::*;

#[test]
fn eight_host_threads_launch_different_grids_at_once() {
    std::thread::scope(|s| {
        for t in 0..8u32 {
            s.spawn(move || {
                for round in 0..12 {
                    // Each thread its own block size (1 to 8 warps), grid and data.
                    check_block_sums(17 + 13 * t + round, 32 * (1 + t % 8), 1000 * t + round);
                }
                assert_eq!(ptxrtGetLastError(), SUCCESS);
            });
        }
    });
}

// ----------------------------------------------------------------------------------------
// Overlap: two grids that can only finish together
// ----------------------------------------------------------------------------------------

/// How long a block waits for the other launch before it gives up (failing the test
/// instead of hanging it).
const PATIENCE: Duration = Duration::from_secs(30);

/// params: (mine: *const AtomicU32, other: *const AtomicU32). Raises its own flag, then
/// waits for the other launch's flag: if launches ran one after the other, the first
/// would wait in vain.
unsafe extern "C" fn meet(env: *mut BlockEnv) -> i32 {
    let e = unsafe { &mut *env };
    let mine: &AtomicU32 = unsafe { &*param::<*const AtomicU32>(e, 0) };
    let other: &AtomicU32 = unsafe { &*param::<*const AtomicU32>(e, 1) };
    mine.store(1, Ordering::Release);
    let deadline = Instant::now() + PATIENCE;
    while other.load(Ordering::Acquire) == 0 {
        if Instant::now() > deadline {
            return fail(e, c"timed out waiting for the other launch: launches did not run at the same time");
        }
        std::thread::yield_now();
    }
    0
}

static K_MEET: Kernel = kernel(c"meet", 2, meet, 0, 0);

#[test]
fn launches_from_different_threads_run_at_the_same_time() {
    for round in 0..3 {
        let flags = [AtomicU32::new(0), AtomicU32::new(0)];
        let results: Vec<(i32, String)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..2)
                .map(|i| {
                    let flags = &flags;
                    s.spawn(move || {
                        let (mine, other): (*const AtomicU32, *const AtomicU32) = (&flags[i], &flags[1 - i]);
                        let rc = launch(&K_MEET, Dim3::new(1, 1, 1), Dim3::new(1, 1, 1), &mut [arg(&mine), arg(&other)]);
                        (rc, last_message())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (rc, msg) in results {
            assert_eq!(rc, SUCCESS, "round {round}: {msg}");
        }
    }
}

// ----------------------------------------------------------------------------------------
// Errors stay with their launch
// ----------------------------------------------------------------------------------------

/// params: (started: *const AtomicU64). Counts its blocks, and fails every seventh.
unsafe extern "C" fn trap_some(env: *mut BlockEnv) -> i32 {
    let e = unsafe { &mut *env };
    let started: &AtomicU64 = unsafe { &*param::<*const AtomicU64>(e, 0) };
    started.fetch_add(1, Ordering::Relaxed);
    if e.ctaid.x % 7 == 3 {
        return fail(e, c"trap in trap_some");
    }
    0
}

static K_TRAP_SOME: Kernel = kernel(c"trap_some", 1, trap_some, 0, 0);

#[test]
fn a_trapping_launch_does_not_affect_another_threads_launch() {
    std::thread::scope(|s| {
        let trapper = s.spawn(|| {
            for _ in 0..60 {
                let started = AtomicU64::new(0);
                let p: *const AtomicU64 = &started;
                let rc = launch(&K_TRAP_SOME, Dim3::new(500, 1, 1), Dim3::new(32, 1, 1), &mut [arg(&p)]);
                assert_eq!(rc, LAUNCH_FAILURE);
                assert!(last_message().contains("trap in trap_some"), "{}", last_message());
                assert_eq!(ptxrtGetLastError(), LAUNCH_FAILURE);
            }
        });
        let summers: Vec<_> = (0..3u32)
            .map(|t| {
                s.spawn(move || {
                    for round in 0..25 {
                        check_block_sums(40 + t, 64 + 32 * t, round);
                    }
                    assert_eq!(ptxrtGetLastError(), SUCCESS, "no error leaked into this thread");
                })
            })
            .collect();
        trapper.join().unwrap();
        for h in summers {
            h.join().unwrap();
        }
    });
}

// ----------------------------------------------------------------------------------------
// Device-side launches stay with their host launch
// ----------------------------------------------------------------------------------------

static CHILD_PARAM_SIZES: [u32; 2] = [8, 4];
static CHILD_PARAM_ALIGNS: [u32; 2] = [8, 4];

/// params: (counters: *const AtomicU32, tag: u32). Adds `tag` to `counters[ctaid.x]`.
unsafe extern "C" fn child(env: *mut BlockEnv) -> i32 {
    let e = unsafe { &mut *env };
    let counters: *const AtomicU32 = unsafe { param(e, 0) };
    let tag: u32 = unsafe { param(e, 1) };
    unsafe { &*counters.add(e.ctaid.x as usize) }.fetch_add(tag, Ordering::Relaxed);
    0
}

static K_CHILD: Kernel = Kernel { param_sizes: CHILD_PARAM_SIZES.as_ptr(), param_aligns: CHILD_PARAM_ALIGNS.as_ptr(), ..kernel(c"child", 2, child, 0, 0) };

/// params: (counters: *const AtomicU32, tag: u32). Block `b` launches `child` over `b + 1`
/// blocks from the device, with the same parameters.
unsafe extern "C" fn parent(env: *mut BlockEnv) -> i32 {
    let (counters, tag, ctaid) = {
        let e = unsafe { &*env };
        (unsafe { param::<*const AtomicU32>(e, 0) }, unsafe { param::<u32>(e, 1) }, e.ctaid)
    };
    let func = &K_CHILD as *const Kernel as u64;
    let grid = [ctaid.x + 1, 1, 1];
    let block = [1u32, 1, 1];
    let shared = 0u32;
    let mut buffer = 0u64;
    // SAFETY: the arguments are what generated code passes: the block's environment and
    // pointers to the `.param` values.
    let status = unsafe { ptxrt::device::__ptx_cudaGetParameterBufferV2(env, null_mut(), 0, 0, 0, &func, grid.as_ptr(), block.as_ptr(), &shared, &mut buffer) };
    if status != 0 || buffer == 0 {
        return fail(unsafe { &mut *env }, c"cudaGetParameterBufferV2 failed");
    }
    // SAFETY: a fresh buffer laid out for `child`'s parameters: a pointer at 0, a u32 at 8.
    unsafe {
        (buffer as *mut u64).write(counters as u64);
        ((buffer + 8) as *mut u32).write(tag);
    }
    let (stream, mut launched) = (0u64, -1i32);
    // SAFETY: as above.
    let status = unsafe { ptxrt::device::__ptx_cudaLaunchDeviceV2(env, null_mut(), 0, 0, 0, &buffer, &stream, &mut launched) };
    if status != 0 || launched != 0 {
        return fail(unsafe { &mut *env }, c"cudaLaunchDeviceV2 failed");
    }
    0
}

static K_PARENT: Kernel = kernel(c"parent", 2, parent, 0, 0);

#[test]
fn device_launches_run_with_their_own_host_launch() {
    std::thread::scope(|s| {
        for t in 0..8u32 {
            s.spawn(move || {
                let blocks = 5 + 3 * t;
                let tag = t + 1;
                for round in 0..10 {
                    let counters: Vec<AtomicU32> = (0..blocks).map(|_| AtomicU32::new(0)).collect();
                    let cp = counters.as_ptr();
                    let rc = launch(&K_PARENT, Dim3::new(blocks, 1, 1), Dim3::new(1, 1, 1), &mut [arg(&cp), arg(&tag)]);
                    assert_eq!(rc, SUCCESS, "{}", last_message());
                    // Every child grid has finished when the host launch returns, and only
                    // this thread's children touched these counters: block `i` of the
                    // children ran once for each parent block `b >= i`.
                    for (i, c) in counters.iter().enumerate() {
                        assert_eq!(c.load(Ordering::Relaxed), tag * (blocks - i as u32), "thread {t} round {round} counter {i}");
                    }
                }
            });
        }
    });
}

#[test]
fn device_functions_outside_a_launch_fail_cleanly() {
    // Called from a thread that runs no grid: no launch to attach the child to.
    let func = &K_CHILD as *const Kernel as u64;
    let (grid, block, shared) = ([1u32, 1, 1], [1u32, 1, 1], 0u32);
    let mut env = BlockEnv {
        launch: null(),
        ctaid: Dim3::default(),
        worker_index: 0,
        shared: null_mut(),
        context: null_mut(),
        local: null_mut(),
        error_code: 0,
        error_message: null(),
        blocks_x: 1,
    };
    let mut buffer = 1u64;
    let status =
        unsafe { ptxrt::device::__ptx_cudaGetParameterBufferV2(&mut env, null_mut(), 0, 0, 0, &func, grid.as_ptr(), block.as_ptr(), &shared, &mut buffer) };
    assert_eq!((status, buffer), (0, 0), "no buffer outside a launch");
}

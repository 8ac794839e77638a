//! Checking mode (`ptx2llvm --check`): the runtime half of the memory and race checks that
//! checked objects make before every load and store (the CPU-side counterpart of
//! compute-sanitizer's memcheck, racecheck and initcheck).
//!
//! Checked kernels run under the fiber scheduler: each thread runs in order up to its next
//! barrier, and after every block-wide barrier it calls [`__ptxrt_check_barrier`], which
//! counts the barriers each thread has passed (its epoch). A shadow of the block's shared
//! window records, per byte, the last writer and reader with their epochs:
//!
//! - a write by thread B races with a write or read by another thread A in the same epoch
//!   (no barrier between them), a read races with another thread's write in the same epoch;
//! - a read of a byte that no thread of the block has written is an uninitialized read;
//! - `.shared` and `.local` addresses outside their window, and global (or generic)
//!   addresses just past the end of an allocation ptxrt made (`cudaMalloc` and friends,
//!   within [`OVERRUN_REACH`] bytes) are out of bounds. Addresses ptxrt does not know
//!   (host memory from `malloc`) are allowed.
//!
//! The first problem ends the thread with the error in the block's environment, so the
//! launch fails with `ptxrtErrorIllegalAddress` (bounds) or `ptxrtErrorLaunchFailure`
//! (a race, an uninitialized read), and a message that names the kernel, block, thread,
//! the PTX (and CUDA source) position and the address.
//! Atomics are not checked (they do not race), nor are accesses of warp collectives.

use crate::abi::BlockEnv;
use crate::error::ErrorCode;
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};

/// How far past the end of a known allocation an access counts as its overrun.
pub const OVERRUN_REACH: usize = 1024;

/// `kind` bits of [`__ptxrt_check_access`] (the compiler's `lower::ops::check` writes them).
pub mod kind {
    /// The access writes.
    pub const WRITE: u32 = 1;
    /// The state space, shifted by [`SPACE_SHIFT`].
    pub const SPACE_SHIFT: u32 = 1;
    pub const SPACE_GENERIC: u32 = 0;
    pub const SPACE_GLOBAL: u32 = 1;
    pub const SPACE_SHARED: u32 = 2;
    pub const SPACE_LOCAL: u32 = 3;
}

/// No thread (a shadow byte never written or read).
const NOBODY: u32 = u32::MAX;
/// Several threads read the byte in the epoch of `read_epoch`.
const MANY: u32 = u32::MAX - 1;

#[derive(Clone, Copy)]
struct ShadowByte {
    writer: u32,
    write_epoch: u32,
    reader: u32,
    read_epoch: u32,
}

const FRESH: ShadowByte = ShadowByte { writer: NOBODY, write_epoch: 0, reader: NOBODY, read_epoch: 0 };

/// The running block's shadow state, on the worker thread that runs its fibers.
struct BlockShadow {
    /// (grid id, block index): whose state this is.
    owner: (u64, [u32; 3]),
    shared: Vec<ShadowByte>,
    /// Barriers passed, per thread (linear index).
    epochs: Vec<u32>,
}

impl BlockShadow {
    /// Starts a fresh shadow when a new block (or launch) runs on this worker.
    fn own(&mut self, owner: (u64, [u32; 3])) {
        if self.owner != owner {
            self.owner = owner;
            self.shared.clear();
            self.epochs.clear();
        }
    }
}

thread_local! {
    static SHADOW: RefCell<BlockShadow> = const { RefCell::new(BlockShadow { owner: (0, [0; 3]), shared: Vec::new(), epochs: Vec::new() }) };
    /// The message of the last report: `BlockEnv::error_message` points at it.
    static MESSAGE: RefCell<CString> = RefCell::new(CString::default());
}

/// Where and by whom an access is made (the arguments of the checked access).
struct Site<'a> {
    env: &'a mut BlockEnv,
    /// NUL-terminated constants of the checked code (read only for a report).
    kernel: *const c_char,
    position: *const c_char,
    tid: [u32; 3],
}

impl Site<'_> {
    /// Ends the thread with `code` and a message naming everything about the access.
    fn report(&mut self, code: ErrorCode, what: String) -> i32 {
        let b = self.env.ctaid;
        let [tx, ty, tz] = self.tid;
        let msg = format!(
            "ptxrt check: {what} in kernel `{}`, block ({},{},{}), thread ({tx},{ty},{tz}), at {}",
            text(self.kernel),
            b.x,
            b.y,
            b.z,
            text(self.position)
        );
        eprintln!("{msg}");
        let c = CString::new(msg).unwrap_or_default();
        self.env.error_message = MESSAGE.with(|m| {
            *m.borrow_mut() = c;
            m.borrow().as_ptr()
        });
        self.env.error_code = code as i32;
        code as i32
    }
}

fn text(s: *const c_char) -> String {
    if s.is_null() {
        return "?".into();
    }
    // SAFETY: the compiler passes NUL-terminated constants.
    unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned()
}

fn verb(write: bool) -> &'static str {
    if write {
        "write"
    } else {
        "read"
    }
}

/// Checks one access of `bytes` bytes at `addr` by thread `tid` (linear index `linear`)
/// before it happens; 0: go on, else the thread ends with this error (in `env`).
///
/// # Safety
/// `env` is the running block's environment; the strings are NUL-terminated; the windows
/// are the block's shared window and the thread's local window with their sizes.
#[no_mangle]
pub unsafe extern "C" fn __ptxrt_check_access(
    env: *mut BlockEnv,
    addr: usize,
    bytes: u64,
    kind: u32,
    shared: usize,
    shared_bytes: u64,
    local: usize,
    local_bytes: u64,
    kernel: *const c_char,
    position: *const c_char,
    tid_x: u32,
    tid_y: u32,
    tid_z: u32,
    linear: u32,
) -> i32 {
    let Some(env) = env.as_mut() else { return 0 };
    let write = kind & kind::WRITE != 0;
    let space = kind >> kind::SPACE_SHIFT;
    let mut site = Site { env, kernel, position, tid: [tid_x, tid_y, tid_z] };
    let bytes = bytes as usize;
    let inside = |base: usize, size: u64| addr >= base && addr.wrapping_add(bytes) <= base + size as usize && addr.wrapping_add(bytes) >= addr;
    let in_shared = inside(shared, shared_bytes);
    match space {
        kind::SPACE_SHARED if !in_shared => {
            let offset = addr.wrapping_sub(shared) as isize;
            return site.report(
                ErrorCode::IllegalAddress,
                format!("out-of-bounds shared {} of {bytes} bytes at offset {offset} (address {addr:#x}) of a {shared_bytes}-byte shared window", verb(write)),
            );
        }
        kind::SPACE_LOCAL if !inside(local, local_bytes) => {
            let offset = addr.wrapping_sub(local) as isize;
            return site.report(
                ErrorCode::IllegalAddress,
                format!(
                    "out-of-bounds local {} of {bytes} bytes at offset {offset} (address {addr:#x}) of the thread's {local_bytes}-byte local window",
                    verb(write)
                ),
            );
        }
        kind::SPACE_GLOBAL | kind::SPACE_GENERIC if !in_shared && !inside(local, local_bytes) => {
            if let Some((start, size)) = crate::cuda::allocation_overrun(addr, bytes, OVERRUN_REACH) {
                return site.report(
                    ErrorCode::IllegalAddress,
                    format!(
                        "out-of-bounds global {} of {bytes} bytes at address {addr:#x}, {} bytes past the end of the {size}-byte allocation at {start:#x}",
                        verb(write),
                        addr + bytes - (start + size)
                    ),
                );
            }
            return 0;
        }
        _ => {}
    }
    if !in_shared {
        return 0;
    }
    shared_access(&mut site, addr - shared, bytes, shared_bytes as usize, write, linear)
}

/// What a shared access ran into (the first byte of it that did).
enum Problem {
    /// No thread of the block has written the byte.
    Uninitialized,
    /// Thread `other` accessed (`access`: "written" or "read") the byte since the last barrier.
    Race { other: u32, access: &'static str },
}

/// The race and initialization checks of an in-window shared access.
fn shared_access(site: &mut Site<'_>, offset: usize, bytes: usize, window: usize, write: bool, linear: u32) -> i32 {
    let owner = {
        // SAFETY: the launch information outlives its blocks.
        let grid = unsafe { site.env.launch.as_ref() }.map_or(0, |l| l.grid_id);
        let c = site.env.ctaid;
        (grid, [c.x, c.y, c.z])
    };
    let found = SHADOW.with(|s| {
        let mut s = s.borrow_mut();
        s.own(owner);
        if s.shared.len() != window {
            s.shared.clear();
            s.shared.resize(window, FRESH);
        }
        let t = linear as usize;
        if s.epochs.len() <= t {
            s.epochs.resize(t + 1, 0);
        }
        let epoch = s.epochs[t];
        let mut found = None;
        for (i, b) in s.shared[offset..offset + bytes].iter_mut().enumerate() {
            let other_wrote = b.writer != NOBODY && b.writer != linear && b.write_epoch == epoch;
            if write {
                let other_read = b.reader != NOBODY && b.reader != linear && b.read_epoch == epoch;
                if found.is_none() && (other_wrote || other_read) {
                    let (other, access) = if other_wrote { (b.writer, "written") } else { (b.reader, "read") };
                    found = Some((i, Problem::Race { other, access }));
                }
                b.writer = linear;
                b.write_epoch = epoch;
            } else {
                if found.is_none() && b.writer == NOBODY {
                    found = Some((i, Problem::Uninitialized));
                } else if found.is_none() && other_wrote {
                    found = Some((i, Problem::Race { other: b.writer, access: "written" }));
                }
                b.reader = if b.reader == NOBODY || b.reader == linear || b.read_epoch != epoch { linear } else { MANY };
                b.read_epoch = epoch;
            }
        }
        found
    });
    match found {
        None => 0,
        Some((i, problem)) => {
            let at = format!("{} of shared offset {}", verb(write), offset + i);
            let what = match problem {
                Problem::Uninitialized => format!("uninitialized shared read: {at} was never written by the block (uninitialized)"),
                Problem::Race { other, access } => format!("shared memory data race: {at} was {access} by thread {} since the last barrier", describe(other)),
            };
            site.report(ErrorCode::LaunchFailure, what)
        }
    }
}

/// A thread of the shadow, for messages (`linear` index, or several readers).
fn describe(t: u32) -> String {
    if t == MANY {
        "(several)".to_string()
    } else {
        format!("with linear index {t}")
    }
}

/// Thread `linear` passed a block-wide barrier: its later accesses no longer race with
/// what other threads did before it.
///
/// # Safety
/// `env` is the running block's environment.
#[no_mangle]
pub unsafe extern "C" fn __ptxrt_check_barrier(env: *mut BlockEnv, linear: u32) {
    let Some(env) = env.as_ref() else { return };
    // SAFETY: the launch information outlives its blocks.
    let grid = env.launch.as_ref().map_or(0, |l| l.grid_id);
    let c = env.ctaid;
    SHADOW.with(|s| {
        let mut s = s.borrow_mut();
        s.own((grid, [c.x, c.y, c.z]));
        let t = linear as usize;
        if s.epochs.len() <= t {
            s.epochs.resize(t + 1, 0);
        }
        s.epochs[t] += 1;
    });
}

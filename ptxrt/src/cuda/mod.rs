//! The CUDA runtime API on ptxrt (`include/cuda/cuda_runtime.h`), under CUDA's names and
//! with the C ABI, plus the registration and launch entry points that clang's CUDA host
//! code calls (`__cudaRegisterFatBinary`, `__cudaRegisterFunction`, `__cudaRegisterVar`,
//! `__cudaPushCallConfiguration`, `__cudaPopCallConfiguration`, and the older
//! `cudaConfigureCall`/`cudaSetupArgument`/`cudaLaunch`).
//!
//! - Memory is host memory: `cudaMalloc`, `cudaMallocHost` and `cudaMallocManaged` return
//!   256-byte aligned heap blocks that are recorded, so that copies can check that the
//!   device side of a copy lies inside an allocation (or a module variable) and `cudaFree`
//!   that it frees one. Copies of every `cudaMemcpyKind` are `memcpy`s, run in stream order.
//! - Kernels: a launch names a host function (the stub clang emits for a `__global__`
//!   function, registered with its device name, i.e. the mangled name, which is the PTX
//!   `.entry` name) or a `ptxrtKernel` descriptor. The configuration is checked when the
//!   launch is made (errors are returned then, as `cudaGetLastError` sees them after
//!   `<<<>>>`); the arguments are copied, and the grid runs on the stream's thread (see
//!   [`stream`]).
//! - Errors: every failing call returns its code and makes it the calling thread's last
//!   error (`cudaGetLastError` returns and clears it, `cudaPeekAtLastError` does not clear
//!   it). A kernel that fails while it runs (a fault, a trap, a failed assertion) leaves a
//!   *sticky* error, as a GPU context does: from then on every call that would touch the
//!   device (launches, copies, synchronization, allocation) returns that error, and queued
//!   work is skipped, until `cudaDeviceReset`.

#![allow(non_snake_case, non_camel_case_types, clippy::missing_safety_doc, clippy::too_many_arguments)]

pub mod props;
pub mod stream;

use std::collections::{BTreeMap, HashMap};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicI32, AtomicPtr, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use crate::abi::{Dim3, Kernel};
use crate::error::{self, Error, ErrorCode};
use crate::launch as rt_launch;
use crate::registry::{self, lock};
use crate::{pool, texture};

use props::{DeviceProp, FuncAttributes};
use stream::Stream;

pub type cudaError_t = c_int;
type Handle = *mut c_void;

// ---- errors -----------------------------------------------------------------------------

/// The sticky error (0: none) and its message.
static STICKY: AtomicI32 = AtomicI32::new(0);
static STICKY_MESSAGE: Mutex<String> = Mutex::new(String::new());

/// The sticky error, if a kernel failed since the last `cudaDeviceReset`.
pub(crate) fn sticky() -> Option<Error> {
    let code = STICKY.load(Ordering::Acquire);
    if code == 0 {
        return None;
    }
    let code = ErrorCode::from_raw(code).unwrap_or(ErrorCode::LaunchFailure);
    let message = lock(&STICKY_MESSAGE).clone();
    Some(Error::new(code, format!("{message} (a sticky error of an earlier kernel: every later call fails until cudaDeviceReset)")))
}

/// Records the failure of queued work as the sticky error (the first one wins).
pub(crate) fn set_sticky(e: Error) {
    // A failed device assert is cudaErrorAssert in CUDA.
    let e = if e.code == ErrorCode::LaunchFailure && e.message.contains("Assertion `") { Error::new(ErrorCode::Assert, e.message) } else { e };
    let mut m = lock(&STICKY_MESSAGE);
    if STICKY.load(Ordering::Acquire) == 0 {
        *m = e.message;
        STICKY.store(e.code.raw(), Ordering::Release);
    }
}

fn check_sticky() -> Result<(), Error> {
    match sticky() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Runs an API function: its error becomes the return value and the thread's last error;
/// a panic becomes `cudaErrorUnknown`.
fn call(f: impl FnOnce() -> Result<(), Error>) -> cudaError_t {
    let result = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| Err(Error::internal("panic in the CUDA runtime API")));
    match result {
        Ok(()) => 0,
        Err(e) => {
            error::set_last_error(&e);
            e.code.raw()
        }
    }
}

fn out<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T, Error> {
    // SAFETY: callers pass null or a writable pointer, per each function's contract.
    unsafe { p.as_mut() }.ok_or_else(|| Error::invalid_value(format!("{what} must not be NULL")))
}

/// CUDA's enumerator names (`cudaGetErrorName`).
fn cuda_error_name(code: cudaError_t) -> &'static CStr {
    match code {
        0 => c"cudaSuccess",
        1 => c"cudaErrorInvalidValue",
        2 => c"cudaErrorMemoryAllocation",
        3 => c"cudaErrorInitializationError",
        4 => c"cudaErrorCudartUnloading",
        9 => c"cudaErrorInvalidConfiguration",
        12 => c"cudaErrorInvalidPitchValue",
        13 => c"cudaErrorInvalidSymbol",
        17 => c"cudaErrorInvalidDevicePointer",
        21 => c"cudaErrorInvalidMemcpyDirection",
        35 => c"cudaErrorInsufficientDriver",
        52 => c"cudaErrorMissingConfiguration",
        98 => c"cudaErrorInvalidDeviceFunction",
        100 => c"cudaErrorNoDevice",
        101 => c"cudaErrorInvalidDevice",
        200 => c"cudaErrorInvalidKernelImage",
        400 => c"cudaErrorInvalidResourceHandle",
        500 => c"cudaErrorSymbolNotFound",
        600 => c"cudaErrorNotReady",
        700 => c"cudaErrorIllegalAddress",
        701 => c"cudaErrorLaunchOutOfResources",
        702 => c"cudaErrorLaunchTimeout",
        710 => c"cudaErrorAssert",
        715 => c"cudaErrorIllegalInstruction",
        719 => c"cudaErrorLaunchFailure",
        720 => c"cudaErrorCooperativeLaunchTooLarge",
        800 => c"cudaErrorNotPermitted",
        801 => c"cudaErrorNotSupported",
        999 => c"cudaErrorUnknown",
        _ => c"cudaErrorUnknown",
    }
}

fn cuda_error_string(code: cudaError_t) -> &'static CStr {
    match code {
        0 => c"no error",
        3 => c"initialization error",
        4 => c"driver shutting down",
        17 => c"invalid device pointer",
        35 => c"CUDA driver version is insufficient for CUDA runtime version",
        100 => c"no CUDA-capable device is detected",
        200 => c"device kernel image is invalid",
        500 => c"named symbol not found",
        701 => c"too many resources requested for launch",
        702 => c"the launch timed out and was terminated",
        800 => c"operation not permitted",
        c => match ErrorCode::from_raw(c) {
            Some(code) => code.description(),
            None => c"unrecognized error code",
        },
    }
}

#[no_mangle]
pub extern "C" fn cudaGetErrorName(error: cudaError_t) -> *const c_char {
    cuda_error_name(error).as_ptr()
}

#[no_mangle]
pub extern "C" fn cudaGetErrorString(error: cudaError_t) -> *const c_char {
    cuda_error_string(error).as_ptr()
}

/// Returns and clears the thread's last error; a sticky error is returned and kept.
#[no_mangle]
pub extern "C" fn cudaGetLastError() -> cudaError_t {
    catch_unwind(|| {
        let last = error::take_last_error();
        match STICKY.load(Ordering::Acquire) {
            0 => last,
            s => s,
        }
    })
    .unwrap_or(999)
}

#[no_mangle]
pub extern "C" fn cudaPeekAtLastError() -> cudaError_t {
    catch_unwind(|| match STICKY.load(Ordering::Acquire) {
        0 => error::peek_last_error(),
        s => s,
    })
    .unwrap_or(999)
}

// ---- memory -----------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Device,
    Host,
    Managed,
    /// `cudaHostRegister`ed memory: not ours to free.
    Registered,
}

#[derive(Clone, Copy)]
struct Alloc {
    size: usize,
    kind: Kind,
}

/// Live allocations by start address.
static ALLOCS: Mutex<BTreeMap<usize, Alloc>> = Mutex::new(BTreeMap::new());

const ALLOC_ALIGN: usize = 256;

/// Checking mode (`check`): the allocation whose end an access of `bytes` at `addr` passes
/// by at most `reach` bytes, when no live allocation contains the access: (start, size).
pub(crate) fn allocation_overrun(addr: usize, bytes: usize, reach: usize) -> Option<(usize, usize)> {
    let allocs = lock(&ALLOCS);
    let (&start, a) = allocs.range(..=addr).next_back()?;
    let end = start + a.size;
    if addr + bytes <= end {
        return None;
    }
    let inside_next = allocs.range(addr..).next().is_some_and(|(&s, n)| addr >= s && addr + bytes <= s + n.size);
    (!inside_next && addr < end + reach).then_some((start, a.size))
}

fn layout(size: usize) -> Option<std::alloc::Layout> {
    std::alloc::Layout::from_size_align(size.max(1), ALLOC_ALIGN).ok()
}

fn allocate(size: usize, kind: Kind, what: &str) -> Result<*mut c_void, Error> {
    check_sticky()?;
    if size == 0 {
        return Ok(std::ptr::null_mut());
    }
    let oom = || Error::memory_allocation(format!("{what}: cannot allocate {size} bytes"));
    let l = layout(size).ok_or_else(oom)?;
    // SAFETY: the layout has a non-zero size.
    let p = unsafe { std::alloc::alloc(l) };
    if p.is_null() {
        return Err(oom());
    }
    lock(&ALLOCS).insert(p as usize, Alloc { size, kind });
    Ok(p.cast())
}

fn release(p: *mut c_void, kinds: &[Kind], what: &str) -> Result<(), Error> {
    if p.is_null() {
        return Ok(());
    }
    check_sticky()?;
    let a = {
        let allocs = lock(&ALLOCS);
        match allocs.get(&(p as usize)) {
            Some(a) if kinds.contains(&a.kind) => *a,
            Some(a) => {
                return Err(Error::invalid_value(format!("{what}({p:p}): the pointer was allocated as {:?} memory, which this function does not free", a.kind)))
            }
            None => {
                return Err(Error::invalid_value(format!(
                    "{what}({p:p}): not the start of a live allocation (already freed, or not from cudaMalloc/cudaMallocManaged/cudaMallocHost)"
                )))
            }
        }
    };
    // As on a GPU, freeing waits for the work that may still use the memory.
    stream::synchronize_all();
    lock(&ALLOCS).remove(&(p as usize));
    if let Some(l) = layout(a.size) {
        // SAFETY: allocated by `allocate` with this layout and removed from the table once.
        unsafe { std::alloc::dealloc(p.cast(), l) };
    }
    Ok(())
}

/// Checks that `[p, p + count)` is device-accessible memory: inside an allocation of ours
/// (any kind: pinned and managed memory are device-accessible under unified addressing)
/// or a module variable.
fn check_device_range(p: *const c_void, count: usize, what: &str, side: &str) -> Result<(), Error> {
    if count == 0 {
        return Ok(());
    }
    if p.is_null() {
        return Err(Error::invalid_value(format!("{what}: the {side} pointer is NULL")));
    }
    let a = p as usize;
    if let Some((&base, alloc)) = lock(&ALLOCS).range(..=a).next_back() {
        if a - base < alloc.size {
            if count > alloc.size - (a - base) {
                return Err(Error::invalid_value(format!(
                    "{what}: {count} bytes at {side} {p:p} run past the end of its allocation of {} bytes at {:#x} (offset {})",
                    alloc.size,
                    base,
                    a - base
                )));
            }
            return Ok(());
        }
    }
    if let Some((base, size)) = registry::symbol_containing(a) {
        if count > size - (a - base) {
            return Err(Error::invalid_value(format!("{what}: {count} bytes at {side} {p:p} run past the end of a module variable of {size} bytes")));
        }
        return Ok(());
    }
    Err(Error::invalid_value(format!(
        "{what}: the {side} pointer {p:p} is not device memory (it is not inside an allocation of \
         cudaMalloc, cudaMallocManaged or cudaMallocHost, nor a __device__ variable); check the \
         cudaMemcpyKind, or use cudaMemcpyDefault"
    )))
}

/// Whether `p` lies in memory of ours (pinned, managed or device memory): anything else
/// is pageable host memory.
fn is_ours(p: *const c_void) -> bool {
    let a = p as usize;
    lock(&ALLOCS).range(..=a).next_back().is_some_and(|(&b, al)| a - b < al.size)
}

/// Work that copies `count` bytes to `dst`. An asynchronous copy from pageable host memory
/// takes its bytes now (CUDA stages such copies before returning, so callers may reuse the
/// buffer at once); returns whether the copy must be waited for instead (an asynchronous
/// copy to pageable host memory returns once done, as in CUDA).
fn staged_copy(dst: *mut c_void, src: *const c_void, count: usize, src_host: bool, dst_host: bool, wait: bool) -> (stream::Work, bool) {
    if !wait && src_host && count > 0 && !is_ours(src) {
        // SAFETY: the caller's source of `count` bytes, per the copy's contract.
        let bytes = unsafe { std::slice::from_raw_parts(src as *const u8, count) }.to_vec();
        let d = Addr(dst as usize);
        return (
            Box::new(move || {
                let d = d;
                // SAFETY: the destination was checked (device side) or is the caller's.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), d.0 as *mut u8, count) };
                Ok(())
            }),
            false,
        );
    }
    let wait = wait || (dst_host && count > 0 && !is_ours(dst));
    (copy_work(dst, src, count), wait)
}

fn check_host(p: *const c_void, count: usize, what: &str, side: &str) -> Result<(), Error> {
    if count > 0 && p.is_null() {
        return Err(Error::invalid_value(format!("{what}: the {side} pointer is NULL")));
    }
    Ok(())
}

/// Checks both sides of a copy for its kind.
fn check_copy(dst: *const c_void, src: *const c_void, dst_len: usize, src_len: usize, kind: c_int, what: &str) -> Result<(), Error> {
    let (dst_dev, src_dev) = match kind {
        0 => (false, false),
        1 => (true, false),
        2 => (false, true),
        3 => (true, true),
        4 => (false, false),
        k => return Err(Error::new(ErrorCode::InvalidMemcpyDirection, format!("{what}: {k} is not a cudaMemcpyKind (0..4)"))),
    };
    if dst_dev {
        check_device_range(dst, dst_len, what, "destination")?;
    } else {
        check_host(dst, dst_len, what, "destination")?;
    }
    if src_dev {
        check_device_range(src, src_len, what, "source")?;
    } else {
        check_host(src, src_len, what, "source")?;
    }
    Ok(())
}

/// A raw address moved into stream work.
#[derive(Clone, Copy)]
struct Addr(usize);

fn copy_work(dst: *mut c_void, src: *const c_void, count: usize) -> stream::Work {
    let (d, s) = (Addr(dst as usize), Addr(src as usize));
    Box::new(move || {
        let (d, s) = (d, s);
        if count > 0 {
            // SAFETY: both ranges were checked (device sides) or are the caller's promise
            // (host sides), as cudaMemcpy's contract; `copy` allows overlap.
            unsafe { std::ptr::copy(s.0 as *const u8, d.0 as *mut u8, count) };
        }
        Ok(())
    })
}

fn stream_of(handle: Handle) -> Result<Arc<Stream>, Error> {
    stream::resolve(handle as usize)
}

/// Enqueues on `s` and, for the synchronous forms, waits for it.
fn submit(s: &Arc<Stream>, work: stream::Work, wait: bool) -> Result<(), Error> {
    let work = if wait {
        match stream::try_run_inline(s, work) {
            Ok(result) => return result.and_then(|()| check_sticky()),
            Err(work) => work,
        }
    } else {
        work
    };
    let seq = stream::enqueue(s, vec![], work);
    if wait {
        stream::wait_until(|| s.done(seq));
        check_sticky()?;
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cudaMalloc(devPtr: *mut *mut c_void, size: usize) -> cudaError_t {
    call(|| {
        let o = out(devPtr, "cudaMalloc: devPtr")?;
        *o = allocate(size, Kind::Device, "cudaMalloc")?;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaMallocManaged(devPtr: *mut *mut c_void, size: usize, flags: c_uint) -> cudaError_t {
    call(|| {
        let o = out(devPtr, "cudaMallocManaged: devPtr")?;
        if flags != 1 && flags != 2 {
            return Err(Error::invalid_value(format!("cudaMallocManaged: flags {flags:#x} must be cudaMemAttachGlobal (1) or cudaMemAttachHost (2)")));
        }
        *o = allocate(size, Kind::Managed, "cudaMallocManaged")?;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> cudaError_t {
    call(|| {
        let o = out(ptr, "cudaMallocHost: ptr")?;
        *o = allocate(size, Kind::Host, "cudaMallocHost")?;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaHostAlloc(ptr: *mut *mut c_void, size: usize, _flags: c_uint) -> cudaError_t {
    call(|| {
        let o = out(ptr, "cudaHostAlloc: ptr")?;
        *o = allocate(size, Kind::Host, "cudaHostAlloc")?;
        Ok(())
    })
}

/// Pitched allocation: rows padded to a multiple of 512 bytes (`textureAlignment`).
#[no_mangle]
pub unsafe extern "C" fn cudaMallocPitch(devPtr: *mut *mut c_void, pitch: *mut usize, width: usize, height: usize) -> cudaError_t {
    call(|| {
        let o = out(devPtr, "cudaMallocPitch: devPtr")?;
        let po = out(pitch, "cudaMallocPitch: pitch")?;
        let p = width.div_ceil(512).max(1) * 512;
        let size = p.checked_mul(height).ok_or_else(|| Error::memory_allocation("cudaMallocPitch: size overflows"))?;
        *o = allocate(size, Kind::Device, "cudaMallocPitch")?;
        *po = p;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaFree(devPtr: *mut c_void) -> cudaError_t {
    call(|| release(devPtr, &[Kind::Device, Kind::Managed], "cudaFree"))
}

#[no_mangle]
pub unsafe extern "C" fn cudaFreeHost(ptr: *mut c_void) -> cudaError_t {
    call(|| release(ptr, &[Kind::Host], "cudaFreeHost"))
}

/// Records host memory as device-accessible (it already is: ptxrt runs on the host).
#[no_mangle]
pub unsafe extern "C" fn cudaHostRegister(ptr: *mut c_void, size: usize, _flags: c_uint) -> cudaError_t {
    call(|| {
        if ptr.is_null() || size == 0 {
            return Err(Error::invalid_value("cudaHostRegister: NULL pointer or zero size"));
        }
        lock(&ALLOCS).insert(ptr as usize, Alloc { size, kind: Kind::Registered });
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaHostUnregister(ptr: *mut c_void) -> cudaError_t {
    call(|| {
        let mut allocs = lock(&ALLOCS);
        match allocs.get(&(ptr as usize)) {
            Some(a) if a.kind == Kind::Registered => {
                allocs.remove(&(ptr as usize));
                Ok(())
            }
            _ => Err(Error::invalid_value(format!("cudaHostUnregister({ptr:p}): not registered with cudaHostRegister"))),
        }
    })
}

/// The device address of mapped host memory: the same address.
#[no_mangle]
pub unsafe extern "C" fn cudaHostGetDevicePointer(pDevice: *mut *mut c_void, pHost: *mut c_void, _flags: c_uint) -> cudaError_t {
    call(|| {
        let o = out(pDevice, "cudaHostGetDevicePointer: pDevice")?;
        check_device_range(pHost, 1, "cudaHostGetDevicePointer", "host")?;
        *o = pHost;
        Ok(())
    })
}

/// Free and total memory: the machine's available and physical memory.
#[no_mangle]
pub unsafe extern "C" fn cudaMemGetInfo(free: *mut usize, total: *mut usize) -> cudaError_t {
    call(|| {
        let f = out(free, "cudaMemGetInfo: free")?;
        let t = out(total, "cudaMemGetInfo: total")?;
        let (avail, phys) = memory_sizes();
        *f = avail;
        *t = phys;
        Ok(())
    })
}

fn memory_sizes() -> (usize, usize) {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(0) as usize;
    // SAFETY: as above.
    let phys = unsafe { libc::sysconf(libc::_SC_PHYS_PAGES) }.max(0) as usize;
    // SAFETY: as above.
    let avail = unsafe { libc::sysconf(libc::_SC_AVPHYS_PAGES) }.max(0) as usize;
    (avail.saturating_mul(page), phys.saturating_mul(page))
}

unsafe fn memcpy_impl(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int, stream: Handle, wait: bool, what: &str) -> Result<(), Error> {
    check_sticky()?;
    check_copy(dst, src, count, count, kind, what)?;
    let s = stream_of(stream)?;
    let (work, wait) = staged_copy(dst, src, count, matches!(kind, 0 | 1 | 4), matches!(kind, 0 | 2 | 4), wait);
    submit(&s, work, wait)
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int) -> cudaError_t {
    // SAFETY: forwarded contract.
    call(|| unsafe { memcpy_impl(dst, src, count, kind, std::ptr::null_mut(), true, "cudaMemcpy") })
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int, stream: Handle) -> cudaError_t {
    // SAFETY: forwarded contract.
    call(|| unsafe { memcpy_impl(dst, src, count, kind, stream, false, "cudaMemcpyAsync") })
}

/// `cudaMemcpyDeviceToDevice`: peer copies are between device allocations.
const DEVICE_TO_DEVICE: c_int = 3;

/// Between devices: there is one, so both must be 0; then a device-to-device copy.
#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyPeer(dst: *mut c_void, dstDevice: c_int, src: *const c_void, srcDevice: c_int, count: usize) -> cudaError_t {
    // SAFETY: forwarded contract.
    call(|| unsafe { peer_copy(dst, dstDevice, src, srcDevice, count, std::ptr::null_mut(), true, "cudaMemcpyPeer") })
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyPeerAsync(
    dst: *mut c_void,
    dstDevice: c_int,
    src: *const c_void,
    srcDevice: c_int,
    count: usize,
    stream: Handle,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    call(|| unsafe { peer_copy(dst, dstDevice, src, srcDevice, count, stream, false, "cudaMemcpyPeerAsync") })
}

#[allow(clippy::too_many_arguments)]
unsafe fn peer_copy(
    dst: *mut c_void,
    dst_device: c_int,
    src: *const c_void,
    src_device: c_int,
    count: usize,
    stream: Handle,
    wait: bool,
    what: &str,
) -> Result<(), Error> {
    check_device(dst_device, what)?;
    check_device(src_device, what)?;
    // SAFETY: forwarded contract.
    unsafe { memcpy_impl(dst, src, count, DEVICE_TO_DEVICE, stream, wait, what) }
}

unsafe fn memcpy2d_impl(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    stream: Handle,
    wait: bool,
    what: &str,
) -> Result<(), Error> {
    check_sticky()?;
    if width > dpitch || width > spitch {
        return Err(Error::new(ErrorCode::InvalidPitchValue, format!("{what}: width {width} exceeds dpitch {dpitch} or spitch {spitch}")));
    }
    if width == 0 || height == 0 {
        return Ok(());
    }
    let span = |pitch: usize| pitch.checked_mul(height - 1).and_then(|v| v.checked_add(width));
    let (Some(dlen), Some(slen)) = (span(dpitch), span(spitch)) else {
        return Err(Error::invalid_value(format!("{what}: the copied region overflows the address space")));
    };
    check_copy(dst, src, dlen, slen, kind, what)?;
    let s = stream_of(stream)?;
    // Pageable host memory on either side: done before returning (a conservative form of
    // CUDA's staging).
    let wait = wait || (matches!(kind, 0 | 1 | 4) && !is_ours(src)) || (matches!(kind, 0 | 2 | 4) && !is_ours(dst));
    let (d, sr) = (Addr(dst as usize), Addr(src as usize));
    submit(
        &s,
        Box::new(move || {
            let (d, sr) = (d, sr);
            for row in 0..height {
                // SAFETY: rows lie in the ranges checked above.
                unsafe { std::ptr::copy((sr.0 + row * spitch) as *const u8, (d.0 + row * dpitch) as *mut u8, width) };
            }
            Ok(())
        }),
        wait,
    )
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemcpy2D(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    call(|| unsafe { memcpy2d_impl(dst, dpitch, src, spitch, width, height, kind, std::ptr::null_mut(), true, "cudaMemcpy2D") })
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemcpy2DAsync(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
    stream: Handle,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    call(|| unsafe { memcpy2d_impl(dst, dpitch, src, spitch, width, height, kind, stream, false, "cudaMemcpy2DAsync") })
}

unsafe fn memset_impl(p: *mut c_void, value: c_int, count: usize, stream: Handle, wait: bool, what: &str) -> Result<(), Error> {
    check_sticky()?;
    check_device_range(p, count, what, "destination")?;
    let s = stream_of(stream)?;
    let d = Addr(p as usize);
    submit(
        &s,
        Box::new(move || {
            let d = d;
            // SAFETY: checked to lie inside device-accessible memory.
            unsafe { std::ptr::write_bytes(d.0 as *mut u8, value as u8, count) };
            Ok(())
        }),
        wait,
    )
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemset(devPtr: *mut c_void, value: c_int, count: usize) -> cudaError_t {
    // SAFETY: forwarded contract.
    call(|| unsafe { memset_impl(devPtr, value, count, std::ptr::null_mut(), true, "cudaMemset") })
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemsetAsync(devPtr: *mut c_void, value: c_int, count: usize, stream: Handle) -> cudaError_t {
    // SAFETY: forwarded contract.
    call(|| unsafe { memset_impl(devPtr, value, count, stream, false, "cudaMemsetAsync") })
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemset2D(devPtr: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize) -> cudaError_t {
    call(|| memset_2d(devPtr, pitch, value, width, height, std::ptr::null_mut(), true, "cudaMemset2D"))
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemset2DAsync(devPtr: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize, stream: Handle) -> cudaError_t {
    call(|| memset_2d(devPtr, pitch, value, width, height, stream, false, "cudaMemset2DAsync"))
}

/// `height` rows of `width` bytes, `pitch` apart, set to `value` in stream order; `wait`:
/// return when done (cudaMemset2D).
#[allow(clippy::too_many_arguments)]
fn memset_2d(devPtr: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize, stream: Handle, wait: bool, what: &str) -> Result<(), Error> {
    check_sticky()?;
    if width > pitch {
        return Err(Error::new(ErrorCode::InvalidPitchValue, format!("{what}: width {width} exceeds pitch {pitch}")));
    }
    if width == 0 || height == 0 {
        return Ok(());
    }
    let len = pitch.checked_mul(height - 1).and_then(|v| v.checked_add(width)).ok_or_else(|| Error::invalid_value(format!("{what}: overflow")))?;
    check_device_range(devPtr, len, what, "destination")?;
    let s = stream_of(stream)?;
    let d = Addr(devPtr as usize);
    submit(
        &s,
        Box::new(move || {
            let d = d;
            for row in 0..height {
                // SAFETY: checked above.
                unsafe { std::ptr::write_bytes((d.0 + row * pitch) as *mut u8, value as u8, width) };
            }
            Ok(())
        }),
        wait,
    )
}

#[repr(C)]
pub struct PointerAttributes {
    /// cudaMemoryType: 0 unregistered, 1 host, 2 device, 3 managed.
    pub r#type: c_int,
    pub device: c_int,
    pub devicePointer: *mut c_void,
    pub hostPointer: *mut c_void,
}

#[no_mangle]
pub unsafe extern "C" fn cudaPointerGetAttributes(attributes: *mut PointerAttributes, ptr: *const c_void) -> cudaError_t {
    call(|| {
        let o = out(attributes, "cudaPointerGetAttributes: attributes")?;
        let a = ptr as usize;
        let kind = lock(&ALLOCS).range(..=a).next_back().filter(|(&b, al)| a - b < al.size).map(|(_, al)| al.kind);
        let (t, dev, host) = match kind {
            Some(Kind::Device) => (2, ptr, std::ptr::null()),
            Some(Kind::Managed) => (3, ptr, ptr),
            Some(Kind::Host) | Some(Kind::Registered) => (1, ptr, ptr),
            None if registry::symbol_containing(a).is_some() => (2, ptr, std::ptr::null()),
            None => (0, std::ptr::null(), ptr),
        };
        *o = PointerAttributes { r#type: t, device: 0, devicePointer: dev as *mut c_void, hostPointer: host as *mut c_void };
        Ok(())
    })
}

// ---- symbols ----------------------------------------------------------------------------

/// `__cudaRegisterVar`: host shadow variable address -> device (PTX) name.
static VARS: RwLock<BTreeMap<usize, CString>> = RwLock::new(BTreeMap::new());

/// The device address and size of a symbol: a registered host shadow variable, or an
/// address inside a module variable itself (C programs: from `ptxrtGetSymbol`).
fn symbol(symbol: *const c_void, what: &str) -> Result<(*mut c_void, usize), Error> {
    let name = VARS.read().unwrap_or_else(|p| p.into_inner()).get(&(symbol as usize)).cloned();
    if let Some(name) = name {
        let (addr, size) = registry::get_symbol(&name).map_err(|e| {
            Error::new(
                ErrorCode::InvalidSymbol,
                format!("{what}: the variable '{}' was registered by the host code, but {}", name.to_string_lossy(), e.message),
            )
        })?;
        return Ok((addr, usize::try_from(size).unwrap_or(usize::MAX)));
    }
    if let Some((base, size)) = registry::symbol_containing(symbol as usize) {
        if base == symbol as usize {
            return Ok((symbol as *mut c_void, size));
        }
    }
    Err(Error::new(
        ErrorCode::InvalidSymbol,
        format!(
            "{what}: {symbol:p} is not a __device__/__constant__ variable (pass the variable itself, \
             as compiled by clang -x cuda with ptx2llvm's headers, or an address from ptxrtGetSymbol)"
        ),
    ))
}

/// The address of `count` bytes at `offset` in the variable `sym` names, checked to lie
/// inside it (the copies to and from symbols).
fn symbol_range(sym: *const c_void, count: usize, offset: usize, what: &str) -> Result<usize, Error> {
    let (addr, size) = symbol(sym, what)?;
    if offset > size || count > size - offset {
        return Err(Error::invalid_value(format!("{what}: {count} bytes at offset {offset} exceed the variable's {size} bytes")));
    }
    Ok(addr as usize + offset)
}

unsafe fn to_symbol(
    sym: *const c_void,
    src: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
    stream: Handle,
    wait: bool,
    what: &str,
) -> Result<(), Error> {
    check_sticky()?;
    let at = symbol_range(sym, count, offset, what)?;
    if !matches!(kind, 1 | 3 | 4) {
        return Err(Error::new(ErrorCode::InvalidMemcpyDirection, format!("{what}: kind {kind} must be cudaMemcpyHostToDevice, DeviceToDevice or Default")));
    }
    let src_dev = kind == 3;
    if src_dev {
        check_device_range(src, count, what, "source")?;
    } else {
        check_host(src, count, what, "source")?;
    }
    let dst = at as *mut c_void;
    let s = stream_of(stream)?;
    let (work, wait) = staged_copy(dst, src, count, !src_dev, false, wait);
    submit(&s, work, wait)
}

unsafe fn from_symbol(
    dst: *mut c_void,
    sym: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
    stream: Handle,
    wait: bool,
    what: &str,
) -> Result<(), Error> {
    check_sticky()?;
    let at = symbol_range(sym, count, offset, what)?;
    if !matches!(kind, 2 | 3 | 4) {
        return Err(Error::new(ErrorCode::InvalidMemcpyDirection, format!("{what}: kind {kind} must be cudaMemcpyDeviceToHost, DeviceToDevice or Default")));
    }
    if kind == 3 {
        check_device_range(dst, count, what, "destination")?;
    } else {
        check_host(dst, count, what, "destination")?;
    }
    let src = at as *const c_void;
    let s = stream_of(stream)?;
    let (work, wait) = staged_copy(dst, src, count, false, kind != 3, wait);
    submit(&s, work, wait)
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyToSymbol(symbol: *const c_void, src: *const c_void, count: usize, offset: usize, kind: c_int) -> cudaError_t {
    // SAFETY: forwarded contract.
    call(|| unsafe { to_symbol(symbol, src, count, offset, kind, std::ptr::null_mut(), true, "cudaMemcpyToSymbol") })
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyToSymbolAsync(
    symbol: *const c_void,
    src: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
    stream: Handle,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    call(|| unsafe { to_symbol(symbol, src, count, offset, kind, stream, false, "cudaMemcpyToSymbolAsync") })
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyFromSymbol(dst: *mut c_void, symbol: *const c_void, count: usize, offset: usize, kind: c_int) -> cudaError_t {
    // SAFETY: forwarded contract.
    call(|| unsafe { from_symbol(dst, symbol, count, offset, kind, std::ptr::null_mut(), true, "cudaMemcpyFromSymbol") })
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyFromSymbolAsync(
    dst: *mut c_void,
    symbol: *const c_void,
    count: usize,
    offset: usize,
    kind: c_int,
    stream: Handle,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    call(|| unsafe { from_symbol(dst, symbol, count, offset, kind, stream, false, "cudaMemcpyFromSymbolAsync") })
}

#[no_mangle]
pub unsafe extern "C" fn cudaGetSymbolAddress(devPtr: *mut *mut c_void, sym: *const c_void) -> cudaError_t {
    call(|| {
        let o = out(devPtr, "cudaGetSymbolAddress: devPtr")?;
        *o = symbol(sym, "cudaGetSymbolAddress")?.0;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaGetSymbolSize(size: *mut usize, sym: *const c_void) -> cudaError_t {
    call(|| {
        let o = out(size, "cudaGetSymbolSize: size")?;
        *o = symbol(sym, "cudaGetSymbolSize")?.1;
        Ok(())
    })
}

// ---- kernels: registration and lookup ---------------------------------------------------

struct Func {
    name: CString,
    kernel: AtomicPtr<Kernel>,
}

/// `__cudaRegisterFunction`: host stub address -> device name (resolved on first launch:
/// the kernel object's constructor may run after the host code's).
static FUNCS: RwLock<Option<HashMap<usize, Box<Func>>>> = RwLock::new(None);

/// The kernel a launch names: a registered host stub, or a `ptxrtKernel` descriptor.
fn kernel_of(func: *const c_void, what: &str) -> Result<&'static Kernel, Error> {
    if func.is_null() {
        return Err(Error::new(ErrorCode::InvalidDeviceFunction, format!("{what}: the function is NULL")));
    }
    {
        let funcs = FUNCS.read().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = funcs.as_ref().and_then(|m| m.get(&(func as usize))) {
            let k = f.kernel.load(Ordering::Acquire);
            if !k.is_null() {
                // SAFETY: resolved from the registry: a constant descriptor of a loaded module.
                return Ok(unsafe { &*k });
            }
            let k = registry::find_kernel(&f.name).map_err(|e| {
                Error::new(
                    ErrorCode::InvalidDeviceFunction,
                    format!("{what}: the host code registered kernel '{}', but {}", f.name.to_string_lossy(), e.message),
                )
            })?;
            f.kernel.store(k as *const Kernel as *mut Kernel, Ordering::Release);
            return Ok(k);
        }
    }
    if registry::is_kernel(func.cast()) {
        return rt_launch::usable_kernel(func.cast(), what);
    }
    Err(Error::new(
        ErrorCode::InvalidDeviceFunction,
        format!(
            "{what}: {func:p} is neither a __global__ function registered by CUDA host code \
             (compiled with clang -x cuda and a GPU binary, as ptx2llvm-cc does) nor a ptxrtKernel \
             descriptor of a linked module"
        ),
    ))
}

/// `__cudaRegisterFatBinary`: the handle is the wrapper's address (the kernels themselves
/// come from the objects ptx2llvm made of the PTX, linked into the program).
#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterFatBinary(fatCubin: *mut c_void) -> *mut *mut c_void {
    if fatCubin.is_null() {
        // A non-null handle all the same: the host code stores and passes it back.
        static DUMMY: usize = 0;
        return &DUMMY as *const usize as *mut *mut c_void;
    }
    fatCubin.cast()
}

#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterFatBinaryEnd(_handle: *mut *mut c_void) {}

#[no_mangle]
pub unsafe extern "C" fn __cudaUnregisterFatBinary(_handle: *mut *mut c_void) {}

#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterFunction(
    _handle: *mut *mut c_void,
    hostFun: *const c_char,
    _deviceFun: *mut c_char,
    deviceName: *const c_char,
    _thread_limit: c_int,
    _tid: *mut c_void,
    _bid: *mut c_void,
    _bDim: *mut Dim3,
    _gDim: *mut Dim3,
    _wSize: *mut c_int,
) -> c_int {
    let _ = catch_unwind(|| {
        if hostFun.is_null() || deviceName.is_null() {
            return;
        }
        // SAFETY: clang passes a NUL-terminated constant string.
        let name = unsafe { CStr::from_ptr(deviceName) }.to_owned();
        let mut funcs = FUNCS.write().unwrap_or_else(|p| p.into_inner());
        funcs.get_or_insert_with(HashMap::new).insert(hostFun as usize, Box::new(Func { name, kernel: AtomicPtr::new(std::ptr::null_mut()) }));
    });
    0
}

#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterVar(
    _handle: *mut *mut c_void,
    hostVar: *mut c_char,
    _deviceAddress: *mut c_char,
    deviceName: *const c_char,
    _ext: c_int,
    _size: usize,
    _constant: c_int,
    _global: c_int,
) {
    let _ = catch_unwind(|| {
        if hostVar.is_null() || deviceName.is_null() {
            return;
        }
        // SAFETY: clang passes a NUL-terminated constant string.
        let name = unsafe { CStr::from_ptr(deviceName) }.to_owned();
        VARS.write().unwrap_or_else(|p| p.into_inner()).insert(hostVar as usize, name);
    });
}

/// Managed variables: registered like device variables (memory is shared anyway).
#[no_mangle]
pub unsafe extern "C" fn __cudaRegisterManagedVar(
    handle: *mut *mut c_void,
    hostVarPtrAddress: *mut *mut c_void,
    deviceAddress: *mut c_char,
    deviceName: *const c_char,
    ext: c_int,
    size: usize,
    constant: c_int,
    global: c_int,
) {
    // SAFETY: forwarded.
    unsafe { __cudaRegisterVar(handle, hostVarPtrAddress.cast(), deviceAddress, deviceName, ext, size, constant, global) }
}

#[no_mangle]
pub unsafe extern "C" fn __cudaInitModule(_handle: *mut *mut c_void) -> c_char {
    1
}

// ---- launches ---------------------------------------------------------------------------

/// A launch's arguments, copied (kernels read them after the call returned).
struct ArgPack {
    storage: Vec<u128>,
    offsets: Vec<usize>,
}

/// Copies the kernel's parameters from `args` (one pointer per parameter).
unsafe fn pack_args(k: &Kernel, args: *mut *mut c_void, what: &str) -> Result<ArgPack, Error> {
    let n = k.num_params as usize;
    if n == 0 {
        return Ok(ArgPack { storage: vec![], offsets: vec![] });
    }
    if args.is_null() {
        return Err(Error::invalid_value(format!("{what}: kernel '{}' takes {n} parameter(s) but args is NULL", rt_launch::kernel_name(k))));
    }
    // SAFETY: a current-ABI descriptor has `num_params` sizes and alignments.
    let sizes = unsafe { std::slice::from_raw_parts(k.param_sizes, n) };
    let aligns: Vec<u32> = if k.param_aligns.is_null() {
        vec![8; n]
    } else {
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts(k.param_aligns, n) }.to_vec()
    };
    // SAFETY: `args` has one pointer per parameter (cudaLaunchKernel's contract).
    let ptrs = unsafe { std::slice::from_raw_parts(args, n) };
    let mut offsets = Vec::with_capacity(n);
    let mut end = 0usize;
    for i in 0..n {
        let a = (aligns[i].clamp(1, 16)) as usize;
        let off = end.div_ceil(a) * a;
        offsets.push(off);
        end = off + sizes[i] as usize;
    }
    let mut storage = vec![0u128; end.div_ceil(16).max(1)];
    let base = storage.as_mut_ptr() as *mut u8;
    for i in 0..n {
        if ptrs[i].is_null() {
            return Err(Error::invalid_value(format!("{what}: kernel '{}': args[{i}] is NULL", rt_launch::kernel_name(k))));
        }
        // SAFETY: args[i] points at a value of the parameter's size (the launch contract);
        // the destination lies inside `storage`.
        unsafe { std::ptr::copy_nonoverlapping(ptrs[i] as *const u8, base.add(offsets[i]), sizes[i] as usize) };
    }
    Ok(ArgPack { storage, offsets })
}

/// The common path of every launch: checks now, runs on the stream.
unsafe fn launch(
    func: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: Handle,
    cooperative: bool,
    what: &'static str,
) -> Result<(), Error> {
    check_sticky()?;
    let k = kernel_of(func, what)?;
    rt_launch::check_configuration(k, grid, block, shared, registry::max_dynamic_shared(k))?;
    if cooperative {
        let per_sm = rt_launch::max_active_blocks_per_sm(k, block.volume(), shared as u64);
        let limit = per_sm * pool::num_threads() as u64;
        if grid.volume() > limit {
            return Err(Error::new(
                ErrorCode::CooperativeLaunchTooLarge,
                format!(
                    "{what}: kernel '{}': {} blocks, but at most {limit} can be resident at once \
                     ({per_sm} per multiprocessor, {} multiprocessors)",
                    rt_launch::kernel_name(k),
                    grid.volume(),
                    pool::num_threads()
                ),
            ));
        }
    }
    // SAFETY: forwarded contract.
    let mut pack = unsafe { pack_args(k, args, what) }?;
    let s = stream_of(stream)?;
    let kp = Addr(k as *const Kernel as usize);
    stream::enqueue(
        &s,
        vec![],
        Box::new(move || {
            let kp = kp;
            let base = pack.storage.as_mut_ptr() as *mut u8;
            // SAFETY: offsets lie inside `storage`.
            let mut ptrs: Vec<*mut c_void> = pack.offsets.iter().map(|&o| unsafe { base.add(o) }.cast()).collect();
            let argv = if ptrs.is_empty() { std::ptr::null_mut() } else { ptrs.as_mut_ptr() };
            // SAFETY: `kp` is a validated descriptor of a loaded module; `argv` holds one
            // pointer per parameter, into the copied values.
            unsafe { rt_launch::launch_kernel_mode(kp.0 as *const Kernel, grid, block, argv, shared, std::ptr::null_mut(), cooperative, what) }
        }),
    );
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cudaLaunchKernel(
    func: *const c_void,
    gridDim: Dim3,
    blockDim: Dim3,
    args: *mut *mut c_void,
    sharedMem: usize,
    stream: Handle,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    call(|| unsafe { launch(func, gridDim, blockDim, args, sharedMem, stream, false, "cudaLaunchKernel") })
}

#[no_mangle]
pub unsafe extern "C" fn cudaLaunchCooperativeKernel(
    func: *const c_void,
    gridDim: Dim3,
    blockDim: Dim3,
    args: *mut *mut c_void,
    sharedMem: usize,
    stream: Handle,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    call(|| unsafe { launch(func, gridDim, blockDim, args, sharedMem, stream, true, "cudaLaunchCooperativeKernel") })
}

/// A pushed `<<<grid, block, shared, stream>>>`.
#[derive(Clone, Copy)]
struct CallConfig {
    grid: Dim3,
    block: Dim3,
    shared: usize,
    stream: Handle,
}

/// The older launch protocol: configuration, then arguments at offsets, then `cudaLaunch`.
struct LegacyArgs {
    bytes: Vec<u128>,
    offsets: Vec<usize>,
}

thread_local! {
    static CONFIGS: std::cell::RefCell<Vec<CallConfig>> = const { std::cell::RefCell::new(Vec::new()) };
    static LEGACY_ARGS: std::cell::RefCell<LegacyArgs> = const { std::cell::RefCell::new(LegacyArgs { bytes: Vec::new(), offsets: Vec::new() }) };
}

fn push_config(c: CallConfig) -> Result<(), Error> {
    CONFIGS.try_with(|v| v.borrow_mut().push(c)).map_err(|_| Error::internal("launch configuration during thread exit"))
}

fn pop_config() -> Result<CallConfig, Error> {
    CONFIGS
        .try_with(|v| v.borrow_mut().pop())
        .ok()
        .flatten()
        .ok_or_else(|| Error::new(ErrorCode::MissingConfiguration, "a kernel stub was called without a <<<...>>> configuration"))
}

#[no_mangle]
pub unsafe extern "C" fn __cudaPushCallConfiguration(gridDim: Dim3, blockDim: Dim3, sharedMem: usize, stream: Handle) -> c_uint {
    call(|| push_config(CallConfig { grid: gridDim, block: blockDim, shared: sharedMem, stream })) as c_uint
}

#[no_mangle]
pub unsafe extern "C" fn __cudaPopCallConfiguration(gridDim: *mut Dim3, blockDim: *mut Dim3, sharedMem: *mut usize, stream: *mut Handle) -> cudaError_t {
    call(|| {
        let c = pop_config()?;
        // SAFETY: clang passes pointers to its locals.
        unsafe {
            if let Some(g) = gridDim.as_mut() {
                *g = c.grid;
            }
            if let Some(b) = blockDim.as_mut() {
                *b = c.block;
            }
            if let Some(s) = sharedMem.as_mut() {
                *s = c.shared;
            }
            if let Some(s) = stream.as_mut() {
                *s = c.stream;
            }
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaConfigureCall(gridDim: Dim3, blockDim: Dim3, sharedMem: usize, stream: Handle) -> cudaError_t {
    call(|| {
        let _ = LEGACY_ARGS.try_with(|a| {
            let mut a = a.borrow_mut();
            a.bytes.clear();
            a.offsets.clear();
        });
        push_config(CallConfig { grid: gridDim, block: blockDim, shared: sharedMem, stream })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaSetupArgument(arg: *const c_void, size: usize, offset: usize) -> cudaError_t {
    call(|| {
        if arg.is_null() && size > 0 {
            return Err(Error::invalid_value("cudaSetupArgument: arg is NULL"));
        }
        LEGACY_ARGS
            .try_with(|a| {
                let mut a = a.borrow_mut();
                let need = (offset + size).div_ceil(16);
                if a.bytes.len() < need {
                    a.bytes.resize(need, 0);
                }
                let base = a.bytes.as_mut_ptr() as *mut u8;
                // SAFETY: `arg` holds `size` bytes; the buffer was grown to hold them.
                unsafe { std::ptr::copy_nonoverlapping(arg as *const u8, base.add(offset), size) };
                a.offsets.push(offset);
            })
            .map_err(|_| Error::internal("cudaSetupArgument during thread exit"))
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaLaunch(func: *const c_void) -> cudaError_t {
    call(|| {
        let c = pop_config()?;
        let (mut bytes, offsets) = LEGACY_ARGS
            .try_with(|a| {
                let mut a = a.borrow_mut();
                (std::mem::take(&mut a.bytes), std::mem::take(&mut a.offsets))
            })
            .map_err(|_| Error::internal("cudaLaunch during thread exit"))?;
        let base = bytes.as_mut_ptr() as *mut u8;
        // SAFETY: offsets lie inside `bytes`.
        let mut ptrs: Vec<*mut c_void> = offsets.iter().map(|&o| unsafe { base.add(o) }.cast()).collect();
        let argv = if ptrs.is_empty() { std::ptr::null_mut() } else { ptrs.as_mut_ptr() };
        // SAFETY: `argv` points at the set-up arguments (copied by `launch`).
        unsafe { launch(func, c.grid, c.block, argv, c.shared, c.stream, false, "cudaLaunch") }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaFuncGetAttributes(attr: *mut FuncAttributes, func: *const c_void) -> cudaError_t {
    call(|| {
        let o = out(attr, "cudaFuncGetAttributes: attr")?;
        let k = kernel_of(func, "cudaFuncGetAttributes")?;
        let static_shared = rt_launch::static_shared_aligned(k);
        // The largest block the kernel accepts (.reqntid, .maxntid, else CUDA's 1024).
        let max_threads = if !k.reqntid.is_zero() {
            k.reqntid.volume()
        } else if !k.maxntid.is_zero() {
            u64::from(k.maxntid.x.max(1)) * u64::from(k.maxntid.y.max(1)) * u64::from(k.maxntid.z.max(1))
        } else {
            1024
        };
        let max_dyn = registry::max_dynamic_shared(k).map(u64::from).unwrap_or(rt_launch::DEFAULT_SHARED_LIMIT.saturating_sub(static_shared));
        // SAFETY: a plain C struct, all-zero is valid.
        let mut a: FuncAttributes = unsafe { std::mem::zeroed() };
        a.sharedSizeBytes = k.static_shared_bytes as usize;
        a.localSizeBytes = k.local_bytes_per_thread as usize;
        a.maxThreadsPerBlock = max_threads.clamp(1, 1024) as i32;
        a.numRegs = 32;
        a.ptxVersion = 90;
        a.binaryVersion = 90;
        a.maxDynamicSharedSizeBytes = max_dyn as i32;
        a.preferredShmemCarveout = -1;
        *o = a;
        Ok(())
    })
}

/// `cudaFuncAttributeMaxDynamicSharedMemorySize` (8) raises the dynamic shared limit;
/// `cudaFuncAttributePreferredSharedMemoryCarveout` (9) is accepted and has no effect.
#[no_mangle]
pub unsafe extern "C" fn cudaFuncSetAttribute(func: *const c_void, attr: c_int, value: c_int) -> cudaError_t {
    call(|| {
        let k = kernel_of(func, "cudaFuncSetAttribute")?;
        match attr {
            8 => {
                let bytes = usize::try_from(value).map_err(|_| Error::invalid_value("cudaFuncSetAttribute: negative size"))?;
                rt_launch::set_max_dynamic_shared(k, bytes)
            }
            9 if (-1..=100).contains(&value) => Ok(()),
            _ => Err(Error::invalid_value(format!("cudaFuncSetAttribute: attribute {attr} (value {value}) is not supported"))),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaFuncSetCacheConfig(func: *const c_void, _config: c_int) -> cudaError_t {
    call(|| kernel_of(func, "cudaFuncSetCacheConfig").map(|_| ()))
}

#[no_mangle]
pub unsafe extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    numBlocks: *mut c_int,
    func: *const c_void,
    blockSize: c_int,
    dynamicSMemSize: usize,
) -> cudaError_t {
    call(|| {
        let o = out(numBlocks, "cudaOccupancyMaxActiveBlocksPerMultiprocessor: numBlocks")?;
        let k = kernel_of(func, "cudaOccupancyMaxActiveBlocksPerMultiprocessor")?;
        if blockSize <= 0 {
            return Err(Error::invalid_value("cudaOccupancyMaxActiveBlocksPerMultiprocessor: blockSize must be positive"));
        }
        *o = rt_launch::max_active_blocks_per_sm(k, blockSize as u64, dynamicSMemSize as u64) as c_int;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    numBlocks: *mut c_int,
    func: *const c_void,
    blockSize: c_int,
    dynamicSMemSize: usize,
    _flags: c_uint,
) -> cudaError_t {
    // SAFETY: forwarded.
    unsafe { cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func, blockSize, dynamicSMemSize) }
}

/// The block size with the most resident threads per multiprocessor (largest on ties) and
/// the grid that fills the device with it.
#[no_mangle]
pub unsafe extern "C" fn cudaOccupancyMaxPotentialBlockSize(
    minGridSize: *mut c_int,
    blockSize: *mut c_int,
    func: *const c_void,
    dynamicSMemSize: usize,
    blockSizeLimit: c_int,
) -> cudaError_t {
    call(|| {
        let g = out(minGridSize, "cudaOccupancyMaxPotentialBlockSize: minGridSize")?;
        let b = out(blockSize, "cudaOccupancyMaxPotentialBlockSize: blockSize")?;
        let k = kernel_of(func, "cudaOccupancyMaxPotentialBlockSize")?;
        let limit = if blockSizeLimit > 0 { (blockSizeLimit as u64).min(1024) } else { 1024 };
        let mut best = (0u64, 0u64, 0u64);
        let mut size = limit.div_ceil(32) * 32;
        while size >= 32 {
            let s = size.min(limit);
            let blocks = rt_launch::max_active_blocks_per_sm(k, s, dynamicSMemSize as u64);
            if blocks * s > best.0 {
                best = (blocks * s, s, blocks);
            }
            size -= 32;
        }
        if best.1 == 0 {
            return Err(Error::invalid_value("cudaOccupancyMaxPotentialBlockSize: no block size fits the kernel's limits"));
        }
        *b = best.1 as c_int;
        *g = (best.2 * pool::num_threads() as u64) as c_int;
        Ok(())
    })
}

// ---- device -----------------------------------------------------------------------------

fn check_device(device: c_int, what: &str) -> Result<(), Error> {
    if device != 0 {
        return Err(Error::new(ErrorCode::InvalidDevice, format!("{what}: device {device} does not exist (ptxrt has one device, 0)")));
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cudaGetDeviceCount(count: *mut c_int) -> cudaError_t {
    call(|| {
        *out(count, "cudaGetDeviceCount: count")? = 1;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaSetDevice(device: c_int) -> cudaError_t {
    call(|| check_device(device, "cudaSetDevice"))
}

#[no_mangle]
pub unsafe extern "C" fn cudaGetDevice(device: *mut c_int) -> cudaError_t {
    call(|| {
        *out(device, "cudaGetDevice: device")? = 0;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaSetDeviceFlags(_flags: c_uint) -> cudaError_t {
    0
}

#[no_mangle]
pub unsafe extern "C" fn cudaDeviceSetCacheConfig(_config: c_int) -> cudaError_t {
    0
}

/// Bank configurations do not exist on the CPU: accepted for a known kernel.
#[no_mangle]
pub unsafe extern "C" fn cudaFuncSetSharedMemConfig(func: *const c_void, _config: c_int) -> cudaError_t {
    call(|| kernel_of(func, "cudaFuncSetSharedMemConfig").map(|_| ()))
}

#[no_mangle]
pub unsafe extern "C" fn cudaDeviceSetSharedMemConfig(_config: c_int) -> cudaError_t {
    0
}

#[no_mangle]
pub unsafe extern "C" fn cudaDeviceSynchronize() -> cudaError_t {
    call(|| {
        stream::synchronize_all();
        check_sticky()
    })
}

/// The old name of cudaDeviceReset.
#[no_mangle]
pub unsafe extern "C" fn cudaThreadExit() -> cudaError_t {
    // SAFETY: no preconditions.
    unsafe { cudaDeviceReset() }
}

/// The one device matches whatever `prop` asks for.
#[no_mangle]
pub unsafe extern "C" fn cudaChooseDevice(device: *mut c_int, prop: *const c_void) -> cudaError_t {
    call(|| {
        if prop.is_null() {
            return Err(Error::invalid_value("cudaChooseDevice: prop is NULL"));
        }
        *out(device, "cudaChooseDevice: device")? = 0;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaThreadSynchronize() -> cudaError_t {
    // SAFETY: no preconditions.
    unsafe { cudaDeviceSynchronize() }
}

/// Waits for all work, frees every allocation and clears the sticky error.
#[no_mangle]
pub unsafe extern "C" fn cudaDeviceReset() -> cudaError_t {
    call(|| {
        stream::synchronize_all();
        let allocs = std::mem::take(&mut *lock(&ALLOCS));
        for (p, a) in allocs {
            if a.kind == Kind::Registered {
                continue;
            }
            if let Some(l) = layout(a.size) {
                // SAFETY: allocated by `allocate` with this layout; the table no longer has it.
                unsafe { std::alloc::dealloc(p as *mut u8, l) };
            }
        }
        lock(&STICKY_MESSAGE).clear();
        STICKY.store(0, Ordering::Release);
        let _ = error::take_last_error();
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaDriverGetVersion(v: *mut c_int) -> cudaError_t {
    call(|| {
        *out(v, "cudaDriverGetVersion: driverVersion")? = 12000;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaRuntimeGetVersion(v: *mut c_int) -> cudaError_t {
    call(|| {
        *out(v, "cudaRuntimeGetVersion: runtimeVersion")? = 12000;
        Ok(())
    })
}

/// The CPU's clock in kHz (cpufreq's maximum, else /proc/cpuinfo), 0 if unknown.
fn clock_khz() -> i32 {
    if let Ok(s) = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq") {
        if let Ok(v) = s.trim().parse::<i64>() {
            return v.clamp(0, i32::MAX as i64) as i32;
        }
    }
    if let Ok(s) = std::fs::read_to_string("/proc/cpuinfo") {
        for line in s.lines() {
            if let Some(v) = line.strip_prefix("cpu MHz").and_then(|r| r.split(':').nth(1)) {
                if let Ok(mhz) = v.trim().parse::<f64>() {
                    return (mhz * 1000.0) as i32;
                }
            }
        }
    }
    0
}

fn l2_bytes() -> i32 {
    // SAFETY: sysconf has no preconditions.
    let v = unsafe { libc::sysconf(libc::_SC_LEVEL2_CACHE_SIZE) };
    v.clamp(0, i32::MAX as libc::c_long) as i32
}

/// The properties ptxrt reports: limits are the ones launches enforce (those of a compute
/// capability 9.0 GPU), one multiprocessor per worker thread, memory sizes the machine's.
fn properties() -> DeviceProp {
    // SAFETY: a plain C struct, all-zero is valid.
    let mut p: DeviceProp = unsafe { std::mem::zeroed() };
    let name = b"ptxrt CPU device (ptx2llvm)";
    for (d, s) in p.name.iter_mut().zip(name.iter()) {
        *d = *s as c_char;
    }
    p.uuid[0] = b'p' as c_char;
    let (_, total) = memory_sizes();
    p.totalGlobalMem = total;
    p.sharedMemPerBlock = rt_launch::DEFAULT_SHARED_LIMIT as usize;
    p.regsPerBlock = 65536;
    p.warpSize = 32;
    p.memPitch = i32::MAX as usize;
    p.maxThreadsPerBlock = 1024;
    p.maxThreadsDim = [1024, 1024, 64];
    p.maxGridSize = [i32::MAX, 65535, 65535];
    p.clockRate = clock_khz();
    p.totalConstMem = 65536;
    p.major = 9;
    p.minor = 0;
    p.textureAlignment = 512;
    p.texturePitchAlignment = 32;
    p.deviceOverlap = 1;
    p.multiProcessorCount = pool::num_threads() as i32;
    p.integrated = 1;
    p.canMapHostMemory = 1;
    p.maxTexture1D = 131072;
    p.maxTexture1DLinear = 1 << 27;
    p.maxTexture2D = [131072, 65536];
    p.maxTexture3D = [16384, 16384, 16384];
    p.surfaceAlignment = 512;
    p.concurrentKernels = 1;
    p.asyncEngineCount = 1;
    p.unifiedAddressing = 1;
    p.memoryClockRate = 0;
    p.memoryBusWidth = 64;
    p.l2CacheSize = l2_bytes();
    p.maxThreadsPerMultiProcessor = rt_launch::MAX_THREADS_PER_SM as i32;
    p.globalL1CacheSupported = 1;
    p.localL1CacheSupported = 1;
    p.sharedMemPerMultiprocessor = rt_launch::SHARED_PER_SM as usize;
    p.regsPerMultiprocessor = 65536;
    p.managedMemory = 1;
    p.hostNativeAtomicSupported = 1;
    p.singleToDoublePrecisionPerfRatio = 2;
    p.pageableMemoryAccess = 1;
    p.concurrentManagedAccess = 1;
    p.canUseHostPointerForRegisteredMem = 1;
    p.cooperativeLaunch = 1;
    p.sharedMemPerBlockOptin = rt_launch::MAX_SHARED_OPTIN as usize;
    p.pageableMemoryAccessUsesHostPageTables = 1;
    p.directManagedMemAccessFromHost = 1;
    p.maxBlocksPerMultiProcessor = rt_launch::MAX_BLOCKS_PER_SM as i32;
    p.hostRegisterSupported = 1;
    p.unifiedFunctionPointers = 1;
    p
}

#[no_mangle]
pub unsafe extern "C" fn cudaGetDeviceProperties(prop: *mut DeviceProp, device: c_int) -> cudaError_t {
    call(|| {
        let o = out(prop, "cudaGetDeviceProperties: prop")?;
        check_device(device, "cudaGetDeviceProperties")?;
        *o = properties();
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaGetDeviceProperties_v2(prop: *mut DeviceProp, device: c_int) -> cudaError_t {
    // SAFETY: forwarded.
    unsafe { cudaGetDeviceProperties(prop, device) }
}

#[no_mangle]
pub unsafe extern "C" fn cudaDeviceGetAttribute(value: *mut c_int, attr: c_int, device: c_int) -> cudaError_t {
    call(|| {
        let o = out(value, "cudaDeviceGetAttribute: value")?;
        check_device(device, "cudaDeviceGetAttribute")?;
        let p = properties();
        *o = match attr {
            1 => p.maxThreadsPerBlock,
            2 => p.maxThreadsDim[0],
            3 => p.maxThreadsDim[1],
            4 => p.maxThreadsDim[2],
            5 => p.maxGridSize[0],
            6 => p.maxGridSize[1],
            7 => p.maxGridSize[2],
            8 => p.sharedMemPerBlock as i32,
            9 => p.totalConstMem as i32,
            10 => p.warpSize,
            11 => p.memPitch as i32,
            12 => p.regsPerBlock,
            13 => p.clockRate,
            14 => p.textureAlignment as i32,
            15 => p.deviceOverlap,
            16 => p.multiProcessorCount,
            17 => 0,
            18 => p.integrated,
            19 => p.canMapHostMemory,
            20 => 0,
            31 => p.concurrentKernels,
            32 => 0,
            33 | 34 | 35 | 50 => 0,
            36 => p.memoryClockRate,
            37 => p.memoryBusWidth,
            38 => p.l2CacheSize,
            39 => p.maxThreadsPerMultiProcessor,
            40 => p.asyncEngineCount,
            41 => p.unifiedAddressing,
            75 => p.major,
            76 => p.minor,
            78 => 0,
            79 => 1,
            80 => 1,
            81 => p.sharedMemPerMultiprocessor as i32,
            82 => p.regsPerMultiprocessor,
            83 => 1,
            84 | 85 => 0,
            86 => 1,
            87 => p.singleToDoublePrecisionPerfRatio,
            88 | 89 => 1,
            90 => 0,
            91 => 1,
            95 => 1,
            96 => 0,
            97 => p.sharedMemPerBlockOptin as i32,
            99 | 100 => 1,
            106 => p.maxBlocksPerMultiProcessor,
            _ => return Err(Error::invalid_value(format!("cudaDeviceGetAttribute: attribute {attr} is not supported by ptxrt"))),
        };
        Ok(())
    })
}

// ---- streams and events -----------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn cudaStreamCreate(pStream: *mut Handle) -> cudaError_t {
    // SAFETY: forwarded.
    unsafe { cudaStreamCreateWithFlags(pStream, 0) }
}

#[no_mangle]
pub unsafe extern "C" fn cudaStreamCreateWithFlags(pStream: *mut Handle, flags: c_uint) -> cudaError_t {
    call(|| {
        let o = out(pStream, "cudaStreamCreate: pStream")?;
        check_sticky()?;
        *o = stream::create(flags)? as Handle;
        Ok(())
    })
}

/// Priorities are accepted and ignored (the range is [0, 0]).
#[no_mangle]
pub unsafe extern "C" fn cudaStreamCreateWithPriority(pStream: *mut Handle, flags: c_uint, _priority: c_int) -> cudaError_t {
    // SAFETY: forwarded.
    unsafe { cudaStreamCreateWithFlags(pStream, flags) }
}

#[no_mangle]
pub unsafe extern "C" fn cudaDeviceGetStreamPriorityRange(least: *mut c_int, greatest: *mut c_int) -> cudaError_t {
    call(|| {
        // SAFETY: null or writable.
        unsafe {
            if let Some(l) = least.as_mut() {
                *l = 0;
            }
            if let Some(g) = greatest.as_mut() {
                *g = 0;
            }
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaStreamDestroy(s: Handle) -> cudaError_t {
    call(|| stream::destroy(s as usize))
}

#[no_mangle]
pub unsafe extern "C" fn cudaStreamSynchronize(s: Handle) -> cudaError_t {
    call(|| {
        stream_of(s)?.synchronize();
        check_sticky()
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaStreamQuery(s: Handle) -> cudaError_t {
    call(|| {
        let st = stream_of(s)?;
        check_sticky()?;
        if st.idle() {
            Ok(())
        } else {
            Err(Error::new(ErrorCode::NotReady, "cudaStreamQuery: work is pending"))
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaStreamWaitEvent(s: Handle, event: Handle, _flags: c_uint) -> cudaError_t {
    call(|| {
        let st = stream_of(s)?;
        let target = stream::event_target("cudaStreamWaitEvent", event as usize)?;
        if let Some(dep) = target {
            stream::enqueue(&st, vec![dep], Box::new(|| Ok(())));
        }
        Ok(())
    })
}

pub type HostFn = unsafe extern "C" fn(*mut c_void);

/// Runs `fn(userData)` on the stream's thread, in stream order.
#[no_mangle]
pub unsafe extern "C" fn cudaLaunchHostFunc(s: Handle, func: Option<HostFn>, userData: *mut c_void) -> cudaError_t {
    call(|| {
        let f = func.ok_or_else(|| Error::invalid_value("cudaLaunchHostFunc: fn is NULL"))?;
        check_sticky()?;
        let st = stream_of(s)?;
        let data = Addr(userData as usize);
        stream::enqueue(
            &st,
            vec![],
            Box::new(move || {
                let data = data;
                // SAFETY: the caller's function and data, as cudaLaunchHostFunc's contract.
                unsafe { f(data.0 as *mut c_void) };
                Ok(())
            }),
        );
        Ok(())
    })
}

pub type StreamCallback = unsafe extern "C" fn(Handle, cudaError_t, *mut c_void);

#[no_mangle]
pub unsafe extern "C" fn cudaStreamAddCallback(s: Handle, callback: Option<StreamCallback>, userData: *mut c_void, _flags: c_uint) -> cudaError_t {
    call(|| {
        let f = callback.ok_or_else(|| Error::invalid_value("cudaStreamAddCallback: callback is NULL"))?;
        let st = stream_of(s)?;
        let (data, handle) = (Addr(userData as usize), Addr(s as usize));
        stream::enqueue(
            &st,
            vec![],
            Box::new(move || {
                let (data, handle) = (data, handle);
                // SAFETY: the caller's callback and data.
                unsafe { f(handle.0 as Handle, 0, data.0 as *mut c_void) };
                Ok(())
            }),
        );
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaEventCreate(event: *mut Handle) -> cudaError_t {
    // SAFETY: forwarded.
    unsafe { cudaEventCreateWithFlags(event, 0) }
}

#[no_mangle]
pub unsafe extern "C" fn cudaEventCreateWithFlags(event: *mut Handle, flags: c_uint) -> cudaError_t {
    call(|| {
        let o = out(event, "cudaEventCreate: event")?;
        *o = stream::event_create(flags)? as Handle;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaEventDestroy(event: Handle) -> cudaError_t {
    call(|| stream::event_destroy(event as usize))
}

#[no_mangle]
pub unsafe extern "C" fn cudaEventRecord(event: Handle, s: Handle) -> cudaError_t {
    call(|| {
        check_sticky()?;
        let st = stream_of(s)?;
        stream::event_record(event as usize, &st)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaEventSynchronize(event: Handle) -> cudaError_t {
    call(|| {
        if let Some((s, seq)) = stream::event_target("cudaEventSynchronize", event as usize)? {
            stream::wait_until(|| s.done(seq));
        }
        check_sticky()
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaEventQuery(event: Handle) -> cudaError_t {
    call(|| {
        if stream::event_done(event as usize)? {
            check_sticky()
        } else {
            Err(Error::new(ErrorCode::NotReady, "cudaEventQuery: the recorded work has not completed"))
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaEventElapsedTime(ms: *mut f32, start: Handle, end: Handle) -> cudaError_t {
    call(|| {
        let o = out(ms, "cudaEventElapsedTime: ms")?;
        *o = stream::elapsed_ms(start as usize, end as usize)?;
        Ok(())
    })
}

// Textures: CUDA's names for the ptxrt texture object API (same layouts).

#[no_mangle]
pub unsafe extern "C" fn cudaCreateTextureObject(
    pTexObject: *mut u64,
    pResDesc: *const texture::ResourceDesc,
    pTexDesc: *const texture::TextureDesc,
    pResViewDesc: *const c_void,
) -> cudaError_t {
    // SAFETY: forwarded.
    unsafe { crate::capi::ptxrtCreateTextureObject(pTexObject, pResDesc, pTexDesc, pResViewDesc) }
}

#[no_mangle]
pub unsafe extern "C" fn cudaDestroyTextureObject(texObject: u64) -> cudaError_t {
    crate::capi::ptxrtDestroyTextureObject(texObject)
}

/// `cudaCreateChannelDesc` (C; C++ also has the template of cuda_runtime.h).
#[no_mangle]
pub extern "C" fn cudaCreateChannelDesc(x: c_int, y: c_int, z: c_int, w: c_int, f: c_int) -> texture::ChannelFormatDesc {
    crate::capi::ptxrtCreateChannelDesc(x, y, z, w, f)
}

/// The array API of ptxrt.h under CUDA's names. The copies wait for the device first (as
/// the synchronous copies on the legacy default stream do in CUDA) and check the kind.
fn array_copy(kind: c_int, allowed: &[c_int], what: &str, f: impl FnOnce() -> ptxrt_status) -> cudaError_t {
    let checked = call(|| {
        check_sticky()?;
        if !allowed.contains(&kind) {
            return Err(Error::new(ErrorCode::InvalidMemcpyDirection, format!("{what}: kind {kind} is not allowed here")));
        }
        stream::synchronize_all();
        Ok(())
    });
    if checked != 0 {
        return checked;
    }
    f()
}

type ptxrt_status = crate::abi::ptxrtError_t;

#[no_mangle]
pub unsafe extern "C" fn cudaMallocArray(
    array: *mut *mut texture::Array,
    desc: *const texture::ChannelFormatDesc,
    width: usize,
    height: usize,
    flags: c_uint,
) -> cudaError_t {
    // SAFETY: forwarded.
    unsafe { crate::capi::ptxrtMallocArray(array, desc, width, height, flags) }
}

#[no_mangle]
pub unsafe extern "C" fn cudaMalloc3DArray(
    array: *mut *mut texture::Array,
    desc: *const texture::ChannelFormatDesc,
    extent: texture::Extent,
    flags: c_uint,
) -> cudaError_t {
    // SAFETY: forwarded.
    unsafe { crate::capi::ptxrtMalloc3DArray(array, desc, extent, flags) }
}

#[no_mangle]
pub unsafe extern "C" fn cudaFreeArray(array: *mut texture::Array) -> cudaError_t {
    stream::synchronize_all();
    // SAFETY: forwarded.
    unsafe { crate::capi::ptxrtFreeArray(array) }
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemcpy2DToArray(
    dst: *mut texture::Array,
    wOffset: usize,
    hOffset: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> cudaError_t {
    // SAFETY: forwarded.
    array_copy(kind, &[1, 3, 4], "cudaMemcpy2DToArray", || unsafe { crate::capi::ptxrtMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height) })
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemcpy2DFromArray(
    dst: *mut c_void,
    dpitch: usize,
    src: *mut texture::Array,
    wOffset: usize,
    hOffset: usize,
    width: usize,
    height: usize,
    kind: c_int,
) -> cudaError_t {
    // SAFETY: forwarded.
    array_copy(kind, &[2, 3, 4], "cudaMemcpy2DFromArray", || unsafe { crate::capi::ptxrtMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height) })
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyToArray(
    dst: *mut texture::Array,
    wOffset: usize,
    hOffset: usize,
    src: *const c_void,
    count: usize,
    kind: c_int,
) -> cudaError_t {
    // SAFETY: forwarded.
    array_copy(kind, &[1, 3, 4], "cudaMemcpyToArray", || unsafe { crate::capi::ptxrtMemcpyToArray(dst, wOffset, hOffset, src, count) })
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemcpyFromArray(
    dst: *mut c_void,
    src: *mut texture::Array,
    wOffset: usize,
    hOffset: usize,
    count: usize,
    kind: c_int,
) -> cudaError_t {
    // SAFETY: forwarded.
    array_copy(kind, &[2, 3, 4], "cudaMemcpyFromArray", || unsafe { crate::capi::ptxrtMemcpyFromArray(dst, src, wOffset, hOffset, count) })
}

#[no_mangle]
pub unsafe extern "C" fn cudaCreateSurfaceObject(pSurfObject: *mut u64, pResDesc: *const texture::ResourceDesc) -> cudaError_t {
    // SAFETY: forwarded.
    unsafe { crate::capi::ptxrtCreateSurfaceObject(pSurfObject, pResDesc) }
}

#[no_mangle]
pub unsafe extern "C" fn cudaDestroySurfaceObject(surfObject: u64) -> cudaError_t {
    crate::capi::ptxrtDestroySurfaceObject(surfObject)
}

// ---- limits, memory hints, stream-ordered allocation, profiler ---------------------------

/// `cudaDeviceSetLimit` values (stack, printf FIFO, malloc heap, sync depth, pending
/// launches, L2 fetch granularity, persisting L2): recorded and reported back; ptxrt's
/// stacks and heap are sized by the host (`PTXRT_STACK_BYTES`, the C heap).
static LIMITS: Mutex<[usize; 7]> = Mutex::new([1024, 1 << 20, 8 << 20, 2, 2048, 32, 0]);

#[no_mangle]
pub unsafe extern "C" fn cudaDeviceSetLimit(limit: c_int, value: usize) -> cudaError_t {
    call(|| {
        let mut l = lock(&LIMITS);
        let slot = l
            .get_mut(usize::try_from(limit).unwrap_or(usize::MAX))
            .ok_or_else(|| Error::new(ErrorCode::NotSupported, format!("cudaDeviceSetLimit: limit {limit} is not known")))?;
        *slot = value;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaDeviceGetLimit(pValue: *mut usize, limit: c_int) -> cudaError_t {
    call(|| {
        let o = out(pValue, "cudaDeviceGetLimit: pValue")?;
        let l = lock(&LIMITS);
        *o = *l
            .get(usize::try_from(limit).unwrap_or(usize::MAX))
            .ok_or_else(|| Error::new(ErrorCode::NotSupported, format!("cudaDeviceGetLimit: limit {limit} is not known")))?;
        Ok(())
    })
}

/// Prefetching and advice have nothing to move (managed memory is host memory); the range
/// is checked.
#[no_mangle]
pub unsafe extern "C" fn cudaMemPrefetchAsync(devPtr: *const c_void, count: usize, dstDevice: c_int, stream: Handle) -> cudaError_t {
    call(|| {
        check_device_range(devPtr, count, "cudaMemPrefetchAsync", "memory")?;
        if dstDevice != 0 && dstDevice != -1 {
            return Err(Error::new(ErrorCode::InvalidDevice, format!("cudaMemPrefetchAsync: device {dstDevice}")));
        }
        stream_of(stream).map(|_| ())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaMemAdvise(devPtr: *const c_void, count: usize, _advice: c_int, _device: c_int) -> cudaError_t {
    call(|| check_device_range(devPtr, count, "cudaMemAdvise", "memory"))
}

#[no_mangle]
pub unsafe extern "C" fn cudaStreamAttachMemAsync(stream: Handle, _devPtr: *mut c_void, _length: usize, _flags: c_uint) -> cudaError_t {
    call(|| stream_of(stream).map(|_| ()))
}

/// Stream-ordered allocation: the memory is allocated at once (valid from the call on,
/// so also in stream order); `cudaFreeAsync` frees it when the stream reaches the free.
#[no_mangle]
pub unsafe extern "C" fn cudaMallocAsync(devPtr: *mut *mut c_void, size: usize, stream: Handle) -> cudaError_t {
    call(|| {
        let o = out(devPtr, "cudaMallocAsync: devPtr")?;
        stream_of(stream)?;
        *o = allocate(size, Kind::Device, "cudaMallocAsync")?;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaFreeAsync(devPtr: *mut c_void, stream: Handle) -> cudaError_t {
    call(|| {
        if devPtr.is_null() {
            return Ok(());
        }
        check_sticky()?;
        let size = match lock(&ALLOCS).get(&(devPtr as usize)) {
            Some(a) if matches!(a.kind, Kind::Device | Kind::Managed) => a.size,
            _ => return Err(Error::invalid_value(format!("cudaFreeAsync({devPtr:p}): not the start of a live allocation of cudaMalloc/cudaMallocAsync"))),
        };
        let s = stream_of(stream)?;
        let p = Addr(devPtr as usize);
        stream::enqueue(
            &s,
            vec![],
            Box::new(move || {
                let p = p;
                if lock(&ALLOCS).remove(&p.0).is_some() {
                    if let Some(l) = layout(size) {
                        // SAFETY: allocated by `allocate` with this layout, removed once.
                        unsafe { std::alloc::dealloc(p.0 as *mut u8, l) };
                    }
                }
                Ok(())
            }),
        );
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaDeviceCanAccessPeer(canAccessPeer: *mut c_int, device: c_int, peerDevice: c_int) -> cudaError_t {
    call(|| {
        let o = out(canAccessPeer, "cudaDeviceCanAccessPeer: canAccessPeer")?;
        check_device(device, "cudaDeviceCanAccessPeer")?;
        check_device(peerDevice, "cudaDeviceCanAccessPeer")?;
        *o = 0;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaGetDeviceFlags(flags: *mut c_uint) -> cudaError_t {
    call(|| {
        *out(flags, "cudaGetDeviceFlags: flags")? = 0;
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn cudaStreamGetFlags(s: Handle, flags: *mut c_uint) -> cudaError_t {
    call(|| {
        let o = out(flags, "cudaStreamGetFlags: flags")?;
        let st = stream_of(s)?;
        *o = if st.blocking { 0 } else { stream::NON_BLOCKING };
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn cudaProfilerStart() -> cudaError_t {
    0
}

#[no_mangle]
pub extern "C" fn cudaProfilerStop() -> cudaError_t {
    0
}

/// Makes stream 0 the calling thread's default stream (`cudaStreamPerThread`) for the whole
/// program: what code compiled with `CUDA_API_PER_THREAD_DEFAULT_STREAM` (nvcc's
/// `--default-stream per-thread`, ptx2llvm-cc's too) expects; cuda_runtime.h calls it from
/// a static initializer of such code. Returns 0.
#[no_mangle]
pub extern "C" fn ptxrtUsePerThreadDefaultStream() -> c_int {
    stream::PER_THREAD_DEFAULT.store(true, Ordering::Relaxed);
    0
}

//! The C API of `ptxrt.h` and the registration entry of `ptxrt_abi.h`.
//!
//! Every function catches panics (unwinding into C is undefined behaviour) and turns
//! failures into a returned code plus the calling thread's last error.

#![allow(non_snake_case)]

use std::ffi::{c_char, c_int, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::abi::{ptxrtError_t, Dim3, Kernel, Module};
use crate::error::{self, Error, SUCCESS};
use crate::{launch, pool, registry};

/// Runs `f`, converting an error or a panic into a code and the thread's last error.
fn status(f: impl FnOnce() -> Result<(), Error>) -> ptxrtError_t {
    let result = catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(Error::internal("panic in the C API")));
    match result {
        Ok(()) => SUCCESS,
        Err(e) => {
            error::set_last_error(&e);
            e.code.raw()
        }
    }
}

/// Like [`status`] for functions that return a value (`fallback` on failure).
fn value<T>(fallback: T, f: impl FnOnce() -> Result<T, Error>) -> T {
    let result = catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(Error::internal("panic in the C API")));
    match result {
        Ok(v) => v,
        Err(e) => {
            error::set_last_error(&e);
            fallback
        }
    }
}

/// A C string argument, or the error for a null one.
///
/// # Safety
/// `s` is null or NUL-terminated and valid for the call.
unsafe fn c_str<'a>(s: *const c_char, what: &str) -> Result<&'a CStr, Error> {
    if s.is_null() {
        return Err(Error::invalid_value(format!("{what}: name is NULL")));
    }
    // SAFETY: non-null, NUL-terminated per this function's contract.
    Ok(unsafe { CStr::from_ptr(s) })
}

/// Registers a translated module; called from object constructors before `main`.
///
/// # Safety
/// `module` is null or points at a module descriptor that stays valid until it is
/// unregistered (for objects that are never unloaded: forever).
#[no_mangle]
pub unsafe extern "C" fn __ptxrt_register_module(module: *const Module) {
    let _ = catch_unwind(|| registry::register(module));
}

/// Unregisters a module; for objects that can be unloaded again (`dlclose`).
///
/// # Safety
/// `module` is null or a pointer given to `__ptxrt_register_module`, still valid.
#[no_mangle]
pub unsafe extern "C" fn __ptxrt_unregister_module(module: *const Module) {
    let _ = catch_unwind(|| registry::unregister(module));
}

/// Finds a kernel by PTX `.entry` name; NULL (last error `ptxrtErrorNotFound`) if none.
///
/// # Safety
/// `name` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ptxrtFindKernel(name: *const c_char) -> *const Kernel {
    value(std::ptr::null(), || {
        // SAFETY: forwarded contract.
        let name = unsafe { c_str(name, "ptxrtFindKernel") }?;
        registry::find_kernel(name).map(|k| k as *const Kernel)
    })
}

/// Runs a grid to completion.
///
/// # Safety
/// As `cuLaunchKernel`: `kernel` is null or a kernel descriptor, `args` points at
/// `num_params` pointers to parameter values, and the kernel's memory accesses are valid.
#[no_mangle]
pub unsafe extern "C" fn ptxrtLaunchKernel(
    kernel: *const Kernel,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    dynamicSharedBytes: usize,
    stream: *mut c_void,
) -> ptxrtError_t {
    // SAFETY: forwarded contract.
    status(|| unsafe {
        launch::launch_kernel(kernel, grid, block, args, dynamicSharedBytes, stream)
    })
}

/// Address and size of a module-scope `.global`/`.const` variable.
///
/// # Safety
/// `name` is null or NUL-terminated; `addr` and `size` are null or writable.
#[no_mangle]
pub unsafe extern "C" fn ptxrtGetSymbol(
    name: *const c_char,
    addr: *mut *mut c_void,
    size: *mut usize,
) -> ptxrtError_t {
    status(|| {
        // SAFETY: forwarded contract.
        let name = unsafe { c_str(name, "ptxrtGetSymbol") }?;
        if addr.is_null() || size.is_null() {
            return Err(Error::invalid_value(format!(
                "ptxrtGetSymbol('{}'): addr and size must not be NULL",
                name.to_string_lossy()
            )));
        }
        let (a, s) = registry::get_symbol(name)?;
        // SAFETY: both checked non-null above and writable per the contract.
        unsafe {
            *addr = a;
            *size = usize::try_from(s).unwrap_or(usize::MAX);
        }
        Ok(())
    })
}

/// Sets the largest dynamic shared size launches of `kernel` may use (up to 227 KiB
/// including static shared memory).
///
/// # Safety
/// `kernel` is null or a kernel descriptor.
#[no_mangle]
pub unsafe extern "C" fn ptxrtFuncSetMaxDynamicSharedMemory(
    kernel: *const Kernel,
    bytes: usize,
) -> ptxrtError_t {
    status(|| launch::set_max_dynamic_shared(kernel, bytes))
}

/// Sets the number of worker threads used by later launches.
#[no_mangle]
pub extern "C" fn ptxrtSetNumThreads(n: c_int) -> ptxrtError_t {
    status(|| pool::set_num_threads(i64::from(n)))
}

/// The number of worker threads launches use.
#[no_mangle]
pub extern "C" fn ptxrtGetNumThreads() -> c_int {
    value(1, || {
        Ok(c_int::try_from(pool::num_threads()).unwrap_or(c_int::MAX))
    })
}

/// The enumerator name of a code ("unrecognized error code" for unknown values).
#[no_mangle]
pub extern "C" fn ptxrtGetErrorName(error: ptxrtError_t) -> *const c_char {
    error::error_name(error).as_ptr()
}

/// A sentence describing a code ("unrecognized error code" for unknown values).
#[no_mangle]
pub extern "C" fn ptxrtGetErrorString(error: ptxrtError_t) -> *const c_char {
    error::error_string(error).as_ptr()
}

/// Returns and clears the calling thread's last error.
#[no_mangle]
pub extern "C" fn ptxrtGetLastError() -> ptxrtError_t {
    catch_unwind(error::take_last_error).unwrap_or(SUCCESS)
}

/// Returns the calling thread's last error without clearing it.
#[no_mangle]
pub extern "C" fn ptxrtPeekAtLastError() -> ptxrtError_t {
    catch_unwind(error::peek_last_error).unwrap_or(SUCCESS)
}

/// The message of the calling thread's most recent failure ("" if none).
#[no_mangle]
pub extern "C" fn ptxrtGetLastErrorMessage() -> *const c_char {
    catch_unwind(error::last_error_message).unwrap_or(c"".as_ptr())
}

//! Error codes, their names and descriptions, and the per-host-thread "last error".
//!
//! Internally every failure is an [`Error`] (a code plus a message written where the
//! failure was detected). At the C boundary it becomes a `ptxrtError_t` return value and
//! is also remembered per host thread, as CUDA's `cudaGetLastError` does, so C code can
//! fetch the detailed message afterwards.

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::fmt;

use crate::abi::ptxrtError_t;

/// The failure codes of `ptxrtError_t` (success is `Ok(())`, not a variant). Values are
/// CUDA's, so people who know `cudaError_t` recognise them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum ErrorCode {
    InvalidValue = 1,
    MemoryAllocation = 2,
    InvalidConfiguration = 9,
    /// A pitch below the row width (`cudaMemcpy2D`).
    InvalidPitchValue = 12,
    /// A host-side symbol that no `__device__`/`__constant__` variable was registered for.
    InvalidSymbol = 13,
    InvalidMemcpyDirection = 21,
    /// `__cudaPopCallConfiguration` without a pushed configuration.
    MissingConfiguration = 52,
    /// A launch of a host function that is not a registered kernel stub.
    InvalidDeviceFunction = 98,
    InvalidDevice = 101,
    /// A stream or event handle that was never created or already destroyed.
    InvalidResourceHandle = 400,
    NotFound = 500,
    /// Work is still pending (`cudaStreamQuery`, `cudaEventQuery`).
    NotReady = 600,
    /// Kernel code accessed memory that is not mapped (a fault, as `cudaErrorIllegalAddress`).
    IllegalAddress = 700,
    /// A device-side `assert` failed (the CUDA runtime API's code for it; ptxrt's own
    /// launches report `LaunchFailure`).
    Assert = 710,
    /// Kernel code executed an illegal instruction.
    IllegalInstruction = 715,
    LaunchFailure = 719,
    /// A cooperative grid larger than the blocks that can be resident at once.
    CooperativeLaunchTooLarge = 720,
    NotSupported = 801,
    /// A bug inside ptxrt (a caught panic); never expected.
    Unknown = 999,
}

/// `ptxrtSuccess`.
pub const SUCCESS: ptxrtError_t = 0;

impl ErrorCode {
    pub const ALL: [ErrorCode; 19] = [
        ErrorCode::InvalidValue,
        ErrorCode::MemoryAllocation,
        ErrorCode::InvalidConfiguration,
        ErrorCode::InvalidPitchValue,
        ErrorCode::InvalidSymbol,
        ErrorCode::InvalidMemcpyDirection,
        ErrorCode::MissingConfiguration,
        ErrorCode::InvalidDeviceFunction,
        ErrorCode::InvalidDevice,
        ErrorCode::InvalidResourceHandle,
        ErrorCode::NotFound,
        ErrorCode::NotReady,
        ErrorCode::IllegalAddress,
        ErrorCode::Assert,
        ErrorCode::IllegalInstruction,
        ErrorCode::LaunchFailure,
        ErrorCode::CooperativeLaunchTooLarge,
        ErrorCode::NotSupported,
        ErrorCode::Unknown,
    ];

    /// The value C sees.
    pub const fn raw(self) -> ptxrtError_t {
        self as ptxrtError_t
    }

    /// The code for a C value; `None` for success and unknown values.
    pub fn from_raw(raw: ptxrtError_t) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.raw() == raw)
    }

    /// The enumerator's name in `ptxrt.h`.
    pub const fn name(self) -> &'static CStr {
        match self {
            ErrorCode::InvalidValue => c"ptxrtErrorInvalidValue",
            ErrorCode::MemoryAllocation => c"ptxrtErrorMemoryAllocation",
            ErrorCode::InvalidConfiguration => c"ptxrtErrorInvalidConfiguration",
            ErrorCode::InvalidPitchValue => c"ptxrtErrorInvalidPitchValue",
            ErrorCode::InvalidSymbol => c"ptxrtErrorInvalidSymbol",
            ErrorCode::InvalidMemcpyDirection => c"ptxrtErrorInvalidMemcpyDirection",
            ErrorCode::MissingConfiguration => c"ptxrtErrorMissingConfiguration",
            ErrorCode::InvalidDeviceFunction => c"ptxrtErrorInvalidDeviceFunction",
            ErrorCode::InvalidDevice => c"ptxrtErrorInvalidDevice",
            ErrorCode::InvalidResourceHandle => c"ptxrtErrorInvalidResourceHandle",
            ErrorCode::NotFound => c"ptxrtErrorNotFound",
            ErrorCode::NotReady => c"ptxrtErrorNotReady",
            ErrorCode::IllegalAddress => c"ptxrtErrorIllegalAddress",
            ErrorCode::Assert => c"ptxrtErrorAssert",
            ErrorCode::IllegalInstruction => c"ptxrtErrorIllegalInstruction",
            ErrorCode::LaunchFailure => c"ptxrtErrorLaunchFailure",
            ErrorCode::CooperativeLaunchTooLarge => c"ptxrtErrorCooperativeLaunchTooLarge",
            ErrorCode::NotSupported => c"ptxrtErrorNotSupported",
            ErrorCode::Unknown => c"ptxrtErrorUnknown",
        }
    }

    /// A human sentence for the code (the message of an [`Error`] has the details).
    pub const fn description(self) -> &'static CStr {
        match self {
            ErrorCode::InvalidValue => c"invalid argument: a null pointer, a non-null stream, an unusable kernel descriptor or an out-of-range value was passed",
            ErrorCode::MemoryAllocation => c"out of memory: the runtime could not allocate the buffers a launch needs",
            ErrorCode::InvalidConfiguration => c"invalid configuration argument: the grid, block or shared memory size of the launch is not allowed for this kernel",
            ErrorCode::InvalidPitchValue => c"invalid pitch argument: a pitch is smaller than the width of the copy",
            ErrorCode::InvalidSymbol => c"invalid device symbol: the address is not the host shadow of a registered __device__ or __constant__ variable",
            ErrorCode::InvalidMemcpyDirection => c"invalid copy direction for memcpy: the cudaMemcpyKind value is not one of the five kinds",
            ErrorCode::MissingConfiguration => c"__global__ function call is not configured: no launch configuration was pushed",
            ErrorCode::InvalidDeviceFunction => c"invalid device function: the function is not a registered kernel (host stub or ptxrtKernel descriptor)",
            ErrorCode::InvalidDevice => c"invalid device ordinal: ptxrt has one device, 0",
            ErrorCode::InvalidResourceHandle => c"invalid resource handle: the stream or event was not created or is already destroyed",
            ErrorCode::NotReady => c"device not ready: work queued before the query has not finished yet",
            ErrorCode::Assert => c"device-side assert triggered",
            ErrorCode::CooperativeLaunchTooLarge => c"too many blocks in cooperative launch: more blocks than can be resident at once",
            ErrorCode::NotSupported => c"operation not supported by ptxrt",
            ErrorCode::NotFound => c"named symbol not found: no registered module defines a kernel or variable of that name",
            ErrorCode::IllegalAddress => c"an illegal memory access was encountered: kernel code read or wrote memory that is not mapped (the launch stopped; the process goes on)",
            ErrorCode::IllegalInstruction => c"an illegal instruction was encountered in kernel code (the launch stopped; the process goes on)",
            ErrorCode::LaunchFailure => c"unspecified launch failure: a thread block of the kernel stopped with an error (trap, failed assertion, invalid barrier use, stack overflow, ...)",
            ErrorCode::Unknown => c"unknown error: an internal error of the ptxrt runtime",
        }
    }
}

/// Name for any C value, including success and values no enumerator has.
pub fn error_name(raw: ptxrtError_t) -> &'static CStr {
    match ErrorCode::from_raw(raw) {
        Some(code) => code.name(),
        None if raw == SUCCESS => c"ptxrtSuccess",
        None => c"unrecognized error code",
    }
}

/// Description for any C value, including success and values no enumerator has.
pub fn error_string(raw: ptxrtError_t) -> &'static CStr {
    match ErrorCode::from_raw(raw) {
        Some(code) => code.description(),
        None if raw == SUCCESS => c"no error",
        None => c"unrecognized error code",
    }
}

/// A failed runtime operation: what kind of failure, and the specifics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Error {
        Error { code, message: message.into() }
    }

    pub fn invalid_value(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::InvalidValue, message)
    }

    pub fn invalid_configuration(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::InvalidConfiguration, message)
    }

    pub fn not_found(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::NotFound, message)
    }

    pub fn memory_allocation(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::MemoryAllocation, message)
    }

    pub fn launch_failure(message: impl Into<String>) -> Error {
        Error::new(ErrorCode::LaunchFailure, message)
    }

    /// For caught panics: the runtime has a bug, but the host process must survive it.
    pub(crate) fn internal(what: &str) -> Error {
        Error::new(ErrorCode::Unknown, format!("internal error in ptxrt: {what}"))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.code.name().to_string_lossy();
        write!(f, "{name}: {}", self.message)
    }
}

impl std::error::Error for Error {}

/// The calling host thread's last error. The message is kept as a C string so that
/// `ptxrtGetLastErrorMessage` can hand out a pointer into it.
struct LastError {
    code: ptxrtError_t,
    message: CString,
}

thread_local! {
    static LAST_ERROR: RefCell<LastError> =
        RefCell::new(LastError { code: SUCCESS, message: CString::default() });
}

/// Remembers `err` as the calling thread's last error. Never panics: during thread
/// teardown (thread-local already destroyed) the error is just not recorded.
pub(crate) fn set_last_error(err: &Error) {
    let message = CString::new(err.message.replace('\0', " ")).unwrap_or_default();
    let _ = LAST_ERROR.try_with(|cell| {
        if let Ok(mut last) = cell.try_borrow_mut() {
            last.code = err.code.raw();
            last.message = message;
        }
    });
}

/// `ptxrtGetLastError`: returns and clears the code. The message stays readable until the
/// thread's next failing call, so "get the code, then print the message" works.
pub(crate) fn take_last_error() -> ptxrtError_t {
    LAST_ERROR
        .try_with(|cell| match cell.try_borrow_mut() {
            Ok(mut last) => std::mem::replace(&mut last.code, SUCCESS),
            Err(_) => SUCCESS,
        })
        .unwrap_or(SUCCESS)
}

/// `ptxrtPeekAtLastError`.
pub(crate) fn peek_last_error() -> ptxrtError_t {
    LAST_ERROR.try_with(|cell| cell.try_borrow().map(|last| last.code).unwrap_or(SUCCESS)).unwrap_or(SUCCESS)
}

/// `ptxrtGetLastErrorMessage`: valid until the calling thread's next failing call (or its
/// exit); `""` if the thread never failed.
pub(crate) fn last_error_message() -> *const c_char {
    LAST_ERROR.try_with(|cell| cell.try_borrow().map(|last| last.message.as_ptr()).ok()).ok().flatten().unwrap_or(c"".as_ptr())
}

/// The calling thread's last error as a Rust value, without clearing it.
pub fn last_error() -> Option<Error> {
    LAST_ERROR
        .try_with(|cell| {
            let last = cell.try_borrow().ok()?;
            let code = ErrorCode::from_raw(last.code)?;
            Some(Error::new(code, last.message.to_string_lossy().into_owned()))
        })
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_strings() {
        assert_eq!(error_name(0), c"ptxrtSuccess");
        assert_eq!(error_name(9), c"ptxrtErrorInvalidConfiguration");
        assert_eq!(error_name(719), c"ptxrtErrorLaunchFailure");
        assert_eq!(error_name(12345), c"unrecognized error code");
        assert_eq!(error_name(-1), c"unrecognized error code");
        assert_eq!(error_string(12345), c"unrecognized error code");
        assert_eq!(error_string(0), c"no error");
        for code in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_raw(code.raw()), Some(code));
            assert!(code.name().to_bytes().starts_with(b"ptxrtError"));
            assert!(code.description().to_bytes().len() > 10);
        }
    }

    #[test]
    fn last_error_is_per_thread_and_sticky_until_taken() {
        assert_eq!(peek_last_error(), SUCCESS);
        set_last_error(&Error::not_found("no kernel 'foo'"));
        let other = std::thread::spawn(peek_last_error).join().unwrap();
        assert_eq!(other, SUCCESS);
        assert_eq!(peek_last_error(), ErrorCode::NotFound.raw());
        assert_eq!(last_error(), Some(Error::not_found("no kernel 'foo'")));
        assert_eq!(take_last_error(), ErrorCode::NotFound.raw());
        assert_eq!(take_last_error(), SUCCESS);
        // SAFETY: the pointer comes from this thread's live last-error slot.
        let msg = unsafe { CStr::from_ptr(last_error_message()) };
        assert_eq!(msg, c"no kernel 'foo'");
        set_last_error(&Error::invalid_value("a\0b"));
        // SAFETY: as above.
        let msg = unsafe { CStr::from_ptr(last_error_message()) };
        assert_eq!(msg, c"a b");
    }
}

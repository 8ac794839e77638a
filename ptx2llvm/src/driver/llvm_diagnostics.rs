//! What LLVM reports while a unit is optimized and compiled.
//!
//! Without a handler, LLVM prints its warnings and remarks to the standard error as they
//! come (`warning: <unknown>:0:0: loop not unrolled: ...`): raw messages that say nothing
//! to the user of a PTX compiler, about code the user did not write. They are dropped here;
//! the first error, if any, is kept for the compile to report as an internal error.

use inkwell::context::Context;
use inkwell::llvm_sys::core::{LLVMContextSetDiagnosticHandler, LLVMDisposeMessage, LLVMGetDiagInfoDescription, LLVMGetDiagInfoSeverity};
use inkwell::llvm_sys::prelude::LLVMDiagnosticInfoRef;
use inkwell::llvm_sys::LLVMDiagnosticSeverity;
use std::ffi::{c_void, CStr};
use std::sync::Mutex;

/// The first error LLVM reported in a context. Must outlive the context it is installed in.
#[derive(Default)]
pub(super) struct FirstError(Box<Mutex<Option<String>>>);

impl FirstError {
    /// Makes this the handler of every diagnostic `cx` reports.
    pub(super) fn install(&self, cx: &Context) {
        let slot: *const Mutex<Option<String>> = &*self.0;
        // SAFETY: the handler only reads `slot`, a boxed mutex that stays at its address for
        // as long as `self` lives, which the caller keeps beyond the context's life.
        unsafe { LLVMContextSetDiagnosticHandler(cx.raw(), Some(handle), slot as *mut c_void) };
    }

    /// The first error reported, if any (taken).
    pub(super) fn take(&self) -> Option<String> {
        self.0.lock().ok()?.take()
    }
}

extern "C" fn handle(info: LLVMDiagnosticInfoRef, slot: *mut c_void) {
    // SAFETY: LLVM passes a valid diagnostic for the duration of the call, and `slot` is the
    // pointer `install` registered, to a live `Mutex<Option<String>>`.
    unsafe {
        if LLVMGetDiagInfoSeverity(info) != LLVMDiagnosticSeverity::LLVMDSError {
            return;
        }
        let text = LLVMGetDiagInfoDescription(info);
        let message = CStr::from_ptr(text).to_string_lossy().into_owned();
        LLVMDisposeMessage(text);
        let slot = &*(slot as *const Mutex<Option<String>>);
        if let Ok(mut first) = slot.lock() {
            first.get_or_insert(message);
        }
    }
}

//! The layouts and values shared with objects written by ptx2llvm: the `ptx2llvm-abi`
//! crate (the one place they are written; `include/ptxrt_abi.h` is checked against it by
//! `tests/abi_header.rs`), plus the C error type of `include/ptxrt.h`.

use std::ffi::c_int;

pub use ptx2llvm_abi::{
    BlockEnv, BlockFn, Dim3, GridWorkspace, Kernel, LaunchInfo, Module, SymbolInfo, SyncOperand, SyncPoint, ABI_VERSION, KERNEL_FUSE_X, WINDOW_GUARD_BYTES,
};

/// `ptxrtError_t` as it crosses the C boundary. A plain integer rather than a Rust enum,
/// because C may hand us any value (e.g. to `ptxrtGetErrorName`).
#[allow(non_camel_case_types)]
pub type ptxrtError_t = c_int;

#[cfg(test)]
mod tests {
    #[test]
    fn the_compilers_launch_failure_code_is_ours() {
        assert_eq!(ptx2llvm_abi::ERROR_LAUNCH_FAILURE, crate::ErrorCode::LaunchFailure as i32);
    }
}

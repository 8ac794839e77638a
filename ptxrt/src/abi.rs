//! `#[repr(C)]` mirrors of `include/ptxrt_abi.h` and the value types of `include/ptxrt.h`.
//!
//! These layouts are the contract with objects written by ptx2llvm (whose compiler-side
//! mirror is `ptx2llvm/src/lower/abi.rs`); the tests at the bottom pin every offset so a
//! drift between the header and this file fails loudly instead of corrupting launches.

use std::ffi::{c_char, c_int, c_void};

/// `PTXRT_ABI_VERSION`: modules and kernels carrying another value are not used.
pub const ABI_VERSION: u32 = 4;

/// `ptxrtError_t` as it crosses the C boundary. A plain integer rather than a Rust enum,
/// because C may hand us any value (e.g. to `ptxrtGetErrorName`).
#[allow(non_camel_case_types)]
pub type ptxrtError_t = c_int;

/// `ptxrtDim3`: grid and block extents, block indices.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Dim3 {
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }

    /// x*y*z without overflow (a grid may hold up to ~2^63 blocks).
    pub const fn volume(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }

    pub const fn is_zero(self) -> bool {
        self.x == 0 && self.y == 0 && self.z == 0
    }
}

/// `ptxrtLaunchInfo`: one per launch, shared read-only by every block of the grid.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LaunchInfo {
    /// `args[i]` points at the value of kernel parameter `i`.
    pub args: *mut *mut c_void,
    /// `%nctaid`
    pub grid: Dim3,
    /// `%ntid`
    pub block: Dim3,
    pub dynamic_shared_bytes: u32,
    /// `%nsmid`
    pub num_workers: u32,
    /// `%gridid`: a number unique to this launch in the process (launches count from 1).
    pub grid_id: u64,
}

/// `ptxrtBlockEnv`: what a block function gets for one thread block.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct BlockEnv {
    pub launch: *const LaunchInfo,
    /// `%ctaid`
    pub ctaid: Dim3,
    /// `%smid`
    pub worker_index: u32,
    /// Static then dynamic shared memory (dynamic starts at `align_up(static, 16)`).
    pub shared: *mut u8,
    /// `context_bytes_per_thread * threads`, 64-byte aligned.
    pub context: *mut u8,
    /// `local_bytes_per_thread * threads`, 64-byte aligned.
    pub local: *mut u8,
    /// A `ptxrtError_t`, set by generated code together with a non-zero return.
    pub error_code: i32,
    /// Static NUL-terminated string describing the error, or null.
    pub error_message: *const c_char,
    /// Blocks this call runs: `ctaid.x .. ctaid.x + blocks_x` (1 unless the kernel has
    /// `KERNEL_FUSE_X`).
    pub blocks_x: u32,
}

/// `PTXRT_KERNEL_FUSE_X` in `Kernel::flags`: the block function runs `BlockEnv::blocks_x`
/// neighbouring blocks along x in one call.
pub const KERNEL_FUSE_X: u32 = 1;

/// `ptxrtBlockFn`: runs one whole thread block; 0 on success.
pub type BlockFn = unsafe extern "C" fn(env: *mut BlockEnv) -> i32;

/// `struct ptxrtKernel`: the descriptor of one `.entry`.
#[repr(C)]
#[derive(Debug)]
pub struct Kernel {
    pub abi_version: u32,
    pub num_params: u32,
    /// The PTX `.entry` name (NUL-terminated).
    pub name: *const c_char,
    pub block_fn: Option<BlockFn>,
    pub param_sizes: *const u32,
    pub param_aligns: *const u32,
    pub static_shared_bytes: u32,
    pub context_bytes_per_thread: u32,
    pub local_bytes_per_thread: u32,
    /// Reserved, 0.
    pub flags: u32,
    /// `{0,0,0}` unless the entry has `.reqntid`.
    pub reqntid: Dim3,
    /// `{0,0,0}` unless the entry has `.maxntid`.
    pub maxntid: Dim3,
}

/// `ptxrtSymbolInfo`: a module-scope `.global`/`.const` variable.
#[repr(C)]
#[derive(Debug)]
pub struct SymbolInfo {
    pub name: *const c_char,
    pub addr: *mut c_void,
    pub size: u64,
}

/// `ptxrtModule`: everything one translated PTX module provides.
#[repr(C)]
#[derive(Debug)]
pub struct Module {
    pub abi_version: u32,
    pub num_kernels: u32,
    pub kernels: *const *const Kernel,
    pub num_symbols: u32,
    pub symbols: *const SymbolInfo,
}

// SAFETY: descriptors are immutable constants emitted by the compiler (or written by hand
// in tests); the runtime only ever reads them, so sharing references between threads is
// sound. The memory a `SymbolInfo::addr` points at is never accessed through it by ptxrt.
unsafe impl Sync for Kernel {}
// SAFETY: see `Kernel`.
unsafe impl Sync for SymbolInfo {}
// SAFETY: see `Kernel`.
unsafe impl Sync for Module {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    // Offsets worked out by hand from the C declarations for LP64 (x86-64 and AArch64
    // Linux/macOS), the only data models ptx2llvm targets.
    #[test]
    fn layouts_match_the_c_header() {
        assert_eq!(size_of::<Dim3>(), 12);
        assert_eq!(align_of::<Dim3>(), 4);

        assert_eq!(offset_of!(LaunchInfo, args), 0);
        assert_eq!(offset_of!(LaunchInfo, grid), 8);
        assert_eq!(offset_of!(LaunchInfo, block), 20);
        assert_eq!(offset_of!(LaunchInfo, dynamic_shared_bytes), 32);
        assert_eq!(offset_of!(LaunchInfo, num_workers), 36);
        assert_eq!(offset_of!(LaunchInfo, grid_id), 40);
        assert_eq!(size_of::<LaunchInfo>(), 48);

        assert_eq!(offset_of!(BlockEnv, launch), 0);
        assert_eq!(offset_of!(BlockEnv, ctaid), 8);
        assert_eq!(offset_of!(BlockEnv, worker_index), 20);
        assert_eq!(offset_of!(BlockEnv, shared), 24);
        assert_eq!(offset_of!(BlockEnv, context), 32);
        assert_eq!(offset_of!(BlockEnv, local), 40);
        assert_eq!(offset_of!(BlockEnv, error_code), 48);
        assert_eq!(offset_of!(BlockEnv, error_message), 56);
        assert_eq!(offset_of!(BlockEnv, blocks_x), 64);
        assert_eq!(size_of::<BlockEnv>(), 72);

        assert_eq!(offset_of!(Kernel, abi_version), 0);
        assert_eq!(offset_of!(Kernel, num_params), 4);
        assert_eq!(offset_of!(Kernel, name), 8);
        assert_eq!(offset_of!(Kernel, block_fn), 16);
        assert_eq!(offset_of!(Kernel, param_sizes), 24);
        assert_eq!(offset_of!(Kernel, param_aligns), 32);
        assert_eq!(offset_of!(Kernel, static_shared_bytes), 40);
        assert_eq!(offset_of!(Kernel, context_bytes_per_thread), 44);
        assert_eq!(offset_of!(Kernel, local_bytes_per_thread), 48);
        assert_eq!(offset_of!(Kernel, flags), 52);
        assert_eq!(offset_of!(Kernel, reqntid), 56);
        assert_eq!(offset_of!(Kernel, maxntid), 68);
        assert_eq!(size_of::<Kernel>(), 80);

        assert_eq!(offset_of!(SymbolInfo, name), 0);
        assert_eq!(offset_of!(SymbolInfo, addr), 8);
        assert_eq!(offset_of!(SymbolInfo, size), 16);
        assert_eq!(size_of::<SymbolInfo>(), 24);

        assert_eq!(offset_of!(Module, abi_version), 0);
        assert_eq!(offset_of!(Module, num_kernels), 4);
        assert_eq!(offset_of!(Module, kernels), 8);
        assert_eq!(offset_of!(Module, num_symbols), 16);
        assert_eq!(offset_of!(Module, symbols), 24);
        assert_eq!(size_of::<Module>(), 32);

        assert_eq!(size_of::<Option<BlockFn>>(), size_of::<usize>());
    }
}

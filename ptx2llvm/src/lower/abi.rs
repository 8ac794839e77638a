//! The runtime ABI as LLVM types, and the symbol names objects export.
//! Mirrors `ptxrt/include/ptxrt_abi.h`; keep both in sync.

use inkwell::context::Context;
use inkwell::types::{BasicTypeEnum, StructType};
use inkwell::AddressSpace;

pub const ABI_VERSION: u32 = 4;

/// Symbol of a kernel's descriptor.
pub fn kernel_symbol(entry: &str) -> String {
    format!("__ptxrt_kernel_{entry}")
}

/// Symbol of a kernel's block function.
pub fn block_fn_symbol(entry: &str) -> String {
    format!("__ptxrt_block_{entry}")
}

/// Symbol of a module-scope PTX function or variable: prefixed so that it cannot collide
/// with the C/C++ symbols of the program.
pub fn ptx_symbol(name: &str) -> String {
    format!("__ptx_{name}")
}

/// Field indices of `ptxrtLaunchInfo`.
pub mod launch {
    pub const ARGS: u32 = 0;
    pub const GRID: u32 = 1;
    pub const BLOCK: u32 = 2;
    pub const DYNAMIC_SHARED: u32 = 3;
    pub const NUM_WORKERS: u32 = 4;
    pub const GRID_ID: u32 = 5;
}

/// Field indices of `ptxrtBlockEnv`.
pub mod env {
    pub const LAUNCH: u32 = 0;
    pub const CTAID: u32 = 1;
    pub const WORKER_INDEX: u32 = 2;
    pub const SHARED: u32 = 3;
    pub const CONTEXT: u32 = 4;
    pub const LOCAL: u32 = 5;
    pub const ERROR_CODE: u32 = 6;
    pub const ERROR_MESSAGE: u32 = 7;
    pub const BLOCKS_X: u32 = 8;
}

/// `ptxrtKernel::flags`: the block function can run a run of neighbouring blocks along x
/// in one call (`ptxrtBlockEnv::blocks_x`; see `lower::exec::fusion`).
pub const KERNEL_FUSE_X: u64 = 1;

/// `ptxrtErrorLaunchFailure`.
pub const ERROR_LAUNCH_FAILURE: u64 = 719;

pub struct AbiTypes<'ctx> {
    pub dim3: StructType<'ctx>,
    pub launch_info: StructType<'ctx>,
    pub block_env: StructType<'ctx>,
    pub kernel: StructType<'ctx>,
    pub symbol: StructType<'ctx>,
    pub module: StructType<'ctx>,
    /// `ptxrtSyncOperand` and `ptxrtSyncPoint` (the scheduler's view of a sync point).
    pub sync_operand: StructType<'ctx>,
    pub sync_point: StructType<'ctx>,
}

impl<'ctx> AbiTypes<'ctx> {
    pub fn new(cx: &'ctx Context) -> Self {
        let i32t = cx.i32_type();
        let i64t = cx.i64_type();
        let ptr = cx.ptr_type(AddressSpace::default());
        let dim3 = cx.struct_type(&[i32t.into(), i32t.into(), i32t.into()], false);
        let f = |v: &[BasicTypeEnum<'ctx>]| cx.struct_type(v, false);
        let launch_info = f(&[ptr.into(), dim3.into(), dim3.into(), i32t.into(), i32t.into(), i64t.into()]);
        let block_env = f(&[ptr.into(), dim3.into(), i32t.into(), ptr.into(), ptr.into(), ptr.into(), i32t.into(), ptr.into(), i32t.into()]);
        let kernel = f(&[
            i32t.into(), // abi_version
            i32t.into(), // num_params
            ptr.into(),  // name
            ptr.into(),  // block_fn
            ptr.into(),  // param_sizes
            ptr.into(),  // param_aligns
            i32t.into(), // static_shared_bytes
            i32t.into(), // context_bytes_per_thread
            i32t.into(), // local_bytes_per_thread
            i32t.into(), // flags
            dim3.into(), // reqntid
            dim3.into(), // maxntid
        ]);
        let symbol = f(&[ptr.into(), ptr.into(), i64t.into()]);
        let module = f(&[i32t.into(), i32t.into(), ptr.into(), i32t.into(), ptr.into()]);
        let sync_operand = f(&[i32t.into(), i32t.into(), i64t.into()]);
        let op = sync_operand.into();
        // ..., what, operands (the extra operand list of matrix instructions), num_operands.
        let sync_point = f(&[i32t.into(), i32t.into(), i32t.into(), i32t.into(), op, op, op, op, op, op, ptr.into(), ptr.into(), i32t.into()]);
        AbiTypes { dim3, launch_info, block_env, kernel, symbol, module, sync_operand, sync_point }
    }
}

/// Values of `ptxrtSyncPoint` fields (mirrors `ptxrt::sched`).
pub mod sync {
    pub const ENTRY: u64 = 0;
    pub const BAR_SYNC: u64 = 1;
    pub const BAR_ARRIVE: u64 = 2;
    pub const BAR_RED: u64 = 3;
    pub const WARP: u64 = 4;

    pub const SHFL: u64 = 1;
    pub const VOTE: u64 = 2;
    pub const MATCH: u64 = 3;
    pub const REDUX: u64 = 4;
    pub const ACTIVEMASK: u64 = 5;
    pub const WARP_SYNC: u64 = 6;
    /// Warp-level matrix instructions (mirrors `ptxrt::matrix`).
    pub const MMA: u64 = 7;
    pub const WMMA_MMA: u64 = 8;
    pub const WMMA_LOAD: u64 = 9;
    pub const WMMA_STORE: u64 = 10;
    pub const LDMATRIX: u64 = 11;
    pub const STMATRIX: u64 = 12;
    pub const MOVMATRIX: u64 = 13;
    /// `elect.sync` (after a gap that keeps the codes from 14 on for matrix instructions).
    pub const ELECT: u64 = 40;

    /// Matrix instruction `flags`: element types in 5-bit fields (A, B, C, D from bit 0),
    /// then these bits; `MATRIX_ROLE_SHIFT` holds a `wmma.load`'s matrix (0 A, 1 B, 2 C),
    /// `MATRIX_ROUND_SHIFT` the rounding of `.f64` products (0 `.rn`, 1 `.rz`, 2 `.rm`, 3 `.rp`).
    pub const MATRIX_ELEM_BITS: u64 = 5;
    pub const MATRIX_A_COL: u64 = 1 << 20;
    pub const MATRIX_B_COL: u64 = 1 << 21;
    pub const MATRIX_SATFINITE: u64 = 1 << 22;
    pub const MATRIX_TRANS: u64 = 1 << 23;
    pub const MATRIX_SHARED: u64 = 1 << 24;
    pub const MATRIX_ROLE_SHIFT: u64 = 25;
    pub const MATRIX_ROUND_SHIFT: u64 = 27;
    /// Single-bit products: `.and.popc` (else `.xor.popc`).
    pub const MATRIX_POPC_AND: u64 = 1 << 29;
    /// `mma.sp`: A is structured sparse; its operand list continues after C with the
    /// sparsity metadata and selector (before any scale operands).
    pub const MATRIX_SPARSE: u64 = 1 << 30;
    /// Element type code of `.e2m1` packed eight to a register (`.kind::mxf4*`); the other
    /// codes are those of `ir::MatrixElem` in `matrix_descriptor`.
    pub const MATRIX_ELEM_E2M1_PACKED: u64 = 17;
    /// A matrix sync point's `c` operand holds the register counts `d | a << 8 | b << 16 |
    /// c << 24` and, from this bit, an `mma`'s block scaling: the scale vector size (1, 2,
    /// 4; 0 without `.block_scale`) and `.ue4m3` scale factors at bit 8 of the field. A
    /// block-scaled `mma`'s operand list ends with six scale operands after C: scale-a-data,
    /// byte-id-a, thread-id-a, scale-b-data, byte-id-b, thread-id-b.
    pub const MATRIX_SCALE_SHIFT: u64 = 32;

    pub const ALIGNED: u64 = 1;
    pub const SIGNED: u64 = 2;
    pub const NEGATE: u64 = 4;

    pub const OPERAND_NONE: u64 = 0;
    pub const OPERAND_IMM: u64 = 1;
    pub const OPERAND_SLOT: u64 = 2;

    /// Words of per-block scheduler scratch.
    pub const SCRATCH_WORDS: u32 = 32;
    /// Thread state bits and scheduler results.
    pub const EXITED: u64 = u32::MAX as u64;
    pub const RELEASED: u64 = 0x8000_0000;
    pub const DENSE: u64 = 0x4000_0000;
}

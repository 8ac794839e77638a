//! The runtime ABI as LLVM types, and the symbol names objects export.
//!
//! The layouts and values are those of the `ptx2llvm-abi` crate, which ptxrt uses too (and
//! against which `ptxrt/include/ptxrt_abi.h` is checked); the test below checks the LLVM
//! struct types built here against its `#[repr(C)]` structures on both targets.

use inkwell::context::Context;
use inkwell::types::{BasicTypeEnum, StructType};
use inkwell::AddressSpace;

pub use ptx2llvm_abi::ABI_VERSION;

/// Symbol of a kernel's descriptor.
pub fn kernel_symbol(entry: &str) -> String {
    format!("{}{entry}", ptx2llvm_abi::KERNEL_SYMBOL_PREFIX)
}

/// Symbol of a kernel's block function.
pub fn block_fn_symbol(entry: &str) -> String {
    format!("{}{entry}", ptx2llvm_abi::BLOCK_FN_SYMBOL_PREFIX)
}

/// Symbol of a module-scope PTX function or variable: prefixed so that it cannot collide
/// with the C/C++ symbols of the program.
pub fn ptx_symbol(name: &str) -> String {
    format!("{}{name}", ptx2llvm_abi::PTX_SYMBOL_PREFIX)
}

/// Field indices of `ptxrtLaunchInfo`.
pub use ptx2llvm_abi::field::launch_info as launch;

/// Field indices of `ptxrtBlockEnv`.
pub use ptx2llvm_abi::field::block_env as env;

/// `ptxrtKernel::flags`: the block function can run a run of neighbouring blocks along x
/// in one call (`ptxrtBlockEnv::blocks_x`; see `lower::exec::fusion`).
pub const KERNEL_FUSE_X: u64 = ptx2llvm_abi::KERNEL_FUSE_X as u64;

/// `ptxrtErrorLaunchFailure`.
pub const ERROR_LAUNCH_FAILURE: u64 = ptx2llvm_abi::ERROR_LAUNCH_FAILURE as u64;

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
    /// `ptxrtTexInline` (an element of the runtime's `__ptxrt_tex_inline`).
    pub tex_inline: StructType<'ctx>,
}

impl<'ctx> AbiTypes<'ctx> {
    pub fn new(cx: &'ctx Context) -> Self {
        let i32t = cx.i32_type();
        let i64t = cx.i64_type();
        let ptr = cx.ptr_type(AddressSpace::default());
        let dim3 = cx.struct_type(&[i32t.into(), i32t.into(), i32t.into()], false);
        let f = |v: &[BasicTypeEnum<'ctx>]| cx.struct_type(v, false);
        let launch_info = f(&[ptr.into(), dim3.into(), dim3.into(), i32t.into(), i32t.into(), i64t.into(), ptr.into()]);
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
        // kind, layer_max, data, width, height, pitch, layer_stride, border.
        let tex_inline = f(&[i32t.into(), i32t.into(), ptr.into(), i64t.into(), i64t.into(), i64t.into(), i64t.into(), i32t.array_type(4).into()]);
        AbiTypes { dim3, launch_info, block_env, kernel, symbol, module, sync_operand, sync_point, tex_inline }
    }
}

/// Values of `ptxrtSyncPoint` fields: the `ptx2llvm-abi` enumerations, and its constants
/// as the `u64`s LLVM constants are built from.
pub mod sync {
    pub use a::matrix::Elem as MatrixElem;
    pub use a::{BarRedOp, MatchMode, OperandKind, ReduxMode, ShflMode, SyncKind, VoteMode, WarpOp};
    use ptx2llvm_abi as a;

    pub const ENTRY: u64 = SyncKind::Entry as u64;

    /// Matrix instruction `flags`: element types in 5-bit fields (A, B, C, D from bit 0),
    /// then these bits (see `ptx2llvm_abi::matrix`).
    pub const MATRIX_ELEM_BITS: u64 = a::matrix::ELEM_BITS as u64;
    pub const MATRIX_A_COL: u64 = a::matrix::A_COL as u64;
    pub const MATRIX_B_COL: u64 = a::matrix::B_COL as u64;
    pub const MATRIX_SATFINITE: u64 = a::matrix::SATFINITE as u64;
    pub const MATRIX_TRANS: u64 = a::matrix::TRANS as u64;
    pub const MATRIX_SHARED: u64 = a::matrix::SHARED as u64;
    pub const MATRIX_ROLE_SHIFT: u64 = a::matrix::ROLE_SHIFT as u64;
    pub const MATRIX_ROUND_SHIFT: u64 = a::matrix::ROUND_SHIFT as u64;
    pub const MATRIX_POPC_AND: u64 = a::matrix::POPC_AND as u64;
    pub const MATRIX_SPARSE: u64 = a::matrix::SPARSE as u64;
    pub const MATRIX_SCALE_SHIFT: u64 = a::matrix::SCALE_SHIFT as u64;

    pub const ALIGNED: u64 = a::sync_flags::ALIGNED as u64;
    pub const SIGNED: u64 = a::sync_flags::SIGNED as u64;
    pub const NEGATE: u64 = a::sync_flags::NEGATE as u64;

    pub const OPERAND_NONE: u64 = OperandKind::None as u64;
    pub const OPERAND_IMM: u64 = OperandKind::Imm as u64;
    pub const OPERAND_SLOT: u64 = OperandKind::Slot as u64;

    /// Words of per-block scheduler scratch.
    pub const SCRATCH_WORDS: u32 = a::scratch::WORDS as u32;
    /// Thread state bits and scheduler results.
    pub const EXITED: u64 = a::EXITED as u64;
    pub const RELEASED: u64 = a::RELEASED as u64;
    pub const DENSE: u64 = a::DENSE as u64;
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetTriple};
    use inkwell::OptimizationLevel;

    /// The LLVM struct types have the layouts of the crate's `#[repr(C)]` structures (which
    /// ptxrt reads and `ptxrt_abi.h` declares) on every target ptx2llvm emits.
    #[test]
    fn llvm_types_have_the_abi_crates_layouts() {
        Target::initialize_x86(&InitializationConfig::default());
        Target::initialize_aarch64(&InitializationConfig::default());
        let cx = Context::create();
        let t = AbiTypes::new(&cx);
        for triple in ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"] {
            let triple = TargetTriple::create(triple);
            let tm = Target::from_triple(&triple)
                .unwrap()
                .create_target_machine(&triple, "generic", "", OptimizationLevel::None, RelocMode::PIC, CodeModel::Default)
                .unwrap();
            let data = tm.get_target_data();
            for s in ptx2llvm_abi::c_header::STRUCTS {
                let ty = match s.name {
                    "ptxrtDim3" => t.dim3,
                    "ptxrtLaunchInfo" => t.launch_info,
                    "ptxrtBlockEnv" => t.block_env,
                    "ptxrtKernel" => t.kernel,
                    "ptxrtSymbolInfo" => t.symbol,
                    "ptxrtModule" => t.module,
                    "ptxrtSyncOperand" => t.sync_operand,
                    "ptxrtSyncPoint" => t.sync_point,
                    "ptxrtTexInline" => t.tex_inline,
                    // Generated code only passes its address on (%envreg1/2); the kernels'
                    // own code (CUDA's cooperative groups) reads the barrier word at 4.
                    "ptxrtGridWorkspace" => {
                        assert_eq!((s.fields[1], s.size), (("barrier", 4), 8));
                        continue;
                    }
                    other => panic!("no LLVM type for {other}"),
                };
                assert_eq!(ty.count_fields() as usize, s.fields.len(), "{}", s.name);
                for (i, (field, offset)) in s.fields.iter().enumerate() {
                    assert_eq!(data.offset_of_element(&ty, i as u32), Some(*offset as u64), "{}.{field} on {triple}", s.name);
                }
                assert_eq!(data.get_abi_size(&ty), s.size as u64, "sizeof {} on {triple}", s.name);
            }
        }
    }
}

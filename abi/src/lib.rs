//! The contract between objects written by ptx2llvm and the ptxrt runtime, written once.
//!
//! The compiler (`ptx2llvm/src/lower/abi.rs` and the descriptor code in `lower/kernel.rs`)
//! emits what this crate describes; the runtime (`ptxrt`) reads it through the same types.
//! `ptxrt/include/ptxrt_abi.h` is the C view of it for hand-written launchers and for
//! documentation; a test of ptxrt (`tests/abi_header.rs`) compiles static assertions made
//! from [`c_header::STRUCTS`] and [`c_header::CONSTANTS`] against that header, so the three
//! cannot drift apart silently. Layouts are those of LP64 (x86-64 and AArch64 Linux and
//! macOS), the only data models ptx2llvm targets.
//!
//! Changing a layout or the meaning of a value is an incompatible change: bump
//! [`ABI_VERSION`] (objects and runtimes of different versions refuse each other).
//!
//! Enumerations are `#[repr(u32)]`; the descriptors keep plain `u32` fields (a descriptor
//! comes from another binary and may hold any value), read back with `from_raw`.

#![no_std]
#![forbid(unsafe_op_in_unsafe_fn)]

use core::ffi::{c_char, c_void};

/// `PTXRT_ABI_VERSION`: modules and kernels carrying another value are not used.
pub const ABI_VERSION: u32 = 6;

// ----------------------------------------------------------------------------------------
// Descriptors and launch structures
// ----------------------------------------------------------------------------------------

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

/// A 1D extent `(x, 1, 1)`.
impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Dim3::new(x, 1, 1)
    }
}

/// A 2D extent `(x, y, 1)`.
impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Self {
        Dim3::new(x, y, 1)
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Dim3::new(x, y, z)
    }
}

impl From<[u32; 3]> for Dim3 {
    fn from([x, y, z]: [u32; 3]) -> Self {
        Dim3::new(x, y, z)
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
    /// A cooperative launch's [`GridWorkspace`] (null for other launches): `%envreg1` reads
    /// the high 32 bits of its address, `%envreg2` the low 32, as CUDA's driver passes it to
    /// cooperative groups' `grid.sync()` (which traps when the address is 0).
    pub grid_workspace: *mut GridWorkspace,
}

/// `ptxrtGridWorkspace`: the memory a cooperative launch gives its grid barrier, zeroed at
/// the launch. CUDA's cooperative groups (nvcc/NVRTC code) and ptxrt's
/// `cooperative_groups.h` arrive at `barrier` with `atom.add`: every block but the first
/// adds 1, the first adds `0x8000_0000 - (blocks - 1)`, so bit 31 flips when the last block
/// arrives and the low bits return to where they were (the barrier resets itself).
#[repr(C)]
#[derive(Debug, Default)]
pub struct GridWorkspace {
    /// The size of this structure in bytes (8).
    pub size: u32,
    pub barrier: u32,
}

/// `PTXRT_WINDOW_GUARD_BYTES`: bytes before and after a block's shared, context and local
/// windows (`BlockEnv::shared`, `context`, `local`) that belong to the worker running the
/// block, as the windows do. Generated code may read them and write back what it read (a
/// masked vector store done as load, blend and store where the target's masked stores are
/// slow: its off lanes may lie up to a vector's width outside the window). A multiple of
/// 64, so that the windows keep their alignment.
pub const WINDOW_GUARD_BYTES: usize = 256;

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
    /// [`KERNEL_FUSE_X`]).
    pub blocks_x: u32,
}

/// `ptxrtBlockFn`: runs one whole thread block; 0 on success.
pub type BlockFn = unsafe extern "C" fn(env: *mut BlockEnv) -> i32;

/// `PTXRT_KERNEL_FUSE_X` in [`Kernel::flags`]: the block function runs
/// [`BlockEnv::blocks_x`] neighbouring blocks along x in one call.
pub const KERNEL_FUSE_X: u32 = 1;

/// `struct ptxrtKernel`: the descriptor of one `.entry`, exported as
/// [`KERNEL_SYMBOL_PREFIX`]`<entry name>`.
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
    /// [`KERNEL_FUSE_X`] or 0.
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

/// Symbol of a kernel's descriptor: this prefix and the `.entry` name.
pub const KERNEL_SYMBOL_PREFIX: &str = "__ptxrt_kernel_";
/// Symbol of a kernel's block function: this prefix and the `.entry` name.
pub const BLOCK_FN_SYMBOL_PREFIX: &str = "__ptxrt_block_";
/// Prefix of every module-scope PTX function and variable, so that none collides with the
/// program's C/C++ symbols.
pub const PTX_SYMBOL_PREFIX: &str = "__ptx_";

/// `ptxrtErrorLaunchFailure`: what generated code reports for a trap or a failed block.
pub const ERROR_LAUNCH_FAILURE: i32 = 719;

/// Element indices of the structures, in declaration order (what the compiler's LLVM
/// struct types and `getelementptr`s use).
pub mod field {
    /// [`crate::LaunchInfo`].
    pub mod launch_info {
        pub const ARGS: u32 = 0;
        pub const GRID: u32 = 1;
        pub const BLOCK: u32 = 2;
        pub const DYNAMIC_SHARED: u32 = 3;
        pub const NUM_WORKERS: u32 = 4;
        pub const GRID_ID: u32 = 5;
        pub const GRID_WORKSPACE: u32 = 6;
    }

    /// [`crate::texture::TexInline`].
    pub mod tex_inline {
        pub const KIND: u32 = 0;
        pub const LAYER_MAX: u32 = 1;
        pub const DATA: u32 = 2;
        pub const WIDTH: u32 = 3;
        pub const HEIGHT: u32 = 4;
        pub const PITCH: u32 = 5;
        pub const LAYER_STRIDE: u32 = 6;
        pub const BORDER: u32 = 7;
    }

    /// [`crate::BlockEnv`].
    pub mod block_env {
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
}

// ----------------------------------------------------------------------------------------
// The block scheduler: sync points, thread states, results
// ----------------------------------------------------------------------------------------

/// Defines a `#[repr(u32)]` enumeration with `from_raw` and `raw`.
macro_rules! abi_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident = $value:expr),+ $(,)? }) => {
        $(#[$m])*
        #[repr(u32)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vm])* $variant = $value),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value a descriptor holds, if it is one of ours.
            #[inline]
            pub const fn from_raw(v: u32) -> Option<$name> {
                match v {
                    $(x if x == $value => Some($name::$variant),)+
                    _ => None,
                }
            }

            #[inline]
            pub const fn raw(self) -> u32 {
                self as u32
            }
        }
    };
}

abi_enum! {
    /// `ptxrtSyncPoint::kind`.
    SyncKind {
        /// Index 0 of a block function's table: the kernel's entry (no operands).
        Entry = 0,
        /// `bar.sync` / `barrier.sync`: `a` the id, `b` the thread count (or none).
        BarSync = 1,
        /// `bar.arrive`: counts towards barrier `a` and goes on.
        BarArrive = 2,
        /// `bar.red`: as `BarSync`, `c` the predicate, `dst` the result; `op` a [`BarRedOp`].
        BarRed = 3,
        /// A warp collective; `op` a [`WarpOp`].
        Warp = 4,
    }
}

abi_enum! {
    /// `ptxrtSyncPoint::op` of a `bar.red`.
    BarRedOp {
        Popc = 0,
        And = 1,
        Or = 2,
    }
}

abi_enum! {
    /// `ptxrtSyncPoint::op` of a warp collective.
    WarpOp {
        /// `a` the value, `b` the lane or offset, `c` the clamp and segment mask
        /// (`c & 0x1f`, `(c >> 8) & 0x1f`), `dst` and `pred` the results; `mode` a [`ShflMode`].
        Shfl = 1,
        /// `a` the predicate (negated with [`sync_flags::NEGATE`]); `mode` a [`VoteMode`].
        Vote = 2,
        /// `a` the value, `dst` the mask, `pred` whether all were equal; `mode` a [`MatchMode`].
        Match = 3,
        /// `a` the value, signed with [`sync_flags::SIGNED`]; `mode` a [`ReduxMode`].
        Redux = 4,
        ActiveMask = 5,
        /// `bar.warp.sync`, and the lockstep points of legacy warp-synchronous code.
        WarpSync = 6,
        /// Warp-level matrix instructions (see [`matrix`]).
        Mma = 7,
        WmmaMma = 8,
        WmmaLoad = 9,
        WmmaStore = 10,
        LdMatrix = 11,
        StMatrix = 12,
        MovMatrix = 13,
        /// `elect.sync` (codes 14..=39 are kept for matrix instructions).
        Elect = 40,
    }
}

impl WarpOp {
    /// Whether the operation is a matrix instruction ([`matrix`]).
    pub const fn is_matrix(self) -> bool {
        matches!(self, WarpOp::Mma | WarpOp::WmmaMma | WarpOp::WmmaLoad | WarpOp::WmmaStore | WarpOp::LdMatrix | WarpOp::StMatrix | WarpOp::MovMatrix)
    }
}

abi_enum! {
    /// `mode` of [`WarpOp::Shfl`].
    ShflMode {
        Up = 0,
        Down = 1,
        Bfly = 2,
        Idx = 3,
    }
}

abi_enum! {
    /// `mode` of [`WarpOp::Vote`].
    VoteMode {
        All = 0,
        Any = 1,
        Uni = 2,
        Ballot = 3,
    }
}

abi_enum! {
    /// `mode` of [`WarpOp::Match`].
    MatchMode {
        Any = 0,
        All = 1,
    }
}

abi_enum! {
    /// `mode` of [`WarpOp::Redux`].
    ReduxMode {
        Add = 0,
        Min = 1,
        Max = 2,
        And = 3,
        Or = 4,
        Xor = 5,
    }
}

abi_enum! {
    /// `ptxrtSyncOperand::kind`: where an operand comes from, per thread.
    OperandKind {
        /// No operand (reads as 0, writes are dropped).
        None = 0,
        /// The immediate `value`.
        Imm = 1,
        /// The context slot with per-thread prefix `value` and element size `size`: thread
        /// `t`'s element is at `context + nthreads * value + t * size`.
        Slot = 2,
    }
}

/// `ptxrtSyncPoint::flags` of barriers and warp collectives.
pub mod sync_flags {
    /// `.aligned`: every thread must reach the same instruction.
    pub const ALIGNED: u32 = 1;
    /// `redux.sync` on `.s32`.
    pub const SIGNED: u32 = 2;
    /// The predicate input is negated (`vote.any.pred p, !q`, `bar.red ... !p`).
    pub const NEGATE: u32 = 4;
}

/// `ptxrtSyncOperand`: where a sync point's operand comes from, per thread.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SyncOperand {
    /// An [`OperandKind`].
    pub kind: u32,
    /// Slot element size in bytes (1, 2, 4 or 8).
    pub size: u32,
    pub value: u64,
}

impl SyncOperand {
    pub const NONE: SyncOperand = SyncOperand { kind: OperandKind::None as u32, size: 0, value: 0 };

    pub const fn imm(value: u64) -> SyncOperand {
        SyncOperand { kind: OperandKind::Imm as u32, size: 0, value }
    }

    pub const fn slot(prefix: u64, size: u32) -> SyncOperand {
        SyncOperand { kind: OperandKind::Slot as u32, size, value: prefix }
    }
}

/// `ptxrtSyncPoint`: one per region of a block function (index 0: the entry).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SyncPoint {
    /// A [`SyncKind`].
    pub kind: u32,
    /// `bar.red`: a [`BarRedOp`]. Warp: a [`WarpOp`].
    pub op: u32,
    /// [`ShflMode`], [`VoteMode`], [`MatchMode`], [`ReduxMode`]; matrix instructions: the
    /// shape `m | n << 8 | k << 16`.
    pub mode: u32,
    /// [`sync_flags`]; matrix instructions: [`matrix`] flags.
    pub flags: u32,
    /// Barriers: id, count, predicate (`bar.red`). shfl: a, b, c. vote: the predicate.
    /// match/redux: the value.
    pub a: SyncOperand,
    pub b: SyncOperand,
    pub c: SyncOperand,
    /// The membermask of `.sync` warp collectives (kind `None`: the lanes that arrived
    /// together).
    pub mask: SyncOperand,
    pub dst: SyncOperand,
    pub pred: SyncOperand,
    /// The instruction as written, for messages.
    pub what: *const c_char,
    /// Matrix instructions: their fragment registers (see [`matrix`]); null otherwise.
    pub operands: *const SyncOperand,
    pub num_operands: u32,
}

// SAFETY: see `Kernel`: compiler-emitted constant data, only read.
unsafe impl Sync for SyncPoint {}

/// `state` of a thread that executed `exit`.
pub const EXITED: u32 = u32::MAX;
/// Set in `state` when the scheduler released the thread into its region.
pub const RELEASED: u32 = 0x8000_0000;
/// The region in a scheduler result (regions are numbered below 2^16).
pub const REGION_MASK: i32 = 0xFFFF;
/// Set in the result when every thread of the block runs the region (no filter needed).
pub const DENSE: i32 = 0x4000_0000;
/// Result: every thread has exited.
pub const DONE: i32 = -1;
/// Result: the launch fails; the message is in the block environment.
pub const FAILED: i32 = -2;

/// Named barriers of a block (`bar.sync 0..15`).
pub const BARRIER_IDS: usize = 16;

/// The per-block scheduler scratch a block function provides (`SCRATCH_WORDS` 32-bit
/// words, zeroed at its start): arrivals per barrier id, then the warp point served last
/// (round robin), then whether the last decision served a warp point.
pub mod scratch {
    pub const WORDS: usize = 32;
    /// Words `ARRIVALS .. ARRIVALS + BARRIER_IDS`: `bar.arrive`s counted per barrier id.
    pub const ARRIVALS: usize = 0;
    pub const LAST_WARP_POINT: usize = 16;
    pub const SERVED_WARP_POINT: usize = 17;
}

/// Symbol of the scheduler entry point block functions call between regions.
pub const SCHEDULE_FN: &str = "__ptxrt_schedule";

// ----------------------------------------------------------------------------------------
// Matrix instructions
// ----------------------------------------------------------------------------------------

/// Encodings of warp-level matrix sync points ([`WarpOp::is_matrix`]); the runtime's
/// `matrix` module documents the fragment layouts.
pub mod matrix {
    abi_enum! {
        /// Element type codes in the 5-bit fields of `flags` (A, B, C, D from bit 0).
        Elem {
            F16 = 1,
            BF16 = 2,
            TF32 = 3,
            F32 = 4,
            F64 = 5,
            S8 = 6,
            U8 = 7,
            S32 = 8,
            S4 = 9,
            U4 = 10,
            E4M3 = 11,
            E5M2 = 12,
            B1 = 13,
            E3M2 = 14,
            E2M3 = 15,
            /// `.e2m1` in an 8-bit container.
            E2M1 = 16,
            /// `.e2m1` without a container, eight to a register (`.kind::mxf4*`).
            E2M1Packed = 17,
        }
    }

    /// Width of each element type field of `flags`.
    pub const ELEM_BITS: u32 = 5;
    pub const A_COL: u32 = 1 << 20;
    pub const B_COL: u32 = 1 << 21;
    pub const SATFINITE: u32 = 1 << 22;
    pub const TRANS: u32 = 1 << 23;
    /// The memory operand is a shared-window offset (else a host address).
    pub const SHARED: u32 = 1 << 24;
    /// `wmma.load`'s matrix (0 A, 1 B, 2 C) at this shift.
    pub const ROLE_SHIFT: u32 = 25;
    /// The rounding of `.f64` products at this shift: 0 `.rn`, 1 `.rz`, 2 `.rm`, 3 `.rp`.
    pub const ROUND_SHIFT: u32 = 27;
    /// Single-bit products use AND (else XOR) before the population count.
    pub const POPC_AND: u32 = 1 << 29;
    /// `mma.sp`: A is structured sparse; the metadata and the sparsity selector follow C.
    pub const SPARSE: u32 = 1 << 30;
    /// The `c` operand holds the register counts `d | a << 8 | b << 16 | c << 24` and, from
    /// this bit, an `mma`'s block scaling: the scale vector size (1, 2, 4; 0 without
    /// `.block_scale`) and `.ue4m3` scale factors at bit 8 of the field.
    pub const SCALE_SHIFT: u32 = 32;

    /// Elements of `elem_bits` bits a 32-bit fragment register holds.
    pub fn elements_per_register(elem_bits: u32) -> usize {
        if elem_bits >= 32 {
            1
        } else {
            (32 / elem_bits) as usize
        }
    }

    /// Which matrix of `D = A*B + C` a fragment belongs to.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub enum Role {
        A,
        B,
        /// C and D.
        Acc,
    }

    /// What selects an `mma` fragment layout besides the matrix and its element type.
    #[derive(Clone, Copy, Debug)]
    pub struct MmaLayout {
        /// `[m, n, k]`.
        pub shape: [usize; 3],
        /// `mma.m8n8k4` with `.f16` multiplicands: four independent 8x8x4 products.
        pub m8n8k4_f16: bool,
        pub a_col: bool,
        pub b_col: bool,
    }

    impl MmaLayout {
        /// `(computation, row, column)` of element `i` of lane `lane`'s `mma` fragment of
        /// `role` with `elem_bits`-bit elements, from the ISA's fragment tables
        /// (§9.7.14.5.1–11). The runtime's `mma` and the block functions' own (`exec::matrix`)
        /// both place elements by it.
        pub fn position(self, role: Role, elem_bits: u32, lane: usize, i: usize) -> (usize, usize, usize) {
            let MmaLayout { shape, m8n8k4_f16, a_col, b_col } = self;
            if m8n8k4_f16 {
                // Four 8x8x4 products: lanes 4q..4q+3 (rows/columns 0-3) and 16+4q.. (4-7) form product q.
                let (q, j, hi) = ((lane % 16) / 4, lane % 4, lane / 16);
                return match role {
                    Role::A if a_col => (q, i + 4 * hi, j),
                    Role::A => (q, j + 4 * hi, i),
                    Role::B if b_col => (q, i, j + 4 * hi),
                    Role::B => (q, j, i + 4 * hi),
                    Role::Acc if elem_bits == 32 => (q, (lane & 1) + (i & 2) + 4 * hi, (i & 4) + (lane & 2) + (i & 1)),
                    Role::Acc => (q, j + 4 * hi, i),
                };
            }
            let (group, tig) = (lane >> 2, lane % 4);
            // Consecutive elements packed in one 32-bit register lie along K; registers
            // alternate between the upper and lower eight rows (M = 16), then step along K.
            let p = elements_per_register(elem_bits);
            let chunk = i / p;
            match role {
                Role::A => {
                    let row_blocks = (shape[0] / 8).max(1);
                    (0, group + 8 * (chunk % row_blocks), tig * p + i % p + (chunk / row_blocks) * 4 * p)
                }
                Role::B => (0, tig * p + i % p + chunk * 4 * p, group),
                Role::Acc => (0, group + 8 * (i / 2), 2 * tig + (i & 1)),
            }
        }
    }
}

// ----------------------------------------------------------------------------------------
// Textures, samplers and surfaces
// ----------------------------------------------------------------------------------------

/// The `op`, sampler and status words of the texture and surface entry points
/// (`__ptxrt_tex`, `__ptxrt_query`, `__ptxrt_suld`, ...), as `ptxrt_abi.h` describes them.
pub mod texture {
    /// Tag of sampler handles (bits 48..64); no host pointer or object handle has it.
    pub const SAMPLER_TAG: u64 = 0x5A4D << 48;
    /// Sampler handle fields: address mode `d` at bits `3d..3d+3`, linear filtering at bit
    /// 9, force_unnormalized_coords at bit 10, the compare function at bits 11..14.
    pub const SAMPLER_LINEAR: u64 = 1 << 9;
    pub const SAMPLER_FORCE_UNNORMALIZED: u64 = 1 << 10;
    pub const SAMPLER_COMPARE_SHIFT: u32 = 11;

    /// Status codes the device entry points return (generated code turns them into errors).
    pub const STATUS_OK: i32 = 0;
    pub const STATUS_BAD_HANDLE: i32 = 1;
    pub const STATUS_OUT_OF_BOUNDS: i32 = 2;

    /// `op` word of `__ptxrt_tex`: geometry | coordinate type | result type | sampler | gather.
    pub const TEX_GEOM_MASK: u32 = 0xF;
    pub const GEOM_1D: u32 = 1;
    pub const GEOM_2D: u32 = 2;
    pub const GEOM_3D: u32 = 3;
    pub const GEOM_A1D: u32 = 4;
    pub const GEOM_A2D: u32 = 5;
    pub const GEOM_CUBE: u32 = 6;
    pub const GEOM_ACUBE: u32 = 7;
    /// `.2dms`: coords sample (`.u32`), x, y (`.s32`).
    pub const GEOM_2DMS: u32 = 8;
    /// `.a2dms`: coords layer (`.u32`), sample (`.u32`), x, y (`.s32`).
    pub const GEOM_A2DMS: u32 = 9;
    pub const TEX_FLOAT_COORDS: u32 = 1 << 4;
    pub const TEX_DTYPE_SHIFT: u32 = 5;
    pub const DTYPE_U32: u32 = 0;
    pub const DTYPE_S32: u32 = 1;
    pub const DTYPE_F32: u32 = 2;
    pub const DTYPE_F16: u32 = 3;
    pub const TEX_HAS_SAMPLER: u32 = 1 << 7;
    pub const TEX_GATHER_SHIFT: u32 = 8;
    pub const TEX_HAS_OFFSET: u32 = 1 << 11;
    /// Level-of-detail mode at bits 12..14: base level, `.level` or `.grad`.
    pub const TEX_LOD_SHIFT: u32 = 12;
    pub const LOD_BASE: u32 = 0;
    pub const LOD_LEVEL: u32 = 1;
    pub const LOD_GRAD: u32 = 2;
    /// A depth-compare fetch: `coords` holds 17 words, the `.f32` compare value in word
    /// `DEPTH_COMPARE_WORD`.
    pub const TEX_DEPTH_COMPARE: u32 = 1 << 14;
    pub const DEPTH_COMPARE_WORD: usize = 16;

    /// `query` values of `__ptxrt_query` (txq and suq).
    pub const Q_WIDTH: u32 = 0;
    pub const Q_HEIGHT: u32 = 1;
    pub const Q_DEPTH: u32 = 2;
    pub const Q_CHANNEL_DATA_TYPE: u32 = 3;
    pub const Q_CHANNEL_ORDER: u32 = 4;
    pub const Q_NORMALIZED_COORDS: u32 = 5;
    pub const Q_FILTER_MODE: u32 = 6;
    pub const Q_ADDR_MODE_0: u32 = 7;
    pub const Q_ADDR_MODE_1: u32 = 8;
    pub const Q_ADDR_MODE_2: u32 = 9;
    pub const Q_ARRAY_SIZE: u32 = 10;
    pub const Q_NUM_MIPMAP_LEVELS: u32 = 11;
    pub const Q_NUM_SAMPLES: u32 = 12;
    pub const Q_FORCE_UNNORMALIZED_COORDS: u32 = 13;
    pub const Q_MEMORY_LAYOUT: u32 = 14;

    /// `op` word of the surface entry points: geometry | log2(access bytes) << 4 | clamp
    /// << 8 | formatted | reduction << 12 | signed.
    pub const SURF_SIZE_SHIFT: u32 = 4;
    pub const SURF_CLAMP_SHIFT: u32 = 8;
    pub const CLAMP_TRAP: u32 = 0;
    pub const CLAMP_CLAMP: u32 = 1;
    pub const CLAMP_ZERO: u32 = 2;
    pub const SURF_FORMATTED: u32 = 1 << 10;
    pub const SURF_RED_SHIFT: u32 = 12;
    pub const RED_ADD: u32 = 1;
    pub const RED_MIN: u32 = 2;
    pub const RED_MAX: u32 = 3;
    pub const RED_AND: u32 = 4;
    pub const RED_OR: u32 = 5;
    pub const SURF_SIGNED: u32 = 1 << 16;

    /// Texture object handles are `TEXTURE_HANDLE_KIND << 32 | slot` (surface objects
    /// have kind 2), `slot` in `1..INLINE_SLOTS`.
    pub const TEXTURE_HANDLE_KIND: u64 = 1;

    /// The runtime's table of inline descriptors, `[TexInline; INLINE_SLOTS]`, by object
    /// slot (slot 0 is never used and keeps `kind` 0).
    pub const INLINE_TABLE_SYMBOL: &str = "__ptxrt_tex_inline";
    pub const INLINE_SLOTS: usize = 1 << 16;

    /// `ptxrtTexInline`: what generated code needs to fetch texels of a texture object
    /// itself, without calling `__ptxrt_tex`. The runtime fills a slot's descriptor before
    /// it returns the handle and sets `kind` to 0 when the object is destroyed; generated
    /// code only reads it (the fields do not change during a launch). Generated code takes
    /// its inline path only where `kind` says the result is the one `__ptxrt_tex` gives:
    ///
    /// - `tex` (not `tld4`) on `.1d`, `.2d`, `.a1d`, `.a2d` geometries, without a sampler,
    ///   offset, level of detail or depth-compare operand; `.s32` coordinates always (texel
    ///   indices: no normalization, no filtering), `.f32` coordinates when `kind` has
    ///   neither `INLINE_NORMALIZED` nor `INLINE_LINEAR` (texel `floor(u)`);
    /// - per dimension an index outside `0..n` is clamped (wrap and mirror act as clamp
    ///   with unnormalized and integer coordinates) or, with `INLINE_BORDER_X`/`_Y`, reads
    ///   the `border` words; with `INLINE_ZERO_OUTSIDE` (linear memory) an `.s32` x
    ///   outside reads 0 in every word, before the address modes;
    /// - the layer of an array geometry is `min(layer, layer_max)`; texel (x, y) of it is
    ///   at `data + x * element bytes + y * pitch + layer * layer_stride`;
    /// - the format fields decide the loads and conversions (as the runtime's texel reads),
    ///   `INLINE_FLOAT_RESULT` whether results are floats (alpha 1.0) or integers (alpha 1).
    #[repr(C, align(64))]
    #[derive(Clone, Copy, Debug)]
    pub struct TexInline {
        /// 0: every fetch calls the runtime; else `INLINE_OK` and the bits below.
        pub kind: u32,
        /// The last layer of a layered image (0 if it is not layered).
        pub layer_max: u32,
        /// Texel (0, 0) of layer 0 (of level 0 for mipmapped arrays).
        pub data: *mut u8,
        /// Texels in x and in y (1 for 1D images).
        pub width: u64,
        pub height: u64,
        /// Bytes between rows, and between layers (a multisample layer's samples included).
        pub pitch: u64,
        pub layer_stride: u64,
        /// The result words of border texels: the border colour's f32 bits for textures
        /// that return floats, 0 for integer ones.
        pub border: [u32; 4],
    }

    /// `TexInline::kind` bits.
    pub const INLINE_OK: u32 = 1;
    /// Bits 1..4: the channel type: u8 s8 u16 s16 u32 s32 f16 f32.
    pub const INLINE_CHANNEL_SHIFT: u32 = 1;
    /// Bits 4..6: log2 of the channel count (1, 2 or 4).
    pub const INLINE_CHANNELS_SHIFT: u32 = 4;
    /// `ptxrtReadModeNormalizedFloat` (8- and 16-bit integer channels).
    pub const INLINE_READ_NORMALIZED: u32 = 1 << 6;
    /// The three format fields above.
    pub const INLINE_FORMAT_MASK: u32 = 0x7E;
    pub const INLINE_FLOAT_RESULT: u32 = 1 << 7;
    pub const INLINE_BORDER_X: u32 = 1 << 8;
    pub const INLINE_BORDER_Y: u32 = 1 << 9;
    pub const INLINE_ZERO_OUTSIDE: u32 = 1 << 10;
    /// Normalized coordinates and linear filtering: `.f32` fetches call the runtime.
    pub const INLINE_NORMALIZED: u32 = 1 << 11;
    pub const INLINE_LINEAR: u32 = 1 << 12;
    /// 32-bit channels (u32, s32, f32): the results are the channels' bits.
    pub const INLINE_RAW32: u32 = 1 << 13;
}

// ----------------------------------------------------------------------------------------
// The C view
// ----------------------------------------------------------------------------------------

/// What `ptxrt_abi.h` must say, as data: the structure layouts and the values of its
/// macros. ptxrt's `tests/abi_header.rs` turns them into `_Static_assert`s compiled
/// against the header, and checks that every numeric `PTXRT_*` macro of the header is
/// listed here.
pub mod c_header {
    use super::*;
    use core::mem::{offset_of, size_of};

    /// A structure as C declares it.
    pub struct CStruct {
        /// The C type name (`ptxrtBlockEnv`).
        pub name: &'static str,
        pub size: usize,
        /// Fields in declaration order (C name, byte offset).
        pub fields: &'static [(&'static str, usize)],
    }

    macro_rules! c_struct {
        ($c:literal, $t:ty, [$($f:ident),+ $(,)?]) => {
            CStruct { name: $c, size: size_of::<$t>(), fields: &[$((stringify!($f), offset_of!($t, $f))),+] }
        };
    }

    pub const STRUCTS: &[CStruct] = &[
        c_struct!("ptxrtDim3", Dim3, [x, y, z]),
        c_struct!("ptxrtLaunchInfo", LaunchInfo, [args, grid, block, dynamic_shared_bytes, num_workers, grid_id, grid_workspace]),
        c_struct!("ptxrtGridWorkspace", GridWorkspace, [size, barrier]),
        c_struct!("ptxrtBlockEnv", BlockEnv, [launch, ctaid, worker_index, shared, context, local, error_code, error_message, blocks_x]),
        c_struct!(
            "ptxrtKernel",
            Kernel,
            [
                abi_version,
                num_params,
                name,
                block_fn,
                param_sizes,
                param_aligns,
                static_shared_bytes,
                context_bytes_per_thread,
                local_bytes_per_thread,
                flags,
                reqntid,
                maxntid
            ]
        ),
        c_struct!("ptxrtSymbolInfo", SymbolInfo, [name, addr, size]),
        c_struct!("ptxrtModule", Module, [abi_version, num_kernels, kernels, num_symbols, symbols]),
        c_struct!("ptxrtSyncOperand", SyncOperand, [kind, size, value]),
        c_struct!("ptxrtTexInline", texture::TexInline, [kind, layer_max, data, width, height, pitch, layer_stride, border]),
        c_struct!("ptxrtSyncPoint", SyncPoint, [kind, op, mode, flags, a, b, c, mask, dst, pred, what, operands, num_operands]),
    ];

    macro_rules! enum_constants {
        ($prefix:literal, $e:ty, [$($v:ident = $c:literal),+ $(,)?]) => {
            [$((concat!($prefix, $c), <$e>::$v as i64)),+]
        };
    }

    const SYNC_KINDS: [(&str, i64); 5] =
        enum_constants!("PTXRT_SYNC_", SyncKind, [Entry = "ENTRY", BarSync = "BAR_SYNC", BarArrive = "BAR_ARRIVE", BarRed = "BAR_RED", Warp = "WARP"]);
    const BAR_RED_OPS: [(&str, i64); 3] = enum_constants!("PTXRT_BAR_RED_", BarRedOp, [Popc = "POPC", And = "AND", Or = "OR"]);
    const WARP_OPS: [(&str, i64); 14] = enum_constants!(
        "PTXRT_WARP_",
        WarpOp,
        [
            Shfl = "SHFL",
            Vote = "VOTE",
            Match = "MATCH",
            Redux = "REDUX",
            ActiveMask = "ACTIVEMASK",
            WarpSync = "WARP_SYNC",
            Mma = "MMA",
            WmmaMma = "WMMA_MMA",
            WmmaLoad = "WMMA_LOAD",
            WmmaStore = "WMMA_STORE",
            LdMatrix = "LDMATRIX",
            StMatrix = "STMATRIX",
            MovMatrix = "MOVMATRIX",
            Elect = "ELECT"
        ]
    );
    const SHFL_MODES: [(&str, i64); 4] = enum_constants!("PTXRT_SHFL_", ShflMode, [Up = "UP", Down = "DOWN", Bfly = "BFLY", Idx = "IDX"]);
    const VOTE_MODES: [(&str, i64); 4] = enum_constants!("PTXRT_VOTE_", VoteMode, [All = "ALL", Any = "ANY", Uni = "UNI", Ballot = "BALLOT"]);
    const MATCH_MODES: [(&str, i64); 2] = enum_constants!("PTXRT_MATCH_", MatchMode, [Any = "ANY", All = "ALL"]);
    const REDUX_MODES: [(&str, i64); 6] =
        enum_constants!("PTXRT_REDUX_", ReduxMode, [Add = "ADD", Min = "MIN", Max = "MAX", And = "AND", Or = "OR", Xor = "XOR"]);
    const OPERAND_KINDS: [(&str, i64); 3] = enum_constants!("PTXRT_OPERAND_", OperandKind, [None = "NONE", Imm = "IMM", Slot = "SLOT"]);
    const MATRIX_ELEMS: [(&str, i64); 17] = enum_constants!(
        "PTXRT_MATRIX_ELEM_",
        matrix::Elem,
        [
            F16 = "F16",
            BF16 = "BF16",
            TF32 = "TF32",
            F32 = "F32",
            F64 = "F64",
            S8 = "S8",
            U8 = "U8",
            S32 = "S32",
            S4 = "S4",
            U4 = "U4",
            E4M3 = "E4M3",
            E5M2 = "E5M2",
            B1 = "B1",
            E3M2 = "E3M2",
            E2M3 = "E2M3",
            E2M1 = "E2M1",
            E2M1Packed = "E2M1_PACKED"
        ]
    );

    /// Single values: (macro name, value).
    const SINGLES: &[(&str, i64)] = &[
        ("PTXRT_ABI_VERSION", ABI_VERSION as i64),
        ("PTXRT_KERNEL_FUSE_X", KERNEL_FUSE_X as i64),
        ("PTXRT_WINDOW_GUARD_BYTES", WINDOW_GUARD_BYTES as i64),
        ("PTXRT_SYNC_ALIGNED", sync_flags::ALIGNED as i64),
        ("PTXRT_SYNC_SIGNED", sync_flags::SIGNED as i64),
        ("PTXRT_SYNC_NEGATE", sync_flags::NEGATE as i64),
        ("PTXRT_THREAD_EXITED", EXITED as i64),
        ("PTXRT_THREAD_RELEASED", RELEASED as i64),
        ("PTXRT_SCHEDULE_REGION_MASK", REGION_MASK as i64),
        ("PTXRT_SCHEDULE_DENSE", DENSE as i64),
        ("PTXRT_SCHEDULE_DONE", DONE as i64),
        ("PTXRT_SCHEDULE_FAILED", FAILED as i64),
        ("PTXRT_BARRIER_IDS", BARRIER_IDS as i64),
        ("PTXRT_SCHEDULE_SCRATCH_WORDS", scratch::WORDS as i64),
        ("PTXRT_SCRATCH_ARRIVALS", scratch::ARRIVALS as i64),
        ("PTXRT_SCRATCH_LAST_WARP_POINT", scratch::LAST_WARP_POINT as i64),
        ("PTXRT_SCRATCH_SERVED_WARP_POINT", scratch::SERVED_WARP_POINT as i64),
        ("PTXRT_MATRIX_ELEM_BITS", matrix::ELEM_BITS as i64),
        ("PTXRT_MATRIX_A_COL", matrix::A_COL as i64),
        ("PTXRT_MATRIX_B_COL", matrix::B_COL as i64),
        ("PTXRT_MATRIX_SATFINITE", matrix::SATFINITE as i64),
        ("PTXRT_MATRIX_TRANS", matrix::TRANS as i64),
        ("PTXRT_MATRIX_SHARED", matrix::SHARED as i64),
        ("PTXRT_MATRIX_ROLE_SHIFT", matrix::ROLE_SHIFT as i64),
        ("PTXRT_MATRIX_ROUND_SHIFT", matrix::ROUND_SHIFT as i64),
        ("PTXRT_MATRIX_POPC_AND", matrix::POPC_AND as i64),
        ("PTXRT_MATRIX_SPARSE", matrix::SPARSE as i64),
        ("PTXRT_MATRIX_SCALE_SHIFT", matrix::SCALE_SHIFT as i64),
        ("PTXRT_SAMPLER_TAG", texture::SAMPLER_TAG as i64),
        ("PTXRT_SAMPLER_LINEAR", texture::SAMPLER_LINEAR as i64),
        ("PTXRT_SAMPLER_FORCE_UNNORMALIZED", texture::SAMPLER_FORCE_UNNORMALIZED as i64),
        ("PTXRT_SAMPLER_COMPARE_SHIFT", texture::SAMPLER_COMPARE_SHIFT as i64),
        ("PTXRT_TEX_BAD_HANDLE", texture::STATUS_BAD_HANDLE as i64),
        ("PTXRT_TEX_OUT_OF_BOUNDS", texture::STATUS_OUT_OF_BOUNDS as i64),
        ("PTXRT_GEOM_1D", texture::GEOM_1D as i64),
        ("PTXRT_GEOM_2D", texture::GEOM_2D as i64),
        ("PTXRT_GEOM_3D", texture::GEOM_3D as i64),
        ("PTXRT_GEOM_A1D", texture::GEOM_A1D as i64),
        ("PTXRT_GEOM_A2D", texture::GEOM_A2D as i64),
        ("PTXRT_GEOM_CUBE", texture::GEOM_CUBE as i64),
        ("PTXRT_GEOM_ACUBE", texture::GEOM_ACUBE as i64),
        ("PTXRT_GEOM_2DMS", texture::GEOM_2DMS as i64),
        ("PTXRT_GEOM_A2DMS", texture::GEOM_A2DMS as i64),
        ("PTXRT_TEX_FLOAT_COORDS", texture::TEX_FLOAT_COORDS as i64),
        ("PTXRT_TEX_DTYPE_SHIFT", texture::TEX_DTYPE_SHIFT as i64),
        ("PTXRT_TEX_HAS_SAMPLER", texture::TEX_HAS_SAMPLER as i64),
        ("PTXRT_TEX_GATHER_SHIFT", texture::TEX_GATHER_SHIFT as i64),
        ("PTXRT_TEX_HAS_OFFSET", texture::TEX_HAS_OFFSET as i64),
        ("PTXRT_TEX_LOD_SHIFT", texture::TEX_LOD_SHIFT as i64),
        ("PTXRT_TEX_DEPTH_COMPARE", texture::TEX_DEPTH_COMPARE as i64),
        ("PTXRT_SURF_FORMATTED", texture::SURF_FORMATTED as i64),
        ("PTXRT_SURF_SIGNED", texture::SURF_SIGNED as i64),
        ("PTXRT_TEX_INLINE_SLOTS", texture::INLINE_SLOTS as i64),
        ("PTXRT_TEX_INLINE_OK", texture::INLINE_OK as i64),
        ("PTXRT_TEX_INLINE_CHANNEL_SHIFT", texture::INLINE_CHANNEL_SHIFT as i64),
        ("PTXRT_TEX_INLINE_CHANNELS_SHIFT", texture::INLINE_CHANNELS_SHIFT as i64),
        ("PTXRT_TEX_INLINE_READ_NORMALIZED", texture::INLINE_READ_NORMALIZED as i64),
        ("PTXRT_TEX_INLINE_FORMAT_MASK", texture::INLINE_FORMAT_MASK as i64),
        ("PTXRT_TEX_INLINE_FLOAT_RESULT", texture::INLINE_FLOAT_RESULT as i64),
        ("PTXRT_TEX_INLINE_BORDER_X", texture::INLINE_BORDER_X as i64),
        ("PTXRT_TEX_INLINE_BORDER_Y", texture::INLINE_BORDER_Y as i64),
        ("PTXRT_TEX_INLINE_ZERO_OUTSIDE", texture::INLINE_ZERO_OUTSIDE as i64),
        ("PTXRT_TEX_INLINE_NORMALIZED", texture::INLINE_NORMALIZED as i64),
        ("PTXRT_TEX_INLINE_LINEAR", texture::INLINE_LINEAR as i64),
        ("PTXRT_TEX_INLINE_RAW32", texture::INLINE_RAW32 as i64),
    ];

    /// Every macro value the header must define, group by group.
    pub const CONSTANTS: &[&[(&str, i64)]] =
        &[SINGLES, &SYNC_KINDS, &BAR_RED_OPS, &WARP_OPS, &SHFL_MODES, &VOTE_MODES, &MATCH_MODES, &REDUX_MODES, &OPERAND_KINDS, &MATRIX_ELEMS];
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::{align_of, offset_of, size_of};

    // Offsets worked out by hand from the C declarations for LP64.
    #[test]
    fn layouts_are_the_documented_ones() {
        assert_eq!((size_of::<Dim3>(), align_of::<Dim3>()), (12, 4));
        assert_eq!(offset_of!(LaunchInfo, grid_id), 40);
        assert_eq!(offset_of!(LaunchInfo, grid_workspace), 48);
        assert_eq!(size_of::<LaunchInfo>(), 56);
        assert_eq!(size_of::<GridWorkspace>(), 8);
        assert_eq!(offset_of!(BlockEnv, worker_index), 20);
        assert_eq!(offset_of!(BlockEnv, blocks_x), 64);
        assert_eq!(size_of::<BlockEnv>(), 72);
        assert_eq!(offset_of!(Kernel, maxntid), 68);
        assert_eq!(size_of::<Kernel>(), 80);
        assert_eq!(size_of::<SymbolInfo>(), 24);
        assert_eq!(size_of::<Module>(), 32);
        assert_eq!(size_of::<SyncOperand>(), 16);
        assert_eq!(offset_of!(SyncPoint, a), 16);
        assert_eq!(offset_of!(SyncPoint, mask), 64);
        assert_eq!(offset_of!(SyncPoint, pred), 96);
        assert_eq!(offset_of!(SyncPoint, what), 112);
        assert_eq!(offset_of!(SyncPoint, operands), 120);
        assert_eq!(offset_of!(SyncPoint, num_operands), 128);
        assert_eq!(size_of::<SyncPoint>(), 136);
        assert_eq!(size_of::<Option<BlockFn>>(), size_of::<usize>());
        assert_eq!(offset_of!(texture::TexInline, data), 8);
        assert_eq!(offset_of!(texture::TexInline, border), 48);
        assert_eq!((size_of::<texture::TexInline>(), align_of::<texture::TexInline>()), (64, 64));
    }

    #[test]
    fn field_indices_follow_declaration_order() {
        let env = c_header::STRUCTS.iter().find(|s| s.name == "ptxrtBlockEnv").unwrap();
        assert_eq!(env.fields[field::block_env::BLOCKS_X as usize], ("blocks_x", offset_of!(BlockEnv, blocks_x)));
        assert_eq!(env.fields[field::block_env::ERROR_MESSAGE as usize].0, "error_message");
        assert_eq!(env.fields[field::block_env::WORKER_INDEX as usize].0, "worker_index");
        assert_eq!(env.fields[field::block_env::CTAID as usize].0, "ctaid");
        assert_eq!(env.fields[field::block_env::LOCAL as usize].0, "local");
        let info = c_header::STRUCTS.iter().find(|s| s.name == "ptxrtLaunchInfo").unwrap();
        assert_eq!(info.fields[field::launch_info::GRID_ID as usize].0, "grid_id");
        assert_eq!(info.fields[field::launch_info::NUM_WORKERS as usize].0, "num_workers");
        assert_eq!(info.fields[field::launch_info::DYNAMIC_SHARED as usize].0, "dynamic_shared_bytes");
        let inline = c_header::STRUCTS.iter().find(|s| s.name == "ptxrtTexInline").unwrap();
        assert_eq!(inline.fields[field::tex_inline::LAYER_STRIDE as usize].0, "layer_stride");
        assert_eq!(inline.fields[field::tex_inline::BORDER as usize].0, "border");
        // Every struct's fields are listed in increasing offset order, and end inside it.
        for s in c_header::STRUCTS {
            assert!(s.fields.windows(2).all(|w| w[0].1 < w[1].1), "{}", s.name);
            assert!(s.fields.last().unwrap().1 < s.size, "{}", s.name);
        }
    }

    #[test]
    fn enums_round_trip_and_codes_are_distinct() {
        for &k in SyncKind::ALL {
            assert_eq!(SyncKind::from_raw(k.raw()), Some(k));
        }
        for &op in WarpOp::ALL {
            assert_eq!(WarpOp::from_raw(op.raw()), Some(op));
        }
        assert_eq!(WarpOp::from_raw(14), None);
        assert_eq!(WarpOp::ALL.iter().filter(|o| o.is_matrix()).count(), 7);
        for &e in matrix::Elem::ALL {
            assert!(e.raw() < 1 << matrix::ELEM_BITS);
            assert_eq!(matrix::Elem::from_raw(e.raw()), Some(e));
        }
        assert_eq!(matrix::Elem::from_raw(0), None);
        // Matrix flag bits lie above the four element fields and do not overlap.
        let bits = [
            matrix::A_COL,
            matrix::B_COL,
            matrix::SATFINITE,
            matrix::TRANS,
            matrix::SHARED,
            3 << matrix::ROLE_SHIFT,
            3 << matrix::ROUND_SHIFT,
            matrix::POPC_AND,
            matrix::SPARSE,
        ];
        let mut seen = (1u32 << (4 * matrix::ELEM_BITS)) - 1;
        for b in bits {
            assert_eq!(seen & b, 0, "{b:#x}");
            seen |= b;
        }
        // Results never collide with a region index.
        assert_eq!(DENSE & REGION_MASK, 0);
        assert!(RELEASED as i64 > REGION_MASK as i64);
    }

    #[test]
    fn c_constant_names_are_unique() {
        let all = || c_header::CONSTANTS.iter().flat_map(|g| g.iter());
        for (i, (a, _)) in all().enumerate() {
            assert!(a.starts_with("PTXRT_"), "{a}");
            assert_eq!(all().filter(|(b, _)| b == a).count(), 1, "{a} (#{i}) listed twice");
        }
    }
}

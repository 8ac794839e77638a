//! The intermediate representation that lowering reads.
//!
//! A module is a list of module-scope variables and functions. Each function is a
//! control-flow graph of basic blocks of typed, resolved PTX operations: registers are
//! `RegId`s with a declared type, labels are `BlockId`s, variables are `VarId`s. Nothing here
//! refers back to source text except spans for run-time error messages.
//!
//! Barriers and warp collectives are block terminators (`Terminator::Sync`), so the CFG
//! shows directly where threads must synchronize; lowering forms its thread-loop regions
//! from them.

pub mod cfg;
pub mod liveness;
pub mod reach;
pub mod types;
pub mod uniformity;
pub mod visit;
pub use types::*;

use std::ops::Range;

pub type Span = Range<usize>;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegId(pub u32);
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

#[derive(Debug, Clone, Default)]
pub struct Module {
    pub version: (u32, u32),
    pub targets: Vec<String>,
    pub address_size: u32,
    /// Module-scope variables, and function-scope `.shared`/`.local`/`.const` variables
    /// (hoisted here with unique names; `owner` says which function declared them).
    pub vars: Vec<Variable>,
    pub functions: Vec<Function>,
    /// Texture, sampler and surface references (`.global .texref t;`, ISA 1.x `.tex .u32 t;`).
    pub handles: Vec<Handle>,
    /// `.alias a, b;`: function `a` (declared, without a body) is function `b`.
    pub aliases: Vec<(u32, u32)>,
    /// The source positions of `.file`/`.loc` directives (debug line tables, `-g`).
    pub lines: SourceLines,
}

/// A position in a source file that `.file` names (CUDA C++ for NVRTC/nvcc output with
/// `-lineinfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceLoc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

/// The `.file` table and the `.loc` directives of each function body.
#[derive(Debug, Clone, Default)]
pub struct SourceLines {
    /// `.file` index and path.
    pub files: Vec<(u32, String)>,
    /// Per function with `.loc` directives: its span in the PTX text and its directives
    /// (byte offset, position) in source order.
    pub bodies: Vec<(Span, Vec<(usize, SourceLoc)>)>,
}

impl SourceLines {
    /// The source position of the PTX text at byte `offset`: the last `.loc` before it in
    /// the same function body (code inlined from a `.func` keeps the callee's positions,
    /// since its spans are the callee's).
    pub fn at(&self, offset: usize) -> Option<SourceLoc> {
        let (_, locs) = self.bodies.iter().find(|(span, _)| span.contains(&offset))?;
        let i = locs.partition_point(|(at, _)| *at < offset);
        i.checked_sub(1).map(|i| locs[i].1)
    }

    pub fn file(&self, index: u32) -> Option<&str> {
        self.files.iter().find(|(i, _)| *i == index).map(|(_, p)| p.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandleId(pub u32);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandleKind {
    Texture,
    Sampler,
    Surface,
}

/// An opaque module-scope reference to a texture, sampler or surface, bound by name from
/// the host.
#[derive(Debug, Clone)]
pub struct Handle {
    pub name: String,
    pub kind: HandleKind,
    /// Sampler properties given in a `.samplerref` declaration (`filter_mode = linear`),
    /// checked by the checker; empty for other references.
    pub sampler: SamplerInit,
    pub linkage: Linkage,
    pub span: Span,
}

/// The fields of a `.samplerref` initializer; `None` where the declaration leaves the
/// runtime's default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SamplerInit {
    /// `addr_mode_0`, `addr_mode_1`, `addr_mode_2`.
    pub addr_mode: [Option<AddrMode>; 3],
    /// `filter_mode`: `true` for `linear`, `false` for `nearest`.
    pub linear_filter: Option<bool>,
    /// `force_unnormalized_coords`: 1 or 0.
    pub force_unnormalized: Option<bool>,
}

/// The values of a sampler's `addr_mode_N` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddrMode {
    Wrap,
    Mirror,
    ClampOgl,
    ClampToEdge,
    ClampToBorder,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linkage {
    /// Visible to other modules (`.visible`, `.common`).
    Public,
    /// Visible to other modules, and may be defined in several (`.weak`): a weak symbol.
    /// A `.weak` function is defined only where the module reaches it (`reach`).
    Weak,
    /// Declared here, defined in another module (`.extern`).
    External,
    /// Private to this module.
    Internal,
}

#[derive(Debug, Clone)]
pub struct Variable {
    pub name: String,
    pub space: StateSpace,
    pub elem: ScalarType,
    /// Total size in bytes (0 for `extern .shared` arrays of unknown size: dynamic shared memory).
    pub size: u64,
    pub align: u32,
    /// Initial bytes (little-endian); `None` means zero-initialized.
    pub init: Option<Vec<u8>>,
    /// Address-valued initializer entries (`.u64 table[2] = {f, data+8}`).
    pub relocs: Vec<Reloc>,
    pub linkage: Linkage,
    pub owner: Option<usize>,
    pub span: Span,
}

/// An initializer element that holds an address: `bytes` bytes at `offset` get the address
/// of `target` plus `addend` (a host address: global/const variables and functions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reloc {
    pub offset: u64,
    pub target: RelocTarget,
    pub addend: i64,
    pub bytes: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelocTarget {
    Var(VarId),
    /// By index in `Module::functions`.
    Function(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Func,
}

#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    pub ty: ScalarType,
    /// Size and alignment in bytes (arrays of bytes for structs passed by value).
    pub size: u32,
    pub align: u32,
    /// A `.reg` parameter (ISA 1.x style): inside the function it is this register, which
    /// the function reads its argument into on entry (or returns its value from).
    pub reg: Option<RegId>,
    /// An opaque kernel parameter (`.param .texref t`): its 8 bytes (`ty` = `.u64`) hold a
    /// texture, sampler or surface handle, and texture instructions name it directly.
    pub handle: Option<HandleKind>,
    /// Declared with `.ptr` (a kernel parameter that holds an address).
    pub ptr: bool,
}

#[derive(Debug, Clone)]
pub struct RegDecl {
    pub name: String,
    pub ty: ScalarType,
}

#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    pub kind: FunctionKind,
    pub linkage: Linkage,
    pub params: Vec<Param>,
    pub returns: Vec<Param>,
    pub regs: Vec<RegDecl>,
    /// `blocks[0]` is the entry block.
    pub blocks: Vec<Block>,
    pub reqntid: Option<[u32; 3]>,
    pub maxntid: Option<[u32; 3]>,
    pub span: Span,
    /// False for declarations (`.extern .func f(...);`).
    pub has_body: bool,
    /// The module and function variables the body names (in any operand or address): a
    /// kernel's static shared memory is that of the `.shared` variables it and its
    /// callees name.
    pub vars_named: Vec<VarId>,
}

impl Function {
    /// Whether a block ends in a sync point (a barrier, a warp collective...): the block
    /// function then runs the threads region by region.
    pub fn has_sync_points(&self) -> bool {
        self.blocks.iter().any(|b| matches!(b.term, Terminator::Sync { .. }))
    }
}

#[derive(Debug, Clone)]
pub struct Block {
    pub label: Option<String>,
    pub insts: Vec<Inst>,
    pub term: Terminator,
    pub term_span: Span,
}

/// A predicate operand, possibly negated (`@!%p`, `selp`'s `!p`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PredRef {
    pub reg: RegId,
    pub negated: bool,
}

#[derive(Debug, Clone)]
pub enum Terminator {
    Jump(BlockId),
    Branch {
        cond: PredRef,
        then_: BlockId,
        else_: BlockId,
    },
    /// A synchronization point: a block-wide barrier (`bar.sync`, `barrier.sync`,
    /// `bar.arrive`, `bar.red`) or a warp collective (`shfl.sync`, `vote`, ...). The thread
    /// waits here until the point completes for it, then continues at `next`. Lowering runs
    /// the code between sync points as thread loops and lets the runtime's scheduler decide
    /// which waiting threads are released (and computes collectives for them).
    Sync {
        point: SyncPoint,
        next: BlockId,
    },
    /// `exit`, or `ret` in an entry function: the thread ends.
    Exit,
    /// `ret` from a `.func`.
    Return,
}

#[derive(Debug, Clone)]
pub enum SyncPoint {
    Barrier(Barrier),
    Warp(WarpOp),
}

#[derive(Debug, Clone)]
pub struct Barrier {
    /// Barrier id (0–15), an immediate or a register.
    pub id: Operand,
    /// Number of threads the barrier waits for (a multiple of the warp size); `None`: all
    /// non-exited threads of the block.
    pub count: Option<Operand>,
    /// `.aligned`: every thread of the block executes the same barrier instruction (threads
    /// waiting on the same id at different instructions are then an error).
    pub aligned: bool,
    pub kind: BarrierKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarrierKind {
    /// Wait for all participating threads.
    Sync,
    /// Count towards the barrier without waiting.
    Arrive,
    /// `bar.red`: wait, then `dst` = the reduction of `pred` over the participating threads:
    /// `.popc` (u32 count of true), `.and`, `.or` (predicates).
    Red { op: BarRedOp, dst: RegId, pred: PredRef },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarRedOp {
    Popc,
    And,
    Or,
}

/// Warp collectives: computed over the lanes of a warp (lane = linear thread index mod 32)
/// that wait at the same instruction. `mask` is the `membermask` operand of the `.sync`
/// forms (`None`: the legacy forms, all lanes).
#[derive(Debug, Clone)]
pub enum WarpOp {
    /// `shfl{.sync}.mode.b32 d[|p], a, b, c{, mask}` (ISA 9.2 §9.7.9.6).
    Shfl { mode: ShflMode, dst: RegId, pred: Option<RegId>, a: Operand, b: Operand, c: Operand, mask: Option<Operand> },
    /// `vote{.sync}.{all,any,uni}.pred d, {!}a` and `.ballot.b32 d, {!}a`.
    Vote { mode: VoteMode, dst: RegId, src: PredRef, mask: Option<Operand> },
    /// `match.{any,all}.sync.b32/.b64 d[|p], a, mask`: `d` = the lanes whose `a` equals this
    /// lane's (`.any`), or all lanes if every lane's `a` is equal, else 0 (`.all`, `p` = equal).
    Match { all: bool, bits: u32, dst: RegId, pred: Option<RegId>, a: Operand, mask: Operand },
    /// `redux.sync.op.type d, a, mask`: the reduction of `a` over the lanes.
    Redux { op: ReduxOp, signed: bool, dst: RegId, a: Operand, mask: Operand },
    /// `activemask.b32 d`: the lanes executing this instruction together.
    ActiveMask { dst: RegId },
    /// `elect.sync d|p, mask` (ISA 9.2 §9.7.13.14): the leader is the lowest-numbered lane
    /// of `mask` among the lanes that take part; `d` = its lane id, `p` = this lane is it.
    Elect { dst: RegId, pred: RegId, mask: Operand },
    /// `bar.warp.sync mask`.
    WarpSync { mask: Operand },
    /// Not a PTX instruction: the lanes of a warp that arrive together continue together
    /// (lowering inserts it before `volatile` shared accesses of legacy warp-synchronous code).
    Lockstep,
    /// Warp-level matrix instructions (`mma`, `wmma.*`, `ldmatrix`, `stmatrix`, `movmatrix`,
    /// ISA 9.2 §9.7.14): computed over the whole warp once every live lane arrived.
    Matrix(Box<MatrixOp>),
}

/// Element types of warp-level matrix operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixElem {
    F16,
    BF16,
    /// `.tf32`: an `.f32` bit pattern of which the matrix unit uses the upper 19 bits.
    TF32,
    F32,
    F64,
    S8,
    U8,
    S32,
    S4,
    U4,
    E4M3,
    E5M2,
    /// `.b1`: single bits, 32 to a register (`mma` with `.xor.popc`/`.and.popc`).
    B1,
    /// `.kind::f8f6f4` 6- and 4-bit floats, each in an 8-bit container: `.e3m2`/`.e2m3` in
    /// the low 6 bits, `.e2m1` in bits 2..5 (the other bits are padding).
    E3M2,
    E2M3,
    E2M1,
}

impl MatrixElem {
    /// Bits one element occupies in a fragment register.
    pub fn bits(self) -> u32 {
        match self {
            MatrixElem::F16 | MatrixElem::BF16 => 16,
            MatrixElem::TF32 | MatrixElem::F32 | MatrixElem::S32 => 32,
            MatrixElem::F64 => 64,
            MatrixElem::S8 | MatrixElem::U8 | MatrixElem::E4M3 | MatrixElem::E5M2 | MatrixElem::E3M2 | MatrixElem::E2M3 | MatrixElem::E2M1 => 8,
            MatrixElem::S4 | MatrixElem::U4 => 4,
            MatrixElem::B1 => 1,
        }
    }
}

/// Which matrix of `D = A*B + C` a `wmma.load` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatrixRole {
    A,
    B,
    C,
}

/// The types and layouts of a matrix multiply-accumulate (`mma`, `wmma.mma`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmaTypes {
    pub a: MatrixElem,
    pub b: MatrixElem,
    pub c: MatrixElem,
    pub d: MatrixElem,
    /// `.col` layouts of A and B (only `mma.m8n8k4` with `.f16` lets them change fragments).
    pub a_col: bool,
    pub b_col: bool,
    /// `.satfinite` (integer types): the result is clamped to the `.s32` range instead of wrapping.
    pub satfinite: bool,
    /// `.rn`/`.rz`/`.rm`/`.rp` of `.f64` products: the rounding of every fused multiply-add.
    pub rounding: Rounding,
    /// Single-bit products (`.b1`): `D = C + popc(row of A <op> column of B)`.
    pub bit_op: Option<MmaBitOp>,
    /// `.block_scale`: A and B are multiplied by per-block scale factors; the `mma`'s
    /// sources then end with scale-a-data, byte-id-a, thread-id-a, scale-b-data, byte-id-b,
    /// thread-id-b (after the C fragment).
    pub block_scale: Option<BlockScale>,
    /// `mma.sp`/`mma.sp::ordered_metadata`: A is structured sparse, its fragment holds K/2
    /// columns; the sources continue after C with the sparsity metadata and selector (before
    /// any scale operands).
    pub sparse: bool,
}

/// The block scaling of `mma.kind::mxf8f6f4/mxf4/mxf4nvf4.block_scale` (ISA 9.2 §9.7.14.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockScale {
    /// `.scale_vec::NX`: scale factors per row of A and per column of B (1, 2 or 4), each
    /// scaling `K / N` consecutive elements along K.
    pub vec: u8,
    /// `.ue4m3` scale factors (else `.ue8m0`).
    pub ue4m3: bool,
    /// `.kind::mxf4`/`.kind::mxf4nvf4`: `.e2m1` elements packed eight to a register, without
    /// the 8-bit containers of `.kind::mxf8f6f4`.
    pub packed_e2m1: bool,
}

/// The logical operation of a single-bit `mma` (`.xor.popc`, `.and.popc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MmaBitOp {
    Xor,
    And,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatrixKind {
    /// `mma.sync.aligned`: `dst` = D, `src` = A, B, C fragments in the ISA's per-lane layouts.
    Mma(MmaTypes),
    /// `wmma.mma.sync.aligned`: as `Mma`, with fragments in the `wmma` layout (see ptxrt's
    /// `matrix` module: the ISA leaves it to the implementation).
    WmmaMma(MmaTypes),
    /// `wmma.load.{a,b,c}`: `dst` = the fragment read from `addr` (row- or column-major, with
    /// `stride` elements between rows/columns).
    WmmaLoad { role: MatrixRole, elem: MatrixElem, col: bool },
    /// `wmma.store.d`: `src` = the fragment written to `addr`.
    WmmaStore { elem: MatrixElem, col: bool },
    /// `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.b16`: lanes `8q..8q+7` give the row
    /// addresses of matrix `q`; `dst[q]` receives this lane's two elements of matrix `q`.
    LdMatrix { num: u32, trans: bool },
    /// `stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.b16`: the inverse of `LdMatrix`.
    StMatrix { num: u32, trans: bool },
    /// `movmatrix.sync.aligned.m8n8.trans.b16 d, a`: transposes the 8x8 matrix held as in `LdMatrix`.
    MovMatrix,
}

/// A warp-level matrix instruction; its semantics are computed by the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatrixOp {
    pub kind: MatrixKind,
    /// `[m, n, k]` (`[8, 8, 0]` for `ldmatrix`/`stmatrix`/`movmatrix`).
    pub shape: [u32; 3],
    /// Registers written, in operand order (D, or the loaded fragment).
    pub dst: Vec<RegId>,
    /// Values read, in operand order: A, then B, then C (`src_counts` registers each) for
    /// the multiply-accumulates; the stored fragment; `movmatrix`'s source.
    pub src: Vec<Operand>,
    pub src_counts: [u32; 3],
    /// The memory operand: a register holding the address (or an immediate address) in
    /// `space` (`Shared`, or `Generic`/`Global` for host addresses).
    pub addr: Option<(Operand, StateSpace)>,
    /// `wmma.load`/`wmma.store` stride in elements; `None`: the matrix's leading dimension.
    pub stride: Option<Operand>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduxOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

impl WarpOp {
    /// Registers the collective reads.
    pub fn uses(&self, out: &mut Vec<RegId>) {
        let mut o = |x: &Operand| {
            if let Operand::Reg(r) = x {
                out.push(*r)
            }
        };
        match self {
            WarpOp::Shfl { a, b, c, mask, .. } => {
                o(a);
                o(b);
                o(c);
                mask.iter().for_each(&mut o);
            }
            WarpOp::Vote { src, mask, .. } => {
                o(&Operand::Reg(src.reg));
                mask.iter().for_each(&mut o);
            }
            WarpOp::Match { a, mask, .. } | WarpOp::Redux { a, mask, .. } => {
                o(a);
                o(mask);
            }
            WarpOp::ActiveMask { .. } | WarpOp::Lockstep => {}
            WarpOp::WarpSync { mask } | WarpOp::Elect { mask, .. } => o(mask),
            WarpOp::Matrix(m) => {
                m.src.iter().for_each(&mut o);
                if let Some((a, _)) = &m.addr {
                    o(a)
                }
                m.stride.iter().for_each(&mut o);
            }
        }
    }

    /// Registers the collective writes.
    pub fn defs(&self, out: &mut Vec<RegId>) {
        match self {
            WarpOp::Shfl { dst, pred, .. } | WarpOp::Match { dst, pred, .. } => {
                out.push(*dst);
                out.extend(pred.iter().copied());
            }
            WarpOp::Vote { dst, .. } | WarpOp::Redux { dst, .. } | WarpOp::ActiveMask { dst } => out.push(*dst),
            WarpOp::Elect { dst, pred, .. } => out.extend([*dst, *pred]),
            WarpOp::WarpSync { .. } | WarpOp::Lockstep => {}
            WarpOp::Matrix(m) => out.extend(m.dst.iter().copied()),
        }
    }
}

impl SyncPoint {
    pub fn uses(&self, out: &mut Vec<RegId>) {
        match self {
            SyncPoint::Barrier(b) => {
                for o in [Some(b.id), b.count].into_iter().flatten() {
                    if let Operand::Reg(r) = o {
                        out.push(r)
                    }
                }
                if let BarrierKind::Red { pred, .. } = b.kind {
                    out.push(pred.reg)
                }
            }
            SyncPoint::Warp(w) => w.uses(out),
        }
    }

    /// The operands that steer the point rather than carry lane data: barrier ids and thread
    /// counts, a shuffle's lane and clamp operands, membermasks.
    pub fn for_each_control_operand_mut(&mut self, f: &mut dyn FnMut(&mut Operand)) {
        match self {
            SyncPoint::Barrier(b) => {
                f(&mut b.id);
                b.count.iter_mut().for_each(f);
            }
            SyncPoint::Warp(w) => match w {
                WarpOp::Shfl { b, c, mask, .. } => {
                    f(b);
                    f(c);
                    mask.iter_mut().for_each(f);
                }
                WarpOp::Vote { mask, .. } => mask.iter_mut().for_each(f),
                WarpOp::Match { mask, .. } | WarpOp::Redux { mask, .. } | WarpOp::Elect { mask, .. } | WarpOp::WarpSync { mask } => f(mask),
                WarpOp::ActiveMask { .. } | WarpOp::Lockstep | WarpOp::Matrix(_) => {}
            },
        }
    }

    pub fn defs(&self, out: &mut Vec<RegId>) {
        match self {
            SyncPoint::Barrier(Barrier { kind: BarrierKind::Red { dst, .. }, .. }) => out.push(*dst),
            SyncPoint::Barrier(_) => {}
            SyncPoint::Warp(w) => w.defs(out),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Inst {
    pub guard: Option<PredRef>,
    pub op: Op,
    pub span: Span,
}

/// A value source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    Reg(RegId),
    /// Immediate bits (integers two's complement, floats as their IEEE bits of the instruction type).
    Imm(u64),
    Special(SpecialReg),
    /// The address of a variable (in its own state space) plus a byte offset.
    VarAddr(VarId, i64),
    /// The address of a function parameter (kernel parameters: their host address).
    ParamAddr(u32, i64),
    /// The address of a function (`mov.u64 %rd, f;` for indirect calls), by index in `Module::functions`.
    FuncAddr(u32),
    /// A texture/sampler/surface reference used as a value.
    Handle(HandleId),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dim {
    X,
    Y,
    Z,
}

/// Read-only special registers (`%tid.x`, `%laneid`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialReg {
    Tid(Dim),
    Ntid(Dim),
    Ctaid(Dim),
    Nctaid(Dim),
    LaneId,
    WarpId,
    NWarpId,
    SmId,
    NSmId,
    GridId,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    Clock,
    Clock64,
    GlobalTimer,
    DynamicSmemSize,
    TotalSmemSize,
    /// The upper 32 bits of `%clock64`.
    ClockHi,
    /// The lower and upper 32 bits of `%globaltimer`.
    GlobalTimerLo,
    GlobalTimerHi,
    /// `%pm0`..`%pm7` (32-bit) and `%pm0_64`..`%pm7_64` (64-bit) performance-monitor
    /// counters: no events are counted on the CPU, they read 0.
    Pm(u8),
    Pm64(u8),
    /// `%envreg0`..`%envreg31`, driver-defined environment words: 0.
    EnvReg(u8),
    /// `%is_explicit_cluster` (a `.pred`): clusters are never launched explicitly, false.
    IsExplicitCluster,
    /// Cluster registers. Every block runs as a cluster of one block: `%clusterid` =
    /// `%ctaid`, `%nclusterid` = `%nctaid`, `%cluster_ctaid` = 0, `%cluster_nctaid` = 1,
    /// `%cluster_ctarank` = 0, `%cluster_nctarank` = 1.
    ClusterId(Dim),
    NClusterId(Dim),
    ClusterCtaid(Dim),
    ClusterNctaid(Dim),
    ClusterCtaRank,
    ClusterNCtaRank,
    /// `%reserved_smem_offset_begin/_end/_cap/_0/_1`: no shared memory is reserved for
    /// system software, so the reserved region is empty at offset 0.
    ReservedSmem,
    /// `%aggr_smem_size`: shared memory including the (empty) reserved region, = `%total_smem_size`.
    AggrSmemSize,
    /// `%current_graph_exec`: kernels never run inside a CUDA graph here, 0.
    CurrentGraphExec,
    /// The unused fourth component `.w` of a vector special register (`%tid.w`): 0.
    VectorW,
}

impl SpecialReg {
    /// The natural type of the register.
    pub fn ty(self) -> ScalarType {
        match self {
            SpecialReg::Clock64 | SpecialReg::GlobalTimer | SpecialReg::GridId | SpecialReg::Pm64(_) | SpecialReg::CurrentGraphExec => ScalarType::U64,
            SpecialReg::IsExplicitCluster => ScalarType::Pred,
            _ => ScalarType::U32,
        }
    }
}

/// An address operand: `[base + offset]` in a state space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Address {
    pub base: AddressBase,
    pub offset: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddressBase {
    /// A register holding an address of the instruction's state space.
    Reg(RegId),
    Var(VarId),
    Param(u32),
    /// A return parameter of the enclosing `.func` (`st.param [func_retval0], %r`).
    Return(u32),
    /// `[imm]`: an absolute address in the state space.
    Absolute,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntBinOp {
    Add,
    Sub,
    /// Low half of the product.
    MulLo,
    /// High half of the double-width product.
    MulHi,
    /// Division; by zero the result is all ones (unsigned) / per `lower::ops::int` (signed).
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    /// Logical (unsigned/bit types) or arithmetic (signed types) right shift.
    Shr,
    Min,
    Max,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntUnOp {
    Not,
    Neg,
    Abs,
    /// `cnot`: 1 if zero, else 0.
    CNot,
    Popc,
    Clz,
    Brev,
    /// `bfind`: position of the most significant non-sign bit (`0xffffffff` if none); the
    /// result is `.u32` whatever the source width.
    Bfind,
    /// `bfind.shiftamt`: `msb - position`, or `0xffffffff` if none.
    BfindShiftAmt,
}

/// Binary `.f32`/`.f64` operations (semantics in `lower::ops::float`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatBinOp {
    /// IEEE `a + b`, `a - b`, `a * b`, `a / b` in the instruction's rounding mode.
    Add,
    Sub,
    Mul,
    Div,
    /// `div.approx.f32`: `a * (1/b)`; for `|b| > 2^126` the reciprocal is a signed zero.
    DivApprox,
    /// `div.full.f32`: full-range division within 2 ulp (lowered as the IEEE quotient).
    DivFull,
    /// `copysign d, a, b`: `b` with the sign bit of `a`.
    CopySign,
}

/// Unary `.f32`/`.f64` operations (semantics in `lower::ops::float`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatUnOp {
    Neg,
    /// `|a|` (`abs.f64` passes a NaN through unchanged).
    Abs,
    /// IEEE square root and reciprocal in the instruction's rounding mode.
    Sqrt,
    Rcp,
    /// `.approx` forms. On `.f64` with `ftz`, `RcpApprox`/`RsqrtApprox` are the "gross"
    /// forms that work on the upper 32 bits (1.11.20 format) of the operand.
    SqrtApprox,
    RcpApprox,
    RsqrtApprox,
    Sin,
    Cos,
    Lg2,
    Ex2,
    Tanh,
}

/// The properties `testp` tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatClass {
    Finite,
    Infinite,
    Number,
    NotANumber,
    /// Normal numbers and ±0.
    Normal,
    Subnormal,
}

/// IEEE rounding of a floating-point result (`.rn .rz .rm .rp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    NearestEven,
    TowardZero,
    Down,
    Up,
}

/// Comparison operators of `setp`/`set`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Unsigned integer forms (`lo ls hi hs`).
    Lo,
    Ls,
    Hi,
    Hs,
    /// Unordered float forms.
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MulMode {
    Lo,
    Hi,
    Wide,
}

/// Operations of `Op::Lanes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneOp {
    Add,
    Min,
    Max,
}

impl Op {
    /// Whether the operation is a plain load of a kernel parameter (read-only, the same for
    /// every thread), not of a call's `.param` variable (each thread's own arguments).
    pub fn is_kernel_param_load(&self) -> bool {
        matches!(self, Op::Load { space: StateSpace::Param, volatile: false, order: None, addr: Address { base: AddressBase::Param(_), .. }, .. })
    }

    /// Whether the operation only computes its results from its operands: no memory, no
    /// side effects, nothing that depends on which thread or block runs it other than
    /// through its operands (the lowering's guard and block-fusion analyses rely on this).
    pub fn is_value_computation(&self) -> bool {
        matches!(
            self,
            Op::Mov { .. }
                | Op::IntBinary { .. }
                | Op::MulWide { .. }
                | Op::Mad { .. }
                | Op::IntUnary { .. }
                | Op::FloatBinary { .. }
                | Op::FloatUnary { .. }
                | Op::Fma { .. }
                | Op::FloatMinMax { .. }
                | Op::Testp { .. }
                | Op::Setp { .. }
                | Op::Selp { .. }
                | Op::PredLogic { .. }
                | Op::Cvt { .. }
                | Op::CvtPacked { .. }
                | Op::CvtPackSat { .. }
                | Op::Nop
                | Op::Lanes { .. }
                | Op::Mul24 { .. }
                | Op::Sad { .. }
                | Op::Bfe { .. }
                | Op::Bfi { .. }
                | Op::Fns { .. }
                | Op::Szext { .. }
                | Op::Bmsk { .. }
                | Op::Dot { .. }
                | Op::Carry { .. }
                | Op::FunnelShift { .. }
                | Op::Prmt { .. }
                | Op::Lop3 { .. }
                | Op::Set { .. }
                | Op::Slct { .. }
                | Op::Pack { .. }
                | Op::Unpack { .. }
                | Op::Video { .. }
                | Op::VideoMad { .. }
                | Op::VideoSimd { .. }
                | Op::Half { .. }
                | Op::Mixed { .. }
                | Op::HalfSetp { .. }
                | Op::HalfSet { .. }
                | Op::MbarrierPendingCount { .. }
        )
    }
}

/// Operations of `Op::Half`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HalfOp {
    Add,
    Sub,
    Mul,
    /// `a * b + c` with one rounding.
    Fma,
    Neg,
    Abs,
    Min,
    Max,
    /// `tanh.approx`.
    Tanh,
    /// `ex2.approx`: `2^a`.
    Ex2,
}

/// Modifiers of `Op::Half` (each only where the ISA allows it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HalfMods {
    /// Subnormal inputs and results become zeros of their sign.
    pub ftz: bool,
    /// The result is clamped to [+0.0, 1.0]; NaN becomes +0.0.
    pub sat: bool,
    /// `fma.relu`: a negative result (or -0.0) becomes +0.0; NaN stays the canonical NaN.
    pub relu: bool,
    /// `min/max.NaN`: a NaN operand gives the canonical NaN.
    pub nan: bool,
    /// `min/max.xorsign.abs`: the result's magnitude is min/max of `|a|`, `|b|`, its sign the
    /// XOR of the operands' signs (unless it is NaN).
    pub xorsign_abs: bool,
    /// `fma.oob`: an operand equal to the OOB-NaN (`0x7fff`, the NaN tensor loads fill out-
    /// of-bounds elements with) makes that lane's result +0.0.
    pub oob: bool,
}

/// Operations of `Op::Mixed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MixedOp {
    Add,
    Sub,
    Fma,
}

/// Operations of `Op::Carry`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CarryOp {
    Add,
    Sub,
    MadLo,
    MadHi,
}

/// The special modes of `prmt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrmtMode {
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
}

/// Primary operation of a video instruction. `AbsDiff` is `|a - b|`; `Avg` (SIMD only) is
/// `(a + b + 1) >> 1` for non-negative sums and `(a + b) >> 1` otherwise; `Set` gives 1 or 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VideoOp {
    Add,
    Sub,
    AbsDiff,
    Min,
    Max,
    Shl,
    Shr,
    Avg,
    Set(CmpOp),
}

/// Secondary operation of a scalar video instruction with `c` (`.add .min .max`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VideoSecondary {
    Add,
    Min,
    Max,
}

/// Operand part selector of scalar video instructions: the whole word, byte `.b0`–`.b3`, or
/// half-word `.h0`/`.h1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selector {
    Word,
    Byte(u8),
    Half(u8),
}

/// The operations. Each variant's lowering lives in one place under `lower/`.
#[derive(Debug, Clone)]
pub enum Op {
    /// `mov`: copy (bits) of a register, immediate, special register or address.
    Mov {
        ty: ScalarType,
        dst: RegId,
        src: Operand,
    },
    IntBinary {
        op: IntBinOp,
        ty: ScalarType,
        sat: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
    },
    /// `mul.wide`: the full double-width product; `dst` has twice the width of `ty`.
    MulWide {
        ty: ScalarType,
        dst: RegId,
        a: Operand,
        b: Operand,
    },
    /// `mad.lo/.hi/.wide`: `a*b + c` using the selected part of the product. `sat` (only
    /// `mad.hi.sat.s32`): the addition `t<63..32> + c` is clamped to `i32::MIN..=i32::MAX`.
    Mad {
        mode: MulMode,
        ty: ScalarType,
        sat: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    IntUnary {
        op: IntUnOp,
        ty: ScalarType,
        dst: RegId,
        a: Operand,
    },
    /// `.f32`/`.f64` arithmetic. `ftz`: subnormal inputs and results become zeros of the
    /// same sign (a result is flushed when its IEEE rounding, with gradual underflow, is
    /// subnormal). `sat`: the result is clamped to [+0.0, 1.0], NaN and -0.0 give +0.0.
    /// `.f32` NaN results are the canonical NaN `0x7fffffff`; `.f64` NaN results carry the
    /// payload of the first NaN operand (quieted), or are `0x7fffffffffffffff` when no
    /// operand is a NaN. On a `map_f64_to_f32` target `.f64` operations run in `.f32`.
    /// `packed` (`.f32x2`, `ty` = `F32`): the operands and `dst` are `.b64` pairs of `.f32`
    /// values (lane 0 in the low bits) and the operation applies to each lane.
    FloatBinary {
        op: FloatBinOp,
        ty: ScalarType,
        rnd: Rounding,
        ftz: bool,
        sat: bool,
        packed: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
    },
    FloatUnary {
        op: FloatUnOp,
        ty: ScalarType,
        rnd: Rounding,
        ftz: bool,
        dst: RegId,
        a: Operand,
    },
    /// `fma` and `mad` on floats: `a * b + c` rounded once (`fused`). `fused == false` is
    /// `mad.f32` of sm_1x targets: the exact product with its mantissa truncated to 24
    /// bits (exponent unbounded) plus `c`, rounded to nearest once; when `c` is ±0 it is
    /// `mul.rn` then `add.rn`.
    /// `packed`: `.f32x2`, as for `FloatBinary`.
    Fma {
        ty: ScalarType,
        rnd: Rounding,
        ftz: bool,
        sat: bool,
        fused: bool,
        packed: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `min`/`max` of `.f32`/`.f64` (and `c` for the three-input form), -0.0 < +0.0: a NaN
    /// operand is ignored unless all are NaN, or with `nan` any NaN gives the canonical NaN.
    /// `abs` compares magnitudes; `xorsign` (with `abs`) gives the result the XOR of the
    /// signs of `a` and `b` unless it is NaN.
    FloatMinMax {
        max: bool,
        ty: ScalarType,
        ftz: bool,
        nan: bool,
        abs: bool,
        xorsign: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
        c: Option<Operand>,
    },
    /// `testp.class.type p, a`.
    Testp {
        class: FloatClass,
        ty: ScalarType,
        dst: RegId,
        a: Operand,
    },
    Setp {
        cmp: CmpOp,
        ty: ScalarType,
        ftz: bool,
        dst: RegId,
        dst_not: Option<RegId>,
        a: Operand,
        b: Operand,
        combine: Option<(BoolOp, PredRef)>,
    },
    Selp {
        ty: ScalarType,
        dst: RegId,
        a: Operand,
        b: Operand,
        cond: PredRef,
    },
    /// Predicate logic (`and.pred`, `or.pred`, `xor.pred`, `not.pred`).
    PredLogic {
        op: Option<BoolOp>,
        dst: RegId,
        a: PredRef,
        b: Option<PredRef>,
    },
    /// `cvt` between integer types and `.f16 .bf16 .f32 .f64` (semantics in `lower::ops::convert`):
    /// `ftz` flushes `.f32` subnormal inputs and results, `sat` clamps integer results to the
    /// destination range and float results to [0, 1], `relu` turns negative float results
    /// into +0, `satfinite` turns overflow and infinities into the largest finite value.
    Cvt {
        dst_ty: ScalarType,
        src_ty: ScalarType,
        rnd: Option<CvtRounding>,
        ftz: bool,
        sat: bool,
        relu: bool,
        satfinite: bool,
        dst: RegId,
        src: Operand,
    },
    /// `cvt` with packed or narrow float formats (`.f16x2.f32`, `.tf32.f32`, `.e4m3x2.f32`,
    /// `.e5m2x2.f16x2`, `.f16x2.e4m3x2`, ...): `lanes` elements of `from` are converted to
    /// `to` and packed, the first element in the upper bits. With `from` = `F32` each source
    /// operand is one element (`a` goes to the upper lane); otherwise `src` is one register
    /// holding the packed elements. One more operand may follow the elements: `rbits` with
    /// `rnd` = `Stochastic`, otherwise the `.scaled::n2::ue8m0` scale factors (a `.b16`
    /// holding two `.ue8m0`, the upper one for the upper lane): results from `.s2f6x2` and
    /// the 8/6/4-bit formats are multiplied by them, inputs to `.s2f6x2` divided by them.
    CvtPacked {
        to: FloatFormat,
        from: FloatFormat,
        lanes: u32,
        rnd: CvtRounding,
        relu: bool,
        satfinite: bool,
        dst: RegId,
        src: Vec<Operand>,
    },
    /// `cvt.pack.sat.{u,s}{2,4,8,16}.s32{.b32}`: `a` and `b` clamped to the `bits`-wide range
    /// and packed (`b` in the low bits, `a` above it); the remaining upper bits come from the
    /// low bits of `c` (for the 16-bit types there is no `c` and nothing remains).
    CvtPackSat {
        bits: u32,
        signed: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
        c: Option<Operand>,
    },
    /// `cvta` (to generic) and `cvta.to` (from generic) between a state-space window and generic addresses.
    Cvta {
        to_generic: bool,
        space: StateSpace,
        ty: ScalarType,
        dst: RegId,
        src: Operand,
    },
    /// `ld`/`ldu`: each element of `dst` (`None`: the sink `_`) from consecutive `ty`-sized
    /// locations. `order` (`.relaxed`/`.acquire` with a scope, and `.mmio`) makes each
    /// element an atomic load with that ordering; `volatile` (`.volatile`, `.mmio`) makes
    /// each element a volatile access that is performed exactly once and not torn (up to
    /// 64-bit elements). Otherwise a weak (plain) load.
    Load {
        space: StateSpace,
        ty: ScalarType,
        volatile: bool,
        order: Option<(MemOrder, MemScope)>,
        dst: Vec<Option<RegId>>,
        addr: Address,
    },
    /// `st`: as `Load`, with `.relaxed`/`.release` orderings.
    Store {
        space: StateSpace,
        ty: ScalarType,
        volatile: bool,
        order: Option<(MemOrder, MemScope)>,
        src: Vec<Operand>,
        addr: Address,
    },
    /// `prefetch`/`prefetchu`: a cache hint for the line at `addr` (never faults).
    Prefetch {
        space: StateSpace,
        addr: Address,
    },
    /// `nanosleep.u32 t`: the thread sleeps about `t` nanoseconds (the ISA allows any time
    /// in `[0, 2t]`, at most 1 ms).
    Nanosleep {
        ns: Operand,
    },
    /// `alloca.ty dst, size, align`: `size` bytes (`ty`-sized, unsigned) aligned to `align`
    /// on the thread's stack, freed when the function returns or by `stackrestore`; `dst`
    /// is a `.local` address. Kernels that use the stack run as fibers (`lower/exec/fibers.rs`).
    Alloca {
        ty: ScalarType,
        dst: RegId,
        size: Operand,
        align: u32,
    },
    /// `stacksave.ty dst`: the thread's stack pointer, as a `.local` address.
    StackSave {
        ty: ScalarType,
        dst: RegId,
    },
    /// `stackrestore.ty a`: sets the stack pointer to `a`, a value of `stacksave`, freeing
    /// what was allocated since.
    StackRestore {
        ty: ScalarType,
        a: Operand,
    },
    /// `brkpt`: calls the runtime's breakpoint hook (`__ptxrt_brkpt`, a place for a
    /// debugger breakpoint; with `PTXRT_BRKPT=trap` it raises `SIGTRAP`).
    Breakpoint,
    /// The thread ran into behaviour the ISA leaves undefined and we define as an error
    /// (`brx.idx` with an index past its target list): ends the launch with `what`.
    Fault {
        what: String,
    },
    /// `atom` (`dst` = the old value) and `red` (`dst` = `None`): atomically
    /// `*addr = op(*addr, b[, c])`. Shared memory belongs to one block, which one CPU thread
    /// runs, so shared-space forms need no hardware atomicity; global and generic forms are
    /// real atomics with the given ordering.
    ///
    /// Vector forms (`atom.global.v4.f32.add`, `.v8.f16`) have one `dst`/`b` per element and
    /// access adjacent elements of type `ty` from `addr`; as the ISA says, each element is
    /// atomic on its own, not the vector as a whole. Packed types (`.f16x2`) are one
    /// 32-bit atomic on both halves.
    Atomic {
        op: AtomicOp,
        ty: ScalarType,
        space: StateSpace,
        order: MemOrder,
        dst: Vec<Option<RegId>>,
        addr: Address,
        b: Vec<Operand>,
        c: Option<Operand>,
    },
    /// `membar`/`fence`: orders this thread's memory accesses as seen by threads of `scope`.
    Fence {
        order: MemOrder,
        scope: MemScope,
    },
    /// `isspacep.space p, a`: whether generic address `a` lies in `space`'s window
    /// (shared: the block's shared memory; local: the block's local memory; const and
    /// param: a module `.const` variable or a kernel parameter; global: none of these).
    IsSpace {
        space: StateSpace,
        dst: RegId,
        a: Operand,
    },
    /// `trap`: ends the launch with an error naming the kernel, block and function.
    Trap,
    /// An instruction without effect on the CPU (`pmevent`, `discard`, `applypriority`).
    Nop,
    /// `call`: a direct call of `Module::functions[callee]` or an indirect call through a
    /// register holding a function address with the signature of a `.callprototype`.
    /// Arguments and results are `.param` variables of the caller (or, in old PTX, registers
    /// and immediates), in the order of the callee's parameters and return parameters.
    /// A result written to `_` is discarded (`None`).
    Call {
        callee: Callee,
        args: Vec<Operand>,
        rets: Vec<Option<Operand>>,
        uniform: bool,
    },
    /// Lane-wise `add min max` on the lanes of a register: two 16-bit lanes of a `.b32`
    /// (`.u16x2`/`.s16x2`, `lane` = `U16`/`S16`) or one 32-bit lane (`min.relu.s32`,
    /// `lane` = `S32`). Each lane wraps (`add`); with `relu` a negative lane result is 0.
    Lanes {
        op: LaneOp,
        lane: ScalarType,
        relu: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
    },
    /// `mul24.lo/.hi` (`c` = `None`) and `mad24.lo/.hi` (`c` = `Some`): the low 24 bits of `a`
    /// and `b` (sign-extended for `.s32`) are multiplied to a 48-bit product `t`; the result is
    /// `t<31..0>` (`.lo`) or `t<47..16>` (`.hi`), plus `c`. With `sat` (only `.hi.s32`) the
    /// 32-bit signed addition is clamped to `i32::MIN..=i32::MAX`.
    Mul24 {
        hi: bool,
        ty: ScalarType,
        sat: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
        c: Option<Operand>,
    },
    /// `sad`: `c + |a - b|` (the difference taken in the signedness of `ty`), wrapping.
    Sad {
        ty: ScalarType,
        dst: RegId,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `bfe`: extract `len = c & 0xff` bits of `a` from `pos = b & 0xff`; bits past the msb and
    /// above `len` are the sign bit `a[min(pos+len-1, msb)]` (signed types, `len > 0`) or 0.
    Bfe {
        ty: ScalarType,
        dst: RegId,
        a: Operand,
        pos: Operand,
        len: Operand,
    },
    /// `bfi`: `b` with bits `pos..pos+len` (`pos = c & 0xff`, `len = d & 0xff`, clipped at the msb)
    /// replaced by the low bits of `a`.
    Bfi {
        ty: ScalarType,
        dst: RegId,
        a: Operand,
        b: Operand,
        pos: Operand,
        len: Operand,
    },
    /// `fns.b32`: the position of the `|offset|`-th set bit of `mask` counting from `base`
    /// upwards (`offset > 0`) or downwards (`offset < 0`), `base` itself when `offset == 0` and
    /// `mask[base]` is set; `0xffffffff` if there is none. `base > 31` is undefined in the ISA;
    /// we follow the pseudocode literally with bits past 31 reading as 0, so it gives `0xffffffff`.
    Fns {
        dst: RegId,
        mask: Operand,
        base: Operand,
        offset: Operand,
    },
    /// `szext.clamp/.wrap.u32/.s32`: zero- or sign-extend the low `N = b` bits of `a`
    /// (ISA semantics: `N & 31`, and `N >= 32` with `.clamp` returns `a`; `N == 0` gives 0).
    Szext {
        clamp: bool,
        signed: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
    },
    /// `bmsk.clamp/.wrap.b32`: a mask of `b` bits starting at bit `a`, per the ISA pseudocode.
    Bmsk {
        clamp: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
    },
    /// `dp4a` (`half` = `None`): `c + Σ a.byte[i] * b.byte[i]`; `dp2a.lo/.hi` (`half` =
    /// `Some(hi)`): `c + Σ a.half[i] * b.byte[2*hi + i]`. Bytes and halves are sign- or
    /// zero-extended by `a_signed`/`b_signed`; the sum wraps at 32 bits.
    Dot {
        half: Option<bool>,
        a_signed: bool,
        b_signed: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// Extended-precision arithmetic (`add.cc addc sub.cc subc mad.cc madc`) of a 32- or
    /// 64-bit `ty`. `cc` is the function's hidden carry-flag register (a `.pred`), read when
    /// `carry_in` and written when `carry_out`:
    /// - `Add`: `d = a + b + CF`, CF = unsigned carry-out;
    /// - `Sub`: `d = a - (b + CF)`, CF = borrow-out (1 when `a < b + CF` as unsigned numbers);
    /// - `MadLo`/`MadHi`: `d = t<n-1..0>/t<2n-1..n> + c + CF` with `t = a * b` (signed for `.s`
    ///   types), CF = unsigned carry-out of the addition.
    Carry {
        op: CarryOp,
        ty: ScalarType,
        carry_in: bool,
        carry_out: bool,
        cc: RegId,
        dst: RegId,
        a: Operand,
        b: Operand,
        c: Option<Operand>,
    },
    /// `shf.l/.r.clamp/.wrap.b32`: funnel shift of the 64-bit `{b, a}` by `n = min(c, 32)`
    /// (`clamp`) or `c & 31` (`wrap`); `.l` keeps the upper, `.r` the lower 32 bits.
    FunnelShift {
        left: bool,
        clamp: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `prmt.b32{.mode}`: bytes of `{b, a}` picked by the selectors in `c` (generic form:
    /// four 4-bit selectors, bit 3 replicates the byte's sign) or by the mode tables.
    Prmt {
        mode: Option<PrmtMode>,
        dst: RegId,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `lop3.b32`: `d = F(a, b, c)` with `F` the truth table `lut` (bit `4a+2b+c`); with
    /// `pred`, also `p = (d != 0) BoolOp q`. `dst` is `None` for the sink `_`.
    Lop3 {
        lut: u8,
        dst: Option<RegId>,
        a: Operand,
        b: Operand,
        c: Operand,
        pred: Option<(BoolOp, RegId, PredRef)>,
    },
    /// `set.CmpOp{.BoolOp}.dtype.stype`: like `setp`, then `0xffffffff`/0 (integer `dtype`) or
    /// `1.0f`/0 (`.f32` `dtype`, `float_result`) in `dst`.
    Set {
        cmp: CmpOp,
        ty: ScalarType,
        ftz: bool,
        float_result: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
        combine: Option<(BoolOp, PredRef)>,
    },
    /// `slct.dtype.s32/.f32`: `d = (c >= 0) ? a : b`; `c_ty` is `S32` or `F32` (a NaN `c`
    /// selects `b`; `-0.0` counts as zero; `ftz` flushes a subnormal `c` to zero).
    Slct {
        ty: ScalarType,
        c_ty: ScalarType,
        ftz: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `mov` from a vector operand `{a, b, ...}`: the elements (of `ty.bits() / src.len()` bits
    /// each, element 0 in the low bits) packed into one register of type `ty`.
    Pack {
        ty: ScalarType,
        dst: RegId,
        src: Vec<Operand>,
    },
    /// `mov` to a vector operand: `src` of type `ty` split into equal elements, element 0 from
    /// the low bits; `None` is the sink `_`.
    Unpack {
        ty: ScalarType,
        dst: Vec<Option<RegId>>,
        src: Operand,
    },
    /// Scalar video instructions (`vadd vsub vabsdiff vmin vmax vshl vshr vset`); semantics in
    /// `lower::ops::video`: operands are selected (`asel`/`bsel`) and extended to 33 bits by their
    /// signedness, the operation gives a 34-bit result, which is optionally saturated to the
    /// destination's (sub)word range, then combined with `c` (`second`) or merged into `c`
    /// (`dsel` not `Word`). `shift_clamp` is the `.clamp`(true)/`.wrap` mode of `vshl`/`vshr`.
    Video {
        op: VideoOp,
        d_signed: bool,
        a_signed: bool,
        b_signed: bool,
        asel: Selector,
        bsel: Selector,
        dsel: Selector,
        sat: bool,
        shift_clamp: bool,
        second: Option<VideoSecondary>,
        dst: RegId,
        a: Operand,
        b: Operand,
        c: Option<Operand>,
    },
    /// `vmad`: `(±(a*b) ± c (+1 with .po)) >> scale`, optionally saturated, as NVIDIA silicon computes it
    /// (`lower::ops::video`: full words sign-extended, `c` sign-extended, 64-bit shift and `.sat`).
    /// `neg_product` = exactly one of `a`, `b` negated.
    VideoMad {
        a_signed: bool,
        b_signed: bool,
        asel: Selector,
        bsel: Selector,
        neg_product: bool,
        neg_c: bool,
        plus_one: bool,
        scale: u32,
        sat: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// SIMD video instructions (`vadd2/4 vsub2/4 vavrg2/4 vabsdiff2/4 vmin2/4 vmax2/4 vset2/4`).
    /// `lanes` = 2 (16-bit) or 4 (8-bit). Lane `i` of the A (B) input is lane `asel[i]`
    /// (`bsel[i]`) of the 64-bit `{b, a}`, extended by `a_signed` (`b_signed`). Results are
    /// optionally clamped to the lane range of `d_signed`; then with `accumulate` (`.add`),
    /// `d = c + Σ t[i]` over lanes in `mask`, else lanes in `mask` are `t[i]` and the others
    /// come from `c`.
    VideoSimd {
        op: VideoOp,
        lanes: u32,
        d_signed: bool,
        a_signed: bool,
        b_signed: bool,
        asel: [u8; 4],
        bsel: [u8; 4],
        sat: bool,
        accumulate: bool,
        mask: u8,
        dst: RegId,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// Half-precision arithmetic (ISA 9.2 §9.7.4) on `ty` = `.f16 .f16x2 .bf16 .bf16x2`; the
    /// `x2` types work on the two 16-bit lanes of a `.b32` (lane 0 in the low bits) independently.
    /// `b` is the second operand of `add sub mul min max fma`, `c` the addend of `fma`.
    /// Results are correctly rounded to nearest even; NaN results are the canonical NaN
    /// `0x7fff` (neg/abs of a NaN flip/clear its sign bit). Modifier semantics in `lower::ops::half`.
    Half {
        op: HalfOp,
        ty: ScalarType,
        mods: HalfMods,
        dst: RegId,
        a: Operand,
        b: Option<Operand>,
        c: Option<Operand>,
    },
    /// Mixed-precision `add/sub{.rnd}{.sat}.f32.atype d, a, c` (`b` = `None`) and
    /// `fma.rnd{.sat}.f32.abtype d, a, b, c` (ISA 9.2 §9.7.5): `a` (and `b`) of `src_ty`
    /// (`.f16`/`.bf16`) converted exactly to f32, one rounding with `rnd` to an f32 result.
    Mixed {
        op: MixedOp,
        src_ty: ScalarType,
        rnd: Rounding,
        sat: bool,
        dst: RegId,
        a: Operand,
        b: Option<Operand>,
        c: Operand,
    },
    /// `setp.CmpOp{.BoolOp}{.ftz}.ty` for `ty` = `.f16 .f16x2 .bf16 .bf16x2`; the `x2` forms
    /// write lane 0's result to `dst` and lane 1's to `dst_hi` (`p|q`).
    HalfSetp {
        cmp: CmpOp,
        ty: ScalarType,
        ftz: bool,
        dst: RegId,
        dst_hi: Option<RegId>,
        a: Operand,
        b: Operand,
        combine: Option<(BoolOp, PredRef)>,
    },
    /// `set.CmpOp{.BoolOp}{.ftz}.dst_ty.src_ty` where one of the types is a half type: each
    /// comparison (two for `x2` sources, per lane) gives 1.0/0.0 in the half destination
    /// format, or all ones/0 in an integer destination (per 16-bit lane for `x2` sources).
    HalfSet {
        cmp: CmpOp,
        dst_ty: ScalarType,
        src_ty: ScalarType,
        ftz: bool,
        dst: RegId,
        a: Operand,
        b: Operand,
        combine: Option<(BoolOp, PredRef)>,
    },
    /// `cp.async.{ca,cg}.shared.global [dst], [src], size{, src_size | ignore_src}`: copies
    /// `n` bytes from global `src` to shared `dst` and zero-fills the remaining `size - n`,
    /// where `n` is `size`, `min(src_size, size)`, or 0 when `ignore_src` is true. Done
    /// synchronously: the copy is complete before any `cp.async.wait_*` could observe it.
    AsyncCopy {
        size: u32,
        dst: Address,
        src: Address,
        src_size: Option<Operand>,
        ignore_src: Option<PredRef>,
    },
    /// Texture, surface and opaque-type instructions (`tex tld4 txq suld sust sured suq
    /// istypep`): each calls the runtime's sampling code (`ptxrt::texture`).
    Texture(TextureOp),
    /// An operation on the mbarrier object (ISA 9.2 §9.7.13.15) at `addr` in `space`
    /// (`Shared`, or `Generic` for a generic address of the shared window; a cluster is one
    /// block, so `.shared::cluster` is `Shared` too). The object is the 8-byte word there;
    /// its encoding and the phase rules are in `lower::ops::mbarrier`.
    Mbarrier {
        op: MbarrierOp,
        space: StateSpace,
        addr: Address,
    },
    /// `mbarrier.pending_count.b64 dst, state`: the pending arrival count of the mbarrier
    /// before the arrive-on that returned `state` (a `.b64` opaque state).
    MbarrierPendingCount {
        dst: RegId,
        state: Operand,
    },
    /// A valid instruction that lowering does not translate yet; lowering reports
    /// `not supported yet: <what>` at the instruction.
    Unsupported {
        what: String,
    },
}

/// The read-modify-write operation of `atom`/`red` (ISA 9.2 §9.7.13.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    And,
    Or,
    Xor,
    Exch,
    /// Integer add (wrapping), or float add rounding to nearest even; `atom.add.f32` on
    /// global (and generic) memory flushes subnormal inputs and results to zero, as the ISA
    /// documents for NVIDIA's implementation; on shared memory it does not.
    Add,
    /// `(old >= b) ? 0 : old + 1` (unsigned).
    Inc,
    /// `(old == 0 || old > b) ? b : old - 1` (unsigned).
    Dec,
    /// Signed or unsigned by the instruction type.
    Min,
    Max,
    /// `(old == b) ? c : old`.
    Cas,
}

/// The operations of `Op::Mbarrier`. Count operands are 32-bit unsigned values. Memory
/// ordering qualifiers (`.release`/`.acquire`/`.relaxed` with a scope) are not kept: a
/// block's threads run on one CPU thread, in the order the block scheduler gives them, so
/// every access before an arrive-on is already visible to a thread whose wait saw it.
#[derive(Debug, Clone, PartialEq)]
pub enum MbarrierOp {
    /// `mbarrier.init`: phase 0, expected and pending arrival counts `count`, tx-count 0.
    Init { count: Operand },
    /// `mbarrier.inval`: the object's life ends; its memory is left as it is.
    Inval,
    /// `mbarrier.arrive` and `mbarrier.arrive_drop` (`drop`): first, with `expect_tx`, an
    /// expect-tx operation (tx-count += `expect_tx`); with `drop` the expected arrival count
    /// decreases by `count` for this and every later phase; then an arrive-on: the pending
    /// count decreases by `count`, and when pending count and tx-count are both zero the
    /// phase completes. `state` (`None`: the sink `_`) receives the opaque state.
    Arrive { drop: bool, count: Operand, expect_tx: Option<Operand>, state: Option<RegId> },
    /// `cp.async.mbarrier.arrive{.noinc}`: the arrive-on of count 1 that completing the
    /// thread's earlier `cp.async` copies triggers. Those copies are complete when they are
    /// issued here (`lower::ops::async_copy`), so it happens at once; without `noinc` the
    /// pending count is first incremented, a zero net change.
    AsyncCopyArrive { noinc: bool },
    /// `mbarrier.expect_tx`: tx-count += `tx` (never completes a phase).
    ExpectTx { tx: Operand },
    /// `mbarrier.complete_tx`: tx-count -= `tx`, and the phase completes when pending count
    /// and tx-count are both zero.
    CompleteTx { tx: Operand },
    /// `mbarrier.test_wait`/`mbarrier.try_wait`: `dst` = whether the phase named by `phase`
    /// has completed: the phase an arrive's `state` (`.b64`) was taken in, or with `parity`
    /// the phase of parity `phase & 1` (`.u32`); valid for the current and the preceding
    /// phase. `try_wait` returns at once (its time limit may be any length).
    TestWait { parity: bool, phase: Operand, dst: RegId },
}

/// Memory ordering of atomics and fences (`.relaxed .acquire .release .acq_rel`, `.sc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemOrder {
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

/// The set of threads a fence orders accesses for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemScope {
    /// The thread block (one CPU thread runs a block: only compiler reordering matters).
    Cta,
    /// The device or the whole system: a real fence.
    Gpu,
    Sys,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Callee {
    Direct(u32),
    /// A function the module never declares, provided by the program that loads it
    /// (OptiX's `_rt_*` device API).
    External(String),
    /// Through a register; the prototype's parameter and return counts are those given.
    Indirect {
        target: RegId,
        params: u32,
        returns: u32,
    },
}

/// Rounding of `cvt`: IEEE rounding for float results, or rounding to an integral value (`.rni` ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CvtRounding {
    Float(Rounding),
    Integer(Rounding),
    /// `.rna`: round to nearest, ties away from zero (`.tf32` results only).
    NearestAway,
    /// `.rs`: stochastic rounding; the random bits are the last source operand of
    /// `Op::CvtPacked` (`rbits`), added to the discarded significand bits: a carry out
    /// rounds away from zero, none truncates (semantics in `lower::ops::convert`).
    Stochastic,
}

/// Element formats of `cvt`'s packed and narrow conversions (`Op::CvtPacked`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatFormat {
    F16,
    BF16,
    F32,
    /// f32 range with 10 fraction bits, kept in an f32 bit pattern whose low 13 bits are 0.
    Tf32,
    E4m3,
    E5m2,
    E2m3,
    E3m2,
    E2m1,
    /// `.ue8m0`: an unsigned biased exponent alone, `2^(e - 127)`; `0xff` is NaN. No sign,
    /// no zero, no infinity.
    Ue8m0,
    /// `.s2f6`: an 8-bit two's complement integer `k`, the value `k × 2^-6` (no infinity,
    /// no NaN).
    S2f6,
}

impl FloatFormat {
    /// Bits an element occupies in a packed register (6-bit formats use a byte each).
    pub fn container_bits(self) -> u32 {
        match self {
            FloatFormat::F32 | FloatFormat::Tf32 => 32,
            FloatFormat::F16 | FloatFormat::BF16 => 16,
            FloatFormat::E4m3 | FloatFormat::E5m2 | FloatFormat::E2m3 | FloatFormat::E3m2 | FloatFormat::Ue8m0 | FloatFormat::S2f6 => 8,
            FloatFormat::E2m1 => 4,
        }
    }
}

/// Geometry of a texture or surface access. Array geometries take the layer index (`.u32`)
/// as the first coordinate element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexGeom {
    D1,
    D2,
    D3,
    A1d,
    A2d,
    /// `.cube` (`tex`, `tld4`): a direction `{x, y, z, _}` selecting a face.
    Cube,
    /// `.acube`: the cube index (`.u32`), then a direction.
    ACube,
    /// `.2dms` (`tex`): the sample (`.u32`), then `.s32` texel indices x, y.
    D2ms,
    /// `.a2dms` (`tex`): the layer and the sample (`.u32`), then x, y.
    A2dms,
}

impl TexGeom {
    /// Coordinate elements the instruction must give (3d and a2d take a fourth, ignored one,
    /// which may be left out here).
    pub fn coords(self) -> usize {
        match self {
            TexGeom::D1 => 1,
            TexGeom::D2 | TexGeom::A1d => 2,
            TexGeom::D3 | TexGeom::A2d | TexGeom::Cube | TexGeom::D2ms => 3,
            TexGeom::ACube | TexGeom::A2dms => 4,
        }
    }

    /// Leading `.u32` index elements of the coordinates (layer, cube, sample).
    pub fn indices(self) -> usize {
        match self {
            TexGeom::D1 | TexGeom::D2 | TexGeom::D3 | TexGeom::Cube => 0,
            TexGeom::A1d | TexGeom::A2d | TexGeom::ACube | TexGeom::D2ms => 1,
            TexGeom::A2dms => 2,
        }
    }
}

/// How a `tex` picks the mipmap level (ISA 9.2 §9.7.10.3, "Mipmaps").
#[derive(Debug, Clone)]
pub enum TexLod {
    /// `.base` (or no mode): level 0.
    Base,
    /// `.level`: the level of detail, typed like the coordinates (`.f32` or `.s32`).
    Level(Operand),
    /// `.grad`: the `.f32` partials dPdx and dPdy (one element per coordinate dimension;
    /// three for cubemaps).
    Grad(Vec<Operand>, Vec<Operand>),
}

/// What a surface access does outside the surface (`.trap .clamp .zero`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SurfaceClamp {
    /// The launch fails.
    Trap,
    /// The nearest location in the surface is accessed.
    Clamp,
    /// Loads read zero, stores and reductions are dropped.
    Zero,
}

/// Reductions of `sured`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SurfaceRedOp {
    Add,
    Min,
    Max,
    And,
    Or,
}

/// Attributes `txq` and `suq` query (ISA 9.2 §9.7.10.5, §9.7.11.4); the discriminant is
/// the runtime's query code (`ptxrt_abi.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexQuery {
    Width = 0,
    Height = 1,
    Depth = 2,
    ChannelDataType = 3,
    ChannelOrder = 4,
    NormalizedCoords = 5,
    FilterMode = 6,
    AddrMode0 = 7,
    AddrMode1 = 8,
    AddrMode2 = 9,
    ArraySize = 10,
    NumMipmapLevels = 11,
    NumSamples = 12,
    ForceUnnormalizedCoords = 13,
    MemoryLayout = 14,
}

/// The operations of `Op::Texture`. `handle` operands are a texture/sampler/surface
/// reference (`Operand::Handle`), a `.u64` register holding a handle (texture objects,
/// indirect access), or an opaque kernel parameter (`Operand::ParamAddr(i, 0)` of a
/// `Param` with `handle`: the handle is the parameter's value). Coordinates are the
/// instruction's coordinate elements in order.
#[derive(Debug, Clone)]
pub enum TextureOp {
    /// `tex.geom.v4.dtype.ctype d, [t, {s,} c]` (`gather` = `None`), and `tld4.comp.2d`
    /// (`gather` = the component 0..=3: r g b a): a fetch through the texture's (or the
    /// explicit sampler's) filtering and address modes, with the rules of `ptxrt::texture`.
    /// `dtype` is `.u32 .s32 .f32`, `.f16` (the low half of each result) or `.f16x2` (two
    /// destinations: `{r, g}` and `{b, a}`, the first channel in the low half); `float_coords`
    /// for `.f32` coordinates (else `.s32` texel indices). `resident` is the optional `d|p`
    /// predicate: every texel is resident in memory here, so it is always set to true.
    /// `offset` is the optional `.s32` texel offset operand `e` (one element per dimension);
    /// `lod` the mipmap mode; `depth_compare` the optional `.f32` depth-compare operand `f`
    /// (each texel becomes 1.0 or 0.0 by the texture's or sampler's comparison with it).
    Fetch {
        gather: Option<u8>,
        geom: TexGeom,
        dtype: ScalarType,
        float_coords: bool,
        dst: Vec<Option<RegId>>,
        resident: Option<RegId>,
        texture: Operand,
        sampler: Option<Operand>,
        coords: Vec<Operand>,
        offset: Option<Vec<Operand>>,
        lod: TexLod,
        depth_compare: Option<Operand>,
    },
    /// `txq.query.b32 d, [a]`, `suq.query.b32 d, [a]` and `txq.level.query.b32 d, [a], level`.
    Query { query: TexQuery, dst: RegId, handle: Operand, level: Option<Operand> },
    /// `suld.b.geom.vec.ty.clamp d, [s, c]`: `dst.len()` elements of `ty` (`.b8`–`.b64`) from
    /// byte offset `c[0]` of the row.
    SurfaceLoad { geom: TexGeom, clamp: SurfaceClamp, ty: ScalarType, dst: Vec<Option<RegId>>, surface: Operand, coords: Vec<Operand> },
    /// `sust.b` (`formatted` = false: raw bytes at byte offset `c[0]`) and `sust.p`
    /// (formatted: 32-bit components converted to the surface format at element `c[0]`).
    SurfaceStore { geom: TexGeom, clamp: SurfaceClamp, formatted: bool, ty: ScalarType, src: Vec<Operand>, surface: Operand, coords: Vec<Operand> },
    /// `sured.b/.p.op.geom.ty.clamp [s, c], v`: atomic `*loc = op(*loc, v)`; `.p` addresses
    /// elements of `ty` and takes the signedness of `.b32`/`.b64` from the surface format.
    SurfaceReduce {
        op: SurfaceRedOp,
        formatted: bool,
        geom: TexGeom,
        clamp: SurfaceClamp,
        ty: ScalarType,
        surface: Operand,
        coords: Vec<Operand>,
        src: Operand,
    },
    /// `istypep.type p, a`: whether `a` is a live handle of that kind.
    IsType { kind: HandleKind, dst: RegId, a: Operand },
}

impl TextureOp {
    /// Registers the operation reads.
    pub fn uses(&self, out: &mut Vec<RegId>) {
        let mut o = |x: &Operand| {
            if let Operand::Reg(r) = x {
                out.push(*r)
            }
        };
        match self {
            TextureOp::Fetch { texture, sampler, coords, offset, lod, depth_compare, .. } => {
                o(texture);
                sampler.iter().for_each(&mut o);
                depth_compare.iter().for_each(&mut o);
                coords.iter().for_each(&mut o);
                offset.iter().flatten().for_each(&mut o);
                match lod {
                    TexLod::Base => {}
                    TexLod::Level(l) => o(l),
                    TexLod::Grad(dx, dy) => dx.iter().chain(dy).for_each(&mut o),
                }
            }
            TextureOp::Query { handle, level, .. } => {
                o(handle);
                level.iter().for_each(&mut o);
            }
            TextureOp::SurfaceLoad { surface, coords, .. } => {
                o(surface);
                coords.iter().for_each(&mut o);
            }
            TextureOp::SurfaceStore { surface, coords, src, .. } => {
                o(surface);
                coords.iter().for_each(&mut o);
                src.iter().for_each(&mut o);
            }
            TextureOp::SurfaceReduce { surface, coords, src, .. } => {
                o(surface);
                coords.iter().for_each(&mut o);
                o(src);
            }
            TextureOp::IsType { a, .. } => o(a),
        }
    }

    /// Registers the operation writes.
    pub fn defs(&self, out: &mut Vec<RegId>) {
        match self {
            TextureOp::Fetch { dst, resident, .. } => out.extend(dst.iter().flatten().chain(resident).copied()),
            TextureOp::SurfaceLoad { dst, .. } => out.extend(dst.iter().flatten().copied()),
            TextureOp::Query { dst, .. } | TextureOp::IsType { dst, .. } => out.push(*dst),
            TextureOp::SurfaceStore { .. } | TextureOp::SurfaceReduce { .. } => {}
        }
    }
}

/// The checked IR of one kernel whose body is `body` (tests of the IR analyses).
#[cfg(test)]
pub(crate) fn test_kernel(body: &str) -> (Function, impl Fn(&str) -> RegId) {
    let src = format!(".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n{body}\n}}\n");
    let (m, diags) = crate::driver::analyze(&src);
    assert!(!crate::driver::has_errors(&diags), "{diags:?}");
    let f = m.functions.into_iter().find(|f| f.kind == FunctionKind::Entry).expect("the kernel");
    let names: Vec<String> = f.regs.iter().map(|r| r.name.clone()).collect();
    let reg = move |name: &str| RegId(names.iter().position(|n| n == name).unwrap_or_else(|| panic!("no register {name}")) as u32);
    (f, reg)
}

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

pub mod types;
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
    /// Sampler properties given in the declaration (`filter_mode = linear`).
    pub fields: Vec<(String, String)>,
    pub linkage: Linkage,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linkage {
    /// Visible to other modules (`.visible`, `.weak`, `.common`).
    Public,
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
    Branch { cond: PredRef, then_: BlockId, else_: BlockId },
    /// A synchronization point: a block-wide barrier (`bar.sync`, `barrier.sync`,
    /// `bar.arrive`, `bar.red`) or a warp collective (`shfl.sync`, `vote`, ...). The thread
    /// waits here until the point completes for it, then continues at `next`. Lowering runs
    /// the code between sync points as thread loops and lets the runtime's scheduler decide
    /// which waiting threads are released (and computes collectives for them).
    Sync { point: SyncPoint, next: BlockId },
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
    /// `bar.warp.sync mask`.
    WarpSync { mask: Operand },
    /// Not a PTX instruction: the lanes of a warp that arrive together continue together
    /// (lowering inserts it before `volatile` shared accesses of legacy warp-synchronous code).
    Lockstep,
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
            WarpOp::WarpSync { mask } => o(mask),
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
            WarpOp::WarpSync { .. } | WarpOp::Lockstep => {}
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
}

impl SpecialReg {
    /// The natural type of the register.
    pub fn ty(self) -> ScalarType {
        match self {
            SpecialReg::Clock64 | SpecialReg::GlobalTimer | SpecialReg::GridId => ScalarType::U64,
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
    /// Division; by zero the result is all ones (unsigned) / per `lower::int` (signed).
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatBinOp {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatUnOp {
    Neg,
    Abs,
    Sqrt,
    Rcp,
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
    Mov { ty: ScalarType, dst: RegId, src: Operand },
    IntBinary { op: IntBinOp, ty: ScalarType, sat: bool, dst: RegId, a: Operand, b: Operand },
    /// `mul.wide`: the full double-width product; `dst` has twice the width of `ty`.
    MulWide { ty: ScalarType, dst: RegId, a: Operand, b: Operand },
    /// `mad.lo/.hi/.wide`: `a*b + c` using the selected part of the product. `sat` (only
    /// `mad.hi.sat.s32`): the addition `t<63..32> + c` is clamped to `i32::MIN..=i32::MAX`.
    Mad { mode: MulMode, ty: ScalarType, sat: bool, dst: RegId, a: Operand, b: Operand, c: Operand },
    IntUnary { op: IntUnOp, ty: ScalarType, dst: RegId, a: Operand },
    FloatBinary { op: FloatBinOp, ty: ScalarType, rnd: Rounding, ftz: bool, sat: bool, dst: RegId, a: Operand, b: Operand },
    FloatUnary { op: FloatUnOp, ty: ScalarType, rnd: Rounding, approx: bool, ftz: bool, dst: RegId, a: Operand },
    /// `fma` and `mad` on floats (fused; PTX `mad.f32` without rounding on sm_1x is also lowered fused).
    Fma { ty: ScalarType, rnd: Rounding, ftz: bool, sat: bool, dst: RegId, a: Operand, b: Operand, c: Operand },
    Setp { cmp: CmpOp, ty: ScalarType, ftz: bool, dst: RegId, dst_not: Option<RegId>, a: Operand, b: Operand, combine: Option<(BoolOp, PredRef)> },
    Selp { ty: ScalarType, dst: RegId, a: Operand, b: Operand, cond: PredRef },
    /// Predicate logic (`and.pred`, `or.pred`, `xor.pred`, `not.pred`).
    PredLogic { op: Option<BoolOp>, dst: RegId, a: PredRef, b: Option<PredRef> },
    Cvt { dst_ty: ScalarType, src_ty: ScalarType, rnd: Option<CvtRounding>, ftz: bool, sat: bool, dst: RegId, src: Operand },
    /// `cvta` (to generic) and `cvta.to` (from generic) between a state-space window and generic addresses.
    Cvta { to_generic: bool, space: StateSpace, ty: ScalarType, dst: RegId, src: Operand },
    Load { space: StateSpace, ty: ScalarType, volatile: bool, dst: Vec<Option<RegId>>, addr: Address },
    Store { space: StateSpace, ty: ScalarType, volatile: bool, src: Vec<Operand>, addr: Address },
    /// `atom` (`dst` = the old value) and `red` (`dst` = `None`): atomically
    /// `*addr = op(*addr, b[, c])`. Shared memory belongs to one block, which one CPU thread
    /// runs, so shared-space forms need no hardware atomicity; global and generic forms are
    /// real atomics with the given ordering.
    Atomic { op: AtomicOp, ty: ScalarType, space: StateSpace, order: MemOrder, dst: Option<RegId>, addr: Address, b: Operand, c: Option<Operand> },
    /// `membar`/`fence`: orders this thread's memory accesses as seen by threads of `scope`.
    Fence { order: MemOrder, scope: MemScope },
    /// `isspacep.space p, a`: whether generic address `a` lies in `space`'s window
    /// (shared: the block's shared memory; local: the block's local memory; const and
    /// param: a module `.const` variable or a kernel parameter; global: none of these).
    IsSpace { space: StateSpace, dst: RegId, a: Operand },
    /// `trap`: ends the launch with an error naming the kernel, block and function.
    Trap,
    /// An instruction without effect on the CPU (`brkpt`, `pmevent`, `nanosleep`).
    Nop,
    /// `call`: a direct call of `Module::functions[callee]` or an indirect call through a
    /// register holding a function address with the signature of a `.callprototype`.
    /// Arguments and results are `.param` variables of the caller (or, in old PTX, registers
    /// and immediates), in the order of the callee's parameters and return parameters.
    /// A result written to `_` is discarded (`None`).
    Call { callee: Callee, args: Vec<Operand>, rets: Vec<Option<Operand>>, uniform: bool },
    /// Lane-wise `add min max` on the lanes of a register: two 16-bit lanes of a `.b32`
    /// (`.u16x2`/`.s16x2`, `lane` = `U16`/`S16`) or one 32-bit lane (`min.relu.s32`,
    /// `lane` = `S32`). Each lane wraps (`add`); with `relu` a negative lane result is 0.
    Lanes { op: LaneOp, lane: ScalarType, relu: bool, dst: RegId, a: Operand, b: Operand },
    /// `mul24.lo/.hi` (`c` = `None`) and `mad24.lo/.hi` (`c` = `Some`): the low 24 bits of `a`
    /// and `b` (sign-extended for `.s32`) are multiplied to a 48-bit product `t`; the result is
    /// `t<31..0>` (`.lo`) or `t<47..16>` (`.hi`), plus `c`. With `sat` (only `.hi.s32`) the
    /// 32-bit signed addition is clamped to `i32::MIN..=i32::MAX`.
    Mul24 { hi: bool, ty: ScalarType, sat: bool, dst: RegId, a: Operand, b: Operand, c: Option<Operand> },
    /// `sad`: `c + |a - b|` (the difference taken in the signedness of `ty`), wrapping.
    Sad { ty: ScalarType, dst: RegId, a: Operand, b: Operand, c: Operand },
    /// `bfe`: extract `len = c & 0xff` bits of `a` from `pos = b & 0xff`; bits past the msb and
    /// above `len` are the sign bit `a[min(pos+len-1, msb)]` (signed types, `len > 0`) or 0.
    Bfe { ty: ScalarType, dst: RegId, a: Operand, pos: Operand, len: Operand },
    /// `bfi`: `b` with bits `pos..pos+len` (`pos = c & 0xff`, `len = d & 0xff`, clipped at the msb)
    /// replaced by the low bits of `a`.
    Bfi { ty: ScalarType, dst: RegId, a: Operand, b: Operand, pos: Operand, len: Operand },
    /// `fns.b32`: the position of the `|offset|`-th set bit of `mask` counting from `base`
    /// upwards (`offset > 0`) or downwards (`offset < 0`), `base` itself when `offset == 0` and
    /// `mask[base]` is set; `0xffffffff` if there is none. `base > 31` is undefined in the ISA;
    /// we follow the pseudocode literally with bits past 31 reading as 0, so it gives `0xffffffff`.
    Fns { dst: RegId, mask: Operand, base: Operand, offset: Operand },
    /// `szext.clamp/.wrap.u32/.s32`: zero- or sign-extend the low `N = b` bits of `a`
    /// (ISA semantics: `N & 31`, and `N >= 32` with `.clamp` returns `a`; `N == 0` gives 0).
    Szext { clamp: bool, signed: bool, dst: RegId, a: Operand, b: Operand },
    /// `bmsk.clamp/.wrap.b32`: a mask of `b` bits starting at bit `a`, per the ISA pseudocode.
    Bmsk { clamp: bool, dst: RegId, a: Operand, b: Operand },
    /// `dp4a` (`half` = `None`): `c + Σ a.byte[i] * b.byte[i]`; `dp2a.lo/.hi` (`half` =
    /// `Some(hi)`): `c + Σ a.half[i] * b.byte[2*hi + i]`. Bytes and halves are sign- or
    /// zero-extended by `a_signed`/`b_signed`; the sum wraps at 32 bits.
    Dot { half: Option<bool>, a_signed: bool, b_signed: bool, dst: RegId, a: Operand, b: Operand, c: Operand },
    /// Extended-precision arithmetic (`add.cc addc sub.cc subc mad.cc madc`) of a 32- or
    /// 64-bit `ty`. `cc` is the function's hidden carry-flag register (a `.pred`), read when
    /// `carry_in` and written when `carry_out`:
    /// - `Add`: `d = a + b + CF`, CF = unsigned carry-out;
    /// - `Sub`: `d = a - (b + CF)`, CF = borrow-out (1 when `a < b + CF` as unsigned numbers);
    /// - `MadLo`/`MadHi`: `d = t<n-1..0>/t<2n-1..n> + c + CF` with `t = a * b` (signed for `.s`
    ///   types), CF = unsigned carry-out of the addition.
    Carry { op: CarryOp, ty: ScalarType, carry_in: bool, carry_out: bool, cc: RegId, dst: RegId, a: Operand, b: Operand, c: Option<Operand> },
    /// `shf.l/.r.clamp/.wrap.b32`: funnel shift of the 64-bit `{b, a}` by `n = min(c, 32)`
    /// (`clamp`) or `c & 31` (`wrap`); `.l` keeps the upper, `.r` the lower 32 bits.
    FunnelShift { left: bool, clamp: bool, dst: RegId, a: Operand, b: Operand, c: Operand },
    /// `prmt.b32{.mode}`: bytes of `{b, a}` picked by the selectors in `c` (generic form:
    /// four 4-bit selectors, bit 3 replicates the byte's sign) or by the mode tables.
    Prmt { mode: Option<PrmtMode>, dst: RegId, a: Operand, b: Operand, c: Operand },
    /// `lop3.b32`: `d = F(a, b, c)` with `F` the truth table `lut` (bit `4a+2b+c`); with
    /// `pred`, also `p = (d != 0) BoolOp q`. `dst` is `None` for the sink `_`.
    Lop3 { lut: u8, dst: Option<RegId>, a: Operand, b: Operand, c: Operand, pred: Option<(BoolOp, RegId, PredRef)> },
    /// `set.CmpOp{.BoolOp}.dtype.stype`: like `setp`, then `0xffffffff`/0 (integer `dtype`) or
    /// `1.0f`/0 (`.f32` `dtype`, `float_result`) in `dst`.
    Set { cmp: CmpOp, ty: ScalarType, ftz: bool, float_result: bool, dst: RegId, a: Operand, b: Operand, combine: Option<(BoolOp, PredRef)> },
    /// `slct.dtype.s32/.f32`: `d = (c >= 0) ? a : b`; `c_ty` is `S32` or `F32` (a NaN `c`
    /// selects `b`; `-0.0` counts as zero; `ftz` flushes a subnormal `c` to zero).
    Slct { ty: ScalarType, c_ty: ScalarType, ftz: bool, dst: RegId, a: Operand, b: Operand, c: Operand },
    /// `mov` from a vector operand `{a, b, ...}`: the elements (of `ty.bits() / src.len()` bits
    /// each, element 0 in the low bits) packed into one register of type `ty`.
    Pack { ty: ScalarType, dst: RegId, src: Vec<Operand> },
    /// `mov` to a vector operand: `src` of type `ty` split into equal elements, element 0 from
    /// the low bits; `None` is the sink `_`.
    Unpack { ty: ScalarType, dst: Vec<Option<RegId>>, src: Operand },
    /// Scalar video instructions (`vadd vsub vabsdiff vmin vmax vshl vshr vset`); semantics in
    /// `lower::video`: operands are selected (`asel`/`bsel`) and extended to 33 bits by their
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
    /// `vmad`: `(±(a*b) ± c (+1 with .po)) >> scale`, optionally saturated, per the ISA pseudocode.
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
    /// A valid instruction that lowering does not translate yet; lowering reports
    /// `not supported yet: <what>` at the instruction.
    Unsupported { what: String },
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
    Indirect { target: RegId, params: u32, returns: u32 },
}

/// Rounding of `cvt`: IEEE rounding for float results, or rounding to an integral value (`.rni` ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CvtRounding {
    Float(Rounding),
    Integer(Rounding),
}

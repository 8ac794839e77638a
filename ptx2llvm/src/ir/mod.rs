//! The intermediate representation that lowering reads.
//!
//! A module is a list of module-scope variables and functions. Each function is a
//! control-flow graph of basic blocks of typed, resolved PTX operations: registers are
//! `RegId`s with a declared type, labels are `BlockId`s, variables are `VarId`s. Nothing here
//! refers back to source text except spans for run-time error messages.
//!
//! Barriers are block terminators (`Terminator::Barrier`), so the CFG shows directly where
//! a thread block must synchronize; lowering forms its thread-loop regions from them.

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
    /// Address-valued initializer entries: (byte offset, variable, addend, generic?).
    pub relocs: Vec<(u64, VarId, i64)>,
    pub linkage: Linkage,
    pub owner: Option<usize>,
    pub span: Span,
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
    /// A block-wide barrier (`bar.sync`, `barrier.sync`, `bar.arrive`, `bar.red`).
    /// Execution continues at `next` once the barrier completes.
    Barrier { barrier: Barrier, next: BlockId },
    /// `exit`, or `ret` in an entry function: the thread ends.
    Exit,
    /// `ret` from a `.func`.
    Return,
}

#[derive(Debug, Clone)]
pub struct Barrier {
    /// Barrier id (0–15); `None` means the id is a register operand.
    pub id: Operand,
    /// Expected thread count, if given.
    pub count: Option<Operand>,
    /// `.aligned`: every thread of the block executes the same barrier instruction.
    pub aligned: bool,
    pub kind: BarrierKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarrierKind {
    /// Wait for all participating threads.
    Sync,
    /// Signal arrival without waiting.
    Arrive,
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

/// The operations. Each variant's lowering lives in one place under `lower/`.
#[derive(Debug, Clone)]
pub enum Op {
    /// `mov`: copy (bits) of a register, immediate, special register or address.
    Mov { ty: ScalarType, dst: RegId, src: Operand },
    IntBinary { op: IntBinOp, ty: ScalarType, sat: bool, dst: RegId, a: Operand, b: Operand },
    /// `mul.wide`: the full double-width product; `dst` has twice the width of `ty`.
    MulWide { ty: ScalarType, dst: RegId, a: Operand, b: Operand },
    /// `mad.lo/.hi/.wide`: `a*b + c` using the selected part of the product.
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
    /// `call`: a direct call of `Module::functions[callee]` or an indirect call through a
    /// register holding a function address with the signature of a `.callprototype`.
    /// Arguments and results are `.param` variables of the caller (or, in old PTX, registers
    /// and immediates), in the order of the callee's parameters and return parameters.
    /// A result written to `_` is discarded (`None`).
    Call { callee: Callee, args: Vec<Operand>, rets: Vec<Option<Operand>>, uniform: bool },
    /// A valid instruction that lowering does not translate yet; lowering reports
    /// `not supported yet: <what>` at the instruction.
    Unsupported { what: String },
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

//! The syntax tree of a PTX module, as written (names unresolved, types as spelled).
//!
//! Every node keeps the byte span of its text so that later stages can report errors
//! at the right place. Instructions are kept generic (opcode, modifiers, operands): what
//! an instruction means is decided by the checker, not by the parser.

use std::ops::Range;

pub type Span = Range<usize>;

#[derive(Debug, Clone, PartialEq)]
pub struct Spanned<T> {
    pub node: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(node: T, span: Span) -> Self {
        Spanned { node, span }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Module {
    pub items: Vec<Item>,
}

#[derive(Debug, Clone)]
pub enum Item {
    Version {
        major: u32,
        minor: u32,
        span: Span,
    },
    Target {
        targets: Vec<Spanned<String>>,
        span: Span,
    },
    AddressSize {
        bits: u32,
        span: Span,
    },
    Var(VarDecl),
    Function(Function),
    /// `.file index "path"`: a source file `.loc` directives name.
    File {
        index: u64,
        path: String,
        span: Span,
    },
    /// Directives that carry no meaning for code generation (`.section`, ...).
    Ignored {
        span: Span,
    },
    /// `.alias alias, aliasee;`: two function names for one body.
    Alias {
        alias: Spanned<String>,
        aliasee: Spanned<String>,
        span: Span,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linkage {
    Visible,
    Extern,
    Weak,
    Common,
}

#[derive(Debug, Clone)]
pub struct VarDecl {
    pub linkage: Option<Linkage>,
    /// The state space directive (`.reg`, `.shared`, ...), as written.
    pub space: Spanned<String>,
    /// Other attributes: `.align N`, `.v2`/`.v4`, `.ptr`, `.const`-qualifiers of params...
    pub align: Option<u32>,
    pub vector: Option<u32>,
    pub ptr_attrs: Vec<Spanned<String>>,
    pub ty: Spanned<String>,
    pub names: Vec<VarName>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct VarName {
    pub name: Spanned<String>,
    /// `%r<100>`: declares %r0 .. %r99.
    pub range: Option<u32>,
    /// Array dimensions; `None` for `[]` (size from the initializer or extern).
    pub dims: Vec<Option<u64>>,
    pub init: Option<Initializer>,
}

#[derive(Debug, Clone)]
pub enum Initializer {
    Expr(Spanned<Expr>),
    List(Vec<Initializer>, Span),
    /// `name = value` in the initializer of a `.samplerref` (`filter_mode = linear`).
    Field(Spanned<String>, Spanned<String>, Span),
}

/// A constant expression (immediates, initializers, array sizes).
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Int(u64, bool),
    F32(u32),
    F64(u64),
    /// A symbol (variable or function name) used as an address.
    Symbol(String),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `generic(sym)` in initializers.
    Generic(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Not,
    LogicalNot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Func,
}

#[derive(Debug, Clone)]
pub struct Function {
    pub linkage: Option<Linkage>,
    pub kind: FunctionKind,
    pub name: Spanned<String>,
    pub returns: Vec<VarDecl>,
    pub params: Vec<VarDecl>,
    /// Performance-tuning and other function directives (`.maxntid 256, 1, 1`, `.noreturn`).
    pub directives: Vec<FunctionDirective>,
    pub body: Option<Vec<Statement>>,
    pub span: Span,
}

#[derive(Debug, Clone)]
pub struct FunctionDirective {
    pub name: Spanned<String>,
    pub args: Vec<u64>,
}

#[derive(Debug, Clone)]
pub enum Statement {
    Label(Spanned<String>),
    Var(VarDecl),
    Instruction(Instruction),
    Block(Vec<Statement>, Span),
    /// `name: .callprototype ...;`, `name: .branchtargets L1, L2;`, `name: .calltargets f;`:
    /// a label that names a call signature or a list of branch/call targets.
    /// For `.callprototype`, `signature` = (number of return parameters, number of parameters).
    LabelledDirective {
        label: Spanned<String>,
        kind: DirectiveKind,
        names: Vec<Spanned<String>>,
        signature: (u32, u32),
        span: Span,
    },
    /// `.loc file line column`: the source position of the instructions that follow.
    Loc {
        file: u64,
        line: u64,
        col: u64,
        span: Span,
    },
    /// `.pragma`, and other directives without effect on semantics.
    Ignored(Span),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirectiveKind {
    CallPrototype,
    BranchTargets,
    CallTargets,
}

#[derive(Debug, Clone)]
pub struct Guard {
    pub negated: bool,
    pub pred: Spanned<String>,
}

#[derive(Debug, Clone)]
pub struct Instruction {
    pub guard: Option<Guard>,
    pub opcode: Spanned<String>,
    /// Modifiers in source order, with their leading dot: `.global`, `.v4`, `.f32`.
    pub modifiers: Vec<Spanned<String>>,
    pub operands: Vec<Spanned<Operand>>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A register, variable, label or function name, optionally with a component
    /// (`%tid.x`, `%r1.x` for vector registers).
    Name { name: String, component: Option<String> },
    /// `!%p`: a negated predicate source.
    Not(String),
    /// `-%r`, `-%r.h0`: a negated register source (`vmad`); the inner operand is a `Name`.
    Neg(Box<Spanned<Operand>>),
    /// `%p|%q`: the two destinations of setp (`_|%p`: the first one is the sink).
    Pair(String, String),
    /// `{%f1, %f2, %f3, %f4}|%p`: a vector destination and a predicate (`tex`, `tld4`;
    /// `_` discards the predicate).
    VectorPair(Box<Spanned<Operand>>, String),
    /// A constant expression.
    Expr(Expr),
    /// `[base + offset]`, `[imm]`.
    Address(Box<Spanned<Operand>>, i64),
    /// `{%r1, %r2}`.
    Vector(Vec<Spanned<Operand>>),
    /// `(a, b)` in calls.
    List(Vec<Spanned<Operand>>),
    /// `_`
    Sink,
}

/// The operands of a `call`, by role: `call (rets), callee, (args), prototype;` with the
/// result and argument lists and the prototype optional.
pub struct CallOperands<'a> {
    pub rets: &'a [Spanned<Operand>],
    pub callee: &'a Spanned<Operand>,
    pub args: &'a [Spanned<Operand>],
    /// What follows the argument list (a `.callprototype`/`.calltargets` label; more than
    /// one operand here is an error).
    pub rest: &'a [Spanned<Operand>],
}

impl Instruction {
    /// The operands of this `call` by role; `None` without a callee operand.
    pub fn call_operands(&self) -> Option<CallOperands<'_>> {
        let mut ops: &[Spanned<Operand>] = &self.operands;
        let mut rets: &[Spanned<Operand>] = &[];
        if let Some((first, rest)) = ops.split_first() {
            if let Operand::List(items) = &first.node {
                rets = items;
                ops = rest;
            }
        }
        let (callee, rest) = ops.split_first()?;
        let (args, rest) = match rest.split_first() {
            Some((Spanned { node: Operand::List(items), .. }, more)) => (&items[..], more),
            _ => (&[][..], rest),
        };
        Some(CallOperands { rets, callee, args, rest })
    }
}

/// Calls `f` for every label and labelled directive of a body, nested blocks included.
pub fn visit_labels<'a>(stmts: &'a [Statement], f: &mut impl FnMut(&'a Statement)) {
    for s in stmts {
        match s {
            Statement::Label(_) | Statement::LabelledDirective { .. } => f(s),
            Statement::Block(inner, _) => visit_labels(inner, f),
            _ => {}
        }
    }
}

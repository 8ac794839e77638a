//! Guards that become loop bounds.
//!
//! Most CUDA kernels start with a bounds check: `if (i < n)` or, in a stencil,
//! `if (x > 0 && y > 0 && x < w - 1 && y < h - 1)`, where `x = blockIdx.x * blockDim.x +
//! threadIdx.x`. In a thread loop that test is a per-iteration branch, which the vectorizer
//! can only handle with masked loads and stores. But the threads that pass form an
//! interval of `tid.x` (and of `tid.y`, `tid.z`): this module finds such guards in a
//! barrier-free kernel's entry block, so that the block function can compute the intervals
//! once per block and run the thread loop over them alone, with the guard known false
//! inside (`known_preds`), i.e. without masks.
//!
//! What qualifies: the entry block ends in a branch whose one side leads, without any
//! instruction, to `exit`/`ret`; the instructions before it have no side effects; and the
//! exit condition is an OR of comparisons (`setp.{lt,le,gt,ge}` on 32-bit integers, through
//! `or.pred`/`and.pred`/`not.pred` by De Morgan) of `tid.d + u` with a uniform `w` (`u`, `w`
//! computed from parameters, block indices, block sizes and immediates). Comparisons of
//! other shapes are left in the loop. `tid.d + u` wraps in 32 bits, so the block function
//! uses the intervals only when `u + ntid.d - 1` does not leave the comparison's range, and
//! otherwise runs the ordinary loop.

use crate::ir::{self, BoolOp, CmpOp, Dim, Op, Operand, PredRef, RegId, ScalarType, SpecialReg, StateSpace, Terminator};
use std::collections::HashMap;

/// One comparison whose outcome bounds a thread index.
#[derive(Debug, Clone)]
pub struct Bound {
    pub dim: Dim,
    /// The comparison type (32-bit, signed or unsigned).
    pub ty: ScalarType,
    /// The operand of the form `tid.dim + u`.
    pub affine: Operand,
    /// The uniform operand.
    pub limit: Operand,
    /// The threads that run satisfy `affine survive limit`.
    pub survive: CmpOp,
}

/// The guards of a kernel that the block function can turn into loop bounds.
#[derive(Debug, Clone)]
pub struct Narrowing {
    /// Indices of the entry block's instructions that compute the bounds' operands (and the
    /// uniform conditions), to be evaluated once per block with the thread indices at 0.
    pub prelude: Vec<usize>,
    pub bounds: Vec<Bound>,
    /// Uniform conditions under which every thread exits: `(predicate, value that exits)`.
    pub uniform_exits: Vec<(RegId, bool)>,
    /// Inside the narrowed loop: the values of the comparisons' predicates.
    pub known_preds: HashMap<RegId, bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Uniform,
    /// `tid.dim + u`, wrapping at the width of the instruction that made it.
    Affine(Dim),
    Other,
}

struct Analysis<'f> {
    f: &'f ir::Function,
    /// Each register's single definition in the entry block (instruction index), if it has
    /// exactly one definition in the function and that one is unguarded in the entry block.
    def: HashMap<RegId, usize>,
    shapes: HashMap<RegId, Shape>,
}

/// Finds the guards of `f` (a kernel without sync points) that can become loop bounds.
pub fn analyze(f: &ir::Function) -> Option<Narrowing> {
    let entry = f.blocks.first()?;
    let Terminator::Branch { cond, then_, else_ } = &entry.term else { return None };
    let exits_when = match (leads_to_exit(f, *then_), leads_to_exit(f, *else_)) {
        (true, false) => true,
        (false, true) => false,
        _ => return None,
    };
    if !entry.insts.iter().all(|i| is_pure(&i.op)) {
        return None;
    }
    let mut a = Analysis { f, def: single_entry_defs(f), shapes: HashMap::new() };
    // The exit condition as an OR of leaves: (predicate register, value that exits).
    let mut leaves = vec![];
    a.or_leaves(PredRef { reg: cond.reg, negated: cond.negated ^ !exits_when }, &mut leaves, 0);
    let mut n = Narrowing { prelude: vec![], bounds: vec![], uniform_exits: vec![], known_preds: HashMap::new() };
    let mut needed: Vec<usize> = vec![];
    for (reg, exits_if) in leaves {
        let Some(&at) = a.def.get(&reg) else { continue };
        if let Op::Setp { cmp, ty, dst, dst_not: None, a: x, b: y, combine: None, .. } = &entry.insts[at].op {
            if *dst != reg || ty.bits() != 32 || ty.is_float() {
                continue;
            }
            let (sx, sy) = (a.operand_shape(x), a.operand_shape(y));
            // The comparison that holds for the threads that stay.
            let stay = if exits_if { negate(*cmp) } else { Some(*cmp) };
            let Some(stay) = stay else { continue };
            let bound = match (sx, sy) {
                (Shape::Affine(d), Shape::Uniform) => {
                    Some(Bound { dim: d, ty: comparison_type(*ty, *cmp), affine: *x, limit: *y, survive: unsigned_free(stay) })
                }
                (Shape::Uniform, Shape::Affine(d)) => {
                    Some(Bound { dim: d, ty: comparison_type(*ty, *cmp), affine: *y, limit: *x, survive: swap(unsigned_free(stay)) })
                }
                (Shape::Uniform, Shape::Uniform) => {
                    n.uniform_exits.push((reg, exits_if));
                    needed.push(at);
                    continue;
                }
                _ => None,
            };
            if let Some(b) = bound.filter(|b| matches!(b.survive, CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge)) {
                needed.push(at);
                n.known_preds.insert(reg, !exits_if);
                n.bounds.push(b);
            }
        }
    }
    if n.bounds.is_empty() {
        return None;
    }
    // The prelude: every instruction the bounds' operands depend on, in program order.
    let mut include = vec![false; entry.insts.len()];
    let mut work = needed;
    while let Some(i) = work.pop() {
        if std::mem::replace(&mut include[i], true) {
            continue;
        }
        let mut uses = vec![];
        crate::ir::visit::uses(&entry.insts[i].op, &mut uses);
        work.extend(uses.iter().filter_map(|r| a.def.get(r).copied()));
    }
    n.prelude = (0..entry.insts.len()).filter(|i| include[*i]).collect();
    Some(n)
}

/// Whether `b` reaches `exit`/`ret` through instruction-free blocks.
fn leads_to_exit(f: &ir::Function, mut b: ir::BlockId) -> bool {
    for _ in 0..16 {
        let block = &f.blocks[b.0 as usize];
        if !block.insts.is_empty() {
            return false;
        }
        match block.term {
            Terminator::Exit | Terminator::Return => return true,
            Terminator::Jump(next) => b = next,
            _ => return false,
        }
    }
    false
}

/// Operations a thread can skip without a visible difference (the threads outside the
/// bounds never run the entry block).
fn is_pure(op: &Op) -> bool {
    op.is_value_computation() || matches!(op, Op::Cvta { .. } | Op::Load { volatile: false, .. })
}

/// Registers defined exactly once in the function, by an unguarded entry-block instruction.
fn single_entry_defs(f: &ir::Function) -> HashMap<RegId, usize> {
    let mut count: HashMap<RegId, usize> = HashMap::new();
    for block in &f.blocks {
        for inst in &block.insts {
            let mut d = vec![];
            crate::ir::visit::defs(&inst.op, &mut d);
            for r in d {
                *count.entry(r).or_default() += 1;
            }
        }
    }
    let mut out = HashMap::new();
    for (i, inst) in f.blocks[0].insts.iter().enumerate() {
        let mut d = vec![];
        crate::ir::visit::defs(&inst.op, &mut d);
        for r in d {
            if inst.guard.is_none() && count.get(&r) == Some(&1) {
                out.insert(r, i);
            }
        }
    }
    out
}

impl Analysis<'_> {
    /// The leaves of `p` seen as an OR: (register, value for which the leaf is "true").
    fn or_leaves(&self, p: PredRef, out: &mut Vec<(RegId, bool)>, depth: u32) {
        let leaf = |out: &mut Vec<(RegId, bool)>| out.push((p.reg, !p.negated));
        let Some(&at) = self.def.get(&p.reg) else { return leaf(out) };
        if depth > 32 {
            return leaf(out);
        }
        match &self.f.blocks[0].insts[at].op {
            // OR (or a negated AND, by De Morgan) splits into its operands.
            Op::PredLogic { op: Some(op), a, b: Some(b), .. } if (*op == BoolOp::Or && !p.negated) || (*op == BoolOp::And && p.negated) => {
                for q in [*a, *b] {
                    self.or_leaves(PredRef { reg: q.reg, negated: q.negated ^ p.negated }, out, depth + 1);
                }
            }
            Op::PredLogic { op: None, a, .. } => self.or_leaves(PredRef { reg: a.reg, negated: !a.negated ^ p.negated }, out, depth + 1),
            _ => leaf(out),
        }
    }

    fn operand_shape(&mut self, o: &Operand) -> Shape {
        match o {
            Operand::Imm(_) => Shape::Uniform,
            Operand::Special(SpecialReg::Tid(d)) => Shape::Affine(*d),
            Operand::Special(SpecialReg::Ntid(_) | SpecialReg::Ctaid(_) | SpecialReg::Nctaid(_)) => Shape::Uniform,
            Operand::Reg(r) => self.reg_shape(*r, 0),
            _ => Shape::Other,
        }
    }

    fn reg_shape(&mut self, r: RegId, depth: u32) -> Shape {
        if let Some(s) = self.shapes.get(&r) {
            return *s;
        }
        let s = match self.def.get(&r) {
            Some(&at) if depth < 64 => self.def_shape(at, depth),
            _ => Shape::Other,
        };
        self.shapes.insert(r, s);
        s
    }

    fn shape_of(&mut self, o: &Operand, depth: u32) -> Shape {
        match o {
            Operand::Reg(r) => self.reg_shape(*r, depth + 1),
            other => self.operand_shape(other),
        }
    }

    fn def_shape(&mut self, at: usize, depth: u32) -> Shape {
        let f = self.f;
        let op = &f.blocks[0].insts[at].op;
        let all_uniform = |me: &mut Self, ops: &[&Operand]| ops.iter().all(|o| me.shape_of(o, depth) == Shape::Uniform);
        match op {
            // Kernel parameters are the same for every thread.
            Op::Load { space: StateSpace::Param, .. } => Shape::Uniform,
            Op::Mov { ty, src, .. } => match self.shape_of(src, depth) {
                Shape::Affine(d) if ty.bits() >= 16 => Shape::Affine(d),
                Shape::Uniform => Shape::Uniform,
                _ => Shape::Other,
            },
            // Thread indices fit in 16 bits: widening them (or a copy) keeps `tid + 0`.
            Op::Cvt { dst_ty, src_ty, src, .. } if !dst_ty.is_float() && !src_ty.is_float() => match self.shape_of(src, depth) {
                Shape::Affine(d) if matches!(src, Operand::Special(_)) && dst_ty.bits() >= 16 => Shape::Affine(d),
                Shape::Uniform => Shape::Uniform,
                _ => Shape::Other,
            },
            Op::IntBinary { op, ty, a, b, sat: false, .. } => {
                let (sa, sb) = (self.shape_of(a, depth), self.shape_of(b, depth));
                match (op, sa, sb) {
                    (_, Shape::Uniform, Shape::Uniform) => Shape::Uniform,
                    (ir::IntBinOp::Add, Shape::Affine(d), Shape::Uniform) | (ir::IntBinOp::Add, Shape::Uniform, Shape::Affine(d)) if ty.bits() == 32 => {
                        Shape::Affine(d)
                    }
                    (ir::IntBinOp::Sub, Shape::Affine(d), Shape::Uniform) if ty.bits() == 32 => Shape::Affine(d),
                    _ => Shape::Other,
                }
            }
            Op::Mad { mode: ir::MulMode::Lo, ty, sat: false, a, b, c, .. } => {
                let (sa, sb, sc) = (self.shape_of(a, depth), self.shape_of(b, depth), self.shape_of(c, depth));
                match (sa, sb, sc) {
                    (Shape::Uniform, Shape::Uniform, Shape::Uniform) => Shape::Uniform,
                    (Shape::Uniform, Shape::Uniform, Shape::Affine(d)) if ty.bits() == 32 => Shape::Affine(d),
                    _ => Shape::Other,
                }
            }
            Op::MulWide { a, b, .. } if all_uniform(self, &[a, b]) => Shape::Uniform,
            Op::IntUnary { a, .. } if all_uniform(self, &[a]) => Shape::Uniform,
            _ => Shape::Other,
        }
    }
}

/// The comparison that holds exactly when `cmp` does not (integers: no unordered case).
fn negate(cmp: CmpOp) -> Option<CmpOp> {
    Some(match cmp {
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
        CmpOp::Ge => CmpOp::Lt,
        CmpOp::Lo => CmpOp::Hs,
        CmpOp::Ls => CmpOp::Hi,
        CmpOp::Hi => CmpOp::Ls,
        CmpOp::Hs => CmpOp::Lo,
        _ => return None,
    })
}

/// `a cmp b` ⇔ `b swap(cmp) a`.
fn swap(cmp: CmpOp) -> CmpOp {
    match cmp {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

/// `lo ls hi hs` as `lt le gt ge` (their signedness is in `comparison_type`).
fn unsigned_free(cmp: CmpOp) -> CmpOp {
    match cmp {
        CmpOp::Lo => CmpOp::Lt,
        CmpOp::Ls => CmpOp::Le,
        CmpOp::Hi => CmpOp::Gt,
        CmpOp::Hs => CmpOp::Ge,
        other => other,
    }
}

/// The type whose signedness the comparison uses (`lo ls hi hs` and `.b32`/`.u32` are unsigned).
fn comparison_type(ty: ScalarType, cmp: CmpOp) -> ScalarType {
    if ty.is_signed() && !matches!(cmp, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs) {
        ScalarType::S32
    } else {
        ScalarType::U32
    }
}

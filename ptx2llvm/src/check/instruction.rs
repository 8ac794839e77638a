//! Instruction forms: opcode + modifiers + operands → an `ir::Op` (or a terminator).
//!
//! Modifiers may come in any order; each handler takes the ones it understands from a
//! `Mods` list, and whatever is left is reported as an unknown modifier.

use super::forms::{self, FormError};
use super::function::{FnScope, LocalOrGlobal, LocalSymbol};
use super::operands::Width;
use crate::front::ast::{self, Operand as A, Spanned};
use crate::ir::{self, BoolOp, CmpOp, IntBinOp, IntUnOp, MulMode, Op, Rounding, ScalarType, StateSpace};

pub(crate) enum Converted {
    Inst(ir::Inst),
    /// Several instructions in order (each with its own guard).
    Insts(Vec<ir::Inst>),
    Term(PendingTerm, Option<ir::PredRef>),
    /// Unguarded instructions that compute an operand of the terminator (the address a
    /// warp matrix instruction reads), then the terminator.
    Prepared(Vec<ir::Inst>, PendingTerm, Option<ir::PredRef>),
}

/// A terminator whose label is not resolved yet.
pub(crate) enum PendingTerm {
    Branch(String, ast::Span),
    Exit,
    Return,
    Sync(ir::SyncPoint),
    /// `brx.idx`: `targets` are the labels of its `.branchtargets` list; `scratch` is a
    /// predicate register for the comparisons it becomes.
    Indirect {
        index: ir::Operand,
        targets: Vec<(String, ast::Span)>,
        scratch: ir::RegId,
    },
}

/// The modifiers of one instruction, consumed by its handler.
pub(super) struct Mods<'a> {
    list: Vec<(&'a str, &'a ast::Span, bool)>,
}

impl<'a> Mods<'a> {
    pub(super) fn new(m: &'a [Spanned<String>]) -> Self {
        Mods { list: m.iter().map(|s| (s.node.as_str(), &s.span, false)).collect() }
    }

    pub(super) fn has(&mut self, name: &str) -> bool {
        for m in &mut self.list {
            if !m.2 && m.0 == name {
                m.2 = true;
                return true;
            }
        }
        false
    }

    pub(super) fn one_of(&mut self, names: &[&'static str]) -> Option<&'static str> {
        for m in &mut self.list {
            if !m.2 {
                if let Some(n) = names.iter().find(|n| **n == m.0) {
                    m.2 = true;
                    return Some(n);
                }
            }
        }
        None
    }

    /// All type modifiers in order.
    pub(super) fn types(&mut self) -> Vec<ScalarType> {
        let mut out = vec![];
        for m in &mut self.list {
            if !m.2 {
                if let Some(t) = ScalarType::from_name(m.0) {
                    m.2 = true;
                    out.push(t);
                }
            }
        }
        out
    }

    /// Consumes modifiers that only give hints to the hardware (caching, eviction, scope).
    pub(super) fn drop_hints(&mut self) {
        for m in &mut self.list {
            if !m.2
                && (matches!(
                    m.0,
                    ".ca"
                        | ".cg"
                        | ".cs"
                        | ".lu"
                        | ".cv"
                        | ".wb"
                        | ".wt"
                        | ".nc"
                        | ".weak"
                        | ".relaxed"
                        | ".acquire"
                        | ".release"
                        | ".cta"
                        | ".gpu"
                        | ".sys"
                        | ".cluster"
                        | ".uni"
                        | ".level::cache_hint"
                        | ".L2::cache_hint"
                ) || m.0.starts_with(".L1::")
                    || m.0.starts_with(".L2::"))
            {
                m.2 = true;
            }
        }
    }

    /// Whether the handler understood every modifier. The form table has already checked
    /// that they make a valid form, so a leftover one is a form the handler does not
    /// translate: `convert` turns the instruction into `Op::Unsupported`.
    pub(super) fn finish(self) -> bool {
        self.list.iter().all(|(_, _, used)| *used)
    }
}

pub(super) fn expect_operands(scope: &mut FnScope, inst: &ast::Instruction, counts: &[usize]) -> bool {
    let n = inst.operands.len();
    if counts.contains(&n) {
        return true;
    }
    let want = counts.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" or ");
    scope.error(inst.span.clone(), format!("`{}` expects {want} operands, found {n}", inst.opcode.node));
    false
}

pub(super) fn one_type(scope: &mut FnScope, mods: &mut Mods, inst: &ast::Instruction) -> Option<ScalarType> {
    let t = mods.types();
    if t.len() == 1 {
        return Some(t[0]);
    }
    scope.error(inst.opcode.span.clone(), format!("`{}` needs exactly one type modifier, found {}", inst.opcode.node, t.len()));
    None
}

pub(super) fn rounding(mods: &mut Mods) -> Option<Rounding> {
    mods.one_of(&[".rn", ".rz", ".rm", ".rp"]).map(|r| match r {
        ".rn" => Rounding::NearestEven,
        ".rz" => Rounding::TowardZero,
        ".rm" => Rounding::Down,
        _ => Rounding::Up,
    })
}

pub(super) fn space(mods: &mut Mods) -> StateSpace {
    match mods.one_of(&[".global", ".shared", ".shared::cta", ".shared::cluster", ".local", ".param", ".const", ".param::entry", ".param::func"]) {
        Some(".global") => StateSpace::Global,
        // A cluster is one block here, so its shared window is the block's.
        Some(".shared") | Some(".shared::cta") | Some(".shared::cluster") => StateSpace::Shared,
        Some(".local") => StateSpace::Local,
        Some(".param") | Some(".param::entry") | Some(".param::func") => StateSpace::Param,
        Some(".const") => StateSpace::Const,
        _ => StateSpace::Generic,
    }
}

pub(crate) fn convert(scope: &mut FnScope, inst: &ast::Instruction) -> Option<Converted> {
    let errors_before = scope.diagnostic_count();
    let converted = convert_form(scope, inst);
    if converted.is_none() && scope.diagnostic_count() == errors_before {
        // A valid form (the table said so) that the handler does not translate.
        return unsupported(scope, inst, None, format!("`{}`", full_name(inst)));
    }
    converted
}

fn convert_form(scope: &mut FnScope, inst: &ast::Instruction) -> Option<Converted> {
    let guard = match &inst.guard {
        None => None,
        Some(g) => {
            let op = Spanned::new(A::Name { name: g.pred.node.clone(), component: None }, g.pred.span.clone());
            let mut p = scope.pred(&op)?;
            p.negated = g.negated;
            Some(p)
        }
    };
    let opcode = inst.opcode.node.as_str();
    check_form(scope, inst)?;
    let mut mods = Mods::new(&inst.modifiers);
    let ops = &inst.operands;
    let op = match opcode {
        "bra" => {
            mods.has(".uni");
            if !mods.finish() || !expect_operands(scope, inst, &[1]) {
                return None;
            }
            return match &ops[0].node {
                A::Name { name, component: None } => Some(Converted::Term(PendingTerm::Branch(name.clone(), ops[0].span.clone()), guard)),
                _ => {
                    scope.error(ops[0].span.clone(), "expected a label");
                    None
                }
            };
        }
        "exit" | "ret" => {
            mods.has(".uni");
            if !mods.finish() || !expect_operands(scope, inst, &[0]) {
                return None;
            }
            let t = if opcode == "exit" { PendingTerm::Exit } else { PendingTerm::Return };
            return Some(Converted::Term(t, guard));
        }
        "bar" | "barrier" => return barrier(scope, inst, mods, guard),
        "mov" => {
            let lanes = mods.one_of(&[".v2", ".v4"]).map(|v| if v == ".v2" { 2 } else { 4 });
            let ty = one_type(scope, &mut mods, inst)?;
            if !mods.finish() || !expect_operands(scope, inst, &[2]) {
                return None;
            }
            // A vector register (`.reg .v2 .b16 %h`) on either side is the list of its
            // components: `mov.v2.f32 %b, %a` moves each one, `mov.b32 %h, %r` unpacks.
            let named_vector = |op: &Spanned<A>| match &op.node {
                A::Name { name, component: None } => matches!(scope.lookup(name), Some(LocalOrGlobal::Local(LocalSymbol::Vector(..)))),
                _ => false,
            };
            if let Some(n) = lanes {
                let (d, a) = (scope.vector_elements(&ops[0]), scope.vector_elements(&ops[1]));
                if d.len() != n || a.len() != n {
                    scope.error(inst.span.clone(), format!("`mov.v{n}` needs vectors of {n} elements on both sides"));
                    return None;
                }
                let mut insts = vec![];
                for (d, a) in d.iter().zip(&a) {
                    let dst = scope.dst(d, ty, Width::Exact)?;
                    let src = scope.src(a, ty, Width::Exact)?;
                    insts.push(ir::Inst { guard, op: Op::Mov { ty, dst, src }, span: inst.span.clone() });
                }
                return Some(Converted::Insts(insts));
            }
            if named_vector(&ops[0]) || named_vector(&ops[1]) {
                let mut expanded = inst.clone();
                for op in expanded.operands.iter_mut() {
                    if named_vector(op) {
                        *op = Spanned::new(A::Vector(scope.vector_elements(op)), op.span.clone());
                    }
                }
                return super::integer::mov_vector(scope, &expanded, ty, guard);
            }
            if matches!(ops[0].node, A::Vector(_)) || matches!(ops[1].node, A::Vector(_)) {
                return super::integer::mov_vector(scope, inst, ty, guard);
            }
            Op::Mov { ty, dst: scope.dst(&ops[0], ty, Width::Exact)?, src: scope.src(&ops[1], ty, Width::Exact)? }
        }
        _ if super::half::handles(inst) => return super::half::convert(scope, inst, mods, guard),
        "add" | "sub" | "mul" | "div" | "min" | "max" | "mad" | "fma" | "neg" | "abs" | "sqrt" | "rcp" | "rsqrt" | "sin" | "cos" | "lg2" | "ex2" | "tanh"
        | "copysign" | "testp"
            if super::float::is_float_form(inst) =>
        {
            return super::float::convert(scope, inst, mods, guard);
        }
        "add" | "sub" | "mad" if super::integer::has_modifier(inst, &[".cc"]) => return super::integer::carry(scope, inst, mods, guard),
        "addc" | "subc" | "madc" => return super::integer::carry(scope, inst, mods, guard),
        "add" | "sub" | "min" | "max" if super::integer::has_modifier(inst, &[".u16x2", ".s16x2", ".relu"]) => {
            return super::integer::lanes(scope, inst, mods, guard);
        }
        "add" | "sub" | "mul" | "div" | "rem" | "and" | "or" | "xor" | "shl" | "shr" | "min" | "max" => {
            return arith(scope, inst, mods, guard);
        }
        "mul24" | "mad24" => return super::integer::mul24(scope, inst, mods, guard),
        "sad" => return super::integer::sad(scope, inst, mods, guard),
        "bfind" => return super::integer::bfind(scope, inst, mods, guard),
        "fns" => return super::integer::fns(scope, inst, mods, guard),
        "bfe" | "bfi" => return super::integer::bitfield(scope, inst, mods, guard),
        "szext" | "bmsk" => return super::integer::extend_mask(scope, inst, mods, guard),
        "dp4a" | "dp2a" => return super::integer::dot(scope, inst, mods, guard),
        "shf" => return super::integer::shf(scope, inst, mods, guard),
        "prmt" => return super::integer::prmt(scope, inst, mods, guard),
        "lop3" => return super::integer::lop3(scope, inst, mods, guard),
        "set" => return super::integer::set(scope, inst, mods, guard),
        "slct" => return super::integer::slct(scope, inst, mods, guard),
        "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vset" => return super::integer::video(scope, inst, mods, guard),
        "vmad" => return super::integer::vmad(scope, inst, mods, guard),
        "vadd2" | "vadd4" | "vsub2" | "vsub4" | "vavrg2" | "vavrg4" | "vabsdiff2" | "vabsdiff4" | "vmin2" | "vmin4" | "vmax2" | "vmax4" | "vset2" | "vset4" => {
            return super::integer::video_simd(scope, inst, mods, guard);
        }
        "mad" | "fma" => return mad(scope, inst, mods, guard),
        "not" | "cnot" | "neg" | "abs" | "popc" | "clz" | "brev" | "sqrt" | "rcp" => return unary(scope, inst, mods, guard),
        "setp" => return setp(scope, inst, mods, guard),
        "selp" => {
            let ty = one_type(scope, &mut mods, inst)?;
            if !mods.finish() || !expect_operands(scope, inst, &[4]) {
                return None;
            }
            Op::Selp {
                ty,
                dst: scope.dst(&ops[0], ty, Width::Exact)?,
                a: scope.src(&ops[1], ty, Width::Exact)?,
                b: scope.src(&ops[2], ty, Width::Exact)?,
                cond: scope.pred(&ops[3])?,
            }
        }
        "cvt" => return super::convert::cvt(scope, inst, mods, guard),
        "isspacep" => {
            let sp = space(&mut mods);
            mods.one_of(&[".shared::cluster"]);
            if !mods.finish() || !expect_operands(scope, inst, &[2]) {
                return None;
            }
            if sp == StateSpace::Generic {
                scope.error(inst.opcode.span.clone(), "`isspacep` needs a state space");
                return None;
            }
            Op::IsSpace { space: sp, dst: scope.dst(&ops[0], ScalarType::Pred, Width::Exact)?, a: scope.src(&ops[1], ScalarType::U64, Width::Exact)? }
        }
        "cvta" => {
            let to = mods.has(".to");
            let sp = space(&mut mods);
            let ty = one_type(scope, &mut mods, inst)?;
            if !mods.finish() || !expect_operands(scope, inst, &[2]) {
                return None;
            }
            if sp == StateSpace::Generic {
                scope.error(inst.opcode.span.clone(), "`cvta` needs a state space (`.global`, `.shared`, `.local`, `.const`, `.param`)");
                return None;
            }
            if !matches!(ty, ScalarType::U32 | ScalarType::U64) {
                scope.error(inst.opcode.span.clone(), "`cvta` type must be `.u32` or `.u64`");
                return None;
            }
            Op::Cvta { to_generic: !to, space: sp, ty, dst: scope.dst(&ops[0], ty, Width::Exact)?, src: scope.src(&ops[1], ty, Width::Exact)? }
        }
        "alloca" | "stacksave" | "stackrestore" => {
            mods.has(".local");
            let ty = one_type(scope, &mut mods, inst)?;
            let counts: &[usize] = match opcode {
                "alloca" => &[2, 3],
                _ => &[1],
            };
            if !mods.finish() || !expect_operands(scope, inst, counts) {
                return None;
            }
            if !matches!(ty, ScalarType::U32 | ScalarType::U64) {
                scope.error(inst.opcode.span.clone(), format!("`{opcode}` type must be `.u32` or `.u64`"));
                return None;
            }
            match opcode {
                "alloca" => {
                    let align = match ops.get(2) {
                        None => 8,
                        Some(op) => match scope.src(op, ScalarType::U32, Width::Exact)? {
                            ir::Operand::Imm(a) if a.is_power_of_two() && a <= 1 << 16 => a as u32,
                            ir::Operand::Imm(_) => {
                                scope.error(op.span.clone(), "the alignment of `alloca` must be a power of two (at most 65536)");
                                return None;
                            }
                            _ => {
                                scope.error(op.span.clone(), "the alignment of `alloca` must be an immediate");
                                return None;
                            }
                        },
                    };
                    Op::Alloca { ty, dst: scope.dst(&ops[0], ty, Width::Exact)?, size: scope.src(&ops[1], ty, Width::Exact)?, align }
                }
                "stacksave" => Op::StackSave { ty, dst: scope.dst(&ops[0], ty, Width::Exact)? },
                _ => Op::StackRestore { ty, a: scope.src(&ops[0], ty, Width::Exact)? },
            }
        }
        "ld" | "ldu" | "st" => return load_store(scope, inst, mods, guard),
        "prefetch" | "prefetchu" => return prefetch(scope, inst, mods, guard),
        "createpolicy" => return createpolicy(scope, inst, mods, guard),
        "discard" | "applypriority" => return cache_control(scope, inst, mods, guard),
        "brx" => return brx(scope, inst, mods, guard),
        "call" => return super::call::call(scope, inst, mods, guard),
        "shfl" | "vote" | "match" | "redux" | "activemask" | "elect" => return super::warp::collective(scope, inst, mods, guard),
        "mma" | "wmma" | "ldmatrix" | "stmatrix" | "movmatrix" => return super::matrix::warp_matrix(scope, inst, mods, guard),
        "cp" => return super::matrix::async_copy(scope, inst, mods, guard),
        "mbarrier" => return super::mbarrier::mbarrier(scope, inst, mods, guard),
        "atom" | "red" => return super::atomic::atom(scope, inst, mods, guard),
        "getctarank" => return super::cluster::getctarank(scope, inst, mods, guard),
        "mapa" => return super::cluster::mapa(scope, inst, mods, guard),
        "multimem" => return super::multimem::multimem(scope, inst, mods, guard),
        "griddepcontrol" => return super::cluster::griddepcontrol(scope, inst, mods, guard),
        "setmaxnreg" => return super::cluster::setmaxnreg(scope, inst, mods, guard),
        "membar" | "fence" => return super::atomic::fence(scope, inst, mods, guard),
        "trap" => Op::Trap,
        "brkpt" => {
            if !mods.finish() || !expect_operands(scope, inst, &[0]) {
                return None;
            }
            Op::Breakpoint
        }
        // A performance-monitor event: no counters are kept (`%pm0`..`%pm7` read 0).
        "pmevent" => {
            drop_all(&mut mods);
            if !expect_operands(scope, inst, &[1]) {
                return None;
            }
            scope.src(&ops[0], ScalarType::U32, Width::Exact)?;
            Op::Nop
        }
        "nanosleep" => {
            mods.has(".u32");
            if !mods.finish() || !expect_operands(scope, inst, &[1]) {
                return None;
            }
            Op::Nanosleep { ns: scope.src(&ops[0], ScalarType::U32, Width::Exact)? }
        }
        "tex" | "tld4" | "txq" | "suld" | "sust" | "sured" | "suq" | "istypep" => return super::texture::convert(scope, inst, mods, guard),
        // `check_form` rejected unknown opcodes: this one exists, lowering lacks it.
        _ => return unsupported(scope, inst, guard, format!("`{opcode}`")),
    };
    Some(Converted::Inst(ir::Inst { guard, op, span: inst.span.clone() }))
}

/// Checks an instruction against the ISA's forms (`forms`): known opcode, modifiers that
/// make a form together, the form's operand count, and the `.version`/`.target` it needs.
fn check_form(scope: &mut FnScope, inst: &ast::Instruction) -> Option<()> {
    let opcode = inst.opcode.node.as_str();
    let names: Vec<&str> = inst.modifiers.iter().map(|m| m.node.as_str()).collect();
    let file = forms::FileTarget::declared(scope.cx.out.version, scope.cx.out.targets.iter().map(String::as_str));
    let form = match forms::match_form(opcode, &names, Some(inst.operands.len()), &file) {
        Ok(form) => form,
        Err(e) => {
            let span = match &e {
                FormError::UnknownModifier { index } | FormError::DuplicateModifier { index } => inst.modifiers[*index].span.clone(),
                _ => inst.opcode.span.clone(),
            };
            scope.error(span, e.message(opcode, &names));
            return None;
        }
    };
    let n = inst.operands.len();
    if !form.operands.contains(&n) {
        let (lo, hi) = (*form.operands.start(), *form.operands.end());
        let want = if lo == hi { lo.to_string() } else { format!("{lo} to {hi}") };
        scope.error(inst.span.clone(), format!("`{}` expects {want} operands, found {n}", full_name(inst)));
        return None;
    }
    let version = scope.cx.out.version;
    let needs = |(major, minor): (u32, u32)| format!("{major}.{minor}");
    if version < form.min_version {
        let on = form.min_version_on.map(|sm| format!(" on `sm_{sm}`")).unwrap_or_default();
        let msg = format!(
            "`{}` requires PTX ISA version {} or later{on} (the file declares `.version {}`)",
            full_name(inst),
            needs(form.min_version),
            needs(version)
        );
        scope.error(inst.opcode.span.start..inst.span.end, msg);
        return None;
    }
    if let Some(max) = form.max_version.filter(|m| version > *m) {
        let msg =
            format!("this form of `{}` was removed after PTX ISA version {} (the file declares `.version {}`)", full_name(inst), needs(max), needs(version));
        scope.error(inst.opcode.span.start..inst.span.end, msg);
        return None;
    }
    // Before the minimum: the targets that have the feature say more than their lowest number.
    if let Some(missing) = form.missing_feature(&file) {
        scope.error(inst.opcode.span.start..inst.span.end, missing.message(&full_name(inst), &file));
        return None;
    }
    if let Some(sm) = scope.cx.target_sm {
        if sm < form.min_sm {
            let msg = format!("`{}` requires `.target sm_{}` or higher (the file targets `sm_{sm}`)", full_name(inst), form.min_sm);
            scope.error(inst.opcode.span.start..inst.span.end, msg);
            return None;
        }
        if let Some(max) = form.max_sm.filter(|m| sm > *m) {
            let msg = format!("this form of `{}` is only valid up to `sm_{max}` (the file targets `sm_{sm}`)", full_name(inst));
            scope.error(inst.opcode.span.start..inst.span.end, msg);
            return None;
        }
    }
    Some(())
}

/// `opcode.mod1.mod2` as written.
fn full_name(inst: &ast::Instruction) -> String {
    let mut s = inst.opcode.node.clone();
    for m in &inst.modifiers {
        s.push_str(&m.node);
    }
    s
}

/// A valid instruction that lowering cannot translate yet: its names are still resolved
/// (so `-fsyntax-only` reports undeclared ones), and lowering reports `not supported yet: <what>`.
pub(super) fn unsupported(scope: &mut FnScope, inst: &ast::Instruction, guard: Option<ir::PredRef>, what: impl Into<String>) -> Option<Converted> {
    let mut ok = true;
    for op in &inst.operands {
        ok &= scope.resolve_any(op);
    }
    ok.then(|| Converted::Inst(ir::Inst { guard, op: Op::Unsupported { what: what.into() }, span: inst.span.clone() }))
}

/// Marks every modifier as consumed (forms whose modifiers carry no meaning here).
pub(super) fn drop_all(mods: &mut Mods) {
    for m in &mut mods.list {
        m.2 = true;
    }
}

pub(super) fn done(guard: Option<ir::PredRef>, op: Op, inst: &ast::Instruction) -> Option<Converted> {
    Some(Converted::Inst(ir::Inst { guard, op, span: inst.span.clone() }))
}

fn barrier(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let aligned = opcode == "bar" || mods.has(".aligned");
    mods.has(".cta");
    let ops = &inst.operands;
    let kind = match mods.one_of(&[".sync", ".arrive", ".red", ".warp"]) {
        Some(".sync") => ir::BarrierKind::Sync,
        Some(".arrive") => ir::BarrierKind::Arrive,
        Some(".red") => {
            let op = match mods.one_of(&[".popc", ".and", ".or"]) {
                Some(".popc") => ir::BarRedOp::Popc,
                Some(".and") => ir::BarRedOp::And,
                Some(".or") => ir::BarRedOp::Or,
                _ => {
                    scope.error(inst.opcode.span.clone(), format!("`{opcode}.red` needs `.popc`, `.and` or `.or`"));
                    return None;
                }
            };
            let ty = one_type(scope, &mut mods, inst)?;
            let want = if op == ir::BarRedOp::Popc { ScalarType::U32 } else { ScalarType::Pred };
            if ty != want {
                scope.error(inst.opcode.span.clone(), format!("`{opcode}.red` with this operation writes `{}`, not `{}`", want.name(), ty.name()));
                return None;
            }
            if !mods.finish() || !expect_operands(scope, inst, &[3, 4]) {
                return None;
            }
            let dst = scope.dst(&ops[0], ty, Width::Exact)?;
            let pred = scope.pred(&ops[ops.len() - 1])?;
            let (id, count) = barrier_id_count(scope, &ops[1..ops.len() - 1])?;
            let b = ir::Barrier { id, count, aligned, kind: ir::BarrierKind::Red { op, dst, pred } };
            return Some(Converted::Term(PendingTerm::Sync(ir::SyncPoint::Barrier(b)), guard));
        }
        Some(_) => {
            // bar.warp.sync membermask
            mods.has(".sync");
            if !mods.finish() || !expect_operands(scope, inst, &[1]) {
                return None;
            }
            let mask = scope.src(&ops[0], ScalarType::B32, Width::Exact)?;
            return Some(Converted::Term(PendingTerm::Sync(ir::SyncPoint::Warp(ir::WarpOp::WarpSync { mask })), guard));
        }
        // `bar 0;` in old PTX is `bar.sync 0;`
        None if opcode == "bar" => ir::BarrierKind::Sync,
        None => {
            scope.error(inst.opcode.span.clone(), "`barrier` needs `.sync`, `.arrive` or `.red`");
            return None;
        }
    };
    if !mods.finish() || !expect_operands(scope, inst, &[1, 2]) {
        return None;
    }
    let (id, count) = barrier_id_count(scope, ops)?;
    if kind == ir::BarrierKind::Arrive && count.is_none() {
        scope.error(inst.span.clone(), "`bar.arrive` needs a thread count");
        return None;
    }
    Some(Converted::Term(PendingTerm::Sync(ir::SyncPoint::Barrier(ir::Barrier { id, count, aligned, kind })), guard))
}

/// A barrier's id (0–15) and optional thread count (a positive multiple of 32).
fn barrier_id_count(scope: &mut FnScope, ops: &[Spanned<A>]) -> Option<(ir::Operand, Option<ir::Operand>)> {
    let id = scope.src(&ops[0], ScalarType::U32, Width::Exact)?;
    if let ir::Operand::Imm(v) = id {
        if v > 15 {
            scope.error(ops[0].span.clone(), format!("barrier id must be in 0..=15, not {v}"));
            return None;
        }
    }
    let count = match ops.get(1) {
        Some(c) => Some(scope.src(c, ScalarType::U32, Width::Exact)?),
        None => None,
    };
    if let Some(ir::Operand::Imm(v)) = count {
        if v == 0 || v % 32 != 0 {
            scope.error(ops[1].span.clone(), format!("barrier thread count must be a positive multiple of 32, not {v}"));
            return None;
        }
    }
    Some((id, count))
}

/// The destinations of `setp`: `p`, or `p|q` (each a predicate register).
pub(super) fn setp_destinations(scope: &mut FnScope, op: &Spanned<A>) -> Option<(ir::RegId, Option<ir::RegId>)> {
    match &op.node {
        A::Pair(a, b) => {
            let pa = Spanned::new(A::Name { name: a.clone(), component: None }, op.span.clone());
            let pb = Spanned::new(A::Name { name: b.clone(), component: None }, op.span.clone());
            Some((scope.dst(&pa, ScalarType::Pred, Width::Exact)?, Some(scope.dst(&pb, ScalarType::Pred, Width::Exact)?)))
        }
        _ => Some((scope.dst(op, ScalarType::Pred, Width::Exact)?, None)),
    }
}

fn arith(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let ops = &inst.operands;
    let mode = if opcode == "mul" { mods.one_of(&[".lo", ".hi", ".wide"]) } else { None };
    let ty = one_type(scope, &mut mods, inst)?;
    if ty.is_float() {
        // `.f32`/`.f64` forms go to `float::convert`; these are the narrower float types.
        return unsupported(scope, inst, guard, format!("`{opcode}{}`", ty.name()));
    }
    let sat = mods.has(".sat");
    if sat && !(ty == ScalarType::S32 && matches!(opcode, "add" | "sub")) {
        scope.error(inst.opcode.span.clone(), "`.sat` is only allowed on `add.s32`/`sub.s32`");
        return None;
    }
    if !mods.finish() || !expect_operands(scope, inst, &[3]) {
        return None;
    }
    if ty == ScalarType::Pred {
        let op = match opcode {
            "and" => BoolOp::And,
            "or" => BoolOp::Or,
            "xor" => BoolOp::Xor,
            _ => {
                scope.error(inst.opcode.span.clone(), format!("`{opcode}` does not take `.pred`"));
                return None;
            }
        };
        let op = Op::PredLogic { op: Some(op), dst: scope.dst(&ops[0], ty, Width::Exact)?, a: scope.pred(&ops[1])?, b: Some(scope.pred(&ops[2])?) };
        return done(guard, op, inst);
    }
    let bits_only = matches!(opcode, "and" | "or" | "xor");
    if bits_only && ty.kind() != ir::TypeKind::Bits {
        scope.error(inst.opcode.span.clone(), format!("`{opcode}` takes `.b16`, `.b32`, `.b64` or `.pred`, not `{}`", ty.name()));
        return None;
    }
    if matches!(opcode, "shl" | "shr") {
        let dst = scope.dst(&ops[0], ty, Width::Exact)?;
        let a = scope.src(&ops[1], ty, Width::Exact)?;
        let b = scope.src(&ops[2], ScalarType::U32, Width::Exact)?;
        let op = if opcode == "shl" { IntBinOp::Shl } else { IntBinOp::Shr };
        return done(guard, Op::IntBinary { op, ty, sat, dst, a, b }, inst);
    }
    if ty.kind() == ir::TypeKind::Bits && !bits_only && !matches!(opcode, "add" | "sub") {
        scope.error(inst.opcode.span.clone(), format!("`{opcode}` needs a signed or unsigned type, not `{}`", ty.name()));
        return None;
    }
    if mode == Some(".wide") {
        if ty.bits() > 32 {
            scope.error(inst.opcode.span.clone(), "`mul.wide` takes 16- or 32-bit types");
            return None;
        }
        let wide = ScalarType::int(ty.bits() * 2, ty.is_signed()).expect("16/32-bit int");
        let op = Op::MulWide {
            ty,
            dst: scope.dst(&ops[0], wide, Width::Exact)?,
            a: scope.src(&ops[1], ty, Width::Exact)?,
            b: scope.src(&ops[2], ty, Width::Exact)?,
        };
        return done(guard, op, inst);
    }
    if opcode == "mul" && mode.is_none() {
        scope.error(inst.opcode.span.clone(), "integer `mul` needs `.lo`, `.hi` or `.wide`");
        return None;
    }
    let op = match (opcode, mode) {
        ("add", _) => IntBinOp::Add,
        ("sub", _) => IntBinOp::Sub,
        ("mul", Some(".hi")) => IntBinOp::MulHi,
        ("mul", _) => IntBinOp::MulLo,
        ("div", _) => IntBinOp::Div,
        ("rem", _) => IntBinOp::Rem,
        ("and", _) => IntBinOp::And,
        ("or", _) => IntBinOp::Or,
        ("xor", _) => IntBinOp::Xor,
        ("min", _) => IntBinOp::Min,
        _ => IntBinOp::Max,
    };
    let op = Op::IntBinary {
        op,
        ty,
        sat,
        dst: scope.dst(&ops[0], ty, Width::Exact)?,
        a: scope.src(&ops[1], ty, Width::Exact)?,
        b: scope.src(&ops[2], ty, Width::Exact)?,
    };
    done(guard, op, inst)
}

fn mad(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let ops = &inst.operands;
    let mode = mods.one_of(&[".lo", ".hi", ".wide"]);
    // Float modifiers are consumed so that a narrower float type reaches `unsupported`.
    let _float_rounding = rounding(&mut mods);
    let _ftz = mods.has(".ftz");
    let sat = mods.has(".sat");
    let ty = one_type(scope, &mut mods, inst)?;
    if !mods.finish() || !expect_operands(scope, inst, &[4]) {
        return None;
    }
    if ty.is_float() {
        // `.f32`/`.f64` forms go to `float::convert`; these are the narrower float types.
        return unsupported(scope, inst, guard, format!("this form of `{opcode}{}`", ty.name()));
    }
    if opcode == "fma" || ty.kind() != ir::TypeKind::Unsigned && ty.kind() != ir::TypeKind::Signed {
        scope.error(inst.opcode.span.clone(), format!("`{opcode}` does not take `{}`", ty.name()));
        return None;
    }
    if sat && !(mode == Some(".hi") && ty == ScalarType::S32) {
        scope.error(inst.opcode.span.clone(), "`.sat` is only allowed on `mad.hi.s32`");
        return None;
    }
    let mode = match mode {
        Some(".hi") => MulMode::Hi,
        Some(".wide") => MulMode::Wide,
        Some(_) => MulMode::Lo,
        None => {
            scope.error(inst.opcode.span.clone(), "integer `mad` needs `.lo`, `.hi` or `.wide`");
            return None;
        }
    };
    let wide_ty = if mode == MulMode::Wide {
        match ScalarType::int(ty.bits() * 2, ty.is_signed()) {
            Some(t) if ty.bits() <= 32 => t,
            _ => {
                scope.error(inst.opcode.span.clone(), "`mad.wide` takes 16- or 32-bit types");
                return None;
            }
        }
    } else {
        ty
    };
    let op = Op::Mad {
        mode,
        ty,
        sat,
        dst: scope.dst(&ops[0], wide_ty, Width::Exact)?,
        a: scope.src(&ops[1], ty, Width::Exact)?,
        b: scope.src(&ops[2], ty, Width::Exact)?,
        c: scope.src(&ops[3], wide_ty, Width::Exact)?,
    };
    done(guard, op, inst)
}

fn unary(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let ops = &inst.operands;
    // Float modifiers are consumed so that a narrower float type reaches `unsupported`.
    let _float_rounding = rounding(&mut mods);
    let _approx = mods.has(".approx");
    let _ftz = mods.has(".ftz");
    let ty = one_type(scope, &mut mods, inst)?;
    if !mods.finish() || !expect_operands(scope, inst, &[2]) {
        return None;
    }
    if ty == ScalarType::Pred && opcode == "not" {
        let op = Op::PredLogic { op: None, dst: scope.dst(&ops[0], ty, Width::Exact)?, a: scope.pred(&ops[1])?, b: None };
        return done(guard, op, inst);
    }
    if ty.is_float() {
        // `.f32`/`.f64` forms go to `float::convert`; these are the narrower float types.
        return unsupported(scope, inst, guard, format!("this form of `{opcode}{}`", ty.name()));
    }
    let op = match opcode {
        "not" => IntUnOp::Not,
        "cnot" => IntUnOp::CNot,
        "neg" => IntUnOp::Neg,
        "abs" => IntUnOp::Abs,
        "popc" => IntUnOp::Popc,
        "clz" => IntUnOp::Clz,
        "brev" => IntUnOp::Brev,
        _ => {
            scope.error(inst.opcode.span.clone(), format!("`{opcode}` does not take `{}`", ty.name()));
            return None;
        }
    };
    // popc and clz write a .u32 whatever the source width.
    let dst_ty = if matches!(op, IntUnOp::Popc | IntUnOp::Clz) { ScalarType::U32 } else { ty };
    let op = Op::IntUnary { op, ty, dst: scope.dst(&ops[0], dst_ty, Width::Exact)?, a: scope.src(&ops[1], ty, Width::Exact)? };
    done(guard, op, inst)
}

pub(super) fn cmp_op(name: &str) -> Option<CmpOp> {
    Some(match name {
        ".eq" => CmpOp::Eq,
        ".ne" => CmpOp::Ne,
        ".lt" => CmpOp::Lt,
        ".le" => CmpOp::Le,
        ".gt" => CmpOp::Gt,
        ".ge" => CmpOp::Ge,
        ".lo" => CmpOp::Lo,
        ".ls" => CmpOp::Ls,
        ".hi" => CmpOp::Hi,
        ".hs" => CmpOp::Hs,
        ".equ" => CmpOp::Equ,
        ".neu" => CmpOp::Neu,
        ".ltu" => CmpOp::Ltu,
        ".leu" => CmpOp::Leu,
        ".gtu" => CmpOp::Gtu,
        ".geu" => CmpOp::Geu,
        ".num" => CmpOp::Num,
        ".nan" => CmpOp::Nan,
        _ => return None,
    })
}

fn setp(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let ops = &inst.operands;
    let cmp =
        mods.one_of(&[".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi", ".hs", ".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan"]);
    let Some(cmp) = cmp.and_then(cmp_op) else {
        scope.error(inst.opcode.span.clone(), "`setp` needs a comparison operator (`.eq`, `.lt`, ...)");
        return None;
    };
    let combine = mods.one_of(&[".and", ".or", ".xor"]).map(|b| match b {
        ".and" => BoolOp::And,
        ".or" => BoolOp::Or,
        _ => BoolOp::Xor,
    });
    let ftz = mods.has(".ftz");
    let ty = one_type(scope, &mut mods, inst)?;
    if !mods.finish() || !expect_operands(scope, inst, if combine.is_some() { &[4] } else { &[3] }) {
        return None;
    }
    let unsigned_only = matches!(cmp, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs);
    let float_only = matches!(cmp, CmpOp::Equ | CmpOp::Neu | CmpOp::Ltu | CmpOp::Leu | CmpOp::Gtu | CmpOp::Geu | CmpOp::Num | CmpOp::Nan);
    if (unsigned_only && ty.is_float()) || (float_only && !ty.is_float()) {
        scope.error(inst.opcode.span.clone(), format!("comparison is not valid for `{}`", ty.name()));
        return None;
    }
    if ty.is_float() && !matches!(ty, ScalarType::F32 | ScalarType::F64) {
        return unsupported(scope, inst, guard, format!("`setp{}`", ty.name()));
    }
    let (dst, dst_not) = setp_destinations(scope, &ops[0])?;
    let a = scope.src(&ops[1], ty, Width::Exact)?;
    let b = scope.src(&ops[2], ty, Width::Exact)?;
    let combine = match combine {
        Some(op) => Some((op, scope.pred(&ops[3])?)),
        None => None,
    };
    done(guard, Op::Setp { cmp, ty, ftz, dst, dst_not, a, b, combine }, inst)
}

fn load_store(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let ops = &inst.operands;
    let sp = space(&mut mods);
    let volatile = mods.has(".volatile");
    let mmio = mods.has(".mmio");
    let order = super::atomic::sem(&mut mods);
    let mem_scope = super::atomic::scope_of(&mut mods);
    let vec = match mods.one_of(&[".v2", ".v4", ".v8"]) {
        Some(".v2") => 2,
        Some(".v4") => 4,
        Some(_) => 8,
        None => 1,
    };
    // `.L2::cache_hint` comes with a cache-policy operand (a hint: resolved, then unused).
    let cache_policy = inst.modifiers.iter().any(|m| m.node == ".L2::cache_hint");
    let prefetch_size = inst.modifiers.iter().find(|m| matches!(m.node.as_str(), ".L2::64B" | ".L2::128B" | ".L2::256B"));
    mods.drop_hints();
    let ty = one_type(scope, &mut mods, inst)?;
    if !mods.finish() || !expect_operands(scope, inst, if cache_policy { &[3] } else { &[2] }) {
        return None;
    }
    if cache_policy {
        scope.src(&ops[2], ScalarType::B64, Width::Exact)?;
    }
    if ty == ScalarType::Pred {
        scope.error(inst.opcode.span.clone(), format!("`{opcode}` cannot move predicates"));
        return None;
    }
    // Rules of the ISA's `ld`/`st` descriptions that the form table does not express.
    let global_only = |sp: StateSpace| matches!(sp, StateSpace::Global | StateSpace::Generic);
    if order.is_some() && !matches!(sp, StateSpace::Global | StateSpace::Shared | StateSpace::Generic) {
        scope.error(
            inst.opcode.span.clone(),
            format!(
                "`{}` accesses with an ordering (`.relaxed`, `.acquire`, `.release`) must be to `.global` or `.shared` memory, not `{}`",
                opcode,
                sp.name()
            ),
        );
        return None;
    }
    if let Some(m) = prefetch_size.filter(|_| !global_only(sp)) {
        scope.error(m.span.clone(), format!("`{}` is only allowed on `.global` (or generic) accesses, not `{}`", m.node, sp.name()));
        return None;
    }
    if vec as u32 * ty.bits() == 256 {
        if !global_only(sp) {
            scope.error(
                inst.opcode.span.clone(),
                format!("256-bit `{}` is only allowed on `.global` (or generic) accesses, not `{}`", full_name(inst), sp.name()),
            );
            return None;
        }
        let version = scope.cx.out.version;
        if version < (8, 8) || scope.cx.target_sm.is_some_and(|sm| sm < 100) {
            scope.error(inst.opcode.span.clone(), format!("256-bit `{}` requires PTX ISA version 8.8 and `.target sm_100` or later", full_name(inst)));
            return None;
        }
    }
    // `.mmio` accesses are performed exactly once and in order: volatile and relaxed.
    let order = order.map(|o| (o, mem_scope.unwrap_or(ir::MemScope::Sys)));
    let volatile = volatile || mmio;
    let (addr_op, val_op) = if opcode == "st" { (&ops[0], &ops[1]) } else { (&ops[1], &ops[0]) };
    let addr = scope.address_in(addr_op, sp)?;
    let elem_ops = scope.vector_elements(val_op);
    let elems: Vec<&Spanned<A>> = elem_ops.iter().collect();
    if elems.len() != vec as usize {
        scope.error(val_op.span.clone(), format!("`{opcode}` with {} elements needs a vector of {} operands", vec, vec));
        return None;
    }
    if let ir::AddressBase::Var(v) = addr.base {
        let var_space = scope.cx.out.vars[v.0 as usize].space;
        if sp != StateSpace::Generic && var_space != sp {
            scope.error(
                addr_op.span.clone(),
                format!("`{}` is in `{}` space, but the instruction accesses `{}`", scope.cx.out.vars[v.0 as usize].name, var_space.name(), sp.name()),
            );
            return None;
        }
    }
    if let ir::AddressBase::Param(_) = addr.base {
        if sp != StateSpace::Param {
            scope.error(addr_op.span.clone(), format!("parameters are in `.param` space, but the instruction accesses `{}`", sp.name()));
            return None;
        }
    }
    let op = if opcode == "st" {
        let mut src = vec![];
        for e in elems {
            src.push(scope.src(e, ty, Width::AllowWider)?);
        }
        Op::Store { space: sp, ty, volatile, order, src, addr }
    } else {
        let mut dst = vec![];
        for e in elems {
            dst.push(match e.node {
                A::Sink => None,
                _ => Some(scope.dst(e, ty, Width::AllowWider)?),
            });
        }
        Op::Load { space: sp, ty, volatile, order, dst, addr }
    };
    done(guard, op, inst)
}

/// `prefetch{.space}.level [a]`, `prefetchu.L1 [a]`: a cache hint for one line. The
/// tensor-map form (`prefetch.tensormap`) belongs to the tensor-memory-access family.
fn prefetch(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    if inst.modifiers.iter().any(|m| m.node == ".tensormap") {
        return unsupported(scope, inst, guard, "`prefetch.tensormap`");
    }
    let sp = space(&mut mods);
    drop_all(&mut mods);
    if !expect_operands(scope, inst, &[1]) {
        return None;
    }
    let addr = scope.address_in(&inst.operands[0], sp)?;
    done(guard, Op::Prefetch { space: sp, addr }, inst)
}

/// `createpolicy`: an L2 cache-eviction policy, a 64-bit value only ever passed back to
/// memory instructions as a hint, which ignore it here. The operands are still checked.
fn createpolicy(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let ops = &inst.operands;
    let range = mods.has(".range");
    let fractional = mods.has(".fractional");
    let convert = mods.has(".cvt");
    drop_all(&mut mods);
    let dst = scope.dst(&ops[0], ScalarType::B64, Width::Exact)?;
    match ops.len() {
        // createpolicy.range... d, [a], primary-size, total-size
        4 if range => {
            scope.address_in(&ops[1], StateSpace::Global)?;
            scope.src(&ops[2], ScalarType::B32, Width::Exact)?;
            scope.src(&ops[3], ScalarType::B32, Width::Exact)?;
        }
        // createpolicy.fractional... d{, fraction}
        1 | 2 if fractional => {
            if let Some(f) = ops.get(1) {
                scope.src(f, ScalarType::F32, Width::Exact)?;
            }
        }
        // createpolicy.cvt.L2.b64 d, a (a legacy policy)
        2 if convert => {
            scope.src(&ops[1], ScalarType::B64, Width::Exact)?;
        }
        n => {
            scope.error(inst.span.clone(), format!("`{}` does not take {n} operands", full_name(inst)));
            return None;
        }
    }
    done(guard, Op::Mov { ty: ScalarType::B64, dst, src: ir::Operand::Imm(0) }, inst)
}

/// `discard.global.L2 [a], 128` and `applypriority.global.L2::evict_normal [a], 128`: cache
/// management without effect on the CPU (`discard` leaves the line's contents undefined;
/// keeping them is one of the allowed outcomes).
fn cache_control(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let sp = space(&mut mods);
    drop_all(&mut mods);
    if !expect_operands(scope, inst, &[2]) {
        return None;
    }
    scope.address_in(&inst.operands[0], sp)?;
    match scope.src(&inst.operands[1], ScalarType::B64, Width::Exact)? {
        ir::Operand::Imm(128) => {}
        _ => {
            scope.error(inst.operands[1].span.clone(), format!("the size operand of `{}` must be the constant 128", inst.opcode.node));
            return None;
        }
    }
    done(guard, Op::Nop, inst)
}

/// `brx.idx{.uni} index, tlist`: a jump to the `index`-th label of a `.branchtargets` list.
/// It becomes a chain of comparisons (LLVM turns it into a `switch`); an index past the
/// list, undefined in the ISA, ends the launch with an error.
fn brx(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    mods.has(".idx");
    mods.has(".uni");
    if !mods.finish() || !expect_operands(scope, inst, &[2]) {
        return None;
    }
    let index = scope.src(&inst.operands[0], ScalarType::U32, Width::Exact)?;
    let list = &inst.operands[1];
    let targets = match &list.node {
        A::Name { name, component: None } => scope.branch_targets.get(name).cloned(),
        _ => None,
    };
    let Some(targets) = targets else {
        scope.error(list.span.clone(), "`brx.idx` needs the label of a `.branchtargets` list as its second operand");
        return None;
    };
    let scratch = scope.scratch_reg(ScalarType::Pred);
    Some(Converted::Term(PendingTerm::Indirect { index, targets, scratch }, guard))
}

//! Functions: signatures, scopes of names, and the control-flow graph.

use super::instruction::{convert, Converted, PendingTerm};
use super::{GlobalSymbol, ModuleChecker};
use crate::diag::Diagnostic;
use crate::front::ast;
use crate::ir::{self, BlockId, ScalarType};
use std::collections::{HashMap, HashSet};

/// The most registers one parameterized declaration (`%r<N>`) may declare: each is
/// a name of its own, and real code declares a few thousand at most.
const MAX_REGISTER_RANGE: u32 = 1 << 20;

/// A function-scope name.
#[derive(Debug, Clone, Copy)]
pub(crate) enum LocalSymbol {
    Reg(ir::RegId),
    Var(ir::VarId),
    Param(u32),
    /// A return parameter of the function (`st.param [func_retval0]`), by index.
    Return(u32),
    /// A name whose declaration was already reported as unsupported: uses stay silent.
    Poisoned,
    /// A vector register (`.reg .v4 .f32 %v`): its components are consecutive registers.
    Vector(ir::RegId, u32),
}

pub(crate) fn declare(cx: &mut ModuleChecker, f: &ast::Function) -> ir::Function {
    let params = f.params.iter().flat_map(|p| param_decls(cx, p)).collect();
    let returns = f.returns.iter().flat_map(|p| param_decls(cx, p)).collect();
    let mut reqntid = None;
    let mut maxntid = None;
    for d in &f.directives {
        let dims = || {
            let mut v = [1u32; 3];
            for (i, a) in d.args.iter().take(3).enumerate() {
                v[i] = *a as u32;
            }
            v
        };
        match d.name.node.as_str() {
            ".reqntid" => reqntid = Some(dims()),
            ".maxntid" => maxntid = Some(dims()),
            _ => {}
        }
    }
    if f.kind == ast::FunctionKind::Func {
        for p in f.params.iter().chain(&f.returns) {
            if let Some(a) = p.ptr_attrs.iter().find(|a| a.node == ".ptr") {
                cx.diags.push(Diagnostic::error(a.span.clone(), "the `.ptr` attribute is only allowed on kernel (`.entry`) parameters"));
            }
        }
    }
    if let Some(d) = f.directives.iter().find(|d| d.name.node == ".noreturn") {
        if f.kind == ast::FunctionKind::Entry || !f.returns.is_empty() {
            cx.diags.push(Diagnostic::error(d.name.span.clone(), "`.noreturn` is only allowed on a `.func` without return parameters"));
        }
    }
    if f.kind == ast::FunctionKind::Entry && !f.returns.is_empty() {
        cx.diags.push(Diagnostic::error(f.name.span.clone(), "an `.entry` cannot return values"));
    }
    ir::Function {
        name: f.name.node.clone(),
        kind: match f.kind {
            ast::FunctionKind::Entry => ir::FunctionKind::Entry,
            ast::FunctionKind::Func => ir::FunctionKind::Func,
        },
        linkage: match f.linkage {
            Some(ast::Linkage::Extern) => ir::Linkage::External,
            Some(ast::Linkage::Weak) => ir::Linkage::Weak,
            Some(_) => ir::Linkage::Public,
            None if f.kind == ast::FunctionKind::Entry => ir::Linkage::Public,
            None => ir::Linkage::Internal,
        },
        params,
        returns,
        regs: vec![],
        blocks: vec![],
        reqntid,
        maxntid,
        span: f.span.clone(),
        has_body: f.body.is_some(),
        vars_named: vec![],
    }
}

fn param_decls(cx: &mut ModuleChecker, p: &ast::VarDecl) -> Vec<ir::Param> {
    // Opaque parameters hold a 64-bit handle.
    let handle = match p.ty.node.as_str() {
        ".texref" => Some(ir::HandleKind::Texture),
        ".samplerref" => Some(ir::HandleKind::Sampler),
        ".surfref" => Some(ir::HandleKind::Surface),
        _ => None,
    };
    let Some(ty) = handle.map(|_| ScalarType::U64).or_else(|| ScalarType::from_name(&p.ty.node)) else {
        cx.diags.push(Diagnostic::error(p.ty.span.clone(), format!("not supported yet: parameters of type `{}`", p.ty.node)));
        return vec![];
    };
    if p.space.node != ".param" && p.space.node != ".reg" {
        cx.diags.push(Diagnostic::error(p.space.span.clone(), format!("parameters must be in `.param` or `.reg` space, not `{}`", p.space.node)));
    }
    // A vector `.reg` parameter (`.reg .v2 .u32 input`, as LLVM's NVPTX back end writes
    // them): one register parameter per component, `input.x`, `input.y`, ... (`check_body`
    // declares `input` as the vector of them).
    if let (".reg", Some(len)) = (p.space.node.as_str(), p.vector) {
        return p
            .names
            .iter()
            .flat_map(|n| {
                ["x", "y", "z", "w"].iter().take(len as usize).map(move |c| ir::Param {
                    name: format!("{}.{c}", n.name.node),
                    ty,
                    size: ty.bytes(),
                    align: ty.bytes().max(1),
                    reg: None,
                    handle,
                    ptr: false,
                })
            })
            .collect();
    }
    p.names
        .iter()
        .map(|n| {
            let count: u64 = n.dims.iter().map(|d| d.unwrap_or(0)).product();
            let size = ty.bytes() as u64 * p.vector.unwrap_or(1) as u64 * count;
            ir::Param {
                name: n.name.node.clone(),
                ty,
                size: size as u32,
                align: p.align.unwrap_or(ty.bytes()).max(1),
                // Set by `check_body`, which gives `.reg` parameters their registers.
                reg: None,
                handle,
                ptr: p.ptr_attrs.iter().any(|a| a.node == ".ptr"),
            }
        })
        .collect()
}

/// Everything the instruction converter needs to resolve names in a function body.
pub(crate) struct FnScope<'a> {
    pub cx: &'a mut ModuleChecker,
    pub index: usize,
    pub regs: Vec<ir::RegDecl>,
    scopes: Vec<HashMap<String, LocalSymbol>>,
    /// Every label of the function body (labels may be used before their definition),
    /// including those naming `.callprototype`/`.branchtargets`/`.calltargets` directives.
    pub labels: HashSet<String>,
    /// `.callprototype` labels: (return parameters, parameters).
    pub prototypes: HashMap<String, (u32, u32)>,
    /// `.branchtargets` lists by their label: the target labels in order.
    pub branch_targets: HashMap<String, Vec<(String, ast::Span)>>,
    /// Instructions that compute operands of the instruction being converted (a
    /// register-plus-immediate source `%r + 1`), emitted before it.
    pub prelude: Vec<ir::Inst>,
    /// Variables the body names (see `ir::Function::vars_named`).
    pub vars_named: std::cell::RefCell<HashSet<ir::VarId>>,
}

impl FnScope<'_> {
    pub fn lookup(&self, name: &str) -> Option<LocalOrGlobal> {
        let found = self
            .scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .map(|sym| LocalOrGlobal::Local(*sym))
            .or_else(|| self.cx.globals.get(name).map(|g| LocalOrGlobal::Global(*g)));
        if let Some(LocalOrGlobal::Local(LocalSymbol::Var(v)) | LocalOrGlobal::Global(GlobalSymbol::Var(v))) = found {
            self.vars_named.borrow_mut().insert(v);
        }
        found
    }

    pub fn function(&self) -> &ir::Function {
        &self.cx.out.functions[self.index]
    }

    pub fn reg_type(&self, r: ir::RegId) -> ScalarType {
        self.regs[r.0 as usize].ty
    }

    /// A fresh register no source name refers to (for `_` destinations).
    pub fn scratch_reg(&mut self, ty: ScalarType) -> ir::RegId {
        let id = ir::RegId(self.regs.len() as u32);
        self.regs.push(ir::RegDecl { name: "_".into(), ty });
        id
    }

    /// Diagnostics reported so far in the module.
    pub fn diagnostic_count(&self) -> usize {
        self.cx.diags.len()
    }

    pub fn error(&mut self, span: ast::Span, msg: impl Into<String>) {
        self.cx.diags.push(Diagnostic::error(span, msg));
    }

    fn declare(&mut self, name: &ast::Spanned<String>, sym: LocalSymbol) {
        let scope = self.scopes.last_mut().expect("scope stack is never empty");
        if scope.insert(name.node.clone(), sym).is_some() {
            let msg = format!("duplicate declaration of `{}`", name.node);
            self.cx.diags.push(Diagnostic::error(name.span.clone(), msg));
        }
    }

    /// `name: .branchtargets L1, L2;` must list labels of this function; `.calltargets`
    /// must list functions.
    fn labelled_directive(&mut self, _label: &ast::Spanned<String>, kind: ast::DirectiveKind, names: &[ast::Spanned<String>]) {
        for n in names {
            let ok = match kind {
                ast::DirectiveKind::BranchTargets => self.labels.contains(&n.node),
                ast::DirectiveKind::CallTargets => matches!(self.lookup(&n.node), Some(LocalOrGlobal::Global(GlobalSymbol::Function(_)))),
                ast::DirectiveKind::CallPrototype => true,
            };
            if !ok {
                let what = if kind == ast::DirectiveKind::BranchTargets { "label" } else { "function" };
                self.error(n.span.clone(), format!("`{}` is not a {what}", n.node));
            }
        }
    }

    fn declare_local(&mut self, decl: &ast::VarDecl) {
        if decl.space.node == ".reg" {
            let unsupported = match ScalarType::from_name(&decl.ty.node) {
                None if !crate::front::parser::is_type_name(&decl.ty.node) => Some(format!("unknown type `{}`", decl.ty.node)),
                None => Some(format!("not supported yet: registers of type `{}`", decl.ty.node)),
                Some(_) => None,
            };
            if let Some(msg) = unsupported {
                self.error(decl.ty.span.clone(), msg);
                for n in &decl.names {
                    self.declare(&n.name, LocalSymbol::Poisoned);
                }
                return;
            }
            let Some(ty) = ScalarType::from_name(&decl.ty.node) else { return };
            for n in &decl.names {
                let names: Vec<String> = match n.range {
                    Some(count) if count > MAX_REGISTER_RANGE => {
                        self.error(
                            n.name.span.clone(),
                            format!("not supported yet: `{}<{count}>` declares more than {MAX_REGISTER_RANGE} registers", n.name.node),
                        );
                        self.declare(&n.name, LocalSymbol::Poisoned);
                        continue;
                    }
                    Some(count) => (0..count).map(|i| format!("{}{}", n.name.node, i)).collect(),
                    None => vec![n.name.node.clone()],
                };
                for name in names {
                    let span = n.name.span.clone();
                    match decl.vector {
                        // `.reg .v4 .f32 %v;`: one register per component, named `%v.x`
                        // (also `%v.r`, ...), and `%v` itself for the whole vector.
                        Some(len) => {
                            let first = ir::RegId(self.regs.len() as u32);
                            for (i, (xyzw, rgba)) in [("x", "r"), ("y", "g"), ("z", "b"), ("w", "a")].iter().take(len as usize).enumerate() {
                                let id = ir::RegId(first.0 + i as u32);
                                self.regs.push(ir::RegDecl { name: format!("{name}.{xyzw}"), ty });
                                self.declare(&ast::Spanned::new(format!("{name}.{xyzw}"), span.clone()), LocalSymbol::Reg(id));
                                self.declare(&ast::Spanned::new(format!("{name}.{rgba}"), span.clone()), LocalSymbol::Reg(id));
                            }
                            self.declare(&ast::Spanned::new(name, span), LocalSymbol::Vector(first, len));
                        }
                        None => {
                            let id = ir::RegId(self.regs.len() as u32);
                            self.regs.push(ir::RegDecl { name: name.clone(), ty });
                            self.declare(&ast::Spanned::new(name, span), LocalSymbol::Reg(id));
                        }
                    }
                }
            }
            return;
        }
        let ids = self.cx.declare_vars(decl, Some(self.index));
        for (n, id) in decl.names.iter().zip(ids) {
            self.declare(&n.name, LocalSymbol::Var(id));
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum LocalOrGlobal {
    Local(LocalSymbol),
    Global(GlobalSymbol),
}

/// One element of a function body in source order, before blocks are formed.
enum Linear {
    Label(String, ast::Span),
    Inst(ir::Inst),
    Term(PendingTerm, Option<ir::PredRef>, ast::Span),
}

pub(crate) fn check_body(cx: &mut ModuleChecker, index: usize, f: &ast::Function) {
    let mut scope = FnScope {
        cx,
        index,
        regs: vec![],
        scopes: vec![HashMap::new()],
        labels: HashSet::new(),
        prototypes: HashMap::new(),
        branch_targets: HashMap::new(),
        prelude: vec![],
        vars_named: Default::default(),
    };
    collect_labels(f.body.as_deref().unwrap_or(&[]), &mut scope);
    // `.reg` parameters are registers of the body; `.param` ones are addressed in memory.
    // Per IR parameter: in `.reg` space, and for a component of a vector `.reg` parameter
    // (see `param_decls`) the vector's name, the component and the vector's length.
    let reg_space = |decls: &[ast::VarDecl]| -> Vec<(bool, Option<(String, u32, u32)>)> {
        let mut out = vec![];
        for d in decls {
            let reg = d.space.node == ".reg";
            for n in &d.names {
                match d.vector {
                    Some(len) if reg => out.extend((0..len).map(|i| (true, Some((n.name.node.clone(), i, len))))),
                    _ => out.push((reg, None)),
                }
            }
        }
        out
    };
    let (param_is_reg, return_is_reg) = (reg_space(&f.params), reg_space(&f.returns));
    let span = f.name.span.clone();
    let mut params = scope.cx.out.functions[index].params.clone();
    let mut returns = scope.cx.out.functions[index].returns.clone();
    for (list, kinds, is_return) in [(&mut params, &param_is_reg, false), (&mut returns, &return_is_reg, true)] {
        for (i, p) in list.iter_mut().enumerate() {
            match kinds.get(i) {
                Some((true, vector)) => {
                    let id = ir::RegId(scope.regs.len() as u32);
                    scope.regs.push(ir::RegDecl { name: p.name.clone(), ty: p.ty });
                    scope.declare(&ast::Spanned::new(p.name.clone(), span.clone()), LocalSymbol::Reg(id));
                    if let Some((name, k, len)) = vector {
                        // `.r .g .b .a` name the components too; the first one declares the
                        // vector (its components are the next `len` registers).
                        let rgba = ["r", "g", "b", "a"][*k as usize % 4];
                        scope.declare(&ast::Spanned::new(format!("{name}.{rgba}"), span.clone()), LocalSymbol::Reg(id));
                        if *k == 0 {
                            scope.declare(&ast::Spanned::new(name.clone(), span.clone()), LocalSymbol::Vector(id, *len));
                        }
                    }
                    p.reg = Some(id);
                }
                _ if is_return => scope.declare(&ast::Spanned::new(p.name.clone(), span.clone()), LocalSymbol::Return(i as u32)),
                _ => scope.declare(&ast::Spanned::new(p.name.clone(), span.clone()), LocalSymbol::Param(i as u32)),
            }
        }
    }
    scope.cx.out.functions[index].params = params;
    scope.cx.out.functions[index].returns = returns;
    let mut linear = vec![];
    walk(&mut scope, f.body.as_deref().unwrap_or(&[]), &mut linear);
    let is_entry = scope.function().kind == ir::FunctionKind::Entry;
    let blocks = build_cfg(&mut scope, linear, is_entry);
    let regs = std::mem::take(&mut scope.regs);
    let mut vars_named: Vec<ir::VarId> = scope.vars_named.take().into_iter().collect();
    vars_named.sort();
    let func = &mut cx.out.functions[index];
    func.regs = regs;
    func.blocks = blocks;
    func.vars_named = vars_named;
}

fn collect_labels(stmts: &[ast::Statement], scope: &mut FnScope) {
    ast::visit_labels(stmts, &mut |s| match s {
        ast::Statement::Label(l) => {
            scope.labels.insert(l.node.clone());
        }
        ast::Statement::LabelledDirective { label, kind, signature, names, .. } => {
            scope.labels.insert(label.node.clone());
            if *kind == ast::DirectiveKind::CallPrototype {
                scope.prototypes.insert(label.node.clone(), *signature);
            }
            if *kind == ast::DirectiveKind::BranchTargets {
                scope.branch_targets.insert(label.node.clone(), names.iter().map(|n| (n.node.clone(), n.span.clone())).collect());
            }
        }
        _ => {}
    });
}

fn walk(scope: &mut FnScope, stmts: &[ast::Statement], out: &mut Vec<Linear>) {
    // Declarations are visible in their whole block, also before the declaring line.
    for s in stmts {
        if let ast::Statement::Var(d) = s {
            scope.declare_local(d);
        }
    }
    for s in stmts {
        match s {
            ast::Statement::Label(l) => out.push(Linear::Label(l.node.clone(), l.span.clone())),
            ast::Statement::Var(_) | ast::Statement::Ignored(_) | ast::Statement::Loc { .. } => {}
            ast::Statement::LabelledDirective { label, kind, names, .. } => scope.labelled_directive(label, *kind, names),
            ast::Statement::Block(inner, _) => {
                scope.scopes.push(HashMap::new());
                walk(scope, inner, out);
                scope.scopes.pop();
            }
            ast::Statement::Instruction(inst) => match convert(scope, inst) {
                // Operands computed first: unguarded, into registers of their own.
                converted if !scope.prelude.is_empty() => {
                    out.extend(std::mem::take(&mut scope.prelude).into_iter().map(Linear::Inst));
                    match converted {
                        Some(Converted::Inst(i)) => out.push(Linear::Inst(i)),
                        Some(Converted::Insts(insts)) => out.extend(insts.into_iter().map(Linear::Inst)),
                        Some(Converted::Term(t, guard)) => out.push(Linear::Term(t, guard, inst.span.clone())),
                        Some(Converted::Prepared(insts, t, guard)) => {
                            out.extend(insts.into_iter().map(Linear::Inst));
                            out.push(Linear::Term(t, guard, inst.span.clone()));
                        }
                        None => {}
                    }
                }
                Some(Converted::Inst(i)) => out.push(Linear::Inst(i)),
                Some(Converted::Insts(insts)) => out.extend(insts.into_iter().map(Linear::Inst)),
                Some(Converted::Term(t, guard)) => out.push(Linear::Term(t, guard, inst.span.clone())),
                Some(Converted::Prepared(insts, t, guard)) => {
                    out.extend(insts.into_iter().map(Linear::Inst));
                    out.push(Linear::Term(t, guard, inst.span.clone()));
                }
                None => {}
            },
        }
    }
}

fn build_cfg(scope: &mut FnScope, linear: Vec<Linear>, is_entry: bool) -> Vec<ir::Block> {
    struct Partial {
        label: Option<String>,
        insts: Vec<ir::Inst>,
        term: Option<(PendingTerm, Option<ir::PredRef>, ast::Span)>,
    }
    let new = |label| Partial { label, insts: vec![], term: None };
    let mut blocks: Vec<Partial> = vec![new(None)];
    let mut labels: HashMap<String, BlockId> = HashMap::new();
    for item in linear {
        match item {
            Linear::Label(name, span) => {
                let cur = blocks.last().expect("at least one block");
                let id = if cur.insts.is_empty() && cur.term.is_none() && cur.label.is_none() {
                    blocks.last_mut().expect("at least one block").label = Some(name.clone());
                    blocks.len() - 1
                } else {
                    blocks.push(new(Some(name.clone())));
                    blocks.len() - 1
                };
                if labels.insert(name.clone(), BlockId(id as u32)).is_some() {
                    scope.error(span, format!("duplicate label `{name}`"));
                }
            }
            Linear::Inst(i) => {
                if blocks.last().expect("block").term.is_some() {
                    blocks.push(new(None));
                }
                blocks.last_mut().expect("block").insts.push(i);
            }
            Linear::Term(t, guard, span) => {
                if blocks.last().expect("block").term.is_some() {
                    blocks.push(new(None));
                }
                blocks.last_mut().expect("block").term = Some((t, guard, span));
            }
        }
    }
    // Resolve terminators; guarded exits and barriers get a block of their own.
    let n = blocks.len();
    let mut out: Vec<ir::Block> = Vec::with_capacity(n);
    let mut extra: Vec<ir::Block> = vec![];
    let fallthrough_term = |i: usize| -> ir::Terminator {
        if i + 1 < n {
            ir::Terminator::Jump(BlockId(i as u32 + 1))
        } else if is_entry {
            ir::Terminator::Exit
        } else {
            ir::Terminator::Return
        }
    };
    for (i, b) in blocks.into_iter().enumerate() {
        let (term, term_span) = match b.term {
            None => (fallthrough_term(i), 0..0),
            Some((t, guard, span)) => {
                let resolved = match t {
                    PendingTerm::Branch(label, lspan) => match labels.get(&label) {
                        Some(id) => Some(ir::Terminator::Jump(*id)),
                        None if scope.regs.iter().any(|r| r.name == label) => {
                            scope.error(lspan, format!("`bra` needs a label, but `{label}` is a register (an indirect branch is `brx.idx`)"));
                            None
                        }
                        None => {
                            scope.error(lspan, format!("undefined label `{label}`"));
                            None
                        }
                    },
                    PendingTerm::Indirect { index, targets, scratch } => {
                        // A name that is not a label was reported with the `.branchtargets` directive.
                        let ids: Vec<BlockId> = targets.iter().filter_map(|(label, _)| labels.get(label).copied()).collect();
                        (ids.len() == targets.len()).then(|| {
                            let end = if is_entry { ir::Terminator::Exit } else { ir::Terminator::Return };
                            let fault = ir::Inst {
                                guard: None,
                                op: ir::Op::Fault { what: "`brx.idx` index past the end of its `.branchtargets` list".into() },
                                span: span.clone(),
                            };
                            let mut next = BlockId((n + extra.len()) as u32);
                            extra.push(ir::Block { label: None, insts: vec![fault], term: end, term_span: span.clone() });
                            // index == k ? target k : (the test of k + 1), from the last target back.
                            for (k, id) in ids.iter().enumerate().rev() {
                                let test = ir::Op::Setp {
                                    cmp: ir::CmpOp::Eq,
                                    ty: ScalarType::U32,
                                    ftz: false,
                                    dst: scratch,
                                    dst_not: None,
                                    a: index,
                                    b: ir::Operand::Imm(k as u64),
                                    combine: None,
                                };
                                let cond = ir::PredRef { reg: scratch, negated: false };
                                let block = BlockId((n + extra.len()) as u32);
                                extra.push(ir::Block {
                                    label: None,
                                    insts: vec![ir::Inst { guard: None, op: test, span: span.clone() }],
                                    term: ir::Terminator::Branch { cond, then_: *id, else_: next },
                                    term_span: span.clone(),
                                });
                                next = block;
                            }
                            ir::Terminator::Jump(next)
                        })
                    }
                    PendingTerm::Exit => Some(ir::Terminator::Exit),
                    PendingTerm::Return => Some(if is_entry { ir::Terminator::Exit } else { ir::Terminator::Return }),
                    PendingTerm::Sync(point) => {
                        let next = if i + 1 < n { BlockId(i as u32 + 1) } else { BlockId(u32::MAX) };
                        Some(ir::Terminator::Sync { point, next })
                    }
                };
                let resolved = resolved.unwrap_or_else(|| fallthrough_term(i));
                let term = match guard {
                    None => resolved,
                    Some(cond) => {
                        let else_ = match fallthrough_term(i) {
                            ir::Terminator::Jump(b) => b,
                            // Falling off the end: a shared exit block.
                            t => {
                                let id = BlockId((n + extra.len()) as u32);
                                extra.push(ir::Block { label: None, insts: vec![], term: t, term_span: span.clone() });
                                id
                            }
                        };
                        let then_ = match resolved {
                            ir::Terminator::Jump(b) => b,
                            t => {
                                let id = BlockId((n + extra.len()) as u32);
                                extra.push(ir::Block { label: None, insts: vec![], term: t, term_span: span.clone() });
                                id
                            }
                        };
                        ir::Terminator::Branch { cond, then_, else_ }
                    }
                };
                (term, span)
            }
        };
        out.push(ir::Block { label: b.label, insts: b.insts, term, term_span });
    }
    out.extend(extra);
    // A sync point at the very end continues into an exit.
    let end = BlockId(out.len() as u32);
    let mut needs_end = false;
    for b in &mut out {
        if let ir::Terminator::Sync { next, .. } = &mut b.term {
            if next.0 == u32::MAX {
                *next = end;
                needs_end = true;
            }
        }
    }
    if needs_end {
        let term = if is_entry { ir::Terminator::Exit } else { ir::Terminator::Return };
        out.push(ir::Block { label: None, insts: vec![], term, term_span: 0..0 });
    }
    out
}

//! Inlining of `.func` functions that synchronize (barriers, warp collectives) into the
//! kernels that call them, before checking.
//!
//! The execution model runs a kernel's code between sync points as thread loops; a
//! barrier inside a called function would have to suspend a call frame per thread. Real
//! code has such functions (CUB/Thrust device functions with `bar.sync`, compiled without
//! inlining), and they are not recursive, so each direct call of one from a kernel is
//! replaced by a copy of its body in a nested scope: its registers are local to the scope,
//! its labels are renamed, `.param` parameters become the caller's argument variables,
//! `.reg` parameters become registers initialised from the arguments, and `ret` jumps past
//! the copy. What cannot be inlined (recursion, indirect calls) keeps the call, and
//! lowering reports such a function as unsupported.

use crate::front::ast::{self, Expr, Instruction, Operand as A, Spanned, Statement};
use std::collections::{HashMap, HashSet};

/// Opcodes that make a function synchronize.
const SYNC_OPCODES: &[&str] = &["bar", "barrier", "shfl", "vote", "match", "redux", "activemask", "elect", "mma", "wmma", "ldmatrix", "stmatrix", "movmatrix"];

/// How deep calls of synchronizing functions are inlined (deeper ones stay calls).
const MAX_DEPTH: u32 = 16;

/// The kernels of `module` that call a synchronizing `.func` directly, each with every such
/// call inlined: `(item index, the kernel's item)`. Only those kernels are copied (a
/// module's other items are checked as they are).
pub fn inline_sync_calls(module: &ast::Module) -> Vec<(usize, ast::Item)> {
    let funcs: HashMap<&str, &ast::Function> = module
        .items
        .iter()
        .filter_map(|i| match i {
            ast::Item::Function(f) if f.kind == ast::FunctionKind::Func && f.body.is_some() => Some((f.name.node.as_str(), f)),
            _ => None,
        })
        .collect();
    let sync = sync_functions(&funcs);
    if sync.is_empty() {
        return vec![];
    }
    let mut counter = 0u32;
    let mut out = vec![];
    let calls_sync = |body: &[Statement]| any_instruction(body, &mut |i| callee(i).is_some_and(|c| sync.contains(c)));
    for (index, item) in module.items.iter().enumerate() {
        let ast::Item::Function(f) = item else { continue };
        if f.kind != ast::FunctionKind::Entry || !f.body.as_deref().is_some_and(calls_sync) {
            continue;
        }
        let mut f = f.clone();
        let body = f.body.as_mut().expect("checked above");
        let mut cx = Inliner { funcs: &funcs, sync: &sync, counter: &mut counter, changed: false };
        *body = cx.statements(std::mem::take(body), 0, &mut vec![]);
        if cx.changed {
            out.push((index, ast::Item::Function(f)));
        }
    }
    out
}

/// Functions that contain a sync point or call one that does (not through recursion).
fn sync_functions<'a>(funcs: &HashMap<&'a str, &'a ast::Function>) -> HashSet<&'a str> {
    let mut sync: HashSet<&str> = funcs
        .iter()
        .filter(|(_, f)| any_instruction(f.body.as_deref().unwrap_or(&[]), &mut |i| SYNC_OPCODES.contains(&i.opcode.node.as_str())))
        .map(|(n, _)| *n)
        .collect();
    loop {
        let mut grew = false;
        for (name, f) in funcs {
            if sync.contains(name) {
                continue;
            }
            let calls_sync = any_instruction(f.body.as_deref().unwrap_or(&[]), &mut |i| callee(i).is_some_and(|c| sync.contains(c)));
            if calls_sync {
                sync.insert(name);
                grew = true;
            }
        }
        if !grew {
            return sync;
        }
    }
}

fn any_instruction(stmts: &[Statement], f: &mut impl FnMut(&Instruction) -> bool) -> bool {
    stmts.iter().any(|s| match s {
        Statement::Instruction(i) => f(i),
        Statement::Block(inner, _) => any_instruction(inner, f),
        _ => false,
    })
}

/// The directly called function of a `call` instruction.
fn callee(i: &Instruction) -> Option<&str> {
    if i.opcode.node != "call" {
        return None;
    }
    match &i.call_operands()?.callee.node {
        A::Name { name, component: None } => Some(name.as_str()),
        _ => None,
    }
}

struct Inliner<'a, 'b> {
    funcs: &'b HashMap<&'a str, &'a ast::Function>,
    sync: &'b HashSet<&'a str>,
    counter: &'b mut u32,
    changed: bool,
}

impl Inliner<'_, '_> {
    fn statements(&mut self, stmts: Vec<Statement>, depth: u32, stack: &mut Vec<String>) -> Vec<Statement> {
        let mut out = Vec::with_capacity(stmts.len());
        for s in stmts {
            match s {
                Statement::Instruction(i) => {
                    let target = callee(&i).filter(|c| self.sync.contains(c) && !stack.iter().any(|s| s == c) && depth < MAX_DEPTH).map(str::to_owned);
                    match target.and_then(|c| self.funcs.get(c.as_str()).copied().map(|f| (c, f))) {
                        Some((name, f)) => match self.inline(&i, f) {
                            Some(block) => {
                                self.changed = true;
                                stack.push(name);
                                let inner = self.statements(block, depth + 1, stack);
                                stack.pop();
                                out.push(Statement::Block(inner, i.span.clone()));
                            }
                            None => out.push(Statement::Instruction(i)),
                        },
                        None => out.push(Statement::Instruction(i)),
                    }
                }
                Statement::Block(inner, span) => out.push(Statement::Block(self.statements(inner, depth, stack), span)),
                other => out.push(other),
            }
        }
        out
    }

    /// The statements replacing `call`, or `None` when the call's shape does not match the
    /// callee (the checker reports that).
    fn inline(&mut self, call: &Instruction, f: &ast::Function) -> Option<Vec<Statement>> {
        *self.counter += 1;
        let tag = format!("__inline{}_", self.counter);
        let ast::CallOperands { rets, args, rest, .. } = call.call_operands()?;
        if !rest.is_empty() {
            return None;
        }
        let params: Vec<(&ast::VarDecl, &ast::VarName)> = f.params.iter().flat_map(|d| d.names.iter().map(move |n| (d, n))).collect();
        let returns: Vec<(&ast::VarDecl, &ast::VarName)> = f.returns.iter().flat_map(|d| d.names.iter().map(move |n| (d, n))).collect();
        if params.len() != args.len() || returns.len() != rets.len() {
            return None;
        }
        let span = call.span.clone();
        let sp = |node: A| Spanned::new(node, span.clone());
        let name = |n: &str| Spanned::new(n.to_string(), span.clone());
        let mut renames: HashMap<String, String> = HashMap::new();
        let mut prologue = vec![];
        let mut epilogue = vec![];
        let end_label = format!("{tag}end");
        if let Some(g) = &call.guard {
            // `@p call f` runs the copy only where p holds.
            prologue.push(Statement::Instruction(Instruction {
                guard: Some(ast::Guard { negated: !g.negated, pred: g.pred.clone() }),
                opcode: name("bra"),
                modifiers: vec![],
                operands: vec![sp(A::Name { name: end_label.clone(), component: None })],
                span: span.clone(),
            }));
        }
        let mut bind = |(decl, var): (&ast::VarDecl, &ast::VarName),
                        actual: &Spanned<A>,
                        is_result: bool,
                        prologue: &mut Vec<Statement>,
                        epilogue: &mut Vec<Statement>|
         -> Option<()> {
            let formal = var.name.node.clone();
            let is_reg = decl.space.node == ".reg";
            match &actual.node {
                A::Name { name: a, component: None } if !is_reg => {
                    renames.insert(formal, a.clone());
                }
                A::Sink if is_result && !is_reg => {
                    // A discarded result: a `.param` variable of its own.
                    let fresh = format!("{tag}{formal}");
                    prologue.push(Statement::Var(ast::VarDecl {
                        names: vec![ast::VarName { name: name(&fresh), range: None, dims: var.dims.clone(), init: None }],
                        ..decl.clone()
                    }));
                    renames.insert(formal, fresh);
                }
                other if is_reg || !is_result => {
                    // A `.reg` parameter, or a register/immediate passed to a `.param` one:
                    // a fresh variable of the parameter's declaration holds the value.
                    let fresh = format!("{tag}{formal}");
                    prologue.push(Statement::Var(ast::VarDecl {
                        names: vec![ast::VarName { name: name(&fresh), range: None, dims: var.dims.clone(), init: None }],
                        linkage: None,
                        ..decl.clone()
                    }));
                    let ty = name(&decl.ty.node);
                    // A vector `.reg` parameter is copied component by component (`mov.v2`).
                    let mov_mods = match decl.vector {
                        Some(n) if is_reg => vec![name(&format!(".v{n}")), ty.clone()],
                        _ => vec![ty.clone()],
                    };
                    let fresh_op = sp(A::Name { name: fresh.clone(), component: None });
                    if is_result {
                        if !matches!(other, A::Sink) {
                            epilogue.push(Statement::Instruction(Instruction {
                                guard: None,
                                opcode: name("mov"),
                                modifiers: mov_mods,
                                operands: vec![actual.clone(), fresh_op],
                                span: span.clone(),
                            }));
                        }
                    } else if is_reg {
                        prologue.push(Statement::Instruction(Instruction {
                            guard: None,
                            opcode: name("mov"),
                            modifiers: mov_mods,
                            operands: vec![fresh_op, actual.clone()],
                            span: span.clone(),
                        }));
                    } else {
                        let addr = sp(A::Address(Box::new(fresh_op), 0));
                        prologue.push(Statement::Instruction(Instruction {
                            guard: None,
                            opcode: name("st"),
                            modifiers: vec![name(".param"), ty],
                            operands: vec![addr, actual.clone()],
                            span: span.clone(),
                        }));
                    }
                    renames.insert(formal, fresh);
                }
                _ => return None,
            }
            Some(())
        };
        for (p, a) in params.iter().zip(args) {
            bind(*p, a, false, &mut prologue, &mut epilogue)?;
        }
        for (r, a) in returns.iter().zip(rets) {
            bind(*r, a, true, &mut prologue, &mut epilogue)?;
        }
        // Labels of the callee get the call's tag.
        ast::visit_labels(f.body.as_deref().unwrap_or(&[]), &mut |s| {
            if let Statement::Label(l) | Statement::LabelledDirective { label: l, .. } = s {
                renames.insert(l.node.clone(), format!("{tag}{}", l.node));
            }
        });
        let mut body = prologue;
        body.extend(f.body.as_deref().unwrap_or(&[]).iter().map(|s| rewrite(s, &renames, &end_label)));
        body.push(Statement::Label(name(&end_label)));
        body.extend(epilogue);
        Some(body)
    }
}

/// A copy of a callee statement with names renamed and `ret` turned into a jump to `end`.
fn rewrite(s: &Statement, renames: &HashMap<String, String>, end: &str) -> Statement {
    let rn = |n: &str| renames.get(n).cloned().unwrap_or_else(|| n.to_string());
    match s {
        Statement::Label(l) => Statement::Label(Spanned::new(rn(&l.node), l.span.clone())),
        Statement::Block(inner, span) => Statement::Block(inner.iter().map(|s| rewrite(s, renames, end)).collect(), span.clone()),
        Statement::LabelledDirective { label, kind, names, signature, span } => Statement::LabelledDirective {
            label: Spanned::new(rn(&label.node), label.span.clone()),
            kind: *kind,
            names: names.iter().map(|n| Spanned::new(rn(&n.node), n.span.clone())).collect(),
            signature: *signature,
            span: span.clone(),
        },
        Statement::Instruction(i) => {
            let mut i = i.clone();
            if i.opcode.node == "ret" {
                i.opcode.node = "bra".into();
                i.modifiers.retain(|m| m.node == ".uni");
                i.operands = vec![Spanned::new(A::Name { name: end.to_string(), component: None }, i.span.clone())];
                return Statement::Instruction(i);
            }
            i.operands = i.operands.iter().map(|o| rename_operand(o, renames)).collect();
            Statement::Instruction(i)
        }
        other => other.clone(),
    }
}

fn rename_operand(o: &Spanned<A>, renames: &HashMap<String, String>) -> Spanned<A> {
    let rn = |n: &String| renames.get(n).cloned().unwrap_or_else(|| n.clone());
    let node = match &o.node {
        A::Name { name, component } => A::Name { name: rn(name), component: component.clone() },
        A::Not(n) => A::Not(rn(n)),
        A::Pair(a, b) => A::Pair(rn(a), rn(b)),
        A::VectorPair(v, p) => A::VectorPair(Box::new(rename_operand(v, renames)), rn(p)),
        A::Neg(inner) => A::Neg(Box::new(rename_operand(inner, renames))),
        A::Address(base, off) => A::Address(Box::new(rename_operand(base, renames)), *off),
        A::Vector(v) => A::Vector(v.iter().map(|x| rename_operand(x, renames)).collect()),
        A::List(v) => A::List(v.iter().map(|x| rename_operand(x, renames)).collect()),
        A::Expr(e) => A::Expr(rename_expr(e, renames)),
        A::Sink => A::Sink,
    };
    Spanned::new(node, o.span.clone())
}

fn rename_expr(e: &Expr, renames: &HashMap<String, String>) -> Expr {
    match e {
        Expr::Symbol(s) => Expr::Symbol(renames.get(s).cloned().unwrap_or_else(|| s.clone())),
        Expr::Unary(op, a) => Expr::Unary(*op, Box::new(rename_expr(a, renames))),
        Expr::Binary(op, a, b) => Expr::Binary(*op, Box::new(rename_expr(a, renames)), Box::new(rename_expr(b, renames))),
        other => other.clone(),
    }
}

//! The checker: resolves names, checks instruction forms and operand types, and builds
//! the IR from the syntax tree. Every problem becomes a located `Diagnostic`; the
//! checker keeps going so that one run reports all of them.

mod atomic;
mod call;
mod cluster;
mod convert;
mod float;
mod forms;
mod forms_table;
mod function;
mod half;
mod inline;
mod instruction;
mod integer;
mod matrix;
mod mbarrier;
mod multimem;
mod operands;
mod texture;
mod warp;

use crate::diag::Diagnostic;
use crate::front::ast;
use crate::ir::{self, ScalarType, StateSpace};
use std::collections::HashMap;

/// Module-scope names.
#[derive(Debug, Clone, Copy)]
pub(crate) enum GlobalSymbol {
    Var(ir::VarId),
    Function(usize),
    Handle(ir::HandleId),
}

pub fn check(module: &ast::Module) -> (ir::Module, Vec<Diagnostic>) {
    let mut cx = ModuleChecker { out: ir::Module::default(), diags: vec![], globals: HashMap::new(), declared_address_size: None, target_sm: None };
    // Functions that synchronize run inlined in the kernels that call them.
    let inlined = inline::inline_sync_calls(module);
    let mut replaced = inlined.iter().peekable();
    let items: Vec<&ast::Item> = module.items.iter().enumerate().map(|(i, item)| replaced.next_if(|(at, _)| *at == i).map_or(item, |(_, f)| f)).collect();
    cx.run(&items);
    cx.out.lines = source_lines(module);
    (cx.out, cx.diags)
}

/// The module's `.file` and `.loc` directives (the source positions `-g` gives the code).
fn source_lines(module: &ast::Module) -> ir::SourceLines {
    fn locs(stmts: &[ast::Statement], out: &mut Vec<(usize, ir::SourceLoc)>) {
        for s in stmts {
            match s {
                ast::Statement::Loc { file, line, col, span } => {
                    let n = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
                    out.push((span.start, ir::SourceLoc { file: n(*file), line: n(*line), col: n(*col) }));
                }
                ast::Statement::Block(inner, _) => locs(inner, out),
                _ => {}
            }
        }
    }
    let mut lines = ir::SourceLines::default();
    for item in &module.items {
        match item {
            ast::Item::File { index, path, .. } => lines.files.push((u32::try_from(*index).unwrap_or(u32::MAX), path.clone())),
            ast::Item::Function(f) => {
                if let Some(body) = &f.body {
                    let mut in_body = vec![];
                    locs(body, &mut in_body);
                    if !in_body.is_empty() {
                        lines.bodies.push((f.span.clone(), in_body));
                    }
                }
            }
            _ => {}
        }
    }
    lines
}

pub(crate) struct ModuleChecker {
    pub out: ir::Module,
    pub diags: Vec<Diagnostic>,
    pub globals: HashMap<String, GlobalSymbol>,
    /// The `sm_NN` of the `.target` directive (`sm_90a` → 90), if it names one.
    pub target_sm: Option<u32>,
    /// The module's `.address_size` directive, if it has one (without it, old PTX
    /// defaults to 32-bit addresses, which lowering widens).
    pub declared_address_size: Option<u32>,
}

impl ModuleChecker {
    fn run(&mut self, items: &[&ast::Item]) {
        let mut saw_version = false;
        let mut saw_other = false;
        let mut saw_target = false;
        // The first directive after `.version`, where `.target` belongs.
        let mut after_version: Option<ast::Span> = None;
        self.out.address_size = 64;
        for &item in items {
            if saw_version && after_version.is_none() && !matches!(item, ast::Item::Version { .. } | ast::Item::Ignored { .. } | ast::Item::File { .. }) {
                after_version = Some(item_span(item));
            }
            match item {
                ast::Item::Version { major, minor, span } => {
                    if saw_version {
                        self.diags.push(Diagnostic::error(span.clone(), "duplicate `.version` directive"));
                    } else if saw_other {
                        self.diags.push(Diagnostic::error(span.clone(), "`.version` must be the first directive of the module"));
                    }
                    saw_version = true;
                    self.out.version = (*major, *minor);
                }
                ast::Item::Target { targets, .. } => {
                    saw_target = true;
                    for t in targets {
                        if !is_target_name(&t.node) {
                            self.diags.push(Diagnostic::error(t.span.clone(), format!("unknown target `{}`", t.node)));
                        } else if let Some((major, minor)) = target_version(&t.node).filter(|v| saw_version && self.out.version < *v) {
                            let (has_major, has_minor) = self.out.version;
                            let msg = format!(
                                "`.target {}` requires PTX ISA version {major}.{minor} or later (the file declares `.version {has_major}.{has_minor}`)",
                                t.node
                            );
                            self.diags.push(Diagnostic::error(t.span.clone(), msg));
                        }
                    }
                    self.out.targets = targets.iter().map(|t| t.node.clone()).collect();
                    self.target_sm = targets.iter().find_map(|t| target_sm(&t.node));
                }
                ast::Item::AddressSize { bits, span } => {
                    if self.declared_address_size.is_some() {
                        // ptxas: a syntax error at the second one.
                        self.diags.push(Diagnostic::error(span.clone(), "duplicate `.address_size` directive"));
                    } else if *bits != 32 && *bits != 64 {
                        self.diags.push(Diagnostic::error(span.clone(), format!("`.address_size` must be 32 or 64, not {bits}")));
                    } else if *bits == 32 {
                        self.diags.push(Diagnostic::error(span.clone(), "not supported yet: `.address_size 32` (32-bit generic addressing)"));
                    }
                    self.out.address_size = *bits;
                    self.declared_address_size = Some(*bits);
                }
                _ => {}
            }
            // Recovered syntax errors are already reported; they do not move `.version`.
            saw_other |= !matches!(item, ast::Item::Ignored { .. } | ast::Item::File { .. });
        }
        if !saw_version {
            if let Some(first) = items.first() {
                let span = item_span(first);
                self.diags.push(Diagnostic::error(span.start..span.start, "missing `.version` directive at the start of the module"));
            }
            // The rest is judged as the newest ISA: one error, not one per instruction.
            self.out.version = crate::target::NEWEST_PTX_ISA;
        } else if !saw_target {
            // ptxas: "Missing .target directive at start of file".
            let at = after_version.map(|s| s.start..s.start).unwrap_or(items.last().map(|i| item_span(i)).map(|s| s.end..s.end).unwrap_or(0..0));
            self.diags.push(Diagnostic::error(at, "missing `.target` directive after `.version` (e.g. `.target sm_80`)"));
        }
        // Declare every function first so that calls may refer forward.
        let mut bodies = vec![];
        for &item in items {
            match item {
                ast::Item::Var(decl) if handle_kind(decl).is_some() => self.declare_handles(decl),
                ast::Item::Var(decl) => {
                    for v in self.declare_vars(decl, None) {
                        let name = self.out.vars[v.0 as usize].name.clone();
                        if self.globals.insert(name.clone(), GlobalSymbol::Var(v)).is_some() {
                            self.diags.push(Diagnostic::error(decl.span.clone(), format!("duplicate definition of `{name}`")));
                        }
                    }
                }
                ast::Item::Function(f) => {
                    let (index, declared_now) = match self.globals.get(&f.name.node) {
                        Some(GlobalSymbol::Function(i)) => {
                            let existing = &self.out.functions[*i];
                            if existing.has_body && f.body.is_some() {
                                self.diags.push(Diagnostic::error(f.name.span.clone(), format!("duplicate definition of function `{}`", f.name.node)));
                                continue;
                            }
                            (*i, false)
                        }
                        Some(GlobalSymbol::Var(_) | GlobalSymbol::Handle(_)) => {
                            self.diags.push(Diagnostic::error(f.name.span.clone(), format!("`{}` is already declared as a variable", f.name.node)));
                            continue;
                        }
                        None => {
                            let i = self.out.functions.len();
                            let decl = function::declare(self, f);
                            self.out.functions.push(decl);
                            self.globals.insert(f.name.node.clone(), GlobalSymbol::Function(i));
                            (i, true)
                        }
                    };
                    if f.body.is_some() {
                        // A definition after a declaration: take the definition's signature
                        // (declared once, so that its problems are reported once).
                        if !declared_now {
                            let decl = function::declare(self, f);
                            self.out.functions[index] = decl;
                        }
                        bodies.push((index, f));
                    }
                }
                ast::Item::Alias { alias, aliasee, .. } => {
                    let mut function_of = |name: &ast::Spanned<String>| match self.globals.get(&name.node) {
                        Some(GlobalSymbol::Function(i)) => Some(*i),
                        _ => {
                            let msg = format!("`.alias`: `{}` is not a function declared before it", name.node);
                            self.diags.push(Diagnostic::error(name.span.clone(), msg));
                            None
                        }
                    };
                    if let (Some(a), Some(b)) = (function_of(alias), function_of(aliasee)) {
                        if self.out.functions[a].has_body {
                            self.diags.push(Diagnostic::error(alias.span.clone(), format!("`.alias`: `{}` already has a body", alias.node)));
                        } else if self.out.functions[a].params.len() != self.out.functions[b].params.len()
                            || self.out.functions[a].returns.len() != self.out.functions[b].returns.len()
                        {
                            self.diags.push(Diagnostic::error(
                                alias.span.clone(),
                                format!("`.alias`: `{}` and `{}` have different signatures", alias.node, aliasee.node),
                            ));
                        } else {
                            self.out.aliases.push((a as u32, b as u32));
                        }
                    }
                }
                _ => {}
            }
        }
        for (index, f) in bodies {
            function::check_body(self, index, f);
        }
    }

    /// Declares module-scope texture, sampler and surface references.
    fn declare_handles(&mut self, decl: &ast::VarDecl) {
        let Some(kind) = handle_kind(decl) else { return };
        // Separate samplers exist only in the independent texturing mode.
        if kind == ir::HandleKind::Sampler && !self.out.targets.iter().any(|t| t == "texmode_independent") {
            self.diags
                .push(Diagnostic::error(decl.ty.span.clone(), "`.samplerref` needs `.target texmode_independent` (the default texturing mode is unified)"));
        }
        for name in &decl.names {
            if name.range.is_some() || !name.dims.is_empty() {
                self.diags.push(Diagnostic::error(name.name.span.clone(), format!("`{}` cannot be an array", name.name.node)));
                continue;
            }
            let mut sampler = ir::SamplerInit::default();
            match &name.init {
                None => {}
                Some(ast::Initializer::List(items, _)) if kind == ir::HandleKind::Sampler || kind == ir::HandleKind::Texture => {
                    for item in items {
                        match item {
                            // A `.texref`'s properties (`width`, `normalized_coords`, ...)
                            // describe the texture the host binds: not kept.
                            ast::Initializer::Field(..) if kind == ir::HandleKind::Texture => {}
                            ast::Initializer::Field(k, v, _) => {
                                if let Err(d) = sampler_field(&mut sampler, k, v) {
                                    self.diags.push(d);
                                }
                            }
                            other => self.diags.push(Diagnostic::error(init_span(other), "expected `property = value`")),
                        }
                    }
                }
                Some(other) => self.diags.push(Diagnostic::error(init_span(other), format!("`{}` cannot be initialized this way", name.name.node))),
            }
            let id = ir::HandleId(self.out.handles.len() as u32);
            self.out.handles.push(ir::Handle {
                name: name.name.node.clone(),
                kind,
                sampler,
                linkage: match decl.linkage {
                    Some(ast::Linkage::Extern) => ir::Linkage::External,
                    Some(ast::Linkage::Weak) => ir::Linkage::Weak,
                    Some(_) => ir::Linkage::Public,
                    None => ir::Linkage::Internal,
                },
                span: name.name.span.clone(),
            });
            if self.globals.insert(name.name.node.clone(), GlobalSymbol::Handle(id)).is_some() {
                self.diags.push(Diagnostic::error(name.name.span.clone(), format!("duplicate definition of `{}`", name.name.node)));
            }
        }
    }

    /// Declares the variables of one declaration; returns their ids.
    pub(crate) fn declare_vars(&mut self, decl: &ast::VarDecl, owner: Option<usize>) -> Vec<ir::VarId> {
        let Some(space) = StateSpace::from_name(&decl.space.node) else {
            self.diags.push(Diagnostic::error(decl.space.span.clone(), format!("`{}` variables cannot be declared here", decl.space.node)));
            return vec![];
        };
        if handle_kind(decl).is_some() {
            self.diags.push(Diagnostic::error(decl.span.clone(), "texture, sampler and surface references must be declared at module scope"));
            return vec![];
        }
        let elem = match ScalarType::from_name(&decl.ty.node) {
            Some(t) => t,
            None => {
                let msg = if crate::front::parser::is_type_name(&decl.ty.node) {
                    format!("not supported yet: variables of type `{}`", decl.ty.node)
                } else {
                    format!("unknown type `{}`", decl.ty.node)
                };
                self.diags.push(Diagnostic::error(decl.ty.span.clone(), msg));
                return vec![];
            }
        };
        let linkage = match decl.linkage {
            Some(ast::Linkage::Extern) => ir::Linkage::External,
            Some(ast::Linkage::Weak) => ir::Linkage::Weak,
            Some(_) => ir::Linkage::Public,
            None => ir::Linkage::Internal,
        };
        let vec_len = decl.vector.unwrap_or(1) as u64;
        let mut ids = vec![];
        for name in &decl.names {
            if name.range.is_some() {
                self.diags.push(Diagnostic::error(name.name.span.clone(), "parameterized names (`name<N>`) are only allowed for registers"));
                continue;
            }
            let elem_bytes = elem.bytes() as u64 * vec_len;
            let mut count: u64 = 1;
            let mut unsized_dim = false;
            for d in &name.dims {
                match d {
                    Some(n) => count = count.saturating_mul(*n),
                    None => unsized_dim = true,
                }
            }
            let mut init_bytes = None;
            let mut relocs = vec![];
            if name.init.is_some() && !matches!(space, StateSpace::Global | StateSpace::Const) {
                self.diags.push(Diagnostic::error(
                    name.name.span.clone(),
                    format!("`{}` variables cannot have an initializer (only `.global` and `.const` can)", decl.space.node),
                ));
            } else if let Some(init) = &name.init {
                let mut bytes = vec![];
                self.flatten_init(init, elem, &mut bytes, &mut relocs);
                if unsized_dim {
                    count = (bytes.len() as u64) / elem_bytes.max(1);
                    unsized_dim = false;
                }
                init_bytes = Some(bytes);
            }
            let size = if unsized_dim { 0 } else { elem_bytes.saturating_mul(count) };
            if let Some(b) = &mut init_bytes {
                if b.len() as u64 > size {
                    self.diags.push(Diagnostic::error(name.name.span.clone(), format!("too many initializers for `{}`", name.name.node)));
                }
                if size > MAX_INITIALIZED_BYTES {
                    // The initial value is kept byte by byte, padding included.
                    self.diags.push(Diagnostic::error(
                        name.name.span.clone(),
                        format!("not supported yet: initialized variable `{}` of {size} bytes (at most {MAX_INITIALIZED_BYTES})", name.name.node),
                    ));
                    b.clear();
                } else {
                    b.resize(size as usize, 0);
                }
            }
            // Only `extern` arrays (dynamic shared memory, other modules' data) may be unsized.
            if size == 0 && linkage != ir::Linkage::External {
                self.diags.push(Diagnostic::error(name.name.span.clone(), format!("array `{}` has no size", name.name.node)));
            }
            let align = decl.align.unwrap_or(elem.bytes() * vec_len as u32).max(1);
            if !align.is_power_of_two() {
                self.diags.push(Diagnostic::error(decl.span.clone(), format!("alignment {align} is not a power of two")));
            }
            let id = ir::VarId(self.out.vars.len() as u32);
            self.out.vars.push(ir::Variable {
                name: name.name.node.clone(),
                space,
                elem,
                size,
                // (an alignment that is no power of two was reported above)
                align: align.max(1).checked_next_power_of_two().unwrap_or(1),
                init: init_bytes,
                relocs,
                linkage,
                owner,
                span: name.name.span.clone(),
            });
            ids.push(id);
        }
        ids
    }

    fn flatten_init(&mut self, init: &ast::Initializer, elem: ScalarType, out: &mut Vec<u8>, relocs: &mut Vec<ir::Reloc>) {
        match init {
            ast::Initializer::List(items, _) => {
                for i in items {
                    self.flatten_init(i, elem, out, relocs);
                }
            }
            ast::Initializer::Field(k, _, span) => {
                self.diags.push(Diagnostic::error(span.clone(), format!("`{} = ...` initializers are only allowed for `.samplerref` variables", k.node)));
            }
            ast::Initializer::Expr(e) => {
                let bytes = elem.bytes() as usize;
                let bits = match operands::immediate_bits(&e.node, elem) {
                    Some(b) => b,
                    None => {
                        // Symbol (+ offset) initializers hold addresses.
                        if let Some((sym, addend, _)) = crate::front::parser::symbol_offset(&e.node) {
                            let target = match self.globals.get(&sym) {
                                Some(GlobalSymbol::Var(v)) => Some(ir::RelocTarget::Var(*v)),
                                Some(GlobalSymbol::Function(f)) => Some(ir::RelocTarget::Function(*f as u32)),
                                _ => None,
                            };
                            if let Some(target) = target {
                                if bytes < 4 {
                                    self.diags.push(Diagnostic::error(e.span.clone(), format!("an address does not fit in a `{}` element", elem.name())));
                                    return;
                                }
                                relocs.push(ir::Reloc { offset: out.len() as u64, target, addend, bytes: bytes.min(8) as u32 });
                                out.extend(std::iter::repeat_n(0, bytes));
                                return;
                            }
                            self.diags.push(Diagnostic::error(e.span.clone(), format!("undefined symbol `{sym}` in initializer")));
                        } else {
                            self.diags.push(Diagnostic::error(e.span.clone(), "initializer is not a constant of the variable's type"));
                        }
                        0
                    }
                };
                out.extend_from_slice(&bits.to_le_bytes()[..bytes.min(8)]);
                if bytes > 8 {
                    out.extend(std::iter::repeat_n(0, bytes - 8));
                }
            }
        }
    }
}

/// The largest initialized variable: its initial value is held in memory, padding included.
const MAX_INITIALIZED_BYTES: u64 = 1 << 28;

/// The number of an `sm_NN` target name (`sm_90a` → 90); None for the options.
pub(crate) fn target_sm(name: &str) -> Option<u32> {
    let digits: String = name.strip_prefix("sm_")?.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// The PTX ISA version a `.target` name needs (ptxas: "PTX .version 8.7 does not support
/// .target sm_100f"): the architecture- and family-specific targets (`sm_90a`, `sm_100f`;
/// family targets came with PTX ISA 8.8, sm_110 (sm_101 renamed) with 9.0) and the plain
/// targets from sm_50 on, with ptxas's minima. Older targets have none: files of the early
/// tools declare them with older versions, and those files compile.
fn target_version(name: &str) -> Option<(u32, u32)> {
    let number = name.strip_prefix("sm_")?;
    let specific = match (number.strip_suffix('a'), number.strip_suffix('f')) {
        (Some(d), _) => Some((d, false)),
        (_, Some(d)) => Some((d, true)),
        _ => None,
    };
    let Some((digits, family)) = specific else {
        return Some(match number.parse::<u32>().ok()? {
            50 => (4, 0),
            52 => (4, 1),
            53 => (4, 2),
            60 | 61 | 62 => (5, 0),
            70 => (6, 0),
            72 => (6, 1),
            75 => (6, 3),
            80 => (7, 0),
            86 => (7, 1),
            87 => (7, 4),
            89 | 90 => (7, 8),
            100 | 101 => (8, 6),
            120 => (8, 7),
            103 | 121 => (8, 8),
            110 => (9, 0),
            _ => return None,
        });
    };
    Some(match digits.parse::<u32>().ok()? {
        110 => (9, 0),
        _ if family => (8, 8),
        90 => (8, 0),
        100 | 101 => (8, 6),
        120 => (8, 7),
        _ => (8, 8),
    })
}

/// `.target` names: `sm_NN` targets (`a` suffixes from sm_90 on, `f` from sm_100 on) and
/// the options.
fn is_target_name(name: &str) -> bool {
    const SM: &[u32] = &[10, 11, 12, 13, 20, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121];
    if matches!(name, "texmode_unified" | "texmode_independent" | "debug" | "map_f64_to_f32") {
        return true;
    }
    let Some(number) = name.strip_prefix("sm_") else { return false };
    let (digits, first_suffixed) = match (number.strip_suffix('a'), number.strip_suffix('f')) {
        (Some(d), _) => (d, 90),
        (_, Some(d)) => (d, 100),
        _ => (number, 0),
    };
    digits.parse::<u32>().is_ok_and(|n| SM.contains(&n) && n >= first_suffixed && !digits.starts_with('+'))
}

/// The kind of opaque reference a declaration declares, if it is one: `.texref`,
/// `.samplerref`, `.surfref`, or a variable in the ISA 1.x `.tex` state space.
fn handle_kind(decl: &ast::VarDecl) -> Option<ir::HandleKind> {
    match decl.ty.node.as_str() {
        ".texref" => Some(ir::HandleKind::Texture),
        ".samplerref" => Some(ir::HandleKind::Sampler),
        ".surfref" => Some(ir::HandleKind::Surface),
        _ if decl.space.node == ".tex" => Some(ir::HandleKind::Texture),
        _ => None,
    }
}

/// One `field = value` of a `.samplerref` initializer (ISA 9.2 §5.3, Table 11).
fn sampler_field(sampler: &mut ir::SamplerInit, field: &ast::Spanned<String>, value: &ast::Spanned<String>) -> Result<(), Diagnostic> {
    let bad = || Diagnostic::error(value.span.clone(), format!("`{}` is not a valid value of sampler field `{}`", value.node, field.node));
    let flag = || match value.node.as_str() {
        "0" => Ok(false),
        "1" => Ok(true),
        _ => Err(bad()),
    };
    match field.node.as_str() {
        "addr_mode_0" | "addr_mode_1" | "addr_mode_2" => {
            let d = (field.node.as_bytes()[10] - b'0') as usize;
            sampler.addr_mode[d] = Some(match value.node.as_str() {
                "wrap" => ir::AddrMode::Wrap,
                "mirror" => ir::AddrMode::Mirror,
                "clamp_ogl" => ir::AddrMode::ClampOgl,
                "clamp_to_edge" => ir::AddrMode::ClampToEdge,
                "clamp_to_border" => ir::AddrMode::ClampToBorder,
                _ => return Err(bad()),
            });
        }
        "filter_mode" => {
            sampler.linear_filter = Some(match value.node.as_str() {
                "nearest" => false,
                "linear" => true,
                _ => return Err(bad()),
            });
        }
        "force_unnormalized_coords" => sampler.force_unnormalized = Some(flag()?),
        other => return Err(Diagnostic::error(field.span.clone(), format!("`{other}` is not a sampler field"))),
    }
    Ok(())
}

fn init_span(i: &ast::Initializer) -> ast::Span {
    match i {
        ast::Initializer::Expr(e) => e.span.clone(),
        ast::Initializer::List(_, s) | ast::Initializer::Field(_, _, s) => s.clone(),
    }
}

fn item_span(item: &ast::Item) -> ast::Span {
    match item {
        ast::Item::Version { span, .. } | ast::Item::Target { span, .. } | ast::Item::AddressSize { span, .. } => span.clone(),
        ast::Item::Var(v) => v.span.clone(),
        ast::Item::Function(f) => f.span.clone(),
        ast::Item::Ignored { span } | ast::Item::Alias { span, .. } | ast::Item::File { span, .. } => span.clone(),
    }
}

//! Lowering: IR → LLVM module.
//!
//! Module-scope variables become LLVM globals (shared and local ones get window offsets
//! instead), each `.entry` becomes a block function (`kernel`), and the module exports one
//! descriptor per kernel plus a constructor that registers the module with ptxrt (`abi`).
//!
//! - `thread`: per-thread code (`FnCx`: registers, operands, addresses) and the dispatch of
//!   each operation to its family in `ops/` (one file per instruction family);
//! - `exec/`: the execution model: block functions, regions between sync points, warp
//!   collectives, recomputation, loop interchange, guards, lockstep, fibers, calls;
//! - `opt/`: passes over the finished LLVM module.

pub mod abi;
pub mod debug;
pub mod exec;
pub mod ops;
pub mod opt;
pub mod split;
pub mod thread;

use exec::{constants, fibers, function, induction, kernel, lockstep, multiversion};
use ops::texture;

use crate::diag::Diagnostic;
use crate::ir::{self, Linkage as IrLinkage, StateSpace};
use abi::AbiTypes;
use inkwell::builder::BuilderError;
use inkwell::context::Context;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::{Linkage, Module};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, FunctionValue, GlobalValue, PointerValue};
use inkwell::AddressSpace;

#[derive(Debug, thiserror::Error)]
pub enum LowerError {
    #[error("{0}")]
    Builder(#[from] BuilderError),
    #[error("not supported yet: {0}")]
    Unsupported(String),
    #[error("internal error: {0}")]
    Internal(String),
    #[error("{1}")]
    At(ir::Span, String),
}

impl LowerError {
    /// Attaches a source location if the error has none.
    pub fn at(self, span: &ir::Span) -> LowerError {
        match self {
            LowerError::At(..) => self,
            e => LowerError::At(span.clone(), e.to_string()),
        }
    }
}

pub type R<T> = Result<T, LowerError>;

/// Per function of `m`: the `.shared` variables (indices in `m.vars`) it names or its
/// callees name, transitively. An indirect call may reach any function.
fn shared_reach(m: &ir::Module) -> Vec<std::collections::HashSet<usize>> {
    use std::collections::HashSet;
    let n = m.functions.len();
    let mut callees: Vec<HashSet<usize>> = vec![HashSet::new(); n];
    for (i, f) in m.functions.iter().enumerate() {
        for inst in f.blocks.iter().flat_map(|b| b.insts.iter()) {
            match &inst.op {
                ir::Op::Call { callee: ir::Callee::Direct(c), .. } => {
                    callees[i].insert(*c as usize);
                }
                ir::Op::Call { callee: ir::Callee::Indirect { .. }, .. } => callees[i].extend(0..n),
                _ => {}
            }
        }
    }
    let own = |f: &ir::Function| -> HashSet<usize> {
        f.vars_named.iter().map(|v| v.0 as usize).filter(|&v| m.vars.get(v).is_some_and(|v| v.space == StateSpace::Shared)).collect()
    };
    (0..n)
        .map(|start| {
            let mut seen = vec![false; n];
            let mut stack = vec![start];
            let mut vars = HashSet::new();
            while let Some(f) = stack.pop() {
                if std::mem::replace(&mut seen[f], true) {
                    continue;
                }
                vars.extend(own(&m.functions[f]));
                stack.extend(callees[f].iter().copied());
            }
            vars
        })
        .collect()
}

/// Where shared and local variables live in their windows.
#[derive(Debug, Default)]
pub struct MemoryLayout {
    offsets: Vec<u64>,
    /// Bytes of static shared memory of the module: the most any kernel needs (dynamic
    /// shared memory starts at this, aligned to 16).
    pub static_shared: u64,
    /// Per function (index in `Module::functions`): the static shared bytes a kernel
    /// reserves, those of the `.shared` variables it and its callees name; a kernel that
    /// reaches dynamic shared memory reserves `static_shared` (its start).
    pub kernel_static_shared: Vec<u64>,
    /// Bytes of `.local` memory per thread.
    pub local_bytes: u64,
    /// Per variable: a kernel's `.param` variable (a call's arguments or results) kept in
    /// the thread's `.local` window at its offset, not in a slot of the block function's
    /// frame (see `MemoryLayout::new`).
    per_thread_params: Vec<bool>,
    /// Some function allocates on the stack (`alloca`, `stackrestore`): `.local` addresses
    /// may then point outside the window (into the thread's stack), so accesses through
    /// them are not derived from the window pointer (`FnCx::window_pointer`).
    pub stack_allocations: bool,
}

impl MemoryLayout {
    fn new(m: &ir::Module) -> Self {
        let mut l = MemoryLayout { offsets: vec![0; m.vars.len()], per_thread_params: vec![false; m.vars.len()], ..Default::default() };
        let align_up = |x: u64, a: u64| x.div_ceil(a) * a;
        // The `.shared` variables each kernel reaches. Static ones that no kernel uses
        // together share addresses, so that every kernel is charged only what it uses
        // (one offset per variable: functions are shared between kernels).
        let reach = shared_reach(m);
        let mut placed: Vec<(usize, u64, u64)> = vec![];
        for (i, v) in m.vars.iter().enumerate() {
            match v.space {
                StateSpace::Shared if v.size > 0 => {
                    let together = |j: usize| reach.iter().any(|r| r.contains(&i) && r.contains(&j));
                    let mut at = 0;
                    loop {
                        at = align_up(at, v.align.max(1) as u64);
                        match placed.iter().find(|&&(j, start, end)| start < at + v.size && at < end && together(j)) {
                            Some(&(_, _, end)) => at = end,
                            None => break,
                        }
                    }
                    placed.push((i, at, at + v.size));
                    l.offsets[i] = at;
                    l.static_shared = l.static_shared.max(at + v.size);
                }
                // `.local` variables of a `.func` live in its stack frame (recursion).
                StateSpace::Local if v.owner.is_some_and(|o| m.functions[o].kind == ir::FunctionKind::Func) => {}
                StateSpace::Local => {
                    l.local_bytes = align_up(l.local_bytes, v.align as u64);
                    l.offsets[i] = l.local_bytes;
                    l.local_bytes += v.size;
                }
                // A kernel's block function runs its threads one after another between sync
                // points: a `.param` variable in one slot of its frame would hold the last
                // thread's arguments after a barrier (in the body of a function inlined for its
                // barriers: `st.param` before the call, `ld.param` after a `bar.sync` in the
                // callee). In a kernel with sync points each thread has its own, in its
                // `.local` window.
                StateSpace::Param if v.owner.is_some_and(|o| m.functions[o].kind == ir::FunctionKind::Entry && m.functions[o].has_sync_points()) => {
                    l.local_bytes = align_up(l.local_bytes, v.align.max(1) as u64);
                    l.offsets[i] = l.local_bytes;
                    l.local_bytes += v.size;
                    l.per_thread_params[i] = true;
                }
                _ => {}
            }
        }
        l.kernel_static_shared = reach
            .iter()
            .map(|r| {
                let dynamic = r.iter().any(|&i| m.vars[i].size == 0);
                if dynamic {
                    l.static_shared
                } else {
                    placed.iter().filter(|(i, ..)| r.contains(i)).map(|&(_, _, end)| end).max().unwrap_or(0)
                }
            })
            .collect();
        // Dynamic shared memory (`extern .shared` arrays without size) follows the static part.
        let dynamic = l.static_shared_aligned();
        for (i, v) in m.vars.iter().enumerate() {
            if v.space == StateSpace::Shared && v.size == 0 {
                l.offsets[i] = dynamic;
            }
        }
        l.local_bytes = align_up(l.local_bytes, 16);
        l.stack_allocations = m
            .functions
            .iter()
            .flat_map(|f| f.blocks.iter().flat_map(|b| b.insts.iter()))
            .any(|i| matches!(i.op, ir::Op::Alloca { .. } | ir::Op::StackRestore { .. }));
        l
    }

    /// The static shared bytes kernel `f` (its index in the module) reserves.
    pub fn kernel_static_shared(&self, f: usize) -> u64 {
        self.kernel_static_shared.get(f).copied().unwrap_or(self.static_shared)
    }

    pub fn static_shared_aligned(&self) -> u64 {
        self.static_shared.div_ceil(16) * 16
    }

    pub fn shared_offset(&self, v: ir::VarId) -> u64 {
        self.offsets[v.0 as usize]
    }

    pub fn local_offset(&self, v: ir::VarId) -> u64 {
        self.offsets[v.0 as usize]
    }

    /// Whether `.param` variable `v` lives in the thread's `.local` window (at
    /// `local_offset`).
    pub fn per_thread_param(&self, v: ir::VarId) -> bool {
        self.per_thread_params.get(v.0 as usize).copied().unwrap_or(false)
    }
}

pub struct ModuleLowerer<'ctx, 'a> {
    pub cx: &'ctx Context,
    pub module: Module<'ctx>,
    pub abi: AbiTypes<'ctx>,
    pub ir: &'a ir::Module,
    pub layout: MemoryLayout,
    globals: Vec<Option<GlobalValue<'ctx>>>,
    /// The global holding each texture/sampler/surface reference's handle (`texture`).
    handles: Vec<GlobalValue<'ctx>>,
    /// The LLVM function of each `.func` (`None` for entries).
    functions: Vec<Option<FunctionValue<'ctx>>>,
    /// `-g`: the module's debug information (`debug`).
    pub debug: Option<debug::DebugInfo<'ctx>>,
    /// `--check`: positions for the reports of checked accesses (`ops::check`).
    pub check: Option<debug::Positions>,
    /// How kernels run their threads (`--scheduler`, `--large-kernel`).
    pub exec: ExecOptions,
}

impl<'ctx, 'a> ModuleLowerer<'ctx, 'a> {
    pub fn global_ptr(&self, v: ir::VarId) -> Option<PointerValue<'ctx>> {
        self.globals[v.0 as usize].map(|g| g.as_pointer_value())
    }

    /// The global holding reference `h`'s handle.
    pub fn handle_global(&self, h: ir::HandleId) -> R<GlobalValue<'ctx>> {
        self.handles.get(h.0 as usize).copied().ok_or_else(|| LowerError::Internal(format!("reference {} does not exist", h.0)))
    }

    /// The LLVM function of `.func` number `index`.
    pub fn function(&self, index: u32) -> R<FunctionValue<'ctx>> {
        match self.functions.get(index as usize).copied().flatten() {
            Some(f) => Ok(f),
            // Only kernels lack a `.func` value: their address is used to launch them from
            // the device (dynamic parallelism).
            None => match self.ir.functions.get(index as usize) {
                Some(k) => Err(LowerError::Unsupported(format!("the address of kernel `{}` (launching kernels from the device)", k.name))),
                None => Err(LowerError::Internal(format!("function {index} does not exist"))),
            },
        }
    }

    /// The address of `Module::functions[index]` as a value: a `.func`'s code, or for a
    /// kernel its descriptor `__ptxrt_kernel_<name>` (what device-side launches such as
    /// `cudaLaunchDevice` receive; the runtime launches the kernel from it).
    pub fn function_address(&self, index: u32) -> R<PointerValue<'ctx>> {
        if let Some(f) = self.functions.get(index as usize).copied().flatten() {
            return Ok(f.as_global_value().as_pointer_value());
        }
        match self.ir.functions.get(index as usize) {
            Some(k) if k.kind == ir::FunctionKind::Entry => {
                let symbol = abi::kernel_symbol(&k.name);
                let g = self.module.get_global(&symbol).unwrap_or_else(|| self.module.add_global(self.abi.kernel, None, &symbol));
                Ok(g.as_pointer_value())
            }
            _ => self.function(index).map(|f| f.as_global_value().as_pointer_value()),
        }
    }

    pub fn intrinsic(&self, name: &str, types: &[BasicTypeEnum<'ctx>]) -> R<FunctionValue<'ctx>> {
        Intrinsic::find(name)
            .and_then(|i| i.get_declaration(&self.module, types))
            .ok_or_else(|| LowerError::Internal(format!("LLVM intrinsic {name} not found")))
    }
}

pub use fibers::Scheduler;

/// How kernels run their threads, as chosen on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecOptions {
    pub scheduler: Scheduler,
    /// Kernels of more PTX instructions than this are large (`kernel::LARGE_KERNEL`, the
    /// default).
    pub large_kernel: usize,
    /// The LLVM instructions above which a function gets the scalar pipeline
    /// (`opt::pipeline`, `--large-function`); `None` where every function gets the full one
    /// (-O3). Kernels of many regions whose block function would be that large get the
    /// compact form (`kernel::lower_entry`).
    pub scalar_above: Option<usize>,
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions { scheduler: Scheduler::Auto, large_kernel: kernel::LARGE_KERNEL, scalar_above: Some(opt::pipeline::LARGE_FUNCTION) }
    }
}

/// One more version of every block function, for a CPU with more features (`--cpu
/// x86-64,x86-64-v3,...`): made for `cpu`, run when ptxrt's `__ptxrt_cpu_level()` is at
/// least `level` (`exec::multiversion`).
#[derive(Debug, Clone)]
pub struct CpuVariant {
    pub cpu: String,
    pub level: u32,
}

/// The module lowering reads: `m` after the rewrites every unit shares (lockstep points,
/// constant sync operands, split inductions), once every instruction is one lowering can
/// translate (those it cannot are reported together, before any work).
pub fn prepare(m: &ir::Module) -> Result<std::borrow::Cow<'_, ir::Module>, Vec<Diagnostic>> {
    use std::borrow::Cow;
    let diags: Vec<Diagnostic> = m
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter().flat_map(|b| b.insts.iter()))
        .filter_map(|i| match &i.op {
            ir::Op::Unsupported { what } => Some(Diagnostic::error(i.span.clone(), format!("not supported yet: {what}"))),
            _ => None,
        })
        .collect();
    if !diags.is_empty() {
        return Err(diags);
    }
    let mut m = Cow::Borrowed(m);
    if let Some(x) = lockstep::insert_lockstep_points(&m) {
        m = Cow::Owned(x);
    }
    if let Some(x) = constants::fold_sync_operands(&m) {
        m = Cow::Owned(x);
    }
    if let Some(x) = induction::split_inductions(&m) {
        m = Cow::Owned(x);
    }
    Ok(m)
}

/// What one LLVM module gets of the IR module (`split`).
#[derive(Clone, Copy)]
pub enum Unit<'p> {
    /// Everything.
    Whole,
    /// Kernel part `.1` of a plan.
    Part(&'p split::Plan, usize),
    /// The module part, from what the kernel parts reported about their kernels.
    Module(&'p split::Plan, &'p [split::KernelInfo]),
}

/// Lowers a checked module into `module` (whose target triple and data layout are set).
pub fn lower<'ctx>(
    cx: &'ctx Context,
    module: Module<'ctx>,
    m: &ir::Module,
    exec: ExecOptions,
    variants: &[CpuVariant],
    debug: Option<debug::DebugRequest<'_>>,
) -> Result<Module<'ctx>, Vec<Diagnostic>> {
    let m = prepare(m)?;
    lower_unit(cx, module, &m, Unit::Whole, exec, variants, debug, &mut |_, _| {}).map(|(module, _)| module)
}

/// Lowers one unit of a prepared module (`prepare`) into `module`; returns it and what it
/// lowered of each kernel. `on_kernel(name, seconds)` hears each kernel's lowering time.
pub fn lower_unit<'ctx>(
    cx: &'ctx Context,
    module: Module<'ctx>,
    m: &ir::Module,
    unit: Unit<'_>,
    exec: ExecOptions,
    variants: &[CpuVariant],
    debug: Option<debug::DebugRequest<'_>>,
    on_kernel: &mut dyn FnMut(&str, f64),
) -> Result<(Module<'ctx>, Vec<split::KernelInfo>), Vec<Diagnostic>> {
    use inkwell::GlobalVisibility;
    let check = debug.filter(|d| d.check).map(|d| debug::Positions::new(&d));
    let debug = debug.filter(|d| d.line_tables).map(|d| debug::DebugInfo::new(cx, &module, m, d));
    let mut ml = ModuleLowerer {
        cx,
        module,
        abi: AbiTypes::new(cx),
        ir: m,
        layout: MemoryLayout::new(m),
        globals: vec![],
        handles: vec![],
        functions: vec![],
        debug,
        check,
        exec,
    };
    let mut diags: Vec<Diagnostic> = vec![];
    let live = match unit {
        Unit::Whole => ir::reach::live_functions(m),
        _ => vec![],
    };
    // Which `.func` bodies this unit lowers.
    let defines = |i: usize| match unit {
        Unit::Whole => live[i],
        Unit::Part(plan, p) => plan.parts[p].defines.contains(&i),
        Unit::Module(..) => false,
    };
    let hide = |g: GlobalValue<'ctx>| {
        g.set_linkage(Linkage::External);
        g.set_visibility(GlobalVisibility::Hidden);
    };
    ml.functions = function::declare_functions(&ml, defines);
    if !matches!(unit, Unit::Whole) {
        for (i, f) in m.functions.iter().enumerate() {
            let Some(func) = ml.functions[i] else { continue };
            let single = match unit {
                Unit::Part(plan, _) | Unit::Module(plan, _) => plan.single[i],
                Unit::Whole => false,
            };
            // Internal copies stay internal; a single definition and the references to a
            // function defined elsewhere are hidden globals (`split`).
            if f.linkage == IrLinkage::Internal && (single || !defines(i)) {
                hide(func.as_global_value());
            }
        }
    }
    ml.globals = m.vars.iter().map(|v| define_global(&ml, v)).collect();
    ml.handles = texture::define_handles(&ml);
    match unit {
        Unit::Whole => {}
        Unit::Module(..) => {
            for g in ml.globals.iter().flatten().chain(&ml.handles) {
                if g.get_linkage() == Linkage::Internal {
                    hide(*g);
                }
            }
        }
        // Variables live in the module part: declarations here.
        Unit::Part(..) => {
            for g in ml.globals.iter().flatten().chain(&ml.handles) {
                let internal = g.get_linkage() == Linkage::Internal;
                if g.get_initializer().is_some() {
                    clear_initializer(*g);
                }
                g.set_linkage(Linkage::External);
                if internal {
                    g.set_visibility(GlobalVisibility::Hidden);
                }
            }
        }
    }
    if !matches!(unit, Unit::Part(..)) {
        for (i, v) in m.vars.iter().enumerate() {
            if let Err(e) = init_global(&ml, ir::VarId(i as u32)) {
                diags.push(to_diag(e, &v.span));
            }
        }
    }
    for (i, f) in m.functions.iter().enumerate() {
        if f.kind == ir::FunctionKind::Func && f.has_body && defines(i) {
            if let Err(e) = function::lower_func(&ml, i, f) {
                diags.push(to_diag(e, &f.span));
            }
        }
    }
    if matches!(unit, Unit::Whole) {
        for &(alias, target) in &m.aliases {
            if let Err(e) = function::lower_alias(&ml, alias, target) {
                diags.push(to_diag(e, &m.functions[alias as usize].span));
            }
        }
    }
    let mut kernels = vec![];
    let mut infos = vec![];
    if let Unit::Module(_, reported) = unit {
        let ptr = cx.ptr_type(AddressSpace::default());
        let fn_ty = cx.i32_type().fn_type(&[ptr.into()], false);
        for k in reported {
            let block_fn = ml.module.add_function(&k.block_fn, fn_ty, Some(Linkage::External));
            block_fn.as_global_value().set_visibility(GlobalVisibility::Hidden);
            kernels.push((&m.functions[k.index], kernel::LoweredKernel { block_fn, context_bytes_per_thread: k.context_bytes_per_thread, fused_x: k.fused_x }));
        }
    } else {
        let mut fiber_needs = None;
        for (i, f) in m.functions.iter().enumerate() {
            if f.kind != ir::FunctionKind::Entry || !f.has_body {
                continue;
            }
            if let Unit::Part(plan, p) = unit {
                if !plan.parts[p].kernels.contains(&i) {
                    continue;
                }
            }
            let started = std::time::Instant::now();
            // Checked kernels run on fibers: each thread in order between barriers (`ops::check`).
            let fiber_needs = fiber_needs.get_or_insert_with(|| fibers::FiberNeeds::new(m));
            let lowered = if exec.scheduler == Scheduler::Fibers || ml.check.is_some() || fiber_needs.kernel(m, i) {
                fibers::lower_entry(&ml, i, f)
            } else {
                kernel::lower_entry(&ml, i, f, "")
                    .and_then(|base| multiversion::with_variants(&ml, base, variants, |suffix| kernel::lower_entry(&ml, i, f, suffix)))
            };
            on_kernel(&f.name, started.elapsed().as_secs_f64());
            match lowered {
                Ok(k) => {
                    if matches!(unit, Unit::Part(..)) {
                        hide(k.block_fn.as_global_value());
                    }
                    infos.push(split::KernelInfo {
                        index: i,
                        block_fn: k.block_fn.get_name().to_string_lossy().into_owned(),
                        context_bytes_per_thread: k.context_bytes_per_thread,
                        fused_x: k.fused_x,
                    });
                    kernels.push((f, k));
                }
                Err(e) => diags.push(to_diag(e, &f.span)),
            }
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    if !matches!(unit, Unit::Part(..)) {
        if let Err(e) = emit_descriptors(&ml, &kernels) {
            return Err(vec![to_diag(e, &(0..0))]);
        }
    }
    probe_stack_frames(&ml.module, cx);
    if let Some(d) = &ml.debug {
        d.finalize();
    }
    Ok((ml.module, infos))
}

/// Makes a global definition a declaration (inkwell has no safe call for it).
fn clear_initializer(g: GlobalValue<'_>) {
    use inkwell::values::AsValueRef;
    // SAFETY: `g` is a live global of a module of this thread's context; a null
    // initializer makes it a declaration, which LLVM supports for any global.
    unsafe { inkwell::llvm_sys::core::LLVMSetInitializer(g.as_value_ref(), std::ptr::null_mut()) }
}

/// Frames larger than a page touch their pages in order on entry, so that a recursion
/// with large `.local` arrays hits the guard region below the stack that ptxrt runs
/// kernel code on (and fails the launch) instead of stepping over it into other memory.
/// Small frames get no probe code.
fn probe_stack_frames<'ctx>(module: &Module<'ctx>, cx: &'ctx Context) {
    let probe = cx.create_string_attribute("probe-stack", "inline-asm");
    for f in module.get_functions().filter(|f| f.count_basic_blocks() > 0) {
        f.add_attribute(inkwell::attributes::AttributeLoc::Function, probe);
    }
}

fn to_diag(e: LowerError, fallback: &ir::Span) -> Diagnostic {
    match e {
        LowerError::At(span, msg) => Diagnostic::error(span, msg),
        e => Diagnostic::error(fallback.clone(), e.to_string()),
    }
}

/// Adds the LLVM global of a module-scope `.global`/`.const` variable (its initializer is
/// set by `init_global`, once every global exists for address-valued initializers).
fn define_global<'ctx>(ml: &ModuleLowerer<'ctx, '_>, v: &ir::Variable) -> Option<GlobalValue<'ctx>> {
    if !matches!(v.space, StateSpace::Global | StateSpace::Const) {
        return None;
    }
    let g = ml.module.add_global(global_type(ml, v), Some(AddressSpace::default()), &global_symbol(v));
    g.set_alignment(v.align.max(1));
    match v.linkage {
        IrLinkage::External => g.set_linkage(Linkage::External),
        IrLinkage::Public => g.set_linkage(Linkage::External),
        IrLinkage::Weak => g.set_linkage(Linkage::WeakAny),
        IrLinkage::Internal => g.set_linkage(Linkage::Internal),
    }
    Some(g)
}

/// The symbol of a `.global`/`.const` variable (function-scope ones are made unique).
pub fn global_symbol(v: &ir::Variable) -> String {
    let name = abi::ptx_symbol(&v.name);
    if v.owner.is_some() {
        format!("{name}.{}", v.span.start)
    } else {
        name
    }
}

/// The pieces of a variable's initial bytes: plain bytes, and addresses (`Reloc`s).
fn init_pieces(v: &ir::Variable) -> Vec<Result<std::ops::Range<usize>, ir::Reloc>> {
    let mut pieces = vec![];
    let mut at = 0usize;
    let mut relocs = v.relocs.clone();
    relocs.sort_by_key(|r| r.offset);
    for r in relocs {
        if (r.offset as usize) > at {
            pieces.push(Ok(at..r.offset as usize));
        }
        pieces.push(Err(r));
        at = r.offset as usize + r.bytes as usize;
    }
    if at < v.size as usize {
        pieces.push(Ok(at..v.size as usize));
    }
    pieces
}

/// Bytes, or a packed struct of byte arrays and address-sized integers.
fn global_type<'ctx>(ml: &ModuleLowerer<'ctx, '_>, v: &ir::Variable) -> BasicTypeEnum<'ctx> {
    let cx = ml.cx;
    if v.relocs.is_empty() || v.linkage == IrLinkage::External {
        return cx.i8_type().array_type(v.size as u32).into();
    }
    let fields: Vec<BasicTypeEnum<'ctx>> = init_pieces(v)
        .into_iter()
        .map(|p| match p {
            Ok(range) => cx.i8_type().array_type(range.len() as u32).into(),
            Err(r) => thread::int_type(cx, r.bytes * 8).into(),
        })
        .collect();
    cx.struct_type(&fields, true).into()
}

/// Sets a global's initial value: its bytes, with the addresses of other globals and of
/// functions where the PTX initializer names them.
fn init_global(ml: &ModuleLowerer<'_, '_>, id: ir::VarId) -> R<()> {
    let v = &ml.ir.vars[id.0 as usize];
    let Some(g) = ml.globals[id.0 as usize] else {
        if !v.relocs.is_empty() {
            return Err(LowerError::Unsupported(format!("addresses in the initializer of `{}` (a `{}` variable)", v.name, v.space.name())));
        }
        return Ok(());
    };
    if v.linkage == IrLinkage::External {
        return Ok(());
    }
    let cx = ml.cx;
    let bytes = v.init.clone().unwrap_or_else(|| vec![0; v.size as usize]);
    if v.relocs.is_empty() {
        g.set_initializer(&cx.const_string(&bytes, false));
        return Ok(());
    }
    let mut values: Vec<BasicValueEnum> = vec![];
    for piece in init_pieces(v) {
        match piece {
            Ok(range) => values.push(cx.const_string(&bytes[range], false).into()),
            Err(r) => {
                let target = match r.target {
                    ir::RelocTarget::Var(t) => ml.global_ptr(t).ok_or_else(|| {
                        let tv = &ml.ir.vars[t.0 as usize];
                        LowerError::Unsupported(format!("the address of `{}` (a `{}` variable) in an initializer", tv.name, tv.space.name()))
                    })?,
                    ir::RelocTarget::Function(f) => ml.function_address(f)?,
                };
                let it = thread::int_type(cx, r.bytes * 8);
                let addr = target.const_to_int(cx.i64_type()).const_add(cx.i64_type().const_int(r.addend as u64, true));
                values.push(addr.const_truncate_or_bit_cast(it).into());
            }
        }
    }
    g.set_initializer(&cx.const_struct(&values, true));
    Ok(())
}

fn emit_descriptors<'ctx>(ml: &ModuleLowerer<'ctx, '_>, kernels: &[(&ir::Function, kernel::LoweredKernel<'ctx>)]) -> R<()> {
    let cx = ml.cx;
    let t = &ml.abi;
    let i32t = cx.i32_type();
    let ptr = cx.ptr_type(AddressSpace::default());
    let private_const = |name: &str, value: BasicValueEnum<'ctx>| -> GlobalValue<'ctx> {
        let g = ml.module.add_global(value.get_type(), None, name);
        g.set_initializer(&value);
        g.set_constant(true);
        g.set_linkage(Linkage::Private);
        g
    };
    let cstr = |name: &str, s: &str| private_const(name, cx.const_string(s.as_bytes(), true).into()).as_pointer_value();
    let dim3 = |d: Option<[u32; 3]>| {
        let d = d.unwrap_or([0; 3]);
        t.dim3.const_named_struct(&[
            i32t.const_int(d[0] as u64, false).into(),
            i32t.const_int(d[1] as u64, false).into(),
            i32t.const_int(d[2] as u64, false).into(),
        ])
    };
    let mut kernel_ptrs = vec![];
    for (f, k) in kernels {
        let sizes: Vec<_> = f.params.iter().map(|p| i32t.const_int(p.size as u64, false)).collect();
        let aligns: Vec<_> = f.params.iter().map(|p| i32t.const_int(p.align as u64, false)).collect();
        let sizes = private_const(&format!("ptxrt.param_sizes.{}", f.name), i32t.const_array(&sizes).into());
        let aligns = private_const(&format!("ptxrt.param_aligns.{}", f.name), i32t.const_array(&aligns).into());
        let name = cstr(&format!("ptxrt.name.{}", f.name), &f.name);
        let desc = t.kernel.const_named_struct(&[
            i32t.const_int(abi::ABI_VERSION as u64, false).into(),
            i32t.const_int(f.params.len() as u64, false).into(),
            name.into(),
            k.block_fn.as_global_value().as_pointer_value().into(),
            sizes.as_pointer_value().into(),
            aligns.as_pointer_value().into(),
            i32t.const_int(
                ml.ir.functions.iter().position(|g| std::ptr::eq(g, *f)).map_or(ml.layout.static_shared, |i| ml.layout.kernel_static_shared(i)),
                false,
            )
            .into(),
            i32t.const_int(k.context_bytes_per_thread as u64, false).into(),
            i32t.const_int(ml.layout.local_bytes, false).into(),
            i32t.const_int(if k.fused_x { abi::KERNEL_FUSE_X } else { 0 }, false).into(),
            dim3(f.reqntid).into(),
            dim3(f.maxntid).into(),
        ]);
        // Code that takes the kernel's address (device-side launches) may have declared it.
        let symbol = abi::kernel_symbol(&f.name);
        let g = ml.module.get_global(&symbol).unwrap_or_else(|| ml.module.add_global(t.kernel, None, &symbol));
        g.set_initializer(&desc);
        g.set_constant(true);
        g.set_linkage(Linkage::External);
        kernel_ptrs.push(g.as_pointer_value());
    }
    let kernels_arr = private_const("ptxrt.kernels", ptr.const_array(&kernel_ptrs).into());
    let mut symbols = vec![];
    for (i, v) in ml.ir.vars.iter().enumerate() {
        if v.owner.is_some() || v.linkage == IrLinkage::External {
            continue;
        }
        if let Some(g) = ml.globals[i] {
            let name = cstr(&format!("ptxrt.symname.{}", v.name), &v.name);
            symbols.push(t.symbol.const_named_struct(&[name.into(), g.as_pointer_value().into(), cx.i64_type().const_int(v.size, false).into()]));
        }
    }
    for (h, g) in ml.ir.handles.iter().zip(&ml.handles) {
        if h.linkage == IrLinkage::External {
            continue;
        }
        let sym = texture::handle_symbol_name(h);
        let name = cstr(&format!("ptxrt.symname.{sym}"), &sym);
        symbols.push(t.symbol.const_named_struct(&[name.into(), g.as_pointer_value().into(), cx.i64_type().const_int(8, false).into()]));
    }
    let symbols_arr = private_const("ptxrt.symbols", t.symbol.const_array(&symbols).into());
    let module_desc = private_const(
        "ptxrt.module",
        t.module
            .const_named_struct(&[
                i32t.const_int(abi::ABI_VERSION as u64, false).into(),
                i32t.const_int(kernel_ptrs.len() as u64, false).into(),
                kernels_arr.as_pointer_value().into(),
                i32t.const_int(symbols.len() as u64, false).into(),
                symbols_arr.as_pointer_value().into(),
            ])
            .into(),
    );
    // The constructor: registers the module with the runtime before main.
    let void = cx.void_type();
    let register = ml.module.add_function("__ptxrt_register_module", void.fn_type(&[ptr.into()], false), Some(Linkage::External));
    let ctor = ml.module.add_function("ptxrt.module_ctor", void.fn_type(&[], false), Some(Linkage::Internal));
    let b = cx.create_builder();
    b.position_at_end(cx.append_basic_block(ctor, "entry"));
    b.build_call(register, &[module_desc.as_pointer_value().into()], "")?;
    b.build_return(None)?;
    // The constructor's address goes straight into `.init_array` (what clang emits for
    // `llvm.global_ctors` on Linux). LLVM's C API leaves the target option that does this
    // (`UseInitArray`) off, which would put it in `.ctors`: GNU ld folds that section into
    // `.init_array`, but LLD links it and never runs it (glibc's start files no longer do), so the
    // kernels would silently not register.
    let init = ml.module.add_global(ptr, None, "ptxrt.module_init");
    init.set_initializer(&ctor.as_global_value().as_pointer_value());
    init.set_linkage(Linkage::Private);
    init.set_section(Some(".init_array"));
    init.set_alignment(8);
    // Nothing refers to the entry: `llvm.used` keeps it through optimization.
    let used = ml.module.add_global(ptr.array_type(1), None, "llvm.used");
    used.set_linkage(Linkage::Appending);
    used.set_section(Some("llvm.metadata"));
    used.set_initializer(&ptr.const_array(&[init.as_pointer_value()]));
    Ok(())
}

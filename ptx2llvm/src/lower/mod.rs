//! Lowering: IR → LLVM module.
//!
//! Module-scope variables become LLVM globals (shared and local ones get window offsets
//! instead), each `.entry` becomes a block function (`kernel`), and the module exports one
//! descriptor per kernel plus a constructor that registers the module with ptxrt (`abi`).

pub mod abi;
mod atomic;
mod compare;
mod convert;
mod float;
mod int;
pub mod kernel;
mod memory;
pub mod regions;
pub mod thread;
mod video;

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

/// Where shared and local variables live in their windows.
#[derive(Debug, Default)]
pub struct MemoryLayout {
    offsets: Vec<u64>,
    /// Bytes of static shared memory (dynamic shared memory starts at this, aligned to 16).
    pub static_shared: u64,
    /// Bytes of `.local` memory per thread.
    pub local_bytes: u64,
}

impl MemoryLayout {
    fn new(m: &ir::Module) -> Self {
        let mut l = MemoryLayout { offsets: vec![0; m.vars.len()], ..Default::default() };
        let align_up = |x: u64, a: u64| x.div_ceil(a) * a;
        for (i, v) in m.vars.iter().enumerate() {
            match v.space {
                StateSpace::Shared if v.size > 0 => {
                    l.static_shared = align_up(l.static_shared, v.align as u64);
                    l.offsets[i] = l.static_shared;
                    l.static_shared += v.size;
                }
                StateSpace::Local => {
                    l.local_bytes = align_up(l.local_bytes, v.align as u64);
                    l.offsets[i] = l.local_bytes;
                    l.local_bytes += v.size;
                }
                _ => {}
            }
        }
        // Dynamic shared memory (`extern .shared` arrays without size) follows the static part.
        let dynamic = l.static_shared_aligned();
        for (i, v) in m.vars.iter().enumerate() {
            if v.space == StateSpace::Shared && v.size == 0 {
                l.offsets[i] = dynamic;
            }
        }
        l.local_bytes = align_up(l.local_bytes, 16);
        l
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
}

pub struct ModuleLowerer<'ctx, 'a> {
    pub cx: &'ctx Context,
    pub module: Module<'ctx>,
    pub abi: AbiTypes<'ctx>,
    pub ir: &'a ir::Module,
    pub layout: MemoryLayout,
    globals: Vec<Option<GlobalValue<'ctx>>>,
}

impl<'ctx, 'a> ModuleLowerer<'ctx, 'a> {
    pub fn global_ptr(&self, v: ir::VarId) -> Option<PointerValue<'ctx>> {
        self.globals[v.0 as usize].map(|g| g.as_pointer_value())
    }

    pub fn intrinsic(&self, name: &str, types: &[BasicTypeEnum<'ctx>]) -> R<FunctionValue<'ctx>> {
        Intrinsic::find(name)
            .and_then(|i| i.get_declaration(&self.module, types))
            .ok_or_else(|| LowerError::Internal(format!("LLVM intrinsic {name} not found")))
    }
}

/// Lowers a checked module into `module` (whose target triple and data layout are set).
pub fn lower<'ctx>(cx: &'ctx Context, module: Module<'ctx>, m: &ir::Module) -> Result<Module<'ctx>, Vec<Diagnostic>> {
    let mut ml = ModuleLowerer { cx, module, abi: AbiTypes::new(cx), ir: m, layout: MemoryLayout::new(m), globals: vec![] };
    // Every instruction lowering cannot translate yet, reported together before any work.
    let mut diags: Vec<Diagnostic> = m
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
    ml.globals = m.vars.iter().map(|v| define_global(&ml, v)).collect();
    for v in m.vars.iter().enumerate() {
        if let Err(e) = init_relocs(&ml, ir::VarId(v.0 as u32)) {
            diags.push(to_diag(e, &v.1.span));
        }
    }
    let mut kernels = vec![];
    for f in &m.functions {
        if f.kind != ir::FunctionKind::Entry || !f.has_body {
            continue;
        }
        match kernel::lower_entry(&ml, f) {
            Ok(k) => kernels.push((f, k)),
            Err(e) => diags.push(to_diag(e, &f.span)),
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    if let Err(e) = emit_descriptors(&ml, &kernels) {
        return Err(vec![to_diag(e, &(0..0))]);
    }
    Ok(ml.module)
}

fn to_diag(e: LowerError, fallback: &ir::Span) -> Diagnostic {
    match e {
        LowerError::At(span, msg) => Diagnostic::error(span, msg),
        e => Diagnostic::error(fallback.clone(), e.to_string()),
    }
}

fn define_global<'ctx>(ml: &ModuleLowerer<'ctx, '_>, v: &ir::Variable) -> Option<GlobalValue<'ctx>> {
    if !matches!(v.space, StateSpace::Global | StateSpace::Const) {
        return None;
    }
    let cx = ml.cx;
    let ty = cx.i8_type().array_type(v.size as u32);
    let name = abi::ptx_symbol(&v.name);
    let name = if v.owner.is_some() { format!("{name}.{}", v.span.start) } else { name };
    let g = ml.module.add_global(ty, Some(AddressSpace::default()), &name);
    g.set_alignment(v.align.max(1));
    match v.linkage {
        IrLinkage::External => g.set_linkage(Linkage::External),
        linkage => {
            let bytes = v.init.clone().unwrap_or_else(|| vec![0; v.size as usize]);
            g.set_initializer(&cx.const_string(&bytes, false));
            g.set_linkage(if linkage == IrLinkage::Public { Linkage::External } else { Linkage::Internal });
        }
    }
    Some(g)
}

/// Initializers holding addresses of other variables.
fn init_relocs(ml: &ModuleLowerer<'_, '_>, id: ir::VarId) -> R<()> {
    let v = &ml.ir.vars[id.0 as usize];
    if v.relocs.is_empty() {
        return Ok(());
    }
    Err(LowerError::Unsupported(format!("initializer of `{}` holding addresses of variables", v.name)))
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
        t.dim3.const_named_struct(&[i32t.const_int(d[0] as u64, false).into(), i32t.const_int(d[1] as u64, false).into(), i32t.const_int(d[2] as u64, false).into()])
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
            i32t.const_int(ml.layout.static_shared, false).into(),
            i32t.const_int(k.context_bytes_per_thread as u64, false).into(),
            i32t.const_int(ml.layout.local_bytes, false).into(),
            i32t.const_zero().into(),
            dim3(f.reqntid).into(),
            dim3(f.maxntid).into(),
        ]);
        let g = ml.module.add_global(t.kernel, None, &abi::kernel_symbol(&f.name));
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
    let entry_ty = cx.struct_type(&[i32t.into(), ptr.into(), ptr.into()], false);
    let ctors = ml.module.add_global(entry_ty.array_type(1), None, "llvm.global_ctors");
    ctors.set_linkage(Linkage::Appending);
    ctors.set_initializer(&entry_ty.const_array(&[entry_ty.const_named_struct(&[
        i32t.const_int(65535, false).into(),
        ctor.as_global_value().as_pointer_value().into(),
        ptr.const_null().into(),
    ])]));
    Ok(())
}

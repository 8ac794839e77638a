//! The compilation pipeline: text → syntax tree → IR → LLVM module → optimized output.

use crate::diag::{Diagnostic, Severity};
use crate::{check, front, lower};
use inkwell::context::Context;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Emit {
    #[default]
    Obj,
    Asm,
    LlvmIr,
    LlvmBc,
}

impl Emit {
    /// The default output file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Emit::Obj => "o",
            Emit::Asm => "s",
            Emit::LlvmIr => "ll",
            Emit::LlvmBc => "bc",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    pub emit: Emit,
    /// Target triple; `None` is the host.
    pub target: Option<String>,
    /// CPU name; `native` is the host CPU.
    pub cpu: String,
    pub opt_level: u8,
    /// How kernels run their threads (`lower::Scheduler`).
    pub scheduler: lower::Scheduler,
}

impl Default for Options {
    fn default() -> Self {
        Options { emit: Emit::Obj, target: None, cpu: "generic".into(), opt_level: 2, scheduler: lower::Scheduler::Auto }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// Errors in the input, located.
    #[error("the input has errors")]
    Input(Vec<Diagnostic>),
    /// A target triple or CPU that cannot be used: a usage error.
    #[error("{0}")]
    Usage(String),
    /// A failure of code generation itself (not located in the input).
    #[error("{0}")]
    Target(String),
}

/// Parses and checks a module; returns the IR and all diagnostics (errors and warnings).
pub fn analyze(source: &str) -> (crate::ir::Module, Vec<Diagnostic>) {
    let (ast, mut diags) = front::parse(source);
    let (ir, check_diags) = check::check(&ast);
    diags.extend(check_diags);
    diags.sort_by_key(|d| d.span.start);
    // Code inlined into several kernels (check/inline.rs) reports its problems once.
    diags.dedup_by(|a, b| a.span == b.span && a.message == b.message);
    (ir, diags)
}

pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(|d| d.severity == Severity::Error)
}

/// The CPUs of a `--cpu` list (`x86-64,x86-64-v3`): the baseline the module is made for,
/// and the versions of each block function for the others (`lower::exec::multiversion`).
/// A single name is the baseline alone.
fn cpu_versions(opts: &Options) -> Result<(String, Vec<lower::CpuVariant>), CompileError> {
    if !opts.cpu.contains(',') {
        return Ok((opts.cpu.clone(), vec![]));
    }
    let levels = lower::exec::multiversion::X86_64_LEVELS;
    let x86 = opts.target.as_deref().map_or(cfg!(target_arch = "x86_64"), |t| t.starts_with("x86_64"));
    if !x86 {
        return Err(CompileError::Usage(format!("--cpu {}: a list of CPUs is for x86-64 targets only (one version per psABI level)", opts.cpu)));
    }
    let mut chosen = vec![];
    for name in opts.cpu.split(',').map(str::trim) {
        let Some(level) = levels.iter().position(|l| *l == name) else {
            return Err(CompileError::Usage(format!("--cpu {}: `{name}` cannot be part of a list; a list names x86-64 psABI levels: {}", opts.cpu, levels.join(", "))));
        };
        chosen.push(level as u32 + 1);
    }
    chosen.sort_unstable();
    chosen.dedup();
    let base = levels[chosen[0] as usize - 1].to_string();
    let variants = chosen[1..].iter().map(|&l| lower::CpuVariant { cpu: levels[l as usize - 1].to_string(), level: l }).collect();
    Ok((base, variants))
}

fn target_machine(opts: &Options) -> Result<TargetMachine, CompileError> {
    Target::initialize_x86(&InitializationConfig::default());
    Target::initialize_aarch64(&InitializationConfig::default());
    let triple = match &opts.target {
        Some(t) => TargetTriple::create(t),
        None => TargetMachine::get_default_triple(),
    };
    let triple_name = triple.as_str().to_string_lossy().into_owned();
    let target = Target::from_triple(&triple)
        .map_err(|e| CompileError::Usage(format!("unknown target `{triple_name}`: {}", e.to_string_lossy())))?;
    let (base_cpu, _) = cpu_versions(opts)?;
    let (cpu, features) = if opts.cpu == "native" {
        (TargetMachine::get_host_cpu_name().to_string(), TargetMachine::get_host_cpu_features().to_string())
    } else if triple_name.starts_with("x86_64") {
        // `cmpxchg16b`, for the 128-bit atomics (`atom.cas.b128`, `atom.exch.b128`); every
        // x86-64 CPU since 2006 has it, and without it LLVM would call libatomic.
        (base_cpu, "+cx16".to_string())
    } else {
        (base_cpu, String::new())
    };
    let level = match opts.opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
    target
        .create_target_machine(&triple, &cpu, &features, level, RelocMode::PIC, CodeModel::Default)
        .ok_or_else(|| CompileError::Usage(format!("cannot create a target machine for `{triple_name}` with CPU `{cpu}`")))
}

/// Compiles PTX source into the requested output. Warnings are returned with the output.
pub fn compile(source: &str, module_name: &str, opts: &Options) -> Result<(Vec<u8>, Vec<Diagnostic>), CompileError> {
    let (ir, diags) = analyze(source);
    if has_errors(&diags) {
        return Err(CompileError::Input(diags));
    }
    let tm = target_machine(opts)?;
    let cx = Context::create();
    let module = cx.create_module(module_name);
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    let (_, variants) = cpu_versions(opts)?;
    let module = lower::lower(&cx, module, &ir, opts.scheduler, &variants).map_err(CompileError::Input)?;
    if let Err(e) = module.verify() {
        return Err(CompileError::Target(format!("internal error: generated LLVM IR is invalid: {}", e.to_string())));
    }
    if opts.opt_level > 0 {
        // Registers to SSA first, so that addresses show their base (lower::opt::provenance).
        module
            .run_passes("function(sroa,mem2reg,instcombine<no-verify-fixpoint>)", &tm, PassBuilderOptions::create())
            .map_err(|e| CompileError::Target(format!("internal error: LLVM optimization failed: {}", e.to_string())))?;
        lower::opt::provenance::rebase_integer_addresses(&module);
        lower::opt::nan_payload::drop_unobserved_nan_canonicalizations(&module);
        // A debugging aid: the IR the optimization pipeline starts from.
        if let Some(path) = std::env::var_os("PTX2LLVM_DUMP_PRE_OPT") {
            let _ = module.print_to_file(path);
        }
        let passes = format!("default<O{}>", opts.opt_level.min(3));
        module
            .run_passes(&passes, &tm, PassBuilderOptions::create())
            .map_err(|e| CompileError::Target(format!("internal error: LLVM optimization failed: {}", e.to_string())))?;
    }
    let bytes = match opts.emit {
        Emit::LlvmIr => module.print_to_string().to_bytes().to_vec(),
        Emit::LlvmBc => module.write_bitcode_to_memory().as_slice().to_vec(),
        Emit::Obj | Emit::Asm => {
            let ft = if opts.emit == Emit::Obj { FileType::Object } else { FileType::Assembly };
            tm.write_to_memory_buffer(&module, ft)
                .map_err(|e| CompileError::Target(format!("code generation failed: {}", e.to_string())))?
                .as_slice()
                .to_vec()
        }
    };
    Ok((bytes, diags))
}

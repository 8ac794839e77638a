//! The compilation pipeline: text → syntax tree → IR → LLVM module → optimized output.

use crate::diag::{Diagnostic, Severity};
use crate::target::{self, Arch, TargetSpec};
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
    /// `-g`: DWARF debug information (`lower::debug`); the PTX file's path names the
    /// positions of code without `.loc` directives.
    pub debug_info: Option<String>,
    /// `--check`: checked memory accesses (`lower::ops::check`); positions name the PTX
    /// file of this path.
    pub check: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options { emit: Emit::Obj, target: None, cpu: "generic".into(), opt_level: 2, scheduler: lower::Scheduler::Auto, debug_info: None, check: None }
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
/// A single name is the baseline alone; it must be a CPU LLVM knows for the target
/// (`target::check_cpu`), so that LLVM never prints warnings or aborts over it.
fn cpu_versions(opts: &Options, target: &TargetSpec) -> Result<(String, Vec<lower::CpuVariant>), CompileError> {
    if !opts.cpu.contains(',') {
        target::check_cpu(opts.cpu.trim(), target).map_err(CompileError::Usage)?;
        return Ok((opts.cpu.trim().to_string(), vec![]));
    }
    let levels = lower::exec::multiversion::X86_64_LEVELS;
    if target.arch != Arch::X86_64 {
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

/// Checks `--target` and `--cpu` (usage errors, before any LLVM call that could print or
/// abort): the target, the baseline CPU and the extra versions of a `--cpu` list.
pub fn check_target_options(opts: &Options) -> Result<(TargetSpec, String, Vec<lower::CpuVariant>), CompileError> {
    let spec = target::resolve_target(opts.target.as_deref()).map_err(CompileError::Usage)?;
    let (cpu, variants) = cpu_versions(opts, &spec)?;
    Ok((spec, cpu, variants))
}

fn target_machine(opts: &Options, spec: &TargetSpec, base_cpu: String) -> Result<TargetMachine, CompileError> {
    Target::initialize_x86(&InitializationConfig::default());
    Target::initialize_aarch64(&InitializationConfig::default());
    let triple = TargetTriple::create(&spec.triple);
    let triple_name = spec.triple.clone();
    let target = Target::from_triple(&triple).map_err(|_| CompileError::Usage(format!("unknown target `{triple_name}`")))?;
    let (cpu, features) = if base_cpu == "native" {
        (TargetMachine::get_host_cpu_name().to_string(), TargetMachine::get_host_cpu_features().to_string())
    } else if spec.arch == Arch::X86_64 {
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
    let (spec, base_cpu, variants) = check_target_options(opts)?;
    let tm = target_machine(opts, &spec, base_cpu)?;
    let cx = Context::create();
    let module = cx.create_module(module_name);
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    let debug = opts.debug_info.as_deref().or(opts.check.as_deref()).map(|ptx_path| lower::debug::DebugRequest {
        ptx_path,
        source,
        optimized: opts.opt_level > 0,
        line_tables: opts.debug_info.is_some(),
        check: opts.check.is_some(),
    });
    let module = lower::lower(&cx, module, &ir, opts.scheduler, &variants, debug).map_err(CompileError::Input)?;
    if let Err(e) = module.verify() {
        return Err(CompileError::Target(format!("internal error: the generated LLVM IR is invalid (a ptx2llvm bug; please report it with the input). LLVM's verifier said: {}", e.to_string().trim())));
    }
    if opts.opt_level > 0 {
        // Registers to SSA first, so that addresses show their base (lower::opt::provenance).
        module
            .run_passes("function(sroa,mem2reg,instcombine<no-verify-fixpoint>)", &tm, PassBuilderOptions::create())
            .map_err(|e| CompileError::Target(format!("internal error: LLVM's optimization pipeline failed (a ptx2llvm bug; please report it with the input): {}", e.to_string().trim())))?;
        lower::opt::provenance::rebase_integer_addresses(&module);
        lower::opt::nan_payload::drop_unobserved_nan_canonicalizations(&module);
        // A debugging aid: the IR the optimization pipeline starts from.
        if let Some(path) = std::env::var_os("PTX2LLVM_DUMP_PRE_OPT") {
            let _ = module.print_to_file(path);
        }
        let passes = format!("default<O{}>", opts.opt_level.min(3));
        module
            .run_passes(&passes, &tm, PassBuilderOptions::create())
            .map_err(|e| CompileError::Target(format!("internal error: LLVM's optimization pipeline failed (a ptx2llvm bug; please report it with the input): {}", e.to_string().trim())))?;
    }
    let bytes = match opts.emit {
        Emit::LlvmIr => module.print_to_string().to_bytes().to_vec(),
        Emit::LlvmBc => module.write_bitcode_to_memory().as_slice().to_vec(),
        Emit::Obj | Emit::Asm => {
            let ft = if opts.emit == Emit::Obj { FileType::Object } else { FileType::Assembly };
            tm.write_to_memory_buffer(&module, ft)
                .map_err(|e| CompileError::Target(format!("internal error: LLVM's code generation failed (a ptx2llvm bug; please report it with the input): {}", e.to_string().trim())))?
                .as_slice()
                .to_vec()
        }
    };
    Ok((bytes, diags))
}

//! The compilation pipeline: text → syntax tree → IR → LLVM module → optimized output.
//!
//! Objects of large modules are made in parallel: the module is split into codegen units
//! (`lower::split`), each lowered, optimized and compiled on a thread of its own with its own
//! LLVM context (the checked IR is shared, read-only), and the units' objects are merged into
//! one (`merge`). The split depends on the module only, so the object is the same for any
//! number of threads.

mod llvm_diagnostics;
pub mod merge;
pub mod report;

use crate::diag::{Diagnostic, Severity};
use crate::target::{self, Arch, TargetSpec};
use crate::{check, front, ir, lower};
use inkwell::context::Context;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;
use lower::split::{self, KernelInfo};
use lower::Unit;
use report::{Progress, TimeReport, UnitTime};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

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
    /// Kernels above this many PTX instructions are large (`lower::exec::kernel::LARGE_KERNEL`).
    pub large_kernel: usize,
    /// Threads for parsing and code generation (0: one per core). The output does not
    /// depend on it.
    pub jobs: usize,
    /// At most this many codegen units (1: the module stays whole). The output depends on it.
    pub codegen_units: usize,
    /// The smallest codegen unit, in IR instructions (`lower::split::MIN_PART_COST`).
    pub min_unit_cost: u64,
    /// Functions above this many LLVM instructions get the scalar pipeline at -O1 and -O2
    /// (`lower::opt::pipeline`).
    pub large_function: usize,
    /// Name each phase on the standard error as it starts (`-v`).
    pub verbose: bool,
    /// `-g`: DWARF debug information (`lower::debug`); the PTX file's path names the
    /// positions of code without `.loc` directives.
    pub debug_info: Option<String>,
    /// `--check`: checked memory accesses (`lower::ops::check`); positions name the PTX
    /// file of this path.
    pub check: Option<String>,
}

impl Options {
    /// The threads `jobs` asks for.
    fn threads(&self) -> usize {
        match self.jobs {
            0 => all_cores(),
            n => n,
        }
    }
}

fn all_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The default `Options::codegen_units`.
pub const DEFAULT_CODEGEN_UNITS: usize = 16;

impl Default for Options {
    fn default() -> Self {
        Options {
            emit: Emit::Obj,
            target: None,
            cpu: "generic".into(),
            opt_level: 2,
            scheduler: lower::Scheduler::Auto,
            large_kernel: lower::exec::kernel::LARGE_KERNEL,
            jobs: 0,
            codegen_units: DEFAULT_CODEGEN_UNITS,
            min_unit_cost: split::MIN_PART_COST,
            large_function: lower::opt::pipeline::LARGE_FUNCTION,
            verbose: false,
            debug_info: None,
            check: None,
        }
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
    let (ast, mut diags) = front::parser::parse_on_threads(source, all_cores());
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
            return Err(CompileError::Usage(format!(
                "--cpu {}: `{name}` cannot be part of a list; a list names x86-64 psABI levels: {}",
                opts.cpu,
                levels.join(", ")
            )));
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

/// LLVM's own settings (its command-line options, process-wide), set once before the first
/// compile.
///
/// `-cgpp-huge-func`: CodeGenPrepare repeats its walk over a function until nothing changes;
/// in a function of more blocks than this it revisits only the blocks the previous walk
/// changed. Block functions of kernels with many regions have 1-2k blocks, below LLVM's
/// default of 10,000, and the full walks took 70% of their code generation (a thrust
/// `ScanScatterDigits` kernel: 2.9 s -> 0.16 s, the same object bytes).
fn set_llvm_options() {
    let args: [&std::ffi::CStr; 2] = [c"ptx2llvm", c"-cgpp-huge-func=500"];
    let argv: Vec<*const std::ffi::c_char> = args.iter().map(|a| a.as_ptr()).collect();
    // SAFETY: argv holds valid NUL-terminated strings that outlive the call; the call
    // happens once (`TARGETS`), before any thread compiles.
    unsafe { inkwell::llvm_sys::support::LLVMParseCommandLineOptions(argv.len() as i32, argv.as_ptr(), std::ptr::null()) };
}

fn target_machine(opts: &Options, spec: &TargetSpec, base_cpu: String) -> Result<TargetMachine, CompileError> {
    // LLVM's target registry is filled once, not by threads at the same time.
    static TARGETS: std::sync::Once = std::sync::Once::new();
    TARGETS.call_once(|| {
        Target::initialize_x86(&InitializationConfig::default());
        Target::initialize_aarch64(&InitializationConfig::default());
        set_llvm_options();
    });
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
    compile_with_report(source, module_name, opts).0
}

fn optimize_error(e: impl std::fmt::Display) -> CompileError {
    CompileError::Target(format!(
        "internal error: LLVM's optimization pipeline failed (a ptx2llvm bug; please report it with the input): {}",
        e.to_string().trim()
    ))
}

/// `compile`, and where the time went (`--time-passes`).
pub fn compile_with_report(source: &str, module_name: &str, opts: &Options) -> (Result<(Vec<u8>, Vec<Diagnostic>), CompileError>, TimeReport) {
    let progress = Progress::new(opts.verbose);
    let mut report = TimeReport::default();
    let started = Instant::now();
    let result = compile_inner(source, module_name, opts, &progress, &mut report);
    report.wall = started.elapsed().as_secs_f64();
    (result, report)
}

fn compile_inner(
    source: &str,
    module_name: &str,
    opts: &Options,
    progress: &Progress,
    report: &mut TimeReport,
) -> Result<(Vec<u8>, Vec<Diagnostic>), CompileError> {
    progress.phase("parse");
    let t = Instant::now();
    let (ast, mut diags) = front::parser::parse_on_threads(source, opts.threads());
    report.add_phase("parse", t.elapsed().as_secs_f64());
    progress.phase("check");
    let t = Instant::now();
    let (ir, check_diags) = check::check(&ast);
    drop(ast);
    diags.extend(check_diags);
    diags.sort_by_key(|d| d.span.start);
    diags.dedup_by(|a, b| a.span == b.span && a.message == b.message);
    report.add_phase("check", t.elapsed().as_secs_f64());
    if has_errors(&diags) {
        return Err(CompileError::Input(diags));
    }
    let (spec, base_cpu, variants) = check_target_options(opts)?;
    let t = Instant::now();
    let prepared = lower::prepare(&ir).map_err(CompileError::Input)?;
    report.add_phase("lower", t.elapsed().as_secs_f64());
    let live = ir::reach::live_functions(&prepared);
    report.unreached_functions = prepared.functions.iter().zip(&live).filter(|(f, live)| !**live && f.kind == ir::FunctionKind::Func && f.has_body).count();
    if report.unreached_functions > 0 {
        progress.note(&format!("{} functions left out: nothing the object needs calls them", report.unreached_functions));
    }
    let backend = Backend { opts, spec: &spec, base_cpu: &base_cpu, variants: &variants, module_name, m: &prepared, progress, source };
    // Only objects are split: IR, bitcode and assembly are one module's text. Debug
    // information and checked code stay whole (one DWARF compile unit, one set of sites).
    let plan = if opts.emit == Emit::Obj && opts.debug_info.is_none() && opts.check.is_none() {
        split::plan(&prepared, opts.codegen_units, opts.min_unit_cost)
    } else {
        None
    };
    let bytes = match plan {
        None => {
            let (bytes, _, time) = backend.unit(Unit::Whole, "module", &|_| {})?;
            report.add_unit(time);
            bytes
        }
        Some(plan) => match backend.parallel(&plan, report)? {
            Some(bytes) => bytes,
            None => {
                // The units' objects could not be merged (`merge` says why, with -v): the
                // module as one unit instead.
                let (bytes, _, time) = backend.unit(Unit::Whole, "module", &|_| {})?;
                report.add_unit(time);
                bytes
            }
        },
    };
    Ok((bytes, diags))
}

/// What every codegen unit is compiled with.
struct Backend<'a> {
    opts: &'a Options,
    spec: &'a TargetSpec,
    base_cpu: &'a str,
    variants: &'a [lower::CpuVariant],
    module_name: &'a str,
    m: &'a ir::Module,
    progress: &'a Progress,
    /// The PTX text (positions of `-g` and `--check`).
    source: &'a str,
}

impl Backend<'_> {
    /// Lowers, optimizes and emits one unit in a context of its own; `lowered` hears what
    /// it lowered of its kernels as soon as it is known (before optimization).
    fn unit(&self, unit: Unit<'_>, label: &str, lowered: &dyn Fn(&[KernelInfo])) -> Result<(Vec<u8>, Vec<KernelInfo>, UnitTime), CompileError> {
        let opts = self.opts;
        let mut time = UnitTime { label: label.to_string(), ..Default::default() };
        let tm = target_machine(opts, self.spec, self.base_cpu.to_string())?;
        // (Declared before the context, which may report to it until it is dropped.)
        let llvm_errors = llvm_diagnostics::FirstError::default();
        let cx = Context::create();
        llvm_errors.install(&cx);
        let module = cx.create_module(self.module_name);
        module.set_triple(&tm.get_triple());
        module.set_data_layout(&tm.get_target_data().get_data_layout());
        self.progress.unit_phase(label, "lower");
        let t = Instant::now();
        let mut kernel_times = vec![];
        let debug = opts.debug_info.as_deref().or(opts.check.as_deref()).map(|ptx_path| lower::debug::DebugRequest {
            ptx_path,
            source: self.source,
            optimized: opts.opt_level > 0,
            line_tables: opts.debug_info.is_some(),
            check: opts.check.is_some(),
        });
        let lowered_unit = lower::lower_unit(
            &cx,
            module,
            self.m,
            unit,
            lower::ExecOptions {
                scheduler: opts.scheduler,
                large_kernel: opts.large_kernel,
                scalar_above: (opts.opt_level < 3).then_some(opts.large_function),
            },
            self.variants,
            debug,
            &mut |name, secs| kernel_times.push((name.to_string(), secs)),
        );
        time.kernels = kernel_times;
        let (module, infos) = lowered_unit.map_err(CompileError::Input)?;
        lowered(&infos);
        if let Err(e) = module.verify() {
            return Err(CompileError::Target(format!(
                "internal error: the generated LLVM IR is invalid (a ptx2llvm bug; please report it with the input). LLVM's verifier said: {}",
                e.to_string().trim()
            )));
        }
        time.lower = t.elapsed().as_secs_f64();
        let t = Instant::now();
        if opts.opt_level == 0 {
            // What lowering left unused (the tables of a kernel form it dropped:
            // `lower::exec::kernel::lower_entry`), which -O1 and up remove with the rest.
            module.run_passes("globaldce", &tm, PassBuilderOptions::create()).map_err(|e| optimize_error(e))?;
        } else {
            self.progress.unit_phase(label, "optimize");
            // Registers to SSA first, so that addresses show their base (lower::opt::provenance).
            module.run_passes("function(sroa,mem2reg,instcombine<no-verify-fixpoint>)", &tm, PassBuilderOptions::create()).map_err(|e| optimize_error(e))?;
            lower::opt::provenance::rebase_integer_addresses(&module);
            lower::opt::nan_payload::drop_unobserved_nan_canonicalizations(&module);
            lower::opt::nan_payload::share_nan_rule_tests(&module);
            // A debugging aid: the IR the optimization pipeline starts from.
            if let Some(path) = std::env::var_os("PTX2LLVM_DUMP_PRE_OPT") {
                let _ = module.print_to_file(path);
            }
            let large = lower::opt::pipeline::optimize(&module, &tm, opts.opt_level, opts.large_function).map_err(optimize_error)?;
            time.large_functions = large.len();
            lower::opt::nan_branches::branch_around_nan_rules(&module, &large);
            lower::opt::gather_scatter::rewrite_gathers_and_scatters(&cx, &module, opts.check.is_some());
            // Our own rewrites after the pipeline are checked before code generation, which
            // would crash on invalid IR instead of reporting it.
            if let Err(e) = module.verify() {
                return Err(CompileError::Target(format!(
                    "internal error: the rewritten LLVM IR is invalid (a ptx2llvm bug; please report it with the input). LLVM's verifier said: {}",
                    e.to_string().trim()
                )));
            }
            if time.large_functions > 0 {
                self.progress.note(&format!("{label}: {} large functions optimized with the scalar pipeline", time.large_functions));
            }
        }
        time.optimize = t.elapsed().as_secs_f64();
        let t = Instant::now();
        self.progress.unit_phase(label, "codegen");
        let bytes = match opts.emit {
            Emit::LlvmIr => module.print_to_string().to_bytes().to_vec(),
            Emit::LlvmBc => module.write_bitcode_to_memory().as_slice().to_vec(),
            Emit::Obj | Emit::Asm => {
                let ft = if opts.emit == Emit::Obj { FileType::Object } else { FileType::Assembly };
                tm.write_to_memory_buffer(&module, ft)
                    .map_err(|e| {
                        CompileError::Target(format!(
                            "internal error: LLVM's code generation failed (a ptx2llvm bug; please report it with the input): {}",
                            e.to_string().trim()
                        ))
                    })?
                    .as_slice()
                    .to_vec()
            }
        };
        time.codegen = t.elapsed().as_secs_f64();
        if let Some(e) = llvm_errors.take() {
            return Err(CompileError::Target(format!("internal error: LLVM reported an error (a ptx2llvm bug; please report it with the input): {e}")));
        }
        Ok((bytes, infos, time))
    }

    /// The units of `plan` on up to `opts.jobs` threads, merged; `None` when their objects
    /// cannot be merged.
    fn parallel(&self, plan: &split::Plan, report: &mut TimeReport) -> Result<Option<Vec<u8>>, CompileError> {
        let parts = plan.parts.len();
        // Jobs: the kernel parts, then the module part, which waits for their kernels.
        let jobs = parts + 1;
        let threads = self.opts.threads().min(jobs);
        self.progress.note(&format!("{jobs} codegen units on {threads} thread{}", if threads == 1 { "" } else { "s" }));
        report.threads = threads;
        // What each kernel part lowered (`None`: not yet; `Some(None)`: it failed).
        let infos: Mutex<Vec<Option<Option<Vec<KernelInfo>>>>> = Mutex::new(vec![None; parts]);
        let ready = Condvar::new();
        let publish = |p: usize, v: Option<Vec<KernelInfo>>| {
            if let Ok(mut slots) = infos.lock() {
                if slots[p].is_none() {
                    slots[p] = Some(v);
                }
            }
            ready.notify_all();
        };
        let next = std::sync::atomic::AtomicUsize::new(0);
        type Done = Result<(Vec<u8>, UnitTime), CompileError>;
        let results: Mutex<Vec<Option<Done>>> = Mutex::new((0..jobs).map(|_| None).collect());
        let label = |j: usize| if j < parts { format!("unit {}/{jobs}", j + 1) } else { format!("unit {jobs}/{jobs} (variables and descriptors)") };
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| loop {
                    let j = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    if j >= jobs {
                        break;
                    }
                    let done: Done = if j < parts {
                        // Publishes a failure too (a panic included), so that the module part
                        // never waits for it in vain.
                        struct Failed<'a, F: Fn(usize, Option<Vec<KernelInfo>>)>(usize, &'a F);
                        impl<F: Fn(usize, Option<Vec<KernelInfo>>)> Drop for Failed<'_, F> {
                            fn drop(&mut self) {
                                (self.1)(self.0, None)
                            }
                        }
                        let _guard = Failed(j, &publish);
                        self.unit(Unit::Part(plan, j), &label(j), &|k| publish(j, Some(k.to_vec()))).map(|(b, _, t)| (b, t))
                    } else {
                        // All kernel parts were taken before this job: wait for their kernels.
                        let reported = {
                            let mut slots = match infos.lock() {
                                Ok(g) => g,
                                Err(p) => p.into_inner(),
                            };
                            while slots.iter().any(Option::is_none) {
                                slots = match ready.wait(slots) {
                                    Ok(g) => g,
                                    Err(p) => p.into_inner(),
                                };
                            }
                            slots.iter().map(|s| s.clone().flatten()).collect::<Option<Vec<Vec<KernelInfo>>>>()
                        };
                        match reported {
                            Some(all) => {
                                let mut all: Vec<KernelInfo> = all.into_iter().flatten().collect();
                                all.sort_by_key(|k| k.index);
                                self.unit(Unit::Module(plan, &all), &label(j), &|_| {}).map(|(b, _, t)| (b, t))
                            }
                            // A kernel part failed: its error is the one to report.
                            None => Err(CompileError::Input(vec![])),
                        }
                    };
                    if let Ok(mut r) = results.lock() {
                        r[j] = Some(done);
                    }
                });
            }
        });
        let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
        let mut objects = vec![];
        let mut diags: Vec<Diagnostic> = vec![];
        let mut failure = None;
        for r in results {
            match r {
                Some(Ok((bytes, time))) => {
                    objects.push(bytes);
                    report.add_unit(time);
                }
                Some(Err(CompileError::Input(d))) => diags.extend(d),
                Some(Err(e)) => {
                    failure.get_or_insert(e);
                }
                None => {
                    failure.get_or_insert(CompileError::Target("internal error: a codegen unit was not compiled".into()));
                }
            }
        }
        if let Some(e) = failure {
            return Err(e);
        }
        if objects.len() != jobs {
            // Internal copies of a function report its problems in every unit: once.
            diags.sort_by_key(|d| d.span.start);
            diags.dedup_by(|a, b| a.span == b.span && a.message == b.message);
            return Err(CompileError::Input(diags));
        }
        // The module part first: its symbols (the descriptors) lead the object.
        objects.rotate_right(1);
        self.progress.phase("merge");
        let t = Instant::now();
        let kernels: Vec<KernelInfo> = infos.into_inner().unwrap_or_else(|p| p.into_inner()).into_iter().flatten().flatten().flatten().collect();
        let localize = plan.promoted(self.m, &kernels);
        let merged = merge::merge(&objects, &localize);
        report.add_phase("merge", t.elapsed().as_secs_f64());
        match merged {
            Ok(bytes) => Ok(Some(bytes)),
            Err(why) => {
                self.progress.note(&format!("cannot merge the codegen units' objects ({why}); compiling the module as one unit"));
                Ok(None)
            }
        }
    }
}

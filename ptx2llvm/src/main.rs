//! The `ptx2llvm` command line.

use clap::{Parser, ValueEnum};
use ptx2llvm::diag::{self, ErrorFormat};
use ptx2llvm::driver::{self, CompileError, Emit, Options};
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

// The compiler allocates many small, short-lived IR nodes and sets on several threads;
// mimalloc serves them from per-thread pages (glibc's malloc took about 12% of a -O0
// compile of a 48k-line file).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Clone, Copy, ValueEnum)]
enum EmitArg {
    Obj,
    Asm,
    LlvmIr,
    LlvmBc,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum SchedulerArg {
    Auto,
    Fibers,
}

impl From<SchedulerArg> for ptx2llvm::lower::Scheduler {
    fn from(s: SchedulerArg) -> Self {
        match s {
            SchedulerArg::Auto => ptx2llvm::lower::Scheduler::Auto,
            SchedulerArg::Fibers => ptx2llvm::lower::Scheduler::Fibers,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ErrorFormatArg {
    Human,
    Short,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

/// Translate NVIDIA PTX into a native object file that runs on the CPU with ptxrt.
#[derive(Parser, Debug)]
#[command(name = "ptx2llvm", about, disable_version_flag = true, after_help = "Exit status: 0 success, 1 errors in the input, 2 usage errors.")]
struct Cli {
    /// Input PTX file (`-` reads standard input).
    #[arg(required_unless_present_any = ["version", "print_cpus", "print_targets"])]
    input: Option<String>,
    /// Output file (`-` writes standard output). Default: <input stem>.o/.s/.ll/.bc.
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<String>,
    /// What to write.
    #[arg(long, value_enum, default_value = "obj")]
    emit: EmitArg,
    /// Write assembly (same as --emit asm).
    #[arg(short = 'S')]
    asm: bool,
    /// Target triple (default: the host), e.g. x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu.
    #[arg(long, value_name = "TRIPLE")]
    target: Option<String>,
    /// Target CPU (`native` for this machine's), or a list of x86-64 levels
    /// (`x86-64,x86-64-v3,x86-64-v4`): the object then holds a version of every kernel per
    /// level and runs the best one the CPU has.
    #[arg(long, value_name = "NAME[,NAME...]", default_value = "generic")]
    cpu: String,
    /// Optimization level.
    #[arg(short = 'O', value_name = "LEVEL", default_value = "2", value_parser = clap::value_parser!(u8).range(0..=3))]
    opt: u8,
    /// Debug information (DWARF): CUDA source lines from the PTX's `.file`/`.loc`
    /// directives (NVRTC/nvcc `-lineinfo`), else the PTX file's own lines; one subprogram
    /// per kernel and registers as local variables (see README, Debugging).
    #[arg(short = 'g')]
    debug: bool,
    /// Checking mode: every load and store is checked before it happens (shared and local
    /// bounds, global overruns of allocations ptxrt made, shared-memory races between
    /// barriers, uninitialized shared reads); the first problem fails the launch with a
    /// report naming kernel, block, thread, line and address (see README, Debugging).
    #[arg(long)]
    check: bool,
    /// Also write a C/C++ header with a typed launch function per kernel
    /// (`ptxrtError_t <kernel>_launch(grid, block, dynamicSharedBytes, params...)`).
    #[arg(long, value_name = "FILE")]
    header: Option<PathBuf>,
    /// Also write Rust source with a safe typed launcher per kernel (slices for pointer
    /// parameters, values otherwise, returning `Result`), for `include!` in a crate that
    /// depends on `ptxrt` (the `ptx2llvm-build` crate writes and links it for build.rs).
    #[arg(long, value_name = "FILE")]
    rust: Option<PathBuf>,
    /// Also write a Make-style dependency file (`output: input`) for build systems.
    #[arg(long, value_name = "FILE")]
    depfile: Option<PathBuf>,
    /// How kernels run their threads: `auto` picks per kernel (thread loops between sync
    /// points, or fibers where those cannot express the kernel), `fibers` forces the general
    /// scheduler for every kernel (for debugging and testing).
    #[arg(long, value_enum, default_value = "auto")]
    scheduler: SchedulerArg,
    /// Threads for parsing and code generation (default: one per core). Large modules are
    /// parsed in chunks and split into codegen units compiled in parallel; the object is the
    /// same for any number of threads.
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    jobs: Option<u32>,
    /// Split a large module into at most N codegen units (1: never split). Unlike -j, this
    /// changes the object (the units are optimized separately).
    #[arg(long, value_name = "N", default_value_t = driver::DEFAULT_CODEGEN_UNITS as u32, value_parser = clap::value_parser!(u32).range(1..=256))]
    codegen_units: u32,
    /// At -O1 and -O2, functions of more than N LLVM instructions get a scalar optimization
    /// pipeline (no loop passes or vectorizers: LLVM's full one takes seconds on each
    /// huge block function and gains little there), as do large kernels whose regions run in
    /// one thread loop; below -O3, kernels of more than 32 regions whose block functions would
    /// be over twice N get that one loop. -O3 gives every function the full one.
    #[arg(long, value_name = "N", default_value_t = ptx2llvm::lower::opt::pipeline::LARGE_FUNCTION as u64)]
    large_function: u64,
    /// The smallest codegen unit in IR instructions (0 splits even small modules: for tests).
    #[arg(long, value_name = "N", hide = true)]
    min_unit_cost: Option<u64>,
    /// Kernels above this many PTX instructions are large: registers only their block
    /// function reads in per-thread frames, only grid-stride loops interchanged (0: every
    /// kernel; for tests).
    #[arg(long, value_name = "N", hide = true)]
    large_kernel: Option<u64>,
    /// Name each phase on the standard error as it starts.
    #[arg(short = 'v', long)]
    verbose: bool,
    /// Print where the compile time went (parse, check, lower, optimize, codegen, and the
    /// slowest units and kernels) on the standard error.
    #[arg(long = "time-passes", alias = "ftime-report")]
    time_passes: bool,
    /// Only check the input for errors.
    #[arg(long = "fsyntax-only")]
    syntax_only: bool,
    /// List the CPU names --cpu accepts for the target (--target, default: this machine's).
    #[arg(long)]
    print_cpus: bool,
    /// List the targets ptx2llvm writes objects for.
    #[arg(long)]
    print_targets: bool,
    /// Print the version, the LLVM version and the PTX ISA versions read.
    #[arg(short = 'V', long)]
    version: bool,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value = "human")]
    error_format: ErrorFormatArg,
    /// When to color diagnostics.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorArg,
}

fn main() -> ExitCode {
    // GCC-style single-dash long options.
    let args = std::env::args_os().map(|a| match a.to_str() {
        Some("-fsyntax-only") => "--fsyntax-only".into(),
        Some("-ftime-report") => "--time-passes".into(),
        _ => a,
    });
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    run(cli)
}

fn usage_error(msg: &str) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

fn print_version() {
    let (major, minor, patch) = ptx2llvm::target::llvm_version();
    let (old, new) = (ptx2llvm::target::OLDEST_PTX_ISA, ptx2llvm::target::NEWEST_PTX_ISA);
    println!("ptx2llvm {}", env!("CARGO_PKG_VERSION"));
    println!("LLVM {major}.{minor}.{patch}");
    println!("PTX ISA {}.{} to {}.{}", old.0, old.1, new.0, new.1);
    println!("targets: {}", ptx2llvm::target::SUPPORTED_TARGETS.join(", "));
}

fn run(cli: Cli) -> ExitCode {
    if cli.version {
        print_version();
        return ExitCode::SUCCESS;
    }
    if cli.print_targets {
        let host = ptx2llvm::target::resolve_target(None).ok().map(|t| t.arch);
        for t in ptx2llvm::target::SUPPORTED_TARGETS {
            let arch = ptx2llvm::target::resolve_target(Some(t)).ok().map(|t| t.arch);
            println!("{t}{}", if arch.is_some() && arch == host { "  (this machine: the default)" } else { "" });
        }
        return ExitCode::SUCCESS;
    }
    if cli.print_cpus {
        let spec = match ptx2llvm::target::resolve_target(cli.target.as_deref()) {
            Ok(spec) => spec,
            Err(msg) => return usage_error(&msg),
        };
        if ptx2llvm::target::Arch::host() == Some(spec.arch) {
            println!("native");
        }
        for cpu in spec.arch.cpus() {
            println!("{cpu}");
        }
        return ExitCode::SUCCESS;
    }
    let Some(input) = cli.input.clone() else {
        return usage_error("no input file");
    };
    let emit = if cli.asm {
        Emit::Asm
    } else {
        match cli.emit {
            EmitArg::Obj => Emit::Obj,
            EmitArg::Asm => Emit::Asm,
            EmitArg::LlvmIr => Emit::LlvmIr,
            EmitArg::LlvmBc => Emit::LlvmBc,
        }
    };
    let opts = Options {
        emit,
        target: cli.target.clone(),
        cpu: cli.cpu.clone(),
        opt_level: cli.opt,
        scheduler: cli.scheduler.into(),
        jobs: cli.jobs.unwrap_or(0) as usize,
        codegen_units: cli.codegen_units as usize,
        min_unit_cost: cli.min_unit_cost.unwrap_or(ptx2llvm::lower::split::MIN_PART_COST),
        large_function: cli.large_function as usize,
        large_kernel: cli.large_kernel.map_or(ptx2llvm::lower::exec::kernel::LARGE_KERNEL, |n| n as usize),
        verbose: cli.verbose,
        debug_info: None,
        check: None,
    };
    // Target and CPU first: usage errors, before the input is read or LLVM sees them.
    if let Err(CompileError::Usage(msg)) = driver::check_target_options(&opts) {
        return usage_error(&msg);
    }
    let from_stdin = input == "-";
    if from_stdin && cli.output.is_none() && !cli.syntax_only {
        return usage_error("reading from standard input (`-`) needs an output file (`-o FILE` or `-o -`)");
    }
    let (file_name, source) = if from_stdin {
        let mut s = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut s) {
            eprintln!("error: cannot read standard input: {e}");
            return ExitCode::from(1);
        }
        ("<stdin>".to_string(), s)
    } else {
        match std::fs::read(&input) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(s) => (input.clone(), s),
                Err(e) => {
                    eprintln!("error: {}: the file is not UTF-8 text (byte {})", input, e.utf8_error().valid_up_to());
                    return ExitCode::from(1);
                }
            },
            Err(e) => {
                eprintln!("error: cannot read `{input}`: {e}");
                return ExitCode::from(1);
            }
        }
    };
    let color = match cli.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let format = match cli.error_format {
        ErrorFormatArg::Human => ErrorFormat::Human,
        ErrorFormatArg::Short => ErrorFormat::Short,
    };
    let report = |diags: &[diag::Diagnostic]| {
        let mut err = std::io::stderr().lock();
        diag::render(diags, &file_name, &source, format, color, &mut err);
    };
    if cli.syntax_only {
        let (_, diags) = driver::analyze(&source);
        report(&diags);
        return if driver::has_errors(&diags) { ExitCode::from(1) } else { ExitCode::SUCCESS };
    }
    let mut opts = opts;
    if cli.debug {
        opts.debug_info = Some(file_name.clone());
    }
    if cli.check {
        opts.check = Some(file_name.clone());
    }
    let stem = Path::new(&input).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let (result, times) = driver::compile_with_report(&source, &stem, &opts);
    if cli.time_passes {
        eprint!("{}", times.render(&file_name));
    }
    let bytes = match result {
        Ok((bytes, warnings)) => {
            report(&warnings);
            bytes
        }
        Err(CompileError::Input(diags)) => {
            report(&diags);
            let n = diags.iter().filter(|d| d.severity == diag::Severity::Error).count();
            eprintln!("{n} error{} generated.", if n == 1 { "" } else { "s" });
            return ExitCode::from(1);
        }
        Err(CompileError::Usage(msg)) => return usage_error(&msg),
        Err(CompileError::Target(msg)) => {
            eprintln!("error: {msg}");
            return ExitCode::from(1);
        }
    };
    let output = cli.output.clone().map(PathBuf::from).unwrap_or_else(|| PathBuf::from(format!("{stem}.{}", emit.extension())));
    let written = if output.as_os_str() == "-" {
        std::io::stdout().lock().write_all(&bytes).and_then(|_| std::io::stdout().flush())
    } else {
        std::fs::write(&output, &bytes)
    };
    if let Err(e) = written {
        eprintln!("error: cannot write `{}`: {e}", output.display());
        return ExitCode::from(1);
    }
    if let Some(header) = &cli.header {
        let (ir, _) = driver::analyze(&source);
        let guard = format!("PTX2LLVM_{}_H", header.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
        if let Err(e) = std::fs::write(header, ptx2llvm::header::launch_header(&ir, &file_name, &guard)) {
            eprintln!("error: cannot write `{}`: {e}", header.display());
            return ExitCode::from(1);
        }
    }
    if let Some(rust) = &cli.rust {
        let (ir, _) = driver::analyze(&source);
        if let Err(e) = std::fs::write(rust, ptx2llvm::rust_launchers::rust_launchers(&ir, &file_name)) {
            eprintln!("error: cannot write `{}`: {e}", rust.display());
            return ExitCode::from(1);
        }
    }
    if let Some(depfile) = &cli.depfile {
        let escape = |s: &str| s.replace(' ', "\\ ").replace('$', "$$");
        let rule = format!("{}: {}\n", escape(&output.to_string_lossy()), if from_stdin { String::new() } else { escape(&input) });
        if let Err(e) = std::fs::write(depfile, rule) {
            eprintln!("error: cannot write `{}`: {e}", depfile.display());
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}

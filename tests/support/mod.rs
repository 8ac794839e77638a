//! Locating the built tools and running the CLI, the C compiler and test programs.

use std::ffi::OsStr;
use std::fmt::Write as _;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The built tools under test.
pub struct Tools {
    /// Directory holding `ptx2llvm` and `libptxrt.a` (target/<profile>/).
    pub bin_dir: PathBuf,
    pub ptx2llvm: PathBuf,
    pub libptxrt: PathBuf,
}

/// The workspace root (where Cargo.toml, tests/, lit/ and examples/ are).
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Path of a file under the workspace root.
pub fn root_path(rel: &str) -> PathBuf {
    workspace_root().join(rel)
}

/// The tools, built on first use (see tests/main.rs).
pub fn tools() -> &'static Tools {
    static TOOLS: OnceLock<Result<Tools, String>> = OnceLock::new();
    match TOOLS.get_or_init(locate_tools) {
        Ok(tools) => tools,
        Err(msg) => panic!("{msg}"),
    }
}

fn locate_tools() -> Result<Tools, String> {
    let bin_dir = match std::env::var_os("PTX2LLVM_BIN_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => {
            let bin_dir = bin_dir_of_current_exe()?;
            cargo_build_tools(&bin_dir)?;
            bin_dir
        }
    };
    let tools = Tools { ptx2llvm: bin_dir.join(format!("ptx2llvm{}", std::env::consts::EXE_SUFFIX)), libptxrt: bin_dir.join("libptxrt.a"), bin_dir };
    for path in [&tools.ptx2llvm, &tools.libptxrt] {
        if !path.is_file() {
            return Err(format!(
                "{} is missing.\nBuild the workspace first: `cargo test --workspace` (or \
                 `cargo build -p ptx2llvm -p ptxrt` for the same profile); if PTX2LLVM_BIN_DIR \
                 is set, it must name a directory holding both `ptx2llvm` and `libptxrt.a`.",
                path.display()
            ));
        }
    }
    Ok(tools)
}

/// target/<profile>/deps/e2e-HASH -> target/<profile>/
fn bin_dir_of_current_exe() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot locate the test binary: {e}"))?;
    let deps = exe.parent().ok_or("test binary has no parent directory")?;
    let dir = if deps.file_name() == Some(OsStr::new("deps")) { deps.parent().ok_or("deps directory has no parent")? } else { deps };
    Ok(dir.to_path_buf())
}

/// Runs `cargo build -p ptx2llvm -p ptxrt` so that `bin_dir` holds fresh tools. The test
/// binary runs after cargo released its build lock, so this nested build does not block.
fn cargo_build_tools(bin_dir: &Path) -> Result<(), String> {
    let profile = bin_dir.file_name().and_then(OsStr::to_str).ok_or_else(|| format!("unexpected test binary location {}", bin_dir.display()))?;
    let mut parent = bin_dir.parent().ok_or_else(|| format!("unexpected test binary location {}", bin_dir.display()))?;
    // With `--target TRIPLE` the layout is target/<triple>/<profile>/.
    let mut triple = None;
    if !parent.join("CACHEDIR.TAG").exists() {
        if let Some(grand) = parent.parent() {
            if grand.join("CACHEDIR.TAG").exists() {
                triple = parent.file_name().and_then(OsStr::to_str).map(str::to_owned);
                parent = grand;
            }
        }
    }
    let (cargo, mut cmd) = cargo_build(&["ptx2llvm", "ptxrt"], parent, profile, triple.as_deref());
    let out = cmd.output().map_err(|e| format!("cannot run {}: {e}", Path::new(&cargo).display()))?;
    if !out.status.success() {
        return Err(format!("building the tools failed: {:?} exited with {}\n{}", cmd, out.status, String::from_utf8_lossy(&out.stderr)));
    }
    Ok(())
}

/// `cargo build -p <packages>` into `target_dir` for a profile directory name (`debug`,
/// `release`, or a custom profile) and an optional target triple.
fn cargo_build(packages: &[&str], target_dir: &Path, profile: &str, triple: Option<&str>) -> (std::ffi::OsString, Command) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(&cargo);
    cmd.current_dir(workspace_root()).arg("build");
    for p in packages {
        cmd.args(["-p", p]);
    }
    cmd.arg("--target-dir").arg(target_dir);
    match profile {
        "debug" => {}
        "release" => {
            cmd.arg("--release");
        }
        other => {
            cmd.args(["--profile", other]);
        }
    }
    if let Some(triple) = triple {
        cmd.args(["--target", triple]);
    }
    (cargo, cmd)
}

/// A temporary directory, kept when PTX2LLVM_KEEP_TEMP is set.
pub struct WorkDir {
    dir: Option<tempfile::TempDir>,
    path: PathBuf,
}

impl WorkDir {
    pub fn new(prefix: &str) -> WorkDir {
        let dir = tempfile::Builder::new().prefix(&format!("ptx2llvm-{prefix}-")).tempdir().expect("cannot create a temporary directory");
        let path = dir.path().to_path_buf();
        if std::env::var_os("PTX2LLVM_KEEP_TEMP").is_some_and(|v| !v.is_empty() && v != "0") {
            eprintln!("keeping {}", path.display());
            WorkDir { dir: None, path: dir.keep() }
        } else {
            WorkDir { dir: Some(dir), path }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn join(&self, rel: &str) -> PathBuf {
        self.path.join(rel)
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        drop(self.dir.take());
    }
}

/// What a finished (or killed) process printed.
pub struct RunOutput {
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
}

impl RunOutput {
    pub fn success(&self) -> bool {
        !self.timed_out && self.status.is_some_and(|s| s.success())
    }

    /// The command line, exit status and both streams, for failure messages.
    pub fn describe(&self, cmd: &Command) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "command: {cmd:?}");
        if self.timed_out {
            let _ = writeln!(s, "status: killed after the time limit");
        } else {
            let _ = writeln!(s, "status: {:?}", self.status);
        }
        let _ = writeln!(s, "--- stdout ---\n{}", self.stdout);
        let _ = writeln!(s, "--- stderr ---\n{}", self.stderr);
        s
    }
}

/// Runs a command with a time limit, its output sent to files in `work` (so a hung
/// program neither blocks on a full pipe nor hangs the test run).
pub fn run_with_timeout(cmd: &mut Command, work: &Path, tag: &str, limit: Duration) -> RunOutput {
    let out_path = work.join(format!("{tag}.stdout"));
    let err_path = work.join(format!("{tag}.stderr"));
    let out_file = File::create(&out_path).expect("cannot create stdout file");
    let err_file = File::create(&err_path).expect("cannot create stderr file");
    cmd.stdin(Stdio::null()).stdout(out_file).stderr(err_file);
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > limit => {
                timed_out = true;
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("waiting for {cmd:?}: {e}"),
        }
    };
    RunOutput {
        status,
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
        timed_out,
    }
}

/// Runs a command to completion (limit: 10 minutes) and panics with everything it
/// printed unless it succeeded.
pub fn run_ok(cmd: &mut Command, work: &Path, tag: &str, what: &str) -> RunOutput {
    let out = run_with_timeout(cmd, work, tag, Duration::from_secs(600));
    if !out.success() {
        panic!("{what} failed\n{}", out.describe(cmd));
    }
    out
}

/// Translates a .ptx file into an object with the CLI.
pub fn compile_ptx(ptx: &Path, obj: &Path, extra_args: &[&str], work: &Path) {
    let tools = tools();
    let mut cmd = Command::new(&tools.ptx2llvm);
    cmd.args(extra_args).arg(ptx).arg("-o").arg(obj);
    let tag = obj.file_stem().and_then(OsStr::to_str).unwrap_or("obj").to_owned();
    run_ok(&mut cmd, work, &format!("ptx2llvm-{tag}"), "ptx2llvm");
    assert!(obj.is_file(), "ptx2llvm succeeded but wrote no {}", obj.display());
}

/// The C compiler: $CC or `cc`.
pub fn c_compiler() -> String {
    std::env::var("CC").ok().filter(|s| !s.trim().is_empty()).unwrap_or_else(|| "cc".to_owned())
}

/// Which linker the C compiler drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linker {
    /// The compiler's default (GNU ld on Debian).
    Default,
    /// GNU gold (`-fuse-ld=gold`).
    Gold,
    /// LLVM's LLD (`-fuse-ld=lld`), Rust's default linker on x86-64 Linux.
    Lld,
}

impl Linker {
    /// The compiler options that select the linker. LLD is `ld.lld` on PATH or LLVM 19's
    /// (`lld-19`, which scripts/install-deps.sh installs); panics with what to install.
    pub fn flags(self) -> Vec<String> {
        match self {
            Linker::Default => vec![],
            Linker::Gold => vec!["-fuse-ld=gold".into()],
            Linker::Lld => {
                let prefix = std::env::var("LLVM_SYS_191_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-19".into());
                let dir = [PathBuf::from(&prefix).join("bin"), PathBuf::from("/usr/lib/llvm-19/bin")]
                    .into_iter()
                    .find(|d| d.join("ld.lld").is_file())
                    .unwrap_or_else(|| panic!("ld.lld is missing: the tests link with LLD too (Debian package lld-19; scripts/install-deps.sh installs it)"));
                // -B: where GCC looks for `ld.lld` (clang finds it next to itself).
                vec!["-fuse-ld=lld".into(), format!("-B{}", dir.display())]
            }
        }
    }
}

/// Links a C host program with kernel objects, the C harness and libptxrt.a.
pub fn link_host(host_c: &Path, objects: &[PathBuf], exe: &Path, work: &Path) {
    link_host_with(host_c, objects, exe, work, Linker::Default);
}

/// [`link_host`] with a chosen linker.
pub fn link_host_with(host_c: &Path, objects: &[PathBuf], exe: &Path, work: &Path, linker: Linker) {
    let tools = tools();
    let mut cmd = Command::new(c_compiler());
    cmd.args(["-std=c11", "-O2", "-g", "-Wall"])
        .args(linker.flags())
        .arg(format!("-I{}", env!("PTX2LLVM_HARNESS_INCLUDE")))
        .arg(format!("-I{}", env!("PTXRT_INCLUDE")))
        .arg(host_c)
        .args(objects)
        .arg(env!("PTX2LLVM_HARNESS_LIB"))
        .arg(&tools.libptxrt)
        .args(["-lpthread", "-ldl", "-lm"])
        .arg("-o")
        .arg(exe);
    let tag = exe.file_name().and_then(OsStr::to_str).unwrap_or("exe").to_owned();
    run_ok(&mut cmd, work, &format!("link-{tag}"), "linking the host program");
}

/// Whether this run is CI's (`CI` set to anything but empty, `0` or `false`): there, input
/// that a test would otherwise skip for being absent must be present.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// Prints `skipped: <test>: <why>` where a passing test's output is seen (straight to the
/// standard error, past the test harness's capture), or panics under CI.
pub fn skip(test: &str, why: &str) {
    if in_ci() {
        panic!("{test}: {why}\n(CI is set: input that tests need must be present)");
    }
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {why}");
}

/// The real-world PTX corpus: `PTX2LLVM_CORPUS`, else `../shared/corpus` beside the
/// workspace. `None` (after a `skipped: ...` line) when the default directory is absent,
/// as on a machine with only the repository; a panic under CI, when `PTX2LLVM_CORPUS`
/// names a directory that cannot be read, or when the directory holds no `.ptx` file, so a
/// test that needs it cannot pass vacuously where it is expected.
pub fn corpus_files(test: &str) -> Option<Vec<PathBuf>> {
    match std::env::var_os("PTX2LLVM_CORPUS") {
        Some(d) if !d.is_empty() => corpus_files_in(&PathBuf::from(d), true, test),
        _ => corpus_files_in(&workspace_root().join("../shared/corpus"), false, test),
    }
}

/// [`corpus_files`] of a directory; `explicit` when the user named it (then it must exist).
pub fn corpus_files_in(dir: &Path, explicit: bool, test: &str) -> Option<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if !explicit => {
            skip(
                test,
                &format!(
                    "the PTX corpus is not there ({}: {e}); it comes with the project's shared \
                     directory beside the checkout, or set PTX2LLVM_CORPUS to a directory of .ptx files",
                    dir.display()
                ),
            );
            return None;
        }
        Err(e) => panic!("PTX2LLVM_CORPUS: cannot read {}: {e}", dir.display()),
    };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "ptx")).collect();
    files.sort();
    assert!(!files.is_empty(), "the PTX corpus directory {} holds no .ptx files", dir.display());
    Some(files)
}

/// The AArch64 target of the cross tests.
pub const AARCH64_TRIPLE: &str = "aarch64-unknown-linux-gnu";

/// What the AArch64 tests need: ptxrt built for AArch64, the cross C compiler and qemu.
pub struct CrossTools {
    pub libptxrt: PathBuf,
    pub cc: String,
    pub qemu: String,
    /// The AArch64 system root qemu loads the C library from.
    pub sysroot: PathBuf,
}

/// Whether Rust's standard library for AArch64 is installed (`rustup target add
/// aarch64-unknown-linux-gnu`; scripts/install-deps.sh tries, but some machines cannot
/// download it).
pub fn have_aarch64_rust_std() -> bool {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc).args(["--print", "target-libdir", "--target", AARCH64_TRIPLE]).output();
    match out {
        Ok(o) if o.status.success() => {
            let dir = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim().to_string());
            std::fs::read_dir(&dir).is_ok_and(|mut d| d.any(|e| e.is_ok_and(|e| e.file_name().to_string_lossy().starts_with("libstd-"))))
        }
        _ => false,
    }
}

/// The AArch64 tools, or `None` (with a loud message) when Rust's AArch64 standard library
/// is not installed, so that ptxrt cannot be cross-built on this machine.
pub fn aarch64_tools_if_available() -> Option<CrossTools> {
    if !have_aarch64_rust_std() {
        eprintln!(
            "WARNING: Rust's standard library for {AARCH64_TRIPLE} is not installed (`rustup target add {AARCH64_TRIPLE}`): \
             the AArch64 runs under qemu are skipped on this machine"
        );
        return None;
    }
    Some(aarch64_tools())
}

/// Builds ptxrt for AArch64 (same profile and target directory as the test binary) and
/// finds the cross compiler and qemu-user; panics with what to install when one is missing.
pub fn aarch64_tools() -> CrossTools {
    let cc = std::env::var("PTX2LLVM_AARCH64_CC").unwrap_or_else(|_| "aarch64-linux-gnu-gcc".into());
    let qemu = std::env::var("PTX2LLVM_QEMU_AARCH64").unwrap_or_else(|_| "qemu-aarch64".into());
    for (tool, package) in [(&cc, "gcc-aarch64-linux-gnu"), (&qemu, "qemu-user")] {
        let found = Command::new(tool).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
        assert!(found, "`{tool}` is missing: the AArch64 tests need it (Debian package {package}; scripts/install-deps.sh installs it)");
    }
    let bin_dir = bin_dir_of_current_exe().unwrap_or_else(|e| panic!("{e}"));
    let profile = bin_dir.file_name().and_then(OsStr::to_str).unwrap_or("debug").to_owned();
    let target_dir = bin_dir.parent().unwrap_or(&bin_dir).to_path_buf();
    let (_, mut cmd) = cargo_build(&["ptxrt"], &target_dir, &profile, Some(AARCH64_TRIPLE));
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run cargo: {e}"));
    assert!(
        out.status.success(),
        "building ptxrt for {AARCH64_TRIPLE} failed (is the Rust target installed? `rustup target add {AARCH64_TRIPLE}`, \
         which scripts/install-deps.sh does)\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let libptxrt = target_dir.join(AARCH64_TRIPLE).join(&profile).join("libptxrt.a");
    assert!(libptxrt.is_file(), "{} is missing after the build", libptxrt.display());
    CrossTools { libptxrt, cc, qemu, sysroot: PathBuf::from("/usr/aarch64-linux-gnu") }
}

/// Links a host program for AArch64 with the C harness (compiled from source) and ptxrt.
pub fn link_host_aarch64(cross: &CrossTools, host_c: &Path, objects: &[PathBuf], exe: &Path, work: &Path) {
    let harness_c = root_path("tests/harness/harness.c");
    let mut cmd = Command::new(&cross.cc);
    cmd.args(["-std=c11", "-O2", "-g", "-Wall"])
        .arg(format!("-I{}", env!("PTX2LLVM_HARNESS_INCLUDE")))
        .arg(format!("-I{}", env!("PTXRT_INCLUDE")))
        .arg(host_c)
        .arg(harness_c)
        .args(objects)
        .arg(&cross.libptxrt)
        .args(["-lpthread", "-ldl", "-lm"])
        .arg("-o")
        .arg(exe);
    let tag = exe.file_name().and_then(OsStr::to_str).unwrap_or("exe").to_owned();
    run_ok(&mut cmd, work, &format!("link-aarch64-{tag}"), "linking the AArch64 host program");
}

/// `qemu-aarch64 -L <sysroot> exe`.
pub fn qemu_command(cross: &CrossTools, exe: &Path) -> Command {
    let mut cmd = Command::new(&cross.qemu);
    cmd.arg("-L").arg(&cross.sysroot).arg(exe);
    cmd
}

//! Build-script support for ptx2llvm, shaped like the `cc` crate.
//!
//! In `build.rs`:
//!
//! ```no_run
//! ptx2llvm_build::Build::new()
//!     .file("kernels.ptx")
//!     .cpu("native")
//!     .compile("kernels");
//! ```
//!
//! translates each file with `ptx2llvm` into an object for the crate's target, archives the
//! objects as `libkernels.a` in `OUT_DIR` and tells cargo to link it, and writes
//! `OUT_DIR/kernels.rs`: a safe typed launcher per kernel (`ptx2llvm --rust`). The crate
//! then depends on `ptxrt` and includes the launchers:
//!
//! ```ignore
//! mod kernels {
//!     include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
//! }
//! kernels::vecadd(ptxrt::LaunchConfig::new(blocks, 256, 0), &a, &b, &mut c, n)?;
//! ```
//!
//! Each launcher refers to its kernel's descriptor, so the linker takes the objects out of
//! the archive without `--whole-archive`, with any linker (LLD, Rust's default on x86-64
//! Linux, too).
//!
//! Which `ptx2llvm` runs, in this order: [`Build::compiler`]; the `PTX2LLVM` environment
//! variable; when this crate is used from a ptx2llvm checkout (a path dependency), the
//! checkout's compiler, built with cargo on first use into `<checkout>/target/ptx2llvm-build`
//! (this needs LLVM 19: `LLVM_SYS_191_PREFIX`, default `/usr/lib/llvm-19`); else `ptx2llvm`
//! on `PATH` (e.g. installed with `cmake --install`).

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A failed build step, with a message meant for the person running cargo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
}

impl Error {
    fn new(message: impl Into<String>) -> Self {
        Error { message: message.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// What [`Build::try_compile`] wrote.
#[derive(Debug, Clone)]
pub struct Artifacts {
    /// The static library (`OUT_DIR/lib<name>.a`).
    pub library: PathBuf,
    /// The Rust launchers (`OUT_DIR/<name>.rs`).
    pub rust: PathBuf,
    /// The directory of the C headers, when [`Build::header`] asked for them.
    pub include_dir: Option<PathBuf>,
}

/// A set of `.ptx` files to translate into one static library.
#[derive(Debug, Clone, Default)]
pub struct Build {
    files: Vec<PathBuf>,
    cpu: Option<String>,
    target: Option<String>,
    opt_level: Option<u8>,
    compiler: Option<PathBuf>,
    out_dir: Option<PathBuf>,
    headers: bool,
    cargo_metadata: Option<bool>,
}

impl Build {
    pub fn new() -> Self {
        Build::default()
    }

    /// Adds a `.ptx` file.
    pub fn file(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.files.push(path.as_ref().to_path_buf());
        self
    }

    /// Adds `.ptx` files.
    pub fn files<P: AsRef<Path>>(&mut self, paths: impl IntoIterator<Item = P>) -> &mut Self {
        self.files.extend(paths.into_iter().map(|p| p.as_ref().to_path_buf()));
        self
    }

    /// The `--cpu` of `ptx2llvm`: `native` (the build machine's; not for cross builds), a
    /// CPU name, or a list of x86-64 levels such as `x86-64,x86-64-v3,x86-64-v4`.
    /// Default: the target's generic CPU.
    pub fn cpu(&mut self, cpu: &str) -> &mut Self {
        self.cpu = Some(cpu.to_string());
        self
    }

    /// The target triple (default: cargo's `TARGET`).
    pub fn target(&mut self, target: &str) -> &mut Self {
        self.target = Some(target.to_string());
        self
    }

    /// The optimization level, 0 to 3 (default 2, whatever the cargo profile: kernels at
    /// `-O0` run many times slower).
    pub fn opt_level(&mut self, level: u8) -> &mut Self {
        self.opt_level = Some(level);
        self
    }

    /// The `ptx2llvm` to run.
    pub fn compiler(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.compiler = Some(path.as_ref().to_path_buf());
        self
    }

    /// Where the outputs go (default: cargo's `OUT_DIR`).
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Also write the C headers of `ptx2llvm --header` (`OUT_DIR/include/<stem>.h`), for C
    /// or C++ code compiled with the `cc` crate.
    pub fn header(&mut self, headers: bool) -> &mut Self {
        self.headers = headers;
        self
    }

    /// Whether to print the `cargo:` lines that link the library and rerun the build when
    /// an input changes (default: when run by cargo).
    pub fn cargo_metadata(&mut self, emit: bool) -> &mut Self {
        self.cargo_metadata = Some(emit);
        self
    }

    /// Translates the files into `lib<name>.a` and `<name>.rs`; on failure prints the error
    /// for cargo and exits with status 1 (a build script has nothing else to do then).
    pub fn compile(&self, name: &str) {
        if let Err(e) = self.try_compile(name) {
            eprintln!("error: ptx2llvm-build: {e}");
            std::process::exit(1);
        }
    }

    /// As [`Build::compile`], returning the error instead.
    pub fn try_compile(&self, name: &str) -> Result<Artifacts, Error> {
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(Error::new(format!("library name `{name}`: use letters, digits, `_` and `-` only")));
        }
        if self.files.is_empty() {
            return Err(Error::new(format!("compile(\"{name}\"): no .ptx file was added (Build::file)")));
        }
        if let Some(level) = self.opt_level.filter(|l| *l > 3) {
            return Err(Error::new(format!("opt_level({level}): the levels are 0 to 3")));
        }
        let metadata = self.cargo_metadata.unwrap_or_else(|| std::env::var_os("CARGO").is_some());
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => PathBuf::from(std::env::var_os("OUT_DIR").ok_or_else(|| Error::new("OUT_DIR is not set: run from a build script, or call out_dir()"))?),
        };
        let target = self.target.clone().or_else(|| std::env::var("TARGET").ok());
        let compiler = self.find_compiler(metadata)?;
        if metadata {
            // A new ptx2llvm (another ABI version, better code) rebuilds the kernels.
            if let Some(path) = resolve_program(&compiler) {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
        let obj_dir = out_dir.join(format!("{name}.ptx2llvm"));
        let include_dir = out_dir.join("include");
        for dir in [&obj_dir, &include_dir] {
            std::fs::create_dir_all(dir).map_err(|e| Error::new(format!("cannot create {}: {e}", dir.display())))?;
        }
        let mut objects = vec![];
        let mut rust = String::new();
        for (i, file) in self.files.iter().enumerate() {
            if metadata {
                println!("cargo:rerun-if-changed={}", file.display());
            }
            let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| format!("kernels{i}"));
            // The index keeps objects of equal stems apart.
            let obj = obj_dir.join(format!("{i}-{stem}.o"));
            let rs = obj_dir.join(format!("{i}-{stem}.rs"));
            let mut cmd = Command::new(&compiler);
            cmd.arg(file).arg("-o").arg(&obj).arg("--rust").arg(&rs).arg(format!("-O{}", self.opt_level.unwrap_or(2)));
            if let Some(cpu) = &self.cpu {
                cmd.args(["--cpu", cpu]);
            }
            if let Some(t) = &target {
                cmd.args(["--target", t]);
            }
            if self.headers {
                cmd.arg("--header").arg(include_dir.join(format!("{stem}.h")));
            }
            let out = cmd.output().map_err(|e| Error::new(format!("cannot run {}: {e}", compiler.display())))?;
            if !out.status.success() {
                return Err(Error::new(format!(
                    "{} failed on {} ({}):\n{}",
                    compiler.display(),
                    file.display(),
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim_end()
                )));
            }
            // Warnings reach the person running cargo.
            if metadata {
                for line in String::from_utf8_lossy(&out.stderr).lines().filter(|l| l.contains("warning")) {
                    println!("cargo:warning={line}");
                }
            }
            rust.push_str(&std::fs::read_to_string(&rs).map_err(|e| Error::new(format!("cannot read {}: {e}", rs.display())))?);
            objects.push(obj);
        }
        let rust_path = out_dir.join(format!("{name}.rs"));
        std::fs::write(&rust_path, rust).map_err(|e| Error::new(format!("cannot write {}: {e}", rust_path.display())))?;
        let mut ar = cc::Build::new();
        ar.objects(&objects).out_dir(&out_dir).cargo_metadata(metadata).cargo_warnings(metadata);
        if let Some(t) = &self.target {
            ar.target(t);
        }
        if self.target.is_none() && std::env::var_os("TARGET").is_none() {
            // Outside cargo: archive for the machine that runs this.
            ar.target(&host_triple()).host(&host_triple()).opt_level(2).debug(false);
        }
        ar.try_compile(name).map_err(|e| Error::new(format!("archiving the objects into lib{name}.a failed: {e}")))?;
        Ok(Artifacts { library: out_dir.join(format!("lib{name}.a")), rust: rust_path, include_dir: self.headers.then_some(include_dir) })
    }

    /// The `ptx2llvm` to run (see the crate documentation for the order).
    fn find_compiler(&self, metadata: bool) -> Result<PathBuf, Error> {
        if metadata {
            println!("cargo:rerun-if-env-changed=PTX2LLVM");
        }
        if let Some(c) = &self.compiler {
            return Ok(c.clone());
        }
        if let Some(c) = std::env::var_os("PTX2LLVM").filter(|c| !c.is_empty()) {
            return Ok(PathBuf::from(c));
        }
        let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        if checkout.join("ptx2llvm/Cargo.toml").is_file() && checkout.join("ptxrt/Cargo.toml").is_file() {
            return build_from_checkout(&checkout, metadata);
        }
        if let Some(found) = find_on_path("ptx2llvm") {
            return Ok(found);
        }
        Err(Error::new(
            "no ptx2llvm compiler: set PTX2LLVM to its path, put it on PATH (cmake --install of the ptx2llvm \
             checkout installs it), or call Build::compiler",
        ))
    }
}

/// `program` as a file: itself when it names one, else the match on PATH.
fn resolve_program(program: &Path) -> Option<PathBuf> {
    match program.components().count() {
        _ if program.is_file() => Some(program.to_path_buf()),
        1 => find_on_path(&program.to_string_lossy()),
        _ => None,
    }
}

/// The triple of the machine this runs on, for use outside cargo.
fn host_triple() -> String {
    let arch = std::env::consts::ARCH;
    format!("{arch}-unknown-linux-gnu")
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(name)).find(|p| p.is_file())
}

/// Builds the checkout's `ptx2llvm` (release) into `<checkout>/target/ptx2llvm-build`, a
/// target directory of its own, so that it never waits for the lock of the cargo build
/// that runs this build script.
fn build_from_checkout(checkout: &Path, metadata: bool) -> Result<PathBuf, Error> {
    let target_dir = checkout.join("target/ptx2llvm-build");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let mut cmd = Command::new(&cargo);
    cmd.arg("build").arg("--release").args(["-p", "ptx2llvm"]).arg("--manifest-path").arg(checkout.join("Cargo.toml")).arg("--target-dir").arg(&target_dir);
    // The outer build's settings are for the crate being built, not for the compiler.
    for (key, _) in std::env::vars_os() {
        let k = key.to_string_lossy();
        let outer =
            (k.starts_with("CARGO_") && k != "CARGO_HOME" && !k.starts_with("CARGO_NET_") && !k.starts_with("CARGO_REGISTR") && !k.starts_with("CARGO_HTTP"))
                || matches!(
                    k.as_ref(),
                    "TARGET"
                        | "HOST"
                        | "OUT_DIR"
                        | "OPT_LEVEL"
                        | "PROFILE"
                        | "DEBUG"
                        | "NUM_JOBS"
                        | "RUSTFLAGS"
                        | "RUSTDOCFLAGS"
                        | "RUSTC_LINKER"
                        | "MAKEFLAGS"
                        | "MFLAGS"
                        | "RUSTC_WORKSPACE_WRAPPER"
                );
        if outer {
            cmd.env_remove(&key);
        }
    }
    if std::env::var_os("LLVM_SYS_191_PREFIX").is_none() {
        cmd.env("LLVM_SYS_191_PREFIX", "/usr/lib/llvm-19");
    }
    if metadata {
        for dir in ["ptx2llvm/src", "ptx2llvm/Cargo.toml", "abi/src"] {
            println!("cargo:rerun-if-changed={}", checkout.join(dir).display());
        }
        println!("cargo:rerun-if-env-changed=LLVM_SYS_191_PREFIX");
    }
    let out = cmd.output().map_err(|e| Error::new(format!("cannot run cargo ({}): {e}", Path::new(&cargo).display())))?;
    if !out.status.success() {
        return Err(Error::new(format!(
            "building ptx2llvm from the checkout {} failed (it needs LLVM 19: `bash scripts/install-deps.sh`, and \
             LLVM_SYS_191_PREFIX if it is not in /usr/lib/llvm-19; or set PTX2LLVM to a built ptx2llvm):\n{}",
            checkout.display(),
            String::from_utf8_lossy(&out.stderr).trim_end()
        )));
    }
    let exe = target_dir.join("release").join(format!("ptx2llvm{}", std::env::consts::EXE_SUFFIX));
    if exe.is_file() {
        Ok(exe)
    } else {
        Err(Error::new(format!("cargo built ptx2llvm but {} is missing", exe.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_requests_are_errors() {
        let e = Build::new().out_dir("/nonexistent").try_compile("k").unwrap_err();
        assert!(e.to_string().contains("no .ptx file"), "{e}");
        let e = Build::new().file("k.ptx").try_compile("a b").unwrap_err();
        assert!(e.to_string().contains("library name"), "{e}");
        let e = Build::new().file("k.ptx").opt_level(7).try_compile("k").unwrap_err();
        assert!(e.to_string().contains("0 to 3"), "{e}");
    }
}

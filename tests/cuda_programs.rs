//! CUDA programs in ordinary CUDA style (tests/cuda/*.cu: host and device code in one file,
//! CUDA_CHECK, streams, events, symbols, cooperative launches) built with the driver
//! `scripts/ptx2llvm-cc` and run; each checks its own results and prints `<name>: OK`.
//! Each program also runs with one runtime worker (`PTXRT_NUM_THREADS=1`): streams and
//! cooperative grids must not depend on the pool's size.
//!
//! `legacy_launch_abi` builds the host side with exactly the command line of the CUDA
//! runtime's documentation for clang (`clang++-19 -x cuda --cuda-host-only -nocudainc
//! -nocudalib -I ptxrt/include/cuda`), whose `<<<>>>` uses the older
//! `cudaConfigureCall`/`cudaSetupArgument`/`cudaLaunch` protocol.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::support::{self, WorkDir};

const RUN_LIMIT: Duration = Duration::from_secs(300);

fn clang() -> String {
    std::env::var("PTX2LLVM_CC_CLANG").unwrap_or_else(|_| "clang++-19".to_string())
}

/// `scripts/ptx2llvm-cc` with the tools under test.
fn driver() -> Command {
    let tools = support::tools();
    let mut cmd = Command::new(support::root_path("scripts/ptx2llvm-cc"));
    cmd.env("PTX2LLVM", &tools.ptx2llvm)
        .env("PTXRT_LIB", &tools.libptxrt)
        .env("PTX2LLVM_CUDA_INCLUDE", support::root_path("ptxrt/include/cuda"))
        .env("PTX2LLVM_LIBDEVICE", "none");
    cmd
}

fn run_program(exe: &Path, work: &Path, ok_line: &str) {
    for threads in [None, Some("1")] {
        let mut cmd = Command::new(exe);
        match threads {
            Some(n) => cmd.env("PTXRT_NUM_THREADS", n),
            None => cmd.env_remove("PTXRT_NUM_THREADS"),
        };
        let tag = format!("run-{}", threads.unwrap_or("default"));
        let out = support::run_with_timeout(&mut cmd, work, &tag, RUN_LIMIT);
        assert!(out.success(), "{} failed (PTXRT_NUM_THREADS={threads:?})\n{}", exe.display(), out.describe(&cmd));
        assert!(out.stdout.lines().any(|l| l.trim() == ok_line), "{} did not print {ok_line:?}\n{}", exe.display(), out.describe(&cmd));
    }
}

/// Builds tests/cuda/<name>.cu with the driver (nvcc-style flags) and runs it.
fn cuda_program(name: &str, flags: &[&str]) {
    let work = WorkDir::new(&format!("cuda-{name}"));
    let src = support::root_path(&format!("tests/cuda/{name}.cu"));
    let exe = work.join(name);
    let mut cmd = driver();
    cmd.args(flags).arg(&src).arg("-o").arg(&exe);
    support::run_ok(&mut cmd, work.path(), "build", &format!("ptx2llvm-cc {name}.cu"));
    run_program(&exe, work.path(), &format!("{name}: OK"));
}

#[test]
fn runtime_api() {
    cuda_program("runtime_api", &["-O2", "-arch=sm_80"]);
}

#[test]
fn streams() {
    cuda_program("streams", &["-O3", "-std=c++17"]);
}

#[test]
fn sticky_errors() {
    cuda_program("sticky_errors", &["-O0", "-lineinfo"]);
}

#[test]
fn cooperative() {
    cuda_program("cooperative", &["-O3", "-arch=sm_90", "-DUNUSED_MACRO=1"]);
}

#[test]
fn pipeline() {
    cuda_program("pipeline", &["-O3", "-std=c++17", "-arch", "sm_86", "-lineinfo", "-Xcompiler", "-Wall"]);
}

#[test]
fn per_thread_default() {
    cuda_program("per_thread_default", &["--default-stream", "per-thread", "-O2"]);
}

#[test]
fn half() {
    cuda_program("half", &["-O2"]);
}

#[test]
fn texture() {
    cuda_program("texture", &["-O2"]);
}

/// `-c` objects and plain C++ host code, linked by the driver.
#[test]
fn separate_compilation() {
    let work = WorkDir::new("cuda-two-files");
    let obj = work.join("kernels.o");
    let mut cmd = driver();
    cmd.args(["-c", "-O2"]).arg(support::root_path("tests/cuda/two_files_kernels.cu")).arg("-o").arg(&obj);
    support::run_ok(&mut cmd, work.path(), "compile", "ptx2llvm-cc -c two_files_kernels.cu");
    let exe = work.join("two_files");
    let mut cmd = driver();
    cmd.arg("-I").arg(support::root_path("tests/cuda")).arg(support::root_path("tests/cuda/two_files_main.cpp")).arg(&obj).arg("-o").arg(&exe);
    support::run_ok(&mut cmd, work.path(), "link", "ptx2llvm-cc two_files_main.cpp kernels.o");
    run_program(&exe, work.path(), "two_files: OK");
}

/// The host side compiled with the plain documented command (no SDK version: the older
/// launch protocol), the device side by hand: clang to PTX, ptx2llvm, link with ptxrt.
#[test]
fn legacy_launch_abi() {
    let work = WorkDir::new("cuda-legacy-abi");
    let inc = support::root_path("ptxrt/include/cuda");
    let src = support::root_path("tests/cuda/runtime_api.cu");
    let ptx = work.join("runtime_api.ptx");
    let mut cmd = Command::new(clang());
    cmd.args(["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80", "-nocudainc", "-nocudalib", "-O2", "-S"])
        .args(["-Xclang", "-target-feature", "-Xclang", "+ptx78", "-Wno-unknown-cuda-version"])
        .arg("-I")
        .arg(&inc)
        .arg(&src)
        .arg("-o")
        .arg(&ptx);
    support::run_ok(&mut cmd, work.path(), "device", "device-side compilation");
    let dev_obj = work.join("device.o");
    support::compile_ptx(&ptx, &dev_obj, &[], work.path());
    let host_obj = work.join("host.o");
    let mut cmd = Command::new(clang());
    cmd.args(["-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-O2", "-c"])
        .arg("-I")
        .arg(&inc)
        .args(["-Xclang", "-fcuda-include-gpubinary", "-Xclang"])
        .arg(&ptx)
        .arg(&src)
        .arg("-o")
        .arg(&host_obj);
    support::run_ok(&mut cmd, work.path(), "host", "host-side compilation");
    let nm = Command::new("nm").arg(&host_obj).output().expect("nm");
    let symbols = String::from_utf8_lossy(&nm.stdout);
    assert!(
        symbols.contains("U cudaConfigureCall") && symbols.contains("U cudaLaunch"),
        "the plain host compilation was expected to use the cudaConfigureCall protocol:\n{symbols}"
    );
    let exe: PathBuf = work.join("runtime_api");
    let mut cmd = Command::new(clang());
    cmd.arg(&host_obj).arg(&dev_obj).arg(&support::tools().libptxrt).args(["-lpthread", "-ldl", "-lm", "-o"]).arg(&exe);
    support::run_ok(&mut cmd, work.path(), "link", "linking");
    run_program(&exe, work.path(), "runtime_api: OK");
}

/// The launch-overhead program of bench/launch, at a reduced count and without a budget
/// (test builds of ptxrt are not optimized; `bench/run launch` has the figure and budget).
#[test]
fn launch_overhead_program() {
    let work = WorkDir::new("cuda-launch");
    let exe = work.join("launch");
    let mut cmd = driver();
    cmd.arg("-O3").arg(support::root_path("bench/launch/launch.cu")).arg("-o").arg(&exe);
    support::run_ok(&mut cmd, work.path(), "build", "ptx2llvm-cc launch.cu");
    let mut cmd = Command::new(&exe);
    cmd.args(["20000", "1000000"]);
    let out = support::run_with_timeout(&mut cmd, work.path(), "run", RUN_LIMIT);
    assert!(out.success(), "{}", out.describe(&cmd));
    eprintln!("{}", out.stdout.trim());
}

/// examples/cuda with CMake (`ptx2llvm_add_cuda_executable`), against the tools under test.
#[test]
fn cmake_example() {
    let work = WorkDir::new("cuda-cmake");
    let tools = support::tools();
    let build = work.join("build");
    let mut cmd = Command::new("cmake");
    cmd.arg("-S")
        .arg(support::root_path("examples/cuda"))
        .arg("-B")
        .arg(&build)
        .arg(format!("-DPTX2LLVM_EXECUTABLE={}", tools.ptx2llvm.display()))
        .arg(format!("-DPTXRT_LIBRARY={}", tools.libptxrt.display()));
    support::run_ok(&mut cmd, work.path(), "configure", "cmake configure of examples/cuda");
    let mut cmd = Command::new("cmake");
    cmd.arg("--build").arg(&build);
    support::run_ok(&mut cmd, work.path(), "build", "cmake --build of examples/cuda");
    let exe = build.join("saxpy");
    let mut cmd = Command::new(&exe);
    let out = support::run_with_timeout(&mut cmd, work.path(), "run", RUN_LIMIT);
    assert!(out.success() && out.stdout.contains(", OK"), "{}", out.describe(&cmd));
}

/// The runtime API from C: cudaLaunchKernel with a descriptor from ptxrtFindKernel.
#[test]
fn c_host() {
    let work = WorkDir::new("cuda-c-host");
    let obj = work.join("vecadd.o");
    support::compile_ptx(&support::root_path("examples/vecadd/vecadd.ptx"), &obj, &[], work.path());
    let exe = work.join("c_host");
    let mut cmd = Command::new(support::c_compiler());
    cmd.args(["-std=c11", "-O2", "-Wall", "-Werror", "-I"])
        .arg(support::root_path("ptxrt/include/cuda"))
        .arg("-I")
        .arg(support::root_path("ptxrt/include"))
        .arg(support::root_path("tests/cuda/c_host.c"))
        .arg(&obj)
        .arg(&support::tools().libptxrt)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe);
    support::run_ok(&mut cmd, work.path(), "link", "compiling tests/cuda/c_host.c");
    run_program(&exe, work.path(), "c_host: OK");
}

/// The fixture kernels of tests/kernels (CUDA sources written for NVRTC), compiled instead
/// by clang's CUDA device side with ptxrt's headers (what ptx2llvm-cc does), translated and
/// run by their C hosts: the headers' built-ins (warp votes and reductions, atomics,
/// textures, surfaces, math, assert, printf) against results checked on the host.
/// `matrix` (mma.h) and `cuda_barrier` (cuda/barrier) need NVIDIA's headers.
#[test]
fn fixture_kernels_compiled_by_clang() {
    const FIXTURES: &[(&str, &str)] = &[
        ("algorithms", "algorithms_host.c"),
        ("atomics", "atomics_host.c"),
        ("calls", "calls_host.c"),
        ("device_lib", "device_lib_host.c"),
        ("fibers", "fibers_host.c"),
        ("gathers", "gathers_host.c"),
        ("interchange", "interchange_host.c"),
        ("legacy_warp", "legacy_warp_host.c"),
        ("many_regions", "many_regions_host.c"),
        ("memory", "memory_host.c"),
        ("reduce", "reduce_host.c"),
        ("region_guards", "region_guards_host.c"),
        ("ring_indices", "ring_indices_host.c"),
        ("spaces", "spaces_host.c"),
        ("spin_wait", "spin_wait_host.c"),
        ("stencil", "stencil_host.c"),
        ("textures", "textures_host.c"),
        ("trap", "trap_host.c"),
        ("vecadd", "vecadd_host.c"),
        ("warps", "warps_host.c"),
    ];
    let work = WorkDir::new("cuda-fixtures-clang");
    let inc = support::root_path("ptxrt/include/cuda");
    let mut failures = vec![];
    for (kernel, host) in FIXTURES {
        let ptx = work.join(&format!("{kernel}.ptx"));
        let mut cmd = Command::new(clang());
        cmd.args(["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80", "-nocudainc", "-nocudalib", "-O3", "-S"])
            .args(["-Xclang", "-target-feature", "-Xclang", "+ptx78", "-Wno-unknown-cuda-version"])
            .arg("-I")
            .arg(&inc)
            .args(["-include", "cuda_runtime.h"])
            .arg(support::root_path(&format!("tests/kernels/{kernel}.cu")))
            .arg("-o")
            .arg(&ptx);
        support::run_ok(&mut cmd, work.path(), &format!("device-{kernel}"), &format!("clang device compilation of {kernel}.cu"));
        let obj = work.join(&format!("{kernel}.o"));
        support::compile_ptx(&ptx, &obj, &[], work.path());
        let exe = work.join(&format!("{kernel}-host"));
        support::link_host(&support::root_path(&format!("tests/hosts/{host}")), &[obj], &exe, work.path());
        let mut cmd = Command::new(&exe);
        let out = support::run_with_timeout(&mut cmd, work.path(), &format!("run-{kernel}"), RUN_LIMIT);
        if !out.success() {
            failures.push(format!("{kernel}:\n{}", out.describe(&cmd)));
        }
    }
    assert!(failures.is_empty(), "fixtures compiled by clang failed:\n{}", failures.join("\n"));
}

/// The same sources are valid CUDA for NVIDIA's NVRTC: `scripts/nvrtc-check.sh` compiled
/// each with NVRTC and recorded its verdict with the source's SHA-256
/// (`tests/cuda/nvrtc/VERDICTS`) and NVRTC's PTX. Here every CUDA source we write must be
/// recorded as accepted in its current form, and each program is built with NVRTC's device
/// code instead of clang's (`ptx2llvm-cc --device-ptx`) and must pass its own checks: the
/// host side built by clang meets kernels and variables compiled by NVIDIA's compiler.
#[test]
fn nvrtc_device_code() {
    let dir = support::root_path("tests/cuda/nvrtc");
    let verdicts = std::fs::read_to_string(dir.join("VERDICTS")).expect("tests/cuda/nvrtc/VERDICTS");
    let recorded: Vec<(&str, &str, &str)> = verdicts
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split_whitespace();
            (f.next().unwrap_or(""), f.next().unwrap_or(""), f.next().unwrap_or(""))
        })
        .collect();
    let mut stale = vec![];
    for sub in ["tests/cuda", "examples/cuda", "bench/launch"] {
        let mut sources: Vec<_> = std::fs::read_dir(support::root_path(sub))
            .expect(sub)
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "cu"))
            .collect();
        sources.sort();
        for src in sources {
            let rel = format!("{sub}/{}", src.file_name().unwrap().to_string_lossy());
            let out = Command::new("sha256sum").arg(&src).output().expect("sha256sum");
            let hash = String::from_utf8_lossy(&out.stdout).split_whitespace().next().unwrap_or("").to_string();
            match recorded.iter().find(|r| r.2 == rel) {
                Some((h, "accepted", _)) if *h == hash => {}
                Some((h, verdict, _)) if *h == hash => stale.push(format!("{rel}: NVRTC's verdict is '{verdict}'")),
                Some(_) => stale.push(format!("{rel}: changed since NVRTC checked it")),
                None => stale.push(format!("{rel}: never checked by NVRTC")),
            }
        }
    }
    assert!(stale.is_empty(), "{}\n(run scripts/nvrtc-check.sh and commit tests/cuda/nvrtc)", stale.join("\n"));

    const PROGRAMS: &[(&str, &str, &[&str])] = &[
        ("runtime_api", "tests/cuda", &["-O2"]),
        ("streams", "tests/cuda", &["-O3", "-std=c++17"]),
        ("sticky_errors", "tests/cuda", &["-O0"]),
        ("cooperative", "tests/cuda", &["-O3"]),
        ("pipeline", "tests/cuda", &["-O3", "-std=c++17"]),
        ("per_thread_default", "tests/cuda", &["--default-stream", "per-thread", "-O2"]),
        ("half", "tests/cuda", &["-O2"]),
        ("texture", "tests/cuda", &["-O2"]),
        ("saxpy", "examples/cuda", &["-O2"]),
    ];
    let work = WorkDir::new("cuda-nvrtc");
    let mut cmd = driver();
    cmd.args(["--device-ptx", "missing.ptx"]).arg(support::root_path("tests/cuda/half.cu")).arg("-o").arg(work.join("never"));
    let out = support::run_with_timeout(&mut cmd, work.path(), "missing-ptx", RUN_LIMIT);
    assert!(out.status.and_then(|s| s.code()) == Some(1) && out.stderr.contains("--device-ptx: no such file: missing.ptx"), "{}", out.describe(&cmd));
    for (name, sub, flags) in PROGRAMS {
        let exe = work.join(name);
        let mut cmd = driver();
        cmd.args(*flags).arg("--device-ptx").arg(dir.join(format!("{name}.ptx"))).arg(support::root_path(&format!("{sub}/{name}.cu"))).arg("-o").arg(&exe);
        support::run_ok(&mut cmd, work.path(), &format!("build-{name}"), &format!("ptx2llvm-cc --device-ptx nvrtc/{name}.ptx {name}.cu"));
        if *sub == "tests/cuda" {
            run_program(&exe, work.path(), &format!("{name}: OK"));
        } else {
            // The example reports on one line ("saxpy of ... ms, OK"), as cmake_example reads it.
            let mut cmd = Command::new(&exe);
            let out = support::run_with_timeout(&mut cmd, work.path(), &format!("run-{name}"), RUN_LIMIT);
            assert!(out.success() && out.stdout.contains(", OK"), "{name} with NVRTC's device code failed\n{}", out.describe(&cmd));
        }
    }
}

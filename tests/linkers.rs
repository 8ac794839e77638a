//! Kernel registration with every ELF linker, objects in static archives, the readable C++
//! launchers of `--header`, and the launch checks of ptxrt (`ptxrtLaunchKernelEx`, the
//! "not found" message).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::support::{self, Linker, WorkDir};

const RUN_LIMIT: Duration = Duration::from_secs(300);

fn run(exe: &Path, work: &Path, tag: &str) -> support::RunOutput {
    let mut cmd = Command::new(exe);
    support::run_with_timeout(&mut cmd, work, tag, RUN_LIMIT)
}

/// The linker that wrote an executable, from its `.comment` section (LLD writes
/// `Linker: [Debian] LLD <version>`).
fn linked_by_lld(exe: &Path) -> bool {
    let out = Command::new("readelf").args(["-p", ".comment"]).arg(exe).output();
    out.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(" LLD "))
}

/// `ar rcs lib.a objects...`.
fn archive(lib: &Path, objects: &[PathBuf], work: &Path) {
    let mut ar = Command::new("ar");
    ar.arg("rcs").arg(lib).args(objects);
    support::run_ok(&mut ar, work, "ar", "ar");
}

/// The object's constructor registers its kernels before `main` with GNU ld, gold and LLD
/// (it is in `.init_array`: LLD links `.ctors` but never runs it), found by name.
#[test]
fn kernels_register_with_every_linker() {
    let work = WorkDir::new("linkers");
    let obj = work.join("vecadd.o");
    support::compile_ptx(&support::root_path("tests/kernels/vecadd.ptx"), &obj, &[], work.path());
    let host = support::root_path("tests/hosts/vecadd_host.c");
    for linker in [Linker::Default, Linker::Gold, Linker::Lld] {
        let exe = work.join(&format!("host-{linker:?}"));
        support::link_host_with(&host, &[obj.clone()], &exe, work.path(), linker);
        if linker == Linker::Lld {
            assert!(linked_by_lld(&exe), "{} was not linked by LLD", exe.display());
        }
        let out = run(&exe, work.path(), &format!("run-{linker:?}"));
        assert!(out.success() && out.stdout.contains("vecadd: 4 shapes OK"), "linked with {linker:?}: the kernel did not register or run\n{}", out.stderr);
    }
}

/// Objects in a static archive, linked without `--whole-archive`: the typed launchers refer
/// to the kernels' descriptors, so every linker takes the objects out of the archive. A
/// program that only looks kernels up by name gets a message naming the cause.
#[test]
fn archives_without_whole_archive() {
    let work = WorkDir::new("archives");
    let kernels = support::root_path("tests/kernels");
    let mut objects = vec![];
    for name in ["vecadd", "calls"] {
        let obj = work.join(&format!("{name}.o"));
        let header = format!("--header={}", work.join(&format!("{name}.h")).display());
        support::compile_ptx(&kernels.join(format!("{name}.ptx")), &obj, &[header.as_str()], work.path());
        objects.push(obj);
    }
    let lib = work.join("libkernels.a");
    archive(&lib, &objects, work.path());
    let host = work.join("typed_header_host.c");
    std::fs::copy(support::root_path("tests/hosts/typed_header_host.c"), &host).expect("copy the host next to the headers");
    for linker in [Linker::Default, Linker::Gold, Linker::Lld] {
        let exe = work.join(&format!("typed-{linker:?}"));
        support::link_host_with(&host, &[lib.clone()], &exe, work.path(), linker);
        let out = run(&exe, work.path(), &format!("typed-{linker:?}"));
        assert!(out.success() && out.stdout.contains("typed_header: 2 shapes OK"), "typed launchers with the archive, linked with {linker:?}\n{}", out.stderr);
    }
    // By name only: nothing refers to the archive's objects, so none is linked.
    let exe = work.join("by-name");
    support::link_host_with(&support::root_path("tests/hosts/vecadd_host.c"), &[lib], &exe, work.path(), Linker::Lld);
    let out = run(&exe, work.path(), "by-name");
    assert!(!out.success(), "no kernel should have been linked\n{}", out.stdout);
    for needle in ["no registered module defines a kernel named 'vecadd'", "No kernel is registered", "--whole-archive", "--header"] {
        assert!(out.stderr.contains(needle), "the message lacks {needle:?}:\n{}", out.stderr);
    }
}

/// C++ kernels: the readable launchers (overloads, a namespace, template instances, a
/// struct by value, a pointer the kernel never reads) compile as C++ and run; an `int`
/// for the struct and too few arguments are errors naming the parameter; a C++ kernel
/// looked up by its source name is not found, with its mangled name suggested.
#[test]
fn cpp_launchers_and_launch_checks() {
    let work = WorkDir::new("cpp-launchers");
    let obj = work.join("cpp_launchers.o");
    let header = work.join("cpp_launchers.h");
    let header_arg = format!("--header={}", header.display());
    support::compile_ptx(&support::root_path("tests/kernels/cpp_launchers.ptx"), &obj, &[header_arg.as_str()], work.path());
    let text = std::fs::read_to_string(&header).expect("the header");
    for needle in [
        // C launchers: pointers (also the unread one) and the struct's bytes.
        "ptxrtError_t _Z14unused_pointerPKfPfi_launch(ptxrtDim3 grid, ptxrtDim3 block, size_t dynamicSharedBytes, const void *_Z14unused_pointerPKfPfi_param_0, void *_Z14unused_pointerPKfPfi_param_1, uint32_t _Z14unused_pointerPKfPfi_param_2)",
        "const void *_Z11with_struct6ParamsPf_param_0 /* 20 bytes */",
        // C++ launchers.
        "inline ptxrtError_t scale_launch(ptxrtDim3 grid, ptxrtDim3 block, size_t dynamicSharedBytes, const float *p0, float *p1, int p2)",
        "inline ptxrtError_t scale_launch(ptxrtDim3 grid, ptxrtDim3 block, size_t dynamicSharedBytes, const double *p0, double *p1, int p2)",
        "namespace ns {",
        "inline ptxrtError_t fill_launch(ptxrtDim3 grid, ptxrtDim3 block, size_t dynamicSharedBytes, int *p0, int p1, int p2)",
        "inline ptxrtError_t add_one_launch(ptxrtDim3 grid, ptxrtDim3 block, size_t dynamicSharedBytes, float *p0, int p1)",
        "/* Launches with_struct(Params, float*) (`_Z11with_struct6ParamsPf`) and waits for it. */\ntemplate <typename T0>\ninline ptxrtError_t with_struct_launch(ptxrtDim3 grid, ptxrtDim3 block, size_t dynamicSharedBytes, const T0 &p0, float *p1)",
    ] {
        assert!(text.contains(needle), "the header lacks {needle:?}:\n{text}");
    }
    let exe = work.join("host");
    let cxx = std::env::var("CXX").ok().filter(|s| !s.trim().is_empty()).unwrap_or_else(|| "c++".into());
    let mut cmd = Command::new(cxx);
    cmd.args(["-std=c++11", "-O2", "-Wall", "-Werror", "-fuse-ld=gold"])
        .arg(format!("-I{}", work.path().display()))
        .arg(format!("-I{}", env!("PTXRT_INCLUDE")))
        .arg(support::root_path("tests/hosts/cpp_launchers_host.cpp"))
        .arg(&obj)
        .arg(&support::tools().libptxrt)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe);
    support::run_ok(&mut cmd, work.path(), "link-cxx", "compiling and linking the C++ host");
    let out = run(&exe, work.path(), "run");
    assert!(out.success() && out.stdout.contains("cpp_launchers: OK"), "{}\n{}", out.stdout, out.stderr);
}

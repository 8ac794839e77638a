//! Configures, builds and runs examples/cmake (the CMake integration: ptxrt::ptxrt and
//! ptx2llvm_add_library) with the built `ptx2llvm` and `libptxrt.a`, linked with LLD; and
//! installs ptx2llvm with `cmake --install`, then builds examples/installed (copied out of
//! the tree) against the installed prefix with `find_package(ptx2llvm CONFIG REQUIRED)`, and a
//! C program with pkg-config's `ptxrt.pc`.

use std::process::Command;
use std::time::Duration;

use std::path::{Path, PathBuf};

use crate::support::{self, Linker, WorkDir};

fn require_cmake() {
    let have_cmake = Command::new("cmake").arg("--version").output().map(|o| o.status.success()).unwrap_or(false);
    assert!(have_cmake, "cmake was not found on PATH; install it with `bash scripts/install-deps.sh`");
}

fn run_cmake(args: &[&std::ffi::OsStr], work: &Path, tag: &str) {
    let mut cmd = Command::new("cmake");
    cmd.args(args);
    support::run_ok(&mut cmd, work, tag, &format!("cmake ({tag})"));
}

fn run_program(exe: &Path, work: &Path, ok_line: &str) {
    let mut run = Command::new(exe);
    let out = support::run_with_timeout(&mut run, work, "run", Duration::from_secs(300));
    assert!(out.success() && out.stdout.lines().any(|l| l.trim() == ok_line), "{} failed or did not print `{ok_line}`\n{}", exe.display(), out.describe(&run));
}

#[test]
fn cmake_example() {
    let tools = support::tools();
    require_cmake();

    let work = WorkDir::new("cmake");
    let build = work.join("build");
    let mut configure = Command::new("cmake");
    configure
        .arg("-S")
        .arg(support::root_path("examples/cmake"))
        .arg("-B")
        .arg(&build)
        .arg("-DCMAKE_BUILD_TYPE=Release")
        .arg(format!("-DPTX2LLVM_EXECUTABLE={}", tools.ptx2llvm.display()))
        .arg(format!("-DPTXRT_LIBRARY={}", tools.libptxrt.display()))
        .arg(format!("-DCMAKE_C_COMPILER={}", support::c_compiler()))
        // LLD: the kernels register (.init_array) and ptx2llvm_add_library's archive is
        // linked without --whole-archive.
        .arg(format!("-DCMAKE_EXE_LINKER_FLAGS={}", Linker::Lld.flags().join(" ")));
    support::run_ok(&mut configure, work.path(), "cmake-configure", "cmake configure");

    let mut build_cmd = Command::new("cmake");
    build_cmd.arg("--build").arg(&build).arg("--verbose");
    support::run_ok(&mut build_cmd, work.path(), "cmake-build", "cmake --build");

    let exe = build.join("cmake_example");
    let mut run = Command::new(&exe);
    let out = support::run_with_timeout(&mut run, work.path(), "run", Duration::from_secs(300));
    assert!(out.success(), "the CMake example failed\n{}", out.describe(&run));
    assert!(out.stdout.lines().any(|l| l.trim() == "cmake example: OK"), "the CMake example did not print `cmake example: OK`\n{}", out.describe(&run));
}

/// `cmake --install` puts the compiler, the runtime, the headers, the CMake package and
/// `ptxrt.pc` under a prefix; a project outside the tree finds them there.
#[test]
fn installed_prefix() {
    let tools = support::tools();
    require_cmake();
    let work = WorkDir::new("cmake-install");
    let build = work.join("build");
    let prefix = work.join("prefix");
    let os = |s: &str| std::ffi::OsString::from(s);
    let cc = format!("-DCMAKE_C_COMPILER={}", support::c_compiler());
    run_cmake(
        &[
            &os("-S"),
            support::workspace_root().as_os_str(),
            &os("-B"),
            build.as_os_str(),
            &os("-DCMAKE_BUILD_TYPE=Release"),
            &os(&format!("-DPTX2LLVM_EXECUTABLE={}", tools.ptx2llvm.display())),
            &os(&format!("-DPTXRT_LIBRARY={}", tools.libptxrt.display())),
            &os(&cc),
        ],
        work.path(),
        "configure",
    );
    run_cmake(&[&os("--build"), build.as_os_str()], work.path(), "build");
    run_cmake(&[&os("--install"), build.as_os_str(), &os("--prefix"), prefix.as_os_str()], work.path(), "install");
    let libdir = ["lib", "lib64", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu"]
        .iter()
        .map(|d| prefix.join(d))
        .find(|d| d.join("libptxrt.a").is_file())
        .unwrap_or_else(|| panic!("no libptxrt.a under {}", prefix.display()));
    for file in [
        prefix.join("bin/ptx2llvm"),
        prefix.join("include/ptxrt.h"),
        prefix.join("include/ptxrt_abi.h"),
        libdir.join("cmake/ptx2llvm/ptx2llvmConfig.cmake"),
        libdir.join("cmake/ptx2llvm/ptx2llvmConfigVersion.cmake"),
        libdir.join("cmake/ptx2llvm/Ptx2llvmFunctions.cmake"),
        libdir.join("pkgconfig/ptxrt.pc"),
        prefix.join("bin/ptx2llvm-cc"),
        prefix.join("include/ptxrt/cuda/cuda_runtime.h"),
        prefix.join("include/ptxrt/cuda/cooperative_groups/reduce.h"),
    ] {
        assert!(file.is_file(), "cmake --install did not install {}", file.display());
    }

    // A project outside the tree: find_package(ptx2llvm CONFIG REQUIRED), linked with gold.
    let project = work.join("project");
    std::fs::create_dir_all(&project).expect("project directory");
    for f in ["CMakeLists.txt", "main.c", "scale.ptx"] {
        std::fs::copy(support::root_path("examples/installed").join(f), project.join(f)).expect("copy examples/installed");
    }
    let project_build = work.join("project-build");
    run_cmake(
        &[
            &os("-S"),
            project.as_os_str(),
            &os("-B"),
            project_build.as_os_str(),
            &os("-DCMAKE_BUILD_TYPE=Release"),
            &os(&format!("-DCMAKE_PREFIX_PATH={}", prefix.display())),
            &os(&cc),
            &os("-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=gold"),
        ],
        work.path(),
        "project-configure",
    );
    run_cmake(&[&os("--build"), project_build.as_os_str(), &os("--verbose")], work.path(), "project-build");
    run_program(&project_build.join("installed_example"), work.path(), "installed example: OK");

    // pkg-config: the compiler and the flags of the installed runtime.
    let pkg = |args: &[&str]| -> String {
        let mut cmd = Command::new("pkg-config");
        cmd.args(args).env("PKG_CONFIG_PATH", libdir.join("pkgconfig"));
        let out = support::run_ok(&mut cmd, work.path(), "pkg-config", "pkg-config");
        out.stdout.trim().to_string()
    };
    let compiler = PathBuf::from(pkg(&["--variable=ptx2llvm", "ptxrt"]));
    let flags = pkg(&["--cflags", "--libs", "ptxrt"]);
    assert!(flags.contains("-lptxrt"), "{flags}");
    let obj = work.join("vecadd.o");
    let mut translate = Command::new(&compiler);
    translate.arg(support::root_path("examples/vecadd/vecadd.ptx")).arg("-o").arg(&obj);
    support::run_ok(&mut translate, work.path(), "pc-ptx2llvm", "the installed ptx2llvm");
    let exe = work.join("vecadd");
    let mut link = Command::new(support::c_compiler());
    link.arg(support::root_path("examples/vecadd/main.c")).arg(&obj).args(flags.split_whitespace()).arg("-o").arg(&exe);
    support::run_ok(&mut link, work.path(), "pc-link", "linking with pkg-config's flags");
    let mut run = Command::new(&exe);
    let out = support::run_with_timeout(&mut run, work.path(), "pc-run", Duration::from_secs(300));
    assert!(out.success(), "{}", out.describe(&run));

    // The installed driver builds a CUDA program with the installed tools alone.
    let saxpy = work.join("saxpy");
    let mut cc = Command::new(prefix.join("bin/ptx2llvm-cc"));
    cc.args(["-O2", "-arch=sm_80"])
        .arg(support::root_path("examples/cuda/saxpy.cu"))
        .arg("-o")
        .arg(&saxpy)
        .env_remove("PTX2LLVM")
        .env_remove("PTXRT_LIB")
        .env_remove("PTX2LLVM_CUDA_INCLUDE")
        .env_remove("PTX2LLVM_BIN_DIR");
    support::run_ok(&mut cc, work.path(), "cc-build", "the installed ptx2llvm-cc");
    let mut run = Command::new(&saxpy);
    let out = support::run_with_timeout(&mut run, work.path(), "cc-run", Duration::from_secs(300));
    assert!(out.success() && out.stdout.contains(", OK"), "{}", out.describe(&run));
}

/// A program that only looks its kernels up by name (no typed launcher refers to them):
/// `ptx2llvm_add_library`'s object that refers to every kernel makes the linker (LLD here)
/// take them out of the library's archive without `--whole-archive`.
#[test]
fn kernels_found_by_name_without_whole_archive() {
    let tools = support::tools();
    require_cmake();
    let work = WorkDir::new("cmake-by-name");
    let project = work.join("project");
    std::fs::create_dir_all(&project).expect("project directory");
    std::fs::copy(support::root_path("examples/cmake/scale.ptx"), project.join("scale.ptx")).expect("copy scale.ptx");
    let root = support::workspace_root();
    std::fs::write(
        project.join("CMakeLists.txt"),
        format!(
            "cmake_minimum_required(VERSION 3.24)\nproject(by_name LANGUAGES C)\nadd_subdirectory(\"{}\" ptx2llvm)\n\
             ptx2llvm_add_library(kernels scale.ptx)\nadd_executable(by_name main.c)\n\
             target_link_libraries(by_name PRIVATE kernels)\n",
            root.display()
        ),
    )
    .expect("write CMakeLists.txt");
    std::fs::write(
        project.join("main.c"),
        "#include <stdio.h>\n#include \"ptxrt.h\"\nint main(void)\n{\n    if (ptxrtFindKernel(\"scale\") == NULL) {\n        \
         printf(\"not found: %s\\n\", ptxrtGetLastErrorMessage());\n        return 1;\n    }\n    printf(\"by name: OK\\n\");\n    return 0;\n}\n",
    )
    .expect("write main.c");
    let build = work.join("build");
    let os = |s: &str| std::ffi::OsString::from(s);
    run_cmake(
        &[
            &os("-S"),
            project.as_os_str(),
            &os("-B"),
            build.as_os_str(),
            &os(&format!("-DPTX2LLVM_EXECUTABLE={}", tools.ptx2llvm.display())),
            &os(&format!("-DPTXRT_LIBRARY={}", tools.libptxrt.display())),
            &os(&format!("-DCMAKE_C_COMPILER={}", support::c_compiler())),
            &os(&format!("-DCMAKE_EXE_LINKER_FLAGS={}", Linker::Lld.flags().join(" "))),
        ],
        work.path(),
        "configure",
    );
    run_cmake(&[&os("--build"), build.as_os_str(), &os("--verbose")], work.path(), "build");
    run_program(&build.join("by_name"), work.path(), "by name: OK");
}

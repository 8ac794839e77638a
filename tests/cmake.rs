//! Configures, builds and runs examples/cmake (the CMake integration: ptxrt::ptxrt and
//! ptx2llvm_add_library) with the built `ptx2llvm` and `libptxrt.a`.

use std::process::Command;
use std::time::Duration;

use crate::support::{self, WorkDir};

#[test]
fn cmake_example() {
    let tools = support::tools();
    let have_cmake = Command::new("cmake")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        have_cmake,
        "cmake was not found on PATH; install it with `bash scripts/install-deps.sh`"
    );

    let work = WorkDir::new("cmake");
    let build = work.join("build");
    let mut configure = Command::new("cmake");
    configure
        .arg("-S")
        .arg(support::root_path("examples/cmake"))
        .arg("-B")
        .arg(&build)
        .arg("-DCMAKE_BUILD_TYPE=Release")
        .arg(format!(
            "-DPTX2LLVM_EXECUTABLE={}",
            tools.ptx2llvm.display()
        ))
        .arg(format!("-DPTXRT_LIBRARY={}", tools.libptxrt.display()))
        .arg(format!("-DCMAKE_C_COMPILER={}", support::c_compiler()));
    support::run_ok(
        &mut configure,
        work.path(),
        "cmake-configure",
        "cmake configure",
    );

    let mut build_cmd = Command::new("cmake");
    build_cmd.arg("--build").arg(&build).arg("--verbose");
    support::run_ok(&mut build_cmd, work.path(), "cmake-build", "cmake --build");

    let exe = build.join("cmake_example");
    let mut run = Command::new(&exe);
    let out = support::run_with_timeout(&mut run, work.path(), "run", Duration::from_secs(300));
    assert!(
        out.success(),
        "the CMake example failed\n{}",
        out.describe(&run)
    );
    assert!(
        out.stdout.lines().any(|l| l.trim() == "cmake example: OK"),
        "the CMake example did not print `cmake example: OK`\n{}",
        out.describe(&run)
    );
}

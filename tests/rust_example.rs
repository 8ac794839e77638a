//! examples/rust with plain `cargo run`: the ptx2llvm-build crate translates the kernel in
//! build.rs (an archive that nothing links whole) and writes the typed launchers of
//! `ptx2llvm --rust`; the program runs under Rust's default linker (LLD on x86-64 Linux).

use std::process::Command;
use std::time::Duration;

use crate::support::{self, WorkDir};

#[test]
fn cargo_run() {
    let tools = support::tools();
    let work = WorkDir::new("rust-example");
    let example = support::root_path("examples/rust");
    // Built next to the test's own target directory (kept between runs), with the compiler
    // under test instead of a second build of it.
    let target_dir = tools.bin_dir.parent().unwrap_or(&tools.bin_dir).join("rust-example");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&example)
        .args(["run", "--quiet"])
        .env("CARGO_TARGET_DIR", &target_dir)
        .env("PTX2LLVM", &tools.ptx2llvm)
        // The test runs inside cargo: none of its settings are for this build.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET")
        .env_remove("CARGO_MAKEFLAGS")
        .env_remove("MAKEFLAGS");
    let out = support::run_with_timeout(&mut cmd, work.path(), "cargo-run", Duration::from_secs(1200));
    assert!(out.success() && out.stdout.lines().any(|l| l.trim() == "rust example: OK"), "`cargo run` in examples/rust failed\n{}", out.describe(&cmd));
    assert!(out.stdout.contains("rejected as expected: "), "{}", out.stdout);
}

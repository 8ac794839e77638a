//! Debugging: `-g` (gdb, in batch mode, stops on a CUDA source line of a kernel translated from
//! NVRTC's `-lineinfo` PTX (tests/kernels/debug_lines.cu), in one chosen thread, and shows
//! the kernel in the backtrace and its registers and thread indices as locals) and
//! checking mode (`--check`).

use std::process::Command;
use std::time::Duration;

use crate::support::{self, WorkDir};

/// gdb, which scripts/install-deps.sh installs; `None` (with a `skipped:` line, or a
/// failure under CI) where it is missing.
fn gdb() -> Option<&'static str> {
    let found = Command::new("gdb").arg("--version").output().is_ok_and(|o| o.status.success());
    if found {
        return Some("gdb");
    }
    support::skip("debug_info", "gdb is not installed (scripts/install-deps.sh installs it)");
    None
}

#[test]
fn debug_info() {
    let work = WorkDir::new("debug-info");
    let ptx = support::root_path("tests/kernels/debug_lines.ptx");
    let host = support::root_path("tests/hosts/debug_lines_host.c");
    let mut programs = vec![];
    for opt in ["-O0", "-O2"] {
        let obj = work.join(&format!("kernel{opt}.o"));
        support::compile_ptx(&ptx, &obj, &["-g", opt], work.path());
        let exe = work.join(&format!("host{opt}"));
        support::link_host(&host, &[obj], &exe, work.path());
        // The debug information changes nothing in what the kernel computes.
        let mut run = Command::new(&exe);
        let out = support::run_ok(&mut run, work.path(), &format!("run{opt}"), "the -g program");
        assert!(out.stdout.contains("debug_lines: OK"), "{}", out.describe(&run));
        programs.push((opt, exe));
    }
    let Some(gdb) = gdb() else { return };
    for (opt, exe) in &programs {
        let mut cmd = Command::new(gdb);
        cmd.args(["-batch", "-nx"]);
        // One thread: block 1, thread 3 (global index 67). At -O0 the indices and registers
        // are there to read; optimized code keeps the line table.
        let commands: &[&str] = if *opt == "-O0" {
            &["break debug_lines.cu:7 if tid_x == 3 && ctaid_x == 1", "run", "bt 1", "print tid_x", "print ctaid_x", "info locals"]
        } else {
            &["break debug_lines.cu:7", "run", "bt 1"]
        };
        for c in commands {
            cmd.arg("-ex").arg(c);
        }
        cmd.arg(exe);
        let out = support::run_with_timeout(&mut cmd, work.path(), &format!("gdb{opt}"), Duration::from_secs(120));
        let text = format!("{}\n{}", out.stdout, out.stderr);
        let expect = |what: &str, ok: bool| assert!(ok, "gdb ({opt}): {what}\n{}", out.describe(&cmd));
        expect("the breakpoint on debug_lines.cu:7 is set", text.contains("Breakpoint 1 at") && text.contains("debug_lines.cu:7"));
        expect("the breakpoint is hit", text.contains("hit Breakpoint 1"));
        expect(
            "the backtrace shows the kernel at the source line",
            text.lines().any(|l| l.starts_with("#0") && l.contains("scale_particles ()") && l.contains("debug_lines.cu:7")),
        );
        if *opt == "-O0" {
            expect("tid_x is 3 and ctaid_x is 1 where the condition stopped", text.contains("$1 = 3") && text.contains("$2 = 1"));
            // %r1 = blockIdx.x * blockDim.x + threadIdx.x = 1 * 64 + 3.
            expect("info locals shows the registers", text.lines().any(|l| l.trim() == "r1 = 67"));
        }
    }
}

/// `--check`: five kernels with a bug each (an off-by-one shared write, a local array
/// overrun, a read past a `cudaMalloc` allocation, a shared-memory race, an uninitialized
/// shared read) fail their launch with a report naming the CUDA line, kernel, block and
/// thread, and run cleanly with correct arguments (tests/hosts/check_bugs_host.c); correct
/// fixture programs (shared memory with barriers, warp collectives, atomics) run under
/// checking mode without a report.
#[test]
fn checking_mode() {
    let work = WorkDir::new("check");
    for opt in ["-O0", "-O2"] {
        let obj = work.join(&format!("check_bugs{opt}.o"));
        support::compile_ptx(&support::root_path("tests/kernels/check_bugs.ptx"), &obj, &["--check", opt], work.path());
        let exe = work.join(&format!("check_bugs{opt}"));
        support::link_host(&support::root_path("tests/hosts/check_bugs_host.c"), &[obj], &exe, work.path());
        let mut run = Command::new(&exe);
        let out = support::run_ok(&mut run, work.path(), &format!("check_bugs{opt}"), "the checking-mode program");
        assert!(out.stdout.contains("check_bugs: 5 bugs reported, 6 correct launches"), "{}", out.describe(&run));
    }
    for (fixture, ok) in [("warps", "block_sum: 4 shapes OK"), ("algorithms", "bitonic: 3 shapes OK"), ("atomics", "histogram: 4 shapes OK")] {
        let obj = work.join(&format!("{fixture}.o"));
        support::compile_ptx(&support::root_path(&format!("tests/kernels/{fixture}.ptx")), &obj, &["--check"], work.path());
        let exe = work.join(fixture);
        support::link_host(&support::root_path(&format!("tests/hosts/{fixture}_host.c")), &[obj], &exe, work.path());
        let mut run = Command::new(&exe);
        let out = support::run_ok(&mut run, work.path(), fixture, "a correct program under --check");
        assert!(!out.stderr.contains("ptxrt check"), "a correct program was reported\n{}", out.describe(&run));
        assert!(out.stdout.contains(ok), "{}", out.describe(&run));
    }
}

//! Runs the lit + FileCheck suite in lit/ against the built `ptx2llvm`.
//!
//! lit comes from PyPI (scripts/install-deps.sh installs the pinned version); it is
//! taken from PATH, else from python3's modules, else LLVM 19's own copy. FileCheck, `not` and the llvm-* tools
//! come from LLVM 19 (lit/lit.cfg.py finds them).

use std::process::Command;
use std::time::Duration;

use crate::support::{self, WorkDir};

/// lit as a Python module (also works when pip put its script outside PATH).
const LIT_MODULE: &str = "import sys; from lit.main import main; sys.argv[0] = 'lit'; main()";
/// The copy of lit that Debian's llvm-19-tools ships.
const LLVM_LIT: &str = "/usr/lib/llvm-19/build/utils/lit/lit.py";

/// A command prefix that runs lit, if one works here: `lit` on PATH, the `lit` module
/// of python3, or LLVM 19's own lit.py.
fn find_lit() -> Option<Vec<String>> {
    let candidates: [&[&str]; 3] = [&["lit"], &["python3", "-c", LIT_MODULE], &["python3", LLVM_LIT]];
    for candidate in candidates {
        let ok = Command::new(candidate[0]).args(&candidate[1..]).arg("--version").output().map(|o| o.status.success()).unwrap_or(false);
        if ok {
            return Some(candidate.iter().map(|s| s.to_string()).collect());
        }
    }
    None
}

#[test]
fn lit_suite() {
    let tools = support::tools();
    let lit = find_lit().unwrap_or_else(|| {
        panic!(
            "lit was not found (not on PATH, not a python3 module, not in {LLVM_LIT}); install \
             it with `bash scripts/install-deps.sh` (pip install lit)"
        )
    });
    let work = WorkDir::new("lit");
    let exec_root = work.join("lit-out");

    let mut cmd = Command::new(&lit[0]);
    cmd.args(&lit[1..])
        .args(["-v", "--no-progress-bar"])
        .arg(support::root_path("lit"))
        .env("PTX2LLVM_BIN_DIR", &tools.bin_dir)
        .env("PTX2LLVM_LIT_EXEC_ROOT", &exec_root);
    let out = support::run_with_timeout(&mut cmd, work.path(), "lit", Duration::from_secs(900));
    if !out.success() {
        panic!("lit reported failures\n{}", out.describe(&cmd));
    }
    // lit exits 0 when it finds no tests at all: make sure it ran some.
    let passed = out
        .stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("Passed").map(|r| r.trim_start_matches(|c: char| c == ':' || c.is_whitespace()).to_owned()))
        .and_then(|r| r.split_whitespace().next().and_then(|n| n.parse::<u32>().ok()))
        .unwrap_or(0);
    assert!(passed > 0, "lit ran no passing test\n{}", out.describe(&cmd));
    println!("{}", out.stdout);
}

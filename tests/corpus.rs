//! The real-world PTX corpus (nvcc 3.x–13.0, nvopencc, NVRTC, Triton, LLVM, hand-written;
//! ISA 1.4–9.0): every file must pass `ptx2llvm -fsyntax-only` without an error.

use std::process::Command;
use std::time::Duration;

use crate::support::{self, WorkDir};

#[test]
fn corpus_passes_syntax_only() {
    let files = support::corpus_files();
    let work = WorkDir::new("corpus");
    let ptx2llvm = &support::tools().ptx2llvm;
    // Two runs at a time: the machines that run CI have few cores.
    let failures: Vec<String> = std::thread::scope(|s| {
        let chunks: Vec<_> = files.chunks(files.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .enumerate()
            .map(|(worker, chunk)| {
                let work = &work;
                s.spawn(move || {
                    let mut failures = vec![];
                    for (i, file) in chunk.iter().enumerate() {
                        let mut cmd = Command::new(ptx2llvm);
                        cmd.args(["-fsyntax-only", "--error-format=short"]).arg(file);
                        let tag = format!("syntax-{worker}-{i}");
                        let out = support::run_with_timeout(&mut cmd, work.path(), &tag, Duration::from_secs(120));
                        if !out.success() || out.stderr.contains("error") {
                            let errors: Vec<&str> = out.stderr.lines().take(5).collect();
                            failures.push(format!("{}:\n  {}", file.display(), errors.join("\n  ")));
                        }
                    }
                    failures
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("corpus worker panicked")).collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} corpus files fail -fsyntax-only:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

//! The real-world PTX corpus (nvcc 3.x–13.0, nvopencc, NVRTC, Triton, LLVM, hand-written;
//! ISA 1.4–9.0): every file must pass `ptx2llvm -fsyntax-only` without an error, and
//! compile to an object for x86-64 and AArch64 (with a short, shrinking exception list).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use crate::support::{self, WorkDir};

/// On a machine with only the repository (no `../shared` beside the checkout) the corpus
/// tests print `skipped: ...` and pass; under CI the missing corpus is a failure; a
/// `PTX2LLVM_CORPUS` that names a missing directory always is.
#[test]
fn missing_corpus_skips_except_under_ci() {
    let missing = std::env::temp_dir().join(format!("ptx2llvm-no-corpus-{}", std::process::id()));
    let what = "corpus::missing_corpus_skips_except_under_ci (a deliberately missing corpus)";
    let default = std::panic::catch_unwind(|| support::corpus_files_in(&missing, false, what));
    if support::in_ci() {
        assert!(default.is_err(), "a missing corpus must fail under CI");
    } else {
        assert!(matches!(default, Ok(None)), "a missing corpus must be skipped");
    }
    let explicit = std::panic::catch_unwind(|| support::corpus_files_in(&missing, true, what));
    assert!(explicit.is_err(), "a missing PTX2LLVM_CORPUS must fail");
}

#[test]
fn corpus_passes_syntax_only() {
    let Some(files) = support::corpus_files("corpus::corpus_passes_syntax_only") else {
        return;
    };
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
    assert!(failures.is_empty(), "{} of {} corpus files fail -fsyntax-only:\n{}", failures.len(), files.len(), failures.join("\n"));
}

/// Instructions the corpus may still report as `not supported yet` (Hopper/Blackwell
/// asynchronous tensor-core and copy machinery), per file. The test asserts this exact
/// list, so it can only shrink: a file that starts compiling must be removed from it.
const ALLOWED_UNSUPPORTED: &[(&str, &[&str])] =
    &[("ashvardanian__less_slow.cpp__less_slow_sm90a.ptx", &["wgmma"]), ("csullivan__triton__matmul@00c65d5b.ptx", &["wgmma"])];

/// The only instructions that may appear in `ALLOWED_UNSUPPORTED`.
const EXCEPTION_KINDS: &[&str] = &["wgmma", "tcgen05", "cp.async.bulk", "cp.reduce.async.bulk"];

/// Every corpus file compiles to an object for x86-64 and for AArch64; the only errors
/// allowed are `not supported yet: <instruction>` for the instructions of
/// `ALLOWED_UNSUPPORTED`, each with its source location.
#[test]
fn corpus_compiles_for_x86_64_and_aarch64() {
    let Some(files) = support::corpus_files("corpus::corpus_compiles_for_x86_64_and_aarch64") else {
        return;
    };
    let work = WorkDir::new("corpus-compile");
    let ptx2llvm = &support::tools().ptx2llvm;
    let targets: [(&str, &[&str]); 2] = [("x86_64", &["--target", "x86_64-unknown-linux-gnu"]), ("aarch64", &["--target", support::AARCH64_TRIPLE])];
    let jobs: Vec<(usize, &PathBuf, &str, &[&str])> =
        files.iter().enumerate().flat_map(|(i, f)| targets.iter().map(move |(name, args)| (i, f, *name, *args))).collect();
    let results: Vec<(String, String, Result<BTreeSet<String>, String>)> = std::thread::scope(|s| {
        let chunks: Vec<_> = jobs.chunks(jobs.len().div_ceil(2)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let work = &work;
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|(i, file, target, args)| {
                            let obj = work.join(&format!("{i}-{target}.o"));
                            let mut cmd = Command::new(ptx2llvm);
                            cmd.args(["-O0", "--error-format=short"]).args(*args).arg(file).arg("-o").arg(&obj);
                            let out = support::run_with_timeout(&mut cmd, work.path(), &format!("compile-{i}-{target}"), Duration::from_secs(300));
                            let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                            let verdict = if out.success() && obj.exists() { Ok(BTreeSet::new()) } else { unsupported_only(&out.stderr) };
                            let _ = std::fs::remove_file(&obj);
                            (name, target.to_string(), verdict)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("corpus worker panicked")).collect()
    });

    let mut problems = vec![];
    for (name, target, verdict) in &results {
        let allowed: BTreeSet<String> =
            ALLOWED_UNSUPPORTED.iter().find(|(f, _)| f == name).map(|(_, l)| l.iter().map(|s| s.to_string()).collect()).unwrap_or_default();
        match verdict {
            Err(errors) => problems.push(format!("{name} ({target}) does not compile:\n  {errors}")),
            Ok(found) if *found != allowed => problems.push(format!(
                "{name} ({target}): not supported yet: {found:?}; the exception list says {allowed:?} (update ALLOWED_UNSUPPORTED: it may only shrink)"
            )),
            Ok(_) => {}
        }
    }
    for (file, kinds) in ALLOWED_UNSUPPORTED {
        for k in *kinds {
            assert!(EXCEPTION_KINDS.contains(k), "{file}: `{k}` is not an allowed kind of exception");
        }
    }
    assert!(problems.is_empty(), "{} problems compiling the corpus ({} files, 2 targets):\n{}", problems.len(), files.len(), problems.join("\n"));
}

/// The instructions of `not supported yet: `<instruction>`` errors, if those (with a
/// `file:line:col` location) are the only errors; otherwise the first errors.
fn unsupported_only(stderr: &str) -> Result<BTreeSet<String>, String> {
    let mut found = BTreeSet::new();
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains(": error: ")).collect();
    if errors.is_empty() {
        return Err(format!("failed without an error message: {}", stderr.lines().take(5).collect::<Vec<_>>().join("\n  ")));
    }
    for line in &errors {
        let located = line.split(':').nth(2).is_some_and(|col| col.trim().parse::<u32>().is_ok());
        let what = line.split_once("error: not supported yet: `").map(|(_, rest)| rest.split('`').next().unwrap_or(""));
        match what {
            Some(w) if located && !w.is_empty() => {
                found.insert(w.to_string());
            }
            _ => return Err(errors.iter().take(5).copied().collect::<Vec<_>>().join("\n  ")),
        }
    }
    Ok(found)
}

//! The lit tests of diagnostics (lit/diagnostics) and of tricky valid PTX (lit/accept)
//! are judged against NVIDIA's ptxas: what it rejects we reject, what it accepts we
//! accept. Its verdicts are recorded in `ptxas-verdicts.txt` beside the tests (the tests
//! never run ptxas). These tests keep that record and the test files in step: every
//! test file has exactly one recorded verdict, of the kind its directory needs, and every
//! recorded verdict names a test file.

use std::collections::BTreeMap;
use std::path::Path;

use crate::support;

/// `file -> verdict` from a directory's `ptxas-verdicts.txt`.
fn recorded_verdicts(dir: &Path) -> BTreeMap<String, String> {
    let path = dir.join("ptxas-verdicts.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut verdicts = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        assert!(
            fields.len() == 4 && fields.iter().all(|f| !f.trim().is_empty()),
            "{}:{}: expected 4 tab-separated fields (file, verdict, ptxas version, first message), found {:?}",
            path.display(),
            n + 1,
            fields
        );
        let previous = verdicts.insert(fields[0].to_string(), fields[1].to_string());
        assert!(previous.is_none(), "{}:{}: `{}` is recorded twice", path.display(), n + 1, fields[0]);
    }
    verdicts
}

fn test_files(dir: &Path) -> BTreeMap<String, String> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .map(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            (name, text)
        })
        .collect()
}

/// Checks one directory: the files and the record match, verdicts are among `allowed`,
/// and each file passes `well_formed` (its RUN/CHECK lines).
fn check_directory(rel: &str, allowed: &[&str], well_formed: impl Fn(&str, &str) -> Result<(), String>) {
    let dir = support::root_path(rel);
    let verdicts = recorded_verdicts(&dir);
    let files = test_files(&dir);
    assert!(!files.is_empty(), "{rel} holds no .ptx test");

    let mut problems = vec![];
    for name in files.keys() {
        match verdicts.get(name) {
            None => problems.push(format!("{name}: no ptxas verdict recorded in {rel}/ptxas-verdicts.txt")),
            Some(v) if !allowed.contains(&v.as_str()) => problems.push(format!("{name}: ptxas verdict `{v}`, but the tests of {rel} need one of {allowed:?}")),
            Some(_) => {}
        }
    }
    for name in verdicts.keys() {
        if !files.contains_key(name) {
            problems.push(format!("{name}: recorded in {rel}/ptxas-verdicts.txt, but there is no such test"));
        }
    }
    for (name, text) in &files {
        if let Err(e) = well_formed(name, text) {
            problems.push(format!("{name}: {e}"));
        }
    }
    assert!(problems.is_empty(), "{rel} and its ptxas verdicts disagree:\n{}", problems.join("\n"));
}

#[test]
fn diagnostics_tests_are_rejected_by_ptxas() {
    check_directory("lit/diagnostics", &["rejected"], |name, text| {
        if !text.lines().any(|l| l.contains("RUN:") && l.contains("not %ptx2llvm")) {
            return Err("no `RUN: not %ptx2llvm ...` line".into());
        }
        // Each expected error is located: `file.ptx:LINE:COL: error: ...`.
        let located = format!("{name}:");
        let checks: Vec<&str> = text.lines().filter(|l| l.contains("CHECK") && !l.contains("CHECK-NOT")).collect();
        if checks.is_empty() {
            return Err("no CHECK line".into());
        }
        for c in checks {
            let rest = c.split_once(&located).map(|(_, r)| r).unwrap_or("");
            let mut parts = rest.splitn(3, ':');
            let line_ok = parts.next().is_some_and(|l| l.parse::<u32>().is_ok());
            // A column may be left to a FileCheck pattern (`{{[0-9]+}}`), the line may not.
            let col_ok = parts.next().is_some_and(|c| c.parse::<u32>().is_ok() || c.starts_with("{{"));
            if !(line_ok && col_ok && rest.contains(" error: ")) {
                return Err(format!("CHECK line without `{name}:LINE:COL: error:`: {c}"));
            }
        }
        Ok(())
    });
}

#[test]
fn accept_tests_are_accepted_by_ptxas() {
    check_directory("lit/accept", &["accepted", "spec-valid"], |_, text| {
        // No output and exit status 0.
        if !text.lines().any(|l| l.contains("RUN: %ptx2llvm -fsyntax-only") && l.contains("count 0")) {
            return Err("no `RUN: %ptx2llvm -fsyntax-only ... | count 0` line".into());
        }
        Ok(())
    });
}

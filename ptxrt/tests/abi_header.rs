//! `include/ptxrt_abi.h` against the `ptx2llvm-abi` crate, where the contract between the
//! compiler and the runtime is written: every structure layout and macro value the crate
//! lists becomes a `_Static_assert` compiled against the header with the system's C
//! compiler, and every numeric `PTXRT_*` macro of the header must be one the crate lists.

use std::path::{Path, PathBuf};
use std::process::Command;

use ptx2llvm_abi::c_header::{CONSTANTS, STRUCTS};

fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("include")
}

/// The C program of static assertions.
fn assertions() -> String {
    let mut c = String::from("#include <stddef.h>\n#include \"ptxrt_abi.h\"\n\n");
    for s in STRUCTS {
        c += &format!("_Static_assert(sizeof({0}) == {1}, \"sizeof({0}) is not {1}\");\n", s.name, s.size);
        for (field, offset) in s.fields {
            c += &format!("_Static_assert(offsetof({0}, {field}) == {offset}, \"offsetof({0}, {field}) is not {offset}\");\n", s.name);
        }
    }
    for (name, value) in CONSTANTS.iter().flat_map(|g| g.iter()) {
        c += &format!("_Static_assert((long long)({name}) == {value}LL, \"{name} is not {value}\");\n");
    }
    c
}

#[test]
fn the_header_has_the_crates_layouts_and_values() {
    let dir = tempfile_dir();
    let src = dir.join("abi_check.c");
    std::fs::write(&src, assertions()).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(["-std=c11", "-fsyntax-only", "-Werror", "-I"])
        .arg(include_dir())
        .arg(&src)
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "ptxrt_abi.h disagrees with the ptx2llvm-abi crate:\n{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn every_macro_of_the_header_is_checked() {
    let header = std::fs::read_to_string(include_dir().join("ptxrt_abi.h")).unwrap();
    let listed: Vec<&str> = CONSTANTS.iter().flat_map(|g| g.iter().map(|(n, _)| *n)).collect();
    let mut unchecked = vec![];
    for line in header.lines() {
        let Some(rest) = line.trim_start().strip_prefix("#define ") else {
            continue;
        };
        let mut parts = rest.split_whitespace();
        let Some(name) = parts.next() else { continue };
        // The include guard has no value.
        if parts.next().is_none() {
            continue;
        }
        if !listed.contains(&name) {
            unchecked.push(name.to_string());
        }
    }
    assert!(
        unchecked.is_empty(),
        "macros of ptxrt_abi.h that the ptx2llvm-abi crate does not list (add them to \
         c_header::CONSTANTS so that they are checked): {unchecked:?}"
    );
    // And the other way round: every value the crate lists is defined.
    for name in &listed {
        assert!(header.contains(&format!("#define {name} ")), "{name} is missing from ptxrt_abi.h");
    }
}

#[test]
fn a_wrong_header_is_caught() {
    // The check itself must be able to fail: a header whose struct drifted.
    let dir = tempfile_dir();
    let header = std::fs::read_to_string(include_dir().join("ptxrt_abi.h")).unwrap();
    let drifted = header.replacen("    uint32_t blocks_x;", "    uint32_t padding;\n    uint32_t blocks_x;", 1);
    assert_ne!(drifted, header);
    std::fs::write(dir.join("ptxrt_abi.h"), drifted).unwrap();
    std::fs::copy(include_dir().join("ptxrt.h"), dir.join("ptxrt.h")).unwrap();
    std::fs::write(dir.join("abi_check.c"), assertions()).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc).args(["-std=c11", "-fsyntax-only", "-I"]).arg(&dir).arg(dir.join("abi_check.c")).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("offsetof(ptxrtBlockEnv, blocks_x)"));
}

/// A fresh directory under the target's temporary directory.
fn tempfile_dir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!("ptxrt-abi-header-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

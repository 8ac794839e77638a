//! Builds the C host-side test harness (tests/harness) into a static library for the
//! end-to-end tests, which link it into each C host program together with a translated
//! kernel object and libptxrt.a.
//!
//! Exported to the tests (read with `env!`):
//! - `PTX2LLVM_HARNESS_LIB`: path of the static library (libptx2llvm_harness.a)
//! - `PTX2LLVM_HARNESS_INCLUDE`: directory of harness.h
//! - `PTXRT_INCLUDE`: directory of ptxrt.h

use std::env;
use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let harness_dir = root.join("tests").join("harness");
    let ptxrt_include = root.join("ptxrt").join("include");

    for file in ["harness.c", "harness.h"] {
        println!("cargo:rerun-if-changed={}", harness_dir.join(file).display());
    }
    println!("cargo:rerun-if-changed={}", ptxrt_include.join("ptxrt.h").display());

    cc::Build::new()
        .file(harness_dir.join("harness.c"))
        .include(&harness_dir)
        .include(&ptxrt_include)
        .std("c11")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .pic(true)
        // The library is linked into the C host programs, not into the Rust test binary.
        .cargo_metadata(false)
        .compile("ptx2llvm_harness");

    let lib = out_dir.join("libptx2llvm_harness.a");
    println!("cargo:rustc-env=PTX2LLVM_HARNESS_LIB={}", lib.display());
    println!("cargo:rustc-env=PTX2LLVM_HARNESS_INCLUDE={}", harness_dir.display());
    println!("cargo:rustc-env=PTXRT_INCLUDE={}", ptxrt_include.display());
}

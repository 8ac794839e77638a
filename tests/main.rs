//! End-to-end tests of ptx2llvm + ptxrt (one test binary, `e2e`).
//!
//! - `e2e::*`: a fixture kernel from tests/kernels is translated by the `ptx2llvm` CLI,
//!   linked with its C host program (tests/hosts), the C harness and libptxrt.a, and run;
//!   the host compares the kernel's results with a reference computed on the CPU.
//! - `lit::lit_suite`: runs the lit + FileCheck suite in lit/.
//! - `cmake::cmake_example`: configures, builds and runs examples/cmake;
//!   `cmake::installed_prefix`: `cmake --install`, then a project outside the tree that uses
//!   `find_package(ptx2llvm CONFIG REQUIRED)`, and pkg-config's `ptxrt.pc`.
//! - `linkers::*`: kernels register with GNU ld, gold and LLD, also from static archives
//!   without `--whole-archive`; the C++ launchers of `--header`; launch argument checks.
//! - `cuda::*`: CUDA programs (tests/cuda/*.cu, host and device code together) built with
//!   `scripts/ptx2llvm-cc` against the CUDA runtime API of ptxrt, and run.
//! - `rust_example::cargo_run`: examples/rust (the ptx2llvm-build crate, `--rust`) with
//!   plain `cargo run`.
//! - `corpus::*`: every file of the real-world PTX corpus (`PTX2LLVM_CORPUS`, default
//!   ../shared/corpus) passes `-fsyntax-only`.
//! - `ptxas_verdicts::*`: every lit/diagnostics test has a recorded "rejected" verdict of
//!   NVIDIA's ptxas, every lit/accept test an "accepted" one (`ptxas-verdicts.txt`).
//! - `robustness::*`: truncated and randomly mutated corpus files never make the front
//!   end panic or take more than 10 s (the library, in-process).
//!
//! The tests drive the built `ptx2llvm` binary and `libptxrt.a`. Before the first test
//! they run `cargo build -p ptx2llvm -p ptxrt` for the test binary's own profile and
//! target directory (so `cargo test --workspace` alone is enough); set
//! `PTX2LLVM_BIN_DIR` to a directory that already holds both to skip that step.
//! `PTX2LLVM_KEEP_TEMP=1` keeps the temporary build directories for inspection.

mod support;

mod cmake;
mod conformance;
mod corpus;
#[path = "cuda_programs.rs"]
mod cuda;
mod e2e;
mod linkers;
mod lit;
mod ptxas_verdicts;
mod robustness;
mod rust_example;
mod silicon;

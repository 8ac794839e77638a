//! ptx2llvm: ahead-of-time translation of NVIDIA PTX into native objects.
//!
//! The pipeline runs in one direction:
//! `front` (text → syntax tree) → `check` (names, types, forms → `ir`) → `lower` (IR → LLVM
//! module) → `driver` (optimization and object emission). Diagnostics from every stage
//! are `diag::Diagnostic`s with source spans.

pub mod check;
pub mod diag;
pub mod driver;
pub mod front;
pub mod header;
pub mod ir;
pub mod lower;
pub mod rust_launchers;
pub mod target;

//! Passes over the finished LLVM module (after `mem2reg`), before LLVM's own pipeline.

pub mod nan_payload;
pub mod provenance;

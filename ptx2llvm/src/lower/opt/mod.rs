//! Passes over the finished LLVM module (after `mem2reg`), before LLVM's own pipeline, and
//! the choice of that pipeline per function (`pipeline`).

pub mod nan_payload;
pub mod pipeline;
pub mod provenance;

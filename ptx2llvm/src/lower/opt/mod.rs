//! Passes over the finished LLVM module (after `mem2reg`), before LLVM's own pipeline, the
//! choice of that pipeline per function (`pipeline`), and one after it (`uniform_lanes`).

pub mod nan_payload;
pub mod pipeline;
pub mod provenance;
pub mod uniform_lanes;

//! Passes over the finished LLVM module (after `mem2reg`), before LLVM's own pipeline, the
//! choice of that pipeline per function (`pipeline`), and one after it (`gather_scatter`,
//! with `shared_offsets`).

pub mod gather_scatter;
pub mod nan_payload;
pub mod pipeline;
pub mod provenance;
pub mod shared_offsets;

//! Passes over the finished LLVM module (after `mem2reg`), before LLVM's own pipeline, the
//! choice of that pipeline per function (`pipeline`), and two after it (`nan_branches`,
//! then `gather_scatter` with `shared_offsets`; block surgery of both in `cfg`, and the
//! reading of instructions every pass shares in `inspect`).

mod cfg;
pub mod gather_scatter;
mod inspect;
pub mod nan_branches;
pub mod nan_payload;
pub mod pipeline;
pub mod provenance;
pub mod scalar_gathers;
pub mod shared_offsets;

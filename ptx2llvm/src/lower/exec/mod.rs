//! The execution model: how the threads of a block run on one CPU thread.
//!
//! A kernel becomes a block function (`kernel`) that runs its threads region by region
//! (`regions`: the code between sync points) as thread loops LLVM can vectorize. Warp
//! collectives of converged warps are computed in the block function (`warps`), and chains
//! of regions joined by them run warp by warp, the warp's values in registers
//! (`warp_runs`); the runtime's scheduler decides the rest. Registers live across a sync point are recomputed where they
//! can be (`recompute`), grid-stride loops are interchanged (`interchange`), entry guards
//! become loop bounds (`guards`), rows of threads run in segments where a wrapped index is
//! affine (`segments`), neighbouring blocks are fused (`fusion`), legacy
//! warp-synchronous code gets lockstep points (`lockstep`), and kernels the region form
//! cannot express run as fibers (`fibers`); sync points' constant operands are folded first
//! (`constants`) and per-thread pointer inductions split into a thread and a uniform part
//! (`induction`). Block functions prefetch what the next block, later passes of an
//! interchanged loop and later iterations of a loop through barriers will access
//! (`prefetch`). `.func` functions and calls are in
//! `function`; the alias facts of the model are in `alias`.

/// Lanes of a warp (PTX's `WARP_SZ`): the width of the lane vectors and arrays the block
/// functions compute warp collectives, matrix fragments and warp runs in.
pub const WARP_LANES: u32 = 32;

pub mod alias;
pub mod constants;
pub mod decide;
pub mod fibers;
pub mod function;
pub mod fusion;
pub mod guards;
pub mod induction;
pub mod interchange;
pub mod kernel;
pub mod lockstep;
pub mod matrix;
pub mod multiversion;
pub mod prefetch;
pub mod recompute;
pub mod regions;
pub mod segments;
pub mod texture_versions;
pub mod warp_runs;
pub mod warps;

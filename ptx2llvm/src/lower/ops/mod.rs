//! Instruction families: the exact semantics of each PTX operation in LLVM IR, as methods
//! of the per-thread code builder (`thread::FnCx`). One file per family.

pub mod async_copy;
pub mod atomic;
pub mod check;
pub mod compare;
pub mod convert;
pub mod float;
pub mod half;
pub mod half_bits;
pub mod int;
pub mod mbarrier;
pub mod memory;
pub mod rounding;
pub mod texture;
pub mod video;

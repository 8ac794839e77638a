//! Software prefetches of the global memory a block function will read or write soon.
//!
//! A block function runs a block's threads region by region, and a worker runs its blocks
//! one after another. Where a thread loop streams through memory for long (blocks fused
//! along x, a long pass) the hardware prefetcher follows it; where each block touches a
//! few kilobytes between barriers and then computes, it does not: every block's first
//! loads wait for memory (a block scan spent 42% of its time in its first load of the
//! input). Two places prefetch in the generated code:
//!
//! - an interchanged loop's dense pass prefetches what its loads read some passes later
//!   (`interchange`);
//! - a kernel with sync points prefetches, at the start of each block, what the *next*
//!   block will load and store at addresses computed from the thread and block indices and
//!   parameters alone (`NextBlock`): a worker runs consecutive blocks along x (ptxrt's
//!   `block_loop`), so the next block is `ctaid.x + 1`. Prefetches never fault: an
//!   address past the end of an array (the grid's last block, a guarded access) costs
//!   nothing.
//!
//! Both walk the threads of a block in steps (one prefetch per cache line where the
//! threads' elements are consecutive) without dividing: `emit_thread_walk`.

use crate::ir::cfg::Cfg;
use crate::ir::{self, BlockId, Op, Operand, SpecialReg, StateSpace};
use crate::lower::exec::recompute::Defs;
use crate::lower::exec::regions::Regions;
use crate::lower::thread::{FnCx, Thread};
use crate::lower::R;
use inkwell::basic_block::BasicBlock;
use inkwell::values::IntValue;
use inkwell::IntPredicate as P;
use std::collections::BTreeSet;

/// Blocks of more threads than this run long contiguous stretches in each thread loop,
/// which the hardware prefetcher follows by itself.
pub const PREFETCH_MAX_THREADS: u64 = 4096;

/// Bytes per cache line (x86-64 and the AArch64 cores ptxrt runs on).
pub(crate) const LINE_BYTES: u32 = 64;

/// At most this many of a kernel's accesses are prefetched for the next block.
const MAX_NEXT_BLOCK_ACCESSES: usize = 8;

/// At most this many instructions compute their addresses (per prefetching thread).
const MAX_NEXT_BLOCK_REPLAY: usize = 48;

/// The accesses of the next block to prefetch, and how to compute their addresses.
#[derive(Debug)]
pub struct NextBlock {
    /// The instructions that compute the addresses (pure functions of the thread and block
    /// indices and parameters), in execution order.
    pub replay: Vec<(BlockId, usize)>,
    /// The accesses: space, address, whether it writes.
    pub accesses: Vec<(StateSpace, ir::Address, bool)>,
    /// Threads per prefetch: a cache line of the smallest element accessed.
    pub step: u32,
}

/// The next block's global loads and stores of a kernel with sync points whose addresses
/// the block function can compute from the thread and block indices and parameters alone
/// (`recompute`), and which depend on the block index (or the next block would touch the
/// same lines); `None` if there are none.
pub fn next_block(f: &ir::Function, regions: &Regions) -> Option<NextBlock> {
    if !regions.has_sync_points() || f.kind != ir::FunctionKind::Entry {
        return None;
    }
    let cfg = Cfg::new(f);
    let defs = Defs::new(f);
    let mut replay = BTreeSet::new();
    let mut recomputed = vec![];
    let mut accesses = vec![];
    let mut smallest = LINE_BYTES;
    for (b, block) in f.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            if accesses.len() == MAX_NEXT_BLOCK_ACCESSES {
                break;
            }
            let (space, ty, addr, write) = match &inst.op {
                Op::Load { space, ty, volatile: false, order: None, addr, .. } => (*space, *ty, *addr, false),
                Op::Store { space, ty, volatile: false, order: None, addr, .. } => (*space, *ty, *addr, true),
                _ => continue,
            };
            let ir::AddressBase::Reg(r) = addr.base else { continue };
            if !matches!(space, StateSpace::Global | StateSpace::Generic) || !cfg.reachable(b) {
                continue;
            }
            let Some(def) = defs.reaching_only(&cfg, r, b, i) else { continue };
            let mut chain = BTreeSet::new();
            if !defs.recomputable_def(f, &cfg, def, &mut chain, 0) || !reads_block_index(f, &chain) {
                continue;
            }
            let mut union = replay.clone();
            union.extend(chain);
            if union.len() > MAX_NEXT_BLOCK_REPLAY {
                continue;
            }
            replay = union;
            recomputed.push((r, def));
            accesses.push((space, addr, write));
            smallest = smallest.min((ty.bits() / 8).max(1));
        }
    }
    if accesses.is_empty() || !defs.replay_consistent(f, &cfg, &replay, &recomputed) {
        return None;
    }
    Some(NextBlock { replay: replay.into_iter().map(|(_, b, i)| (BlockId(b as u32), i)).collect(), accesses, step: LINE_BYTES / smallest })
}

/// Whether one of the instructions of `chain` reads a block index.
fn reads_block_index(f: &ir::Function, chain: &BTreeSet<(usize, usize, usize)>) -> bool {
    let mut found = false;
    for &(_, b, i) in chain {
        crate::ir::visit::for_each_operand(&f.blocks[b].insts[i].op, &mut |o| found |= matches!(o, Operand::Special(SpecialReg::Ctaid(_))));
    }
    found
}

/// Before `then`: for every `step`th thread of a block of at most `PREFETCH_MAX_THREADS`
/// threads (x fastest, as the thread loops number them), `body` with the thread set
/// (`fc.thread`) and its linear index. Returns the block to run instead of `then`.
pub fn emit_thread_walk<'ctx>(
    fc: &mut FnCx<'ctx, '_>,
    tag: &str,
    step: u32,
    then: BasicBlock<'ctx>,
    mut body: impl FnMut(&mut FnCx<'ctx, '_>, IntValue<'ctx>) -> R<()>,
) -> R<BasicBlock<'ctx>> {
    let i32t = fc.cx.i32_type();
    let start = fc.new_block(tag);
    let head = fc.new_block(&format!("{tag}.thread"));
    fc.b.position_at_end(start);
    let short = fc.b.build_int_compare(P::ULE, fc.uni.nthreads, i32t.const_int(PREFETCH_MAX_THREADS, false), "")?;
    fc.b.build_conditional_branch(short, head, then)?;
    fc.b.position_at_end(head);
    // The thread (linear index `t`) and its indices, stepped along without a division (one
    // costs as much as the prefetches).
    let phi = |name: &str| -> R<inkwell::values::PhiValue<'ctx>> {
        let p = fc.b.build_phi(i32t, name)?;
        p.add_incoming(&[(&i32t.const_zero(), start)]);
        Ok(p)
    };
    let (t, x, y, z) = (phi("pf.t")?, phi("pf.x")?, phi("pf.y")?, phi("pf.z")?);
    let tv = t.as_basic_value().into_int_value();
    let [xv, yv, zv] = [x, y, z].map(|p| p.as_basic_value().into_int_value());
    fc.thread = Some(Thread { tid: [xv, yv, zv], linear: tv, linear_wide: None });
    body(fc, tv)?;
    fc.thread = None;
    let step = i32t.const_int(u64::from(step), false);
    let next = fc.b.build_int_nuw_add(tv, step, "")?;
    let more = fc.b.build_int_compare(P::ULT, next, fc.uni.nthreads, "")?;
    let advance = fc.new_block(&format!("{tag}.advance"));
    let carry = fc.new_block(&format!("{tag}.carry"));
    let wrap = fc.new_block(&format!("{tag}.wrap"));
    fc.b.build_conditional_branch(more, advance, then)?;
    // x += step, then carry whole rows into y (and y into z) while x is past the row.
    fc.b.position_at_end(advance);
    let x_stepped = fc.b.build_int_nuw_add(xv, step, "")?;
    fc.b.build_unconditional_branch(carry)?;
    fc.b.position_at_end(carry);
    let (cx, cy, cz) = (fc.b.build_phi(i32t, "pf.cx")?, fc.b.build_phi(i32t, "pf.cy")?, fc.b.build_phi(i32t, "pf.cz")?);
    cx.add_incoming(&[(&x_stepped, advance)]);
    cy.add_incoming(&[(&yv, advance)]);
    cz.add_incoming(&[(&zv, advance)]);
    let [cxv, cyv, czv] = [cx, cy, cz].map(|p| p.as_basic_value().into_int_value());
    let past = fc.b.build_int_compare(P::UGE, cxv, fc.uni.x_extent, "")?;
    fc.b.build_conditional_branch(past, wrap, head)?;
    t.add_incoming(&[(&next, carry)]);
    x.add_incoming(&[(&cxv, carry)]);
    y.add_incoming(&[(&cyv, carry)]);
    z.add_incoming(&[(&czv, carry)]);
    fc.b.position_at_end(wrap);
    let wx = fc.b.build_int_sub(cxv, fc.uni.x_extent, "")?;
    let y1 = fc.b.build_int_nuw_add(cyv, i32t.const_int(1, false), "")?;
    let next_plane = fc.b.build_int_compare(P::UGE, y1, fc.uni.ntid[1], "")?;
    let wy = fc.b.build_select(next_plane, i32t.const_zero(), y1, "")?.into_int_value();
    let wz = fc.b.build_int_nuw_add(czv, fc.b.build_int_z_extend(next_plane, i32t, "")?, "")?;
    cx.add_incoming(&[(&wx, wrap)]);
    cy.add_incoming(&[(&wy, wrap)]);
    cz.add_incoming(&[(&wz, wrap)]);
    fc.b.build_unconditional_branch(carry)?;
    Ok(start)
}

/// Before `then` (the block's first region): the next block's accesses `nb` prefetched,
/// for every `step`th thread. Returns the block to run instead of `then`.
pub fn emit_next_block<'ctx>(fc: &mut FnCx<'ctx, '_>, nb: &NextBlock, then: BasicBlock<'ctx>) -> R<BasicBlock<'ctx>> {
    let ctaid = fc.uni.ctaid;
    emit_thread_walk(fc, "next_block", nb.step, then, |fc, _| {
        // The address computations with the next block's index (they write registers
        // that the first region sets before it reads them).
        fc.uni.ctaid[0] = fc.b.build_int_add(ctaid[0], fc.cx.i32_type().const_int(1, false), "next_ctaid")?;
        let replayed = nb.replay.iter().try_for_each(|&at| fc.inst_at(at));
        fc.uni.ctaid = ctaid;
        replayed?;
        for &(space, addr, write) in &nb.accesses {
            fc.prefetch(space, addr, write)?;
        }
        Ok(())
    })
}

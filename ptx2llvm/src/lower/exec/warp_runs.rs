//! Warp runs: a chain of regions joined by warp collectives, run warp by warp.
//!
//! A warp scan or reduction is a straight sequence of regions, each ending at a shuffle
//! that every thread reaches (`Regions::sole_successor`): `v += shfl.up(v, 1)`, then by 2,
//! 4, 8, 16. Run region by region, every step is a thread loop over the whole block that
//! stores `v` to the context area, then a pass over the warps that loads it back, permutes
//! it and stores the result, which the next step's loop loads again: the values make a
//! round trip through memory per step, and the runtime benchmark's block scan ran at a
//! fifth of the speed of the same scan kept in vector registers.
//!
//! A warp run executes such a chain for one warp at a time: the warp's 32 lanes run the
//! first region (a thread loop over those 32 threads, vectorized as usual), the collective
//! is completed for that warp (`warps::emit_whole_warp`), its lanes run the next region,
//! and so on to the end of the chain; then the next warp. The registers the chain writes
//! live meanwhile in function-local arrays of 32 lanes (`kernel::WarpView`), which LLVM
//! promotes to vector registers once the 32-iteration loops are vectorized and unrolled,
//! so a step's result goes from the region's arithmetic to the permutation and back
//! without memory. The warp's loop counts its lanes from 0 to 32 (the thread's x index is
//! the warp's first plus the lane), so that LLVM sees `tid.x >> 5` as the warp's index for
//! every lane and `tid.x & 31` as the lane (`kernel::emit_region_loop`). At the warp's
//! start the arrays are filled from the context area; a warp that stops after a region
//! writes back what the points that region reaches keep, of what the chain has written by
//! then.
//!
//! Why the order may change: between two collectives of a chain there is no barrier, so
//! nothing orders one warp's code against another's on the GPU either (warps are
//! independent; data one warp writes and another reads without a barrier is a race, and
//! spin-waits, which would need the other warp to run, are lockstep points, never part of
//! a chain). Each collective still sees every lane of its warp there, as in the
//! region-by-region run.
//!
//! What qualifies (`plan`): a chain starts at a region whose code reaches one warp
//! collective the block function completes itself (not a lockstep point), goes on while
//! the next region does the same, and stops before a region it already holds. Where every
//! thread of each region stops at that collective, the warps run the chain to its end and
//! the block goes on as after the last region's dense run. Where a region may also end
//! elsewhere (warp 0's scan of the warp totals after a barrier, which the other warps skip
//! to the next barrier; warps that exit), the run is *checked*: every region writes the
//! thread states, a warp goes on only if all its lanes wait at the collective (else it
//! stops there, its lanes where they are), and the block then goes on by the states, as
//! do kernels with interchanged loops, whose runs are all checked. The block must be made
//! of whole warps lying along x (`ntid.x` a multiple of 32, checked at run time; else the
//! regions run as usual). Regions with interchange points are not part of chains (a
//! grid-stride loop before a warp reduction is not; the reduction after it is). Registers
//! with one value for the whole block (`ContextLayout::block_uniform`) stay in the context
//! area's first element, which every warp reads: a chain that reads such a register and
//! also writes it would let a later warp read what an earlier one wrote for a later step,
//! so it stops before that. Kernels with per-thread frames (large kernels), compact
//! kernels (one thread loop for all regions) and kernels of more than 32 regions (one loop
//! per region for both entries) have no runs (`kernel`).

use crate::ir::{self, RegId, SyncPoint, WarpOp};
use crate::lower::exec::kernel::{context_elem, emit_region_loop, ContextLayout, Filter, LoopBounds, RegionSel, States, WarpView};
use crate::lower::exec::regions::Regions;
use crate::lower::exec::warps;
use crate::lower::thread::FnCx;
use crate::lower::R;
use inkwell::basic_block::BasicBlock;
use inkwell::values::{AnyValue, BasicValue};
use inkwell::IntPredicate as P;
use std::collections::{BTreeSet, HashMap};

const LANES: u64 = crate::lower::exec::WARP_LANES as u64;

/// A chain of regions to run warp by warp.
pub(crate) struct WarpRun {
    /// The regions in order; each after the first follows the warp collective that ends the
    /// one before.
    pub(crate) regions: Vec<usize>,
    /// Per region: every thread that runs it stops at the next collective.
    sole: Vec<bool>,
    /// The registers the chain keeps in the warp's own arrays: those its regions and
    /// collectives write.
    own: BTreeSet<RegId>,
    /// Per region: those of them a warp that stops after it writes back to the context area
    /// (what the points it reaches keep).
    live_out: Vec<BTreeSet<RegId>>,
    /// Some region of the chain may also end elsewhere than at the next collective (a
    /// warp-uniform branch: `if (warp == 0)` around a warp's scan, the other warps going on
    /// to a barrier): a warp goes on with the chain only if all its lanes wait at the
    /// collective.
    pub(crate) checked: bool,
}

/// How a chain goes on from a region: to the region after warp collective `next`, which
/// its code reaches (the only collective it reaches that a run completes); `sole` when
/// every thread that runs the region stops there.
#[derive(Clone, Copy)]
struct Link {
    next: usize,
    sole: bool,
}

fn link(f: &ir::Function, regions: &Regions, points: &[Option<&SyncPoint>], k: usize) -> Option<Link> {
    let code = regions.code_of(f, &[regions.starts[k].0 as usize]);
    if code.iter().any(|&b| f.blocks[b].insts.iter().any(|i| matches!(i.op, ir::Op::Call { .. }))) {
        return None;
    }
    let collectives: BTreeSet<usize> = code
        .iter()
        .filter(|&&b| matches!(f.blocks[b].term, ir::Terminator::Sync { .. }))
        .filter_map(|&b| regions.sync_region[b])
        .filter(|&j| run_collective(f, points[j]).is_some())
        .collect();
    let next = match collectives.iter().collect::<Vec<_>>()[..] {
        [&j] => j,
        _ => return None,
    };
    Some(Link { next, sole: regions.sole_successor(f, k) == Some(next) })
}

/// The warp collective a warp run may complete for one warp.
fn run_collective<'p>(f: &ir::Function, point: Option<&'p SyncPoint>) -> Option<&'p WarpOp> {
    match point {
        Some(p @ SyncPoint::Warp(w)) if warps::computed_inline(f, p) && !matches!(w, WarpOp::Lockstep) => Some(w),
        _ => None,
    }
}

/// The warp runs of a kernel, by the region each starts at.
pub(crate) fn plan(f: &ir::Function, regions: &Regions, layout: &ContextLayout<'_>) -> HashMap<usize, WarpRun> {
    let mut runs = HashMap::new();
    if layout.frame_bytes > 0 {
        return runs;
    }
    let points = regions.points(f);
    let n = regions.starts.len();
    // Regions with interchange points (their threads park between passes) are not part
    // of a chain.
    let parks: Vec<bool> = (0..n)
        .map(|k| {
            let plan = layout.interchange.as_ref().map(|st| &st.plan);
            plan.is_some_and(|p| regions.code_of(f, &[regions.starts[k].0 as usize]).iter().any(|&b| p.point_at(ir::BlockId(b as u32)).is_some()))
        })
        .collect();
    let linked: Vec<Option<Link>> = (0..n).map(|k| link(f, regions, &points, k).filter(|_| !parks[k])).collect();
    let next_of = |k: usize| linked[k].map(|l| l.next);
    let uniform = &layout.block_uniform;
    for head in 0..n {
        // A region another one leads to is part of that one's chain.
        if linked[head].is_none() || (0..n).any(|k| next_of(k) == Some(head)) {
            continue;
        }
        let mut chain = vec![head];
        let (mut read, mut written) = (BTreeSet::new(), BTreeSet::new());
        let uniform_access = |k: usize, read: &mut BTreeSet<RegId>, written: &mut BTreeSet<RegId>| {
            read.extend(regions.live_into_region(k).chain(regions.replay_reads[k].iter().copied()).filter(|r| uniform.contains(r)));
            written.extend(regions.kept_by_code_from(f, &[regions.starts[k]]).into_iter().filter(|r| uniform.contains(r)));
            read.is_disjoint(written)
        };
        if !uniform_access(head, &mut read, &mut written) {
            continue;
        }
        while let Some(j) = next_of(*chain.last().expect("a chain has a head")) {
            let (mut r, mut w) = (read.clone(), written.clone());
            if chain.contains(&j) || parks[j] || !uniform_access(j, &mut r, &mut w) {
                break;
            }
            (read, written) = (r, w);
            chain.push(j);
        }
        if chain.len() < 2 {
            continue;
        }
        // What the chain writes: its regions' instructions (and the replays at their
        // starts) and its collectives. Registers it only passes on stay in the context area.
        let mut own = BTreeSet::new();
        // What the chain has written by the end of each of its regions.
        let mut written_by = vec![];
        for &k in &chain {
            let mut defs = vec![];
            for b in regions.code_of(f, &[regions.starts[k].0 as usize]) {
                for inst in &f.blocks[b].insts {
                    crate::ir::visit::defs(&inst.op, &mut defs);
                }
            }
            for &(b, i) in &regions.replay[k] {
                crate::ir::visit::defs(&f.blocks[b.0 as usize].insts[i].op, &mut defs);
            }
            if let Some(point) = points[k].filter(|_| k != head) {
                point.defs(&mut defs);
            }
            own.extend(defs);
            written_by.push(own.clone());
        }
        own.retain(|r| layout.slots.contains_key(r) && !uniform.contains(r));
        // Where some region's warps may leave the chain, each writes every thread's state
        // and the block goes on by them. (So do kernels with interchanged loops: every run
        // goes on by the states there, after the parked threads' passes.)
        let checked = layout.interchange.is_some() || chain[..chain.len() - 1].iter().any(|&k| linked[k].is_some_and(|l| !l.sole));
        // A warp that stops after a region (the chain's last, or one where it leaves) writes
        // back what the points that region reaches keep (all that is live there) of what
        // the chain has written so far (the rest still holds the context area's values).
        let live_out = chain
            .iter()
            .zip(&written_by)
            .map(|(&k, written)| regions.kept_by_code_from(f, &[regions.starts[k]]).into_iter().filter(|r| own.contains(r) && written.contains(r)).collect())
            .collect();
        let sole = chain.iter().map(|&k| linked[k].is_some_and(|l| l.sole)).collect();
        runs.insert(head, WarpRun { regions: chain, sole, own, live_out, checked });
    }
    runs
}

/// Emits warp run `run`: where the block is whole warps along x, each warp runs the chain
/// (its last region writing the thread states as `last_states` says: `Written` where the
/// run is `checked`), and the block goes on at `after` (where it is checked: the decision
/// by the states); otherwise the regions run as usual from `fallback`. Returns the first
/// block.
pub(crate) fn emit<'ctx>(
    fc: &mut FnCx<'ctx, '_>,
    regions: &Regions,
    layout: &ContextLayout<'ctx>,
    run: &WarpRun,
    last_states: States,
    after: BasicBlock<'ctx>,
    fallback: BasicBlock<'ctx>,
) -> R<BasicBlock<'ctx>> {
    let cx = fc.cx;
    let i32t = cx.i32_type();
    let head_region = run.regions[0];
    let start = fc.new_block(&format!("warprun{head_region}"));
    let row_bb = fc.new_block(&format!("warprun{head_region}.row"));
    let warp_bb = fc.new_block(&format!("warprun{head_region}.warp"));
    let out_bb = fc.new_block(&format!("warprun{head_region}.next"));
    let points = regions.points(fc.f);

    // The warp's arrays, in the entry block (where LLVM promotes allocas to registers).
    let entry = fc.func.get_first_basic_block().expect("a block function has an entry");
    let at_entry = cx.create_builder();
    match entry.get_first_instruction() {
        Some(i) => at_entry.position_before(&i),
        None => at_entry.position_at_end(entry),
    }
    let mut lanes = HashMap::new();
    let mut slots = vec![];
    for r in &run.own {
        let (prefix, size) = layout.slots[r];
        let ty = crate::lower::thread::int_type(cx, size * 8).array_type(LANES as u32);
        lanes.insert(prefix, at_entry.build_alloca(ty, &format!("warp.{}", fc.f.regs[r.0 as usize].name))?);
        slots.push((*r, prefix, size));
    }

    let b = &fc.b;
    b.position_at_end(start);
    let x_extent = fc.uni.x_extent;
    let along_x = b.build_int_compare(P::EQ, b.build_and(x_extent, i32t.const_int(LANES - 1, false), "")?, i32t.const_zero(), "whole_warps_along_x")?;
    let rows = b.build_int_nuw_mul(fc.uni.ntid[1], fc.uni.ntid[2], "rows")?;
    b.build_conditional_branch(along_x, row_bb, fallback)?;

    // Rows (y, z), then the warps of a row along x: the warp's first x index is the loop's
    // induction, so LLVM sees each thread loop's 32 iterations.
    b.position_at_end(row_bb);
    let row = b.build_phi(i32t, "warp.row")?;
    let rowv = row.as_basic_value().into_int_value();
    let y = b.build_int_unsigned_rem(rowv, fc.uni.ntid[1], "warp.y")?;
    let z = b.build_int_unsigned_div(rowv, fc.uni.ntid[1], "warp.z")?;
    let row_first = b.build_int_nuw_mul(rowv, x_extent, "")?;
    b.build_unconditional_branch(warp_bb)?;
    b.position_at_end(warp_bb);
    let x0_phi = b.build_phi(i32t, "warp.x")?;
    let x0 = x0_phi.as_basic_value().into_int_value();
    let first = b.build_int_nuw_add(row_first, x0, "lane0")?;
    let one = i32t.const_int(1, false);
    let bounds = LoopBounds {
        lo: [x0, y, z],
        hi: [b.build_int_nuw_add(x0, i32t.const_int(LANES, false), "")?, b.build_int_nuw_add(y, one, "")?, b.build_int_nuw_add(z, one, "")?],
        one_row: true,
    };
    // Every register the chain writes starts as the context area holds it (LLVM drops the
    // copies of those the chain writes before reading).
    let copy = |fc: &FnCx<'ctx, '_>, prefix: u64, size: u32, to_lanes: bool| -> R<()> {
        let ty = fc.int_ty(size * 8).vec_type(LANES as u32);
        let context = context_elem(fc, prefix, size, first)?;
        let (from, to) = if to_lanes { (context, lanes[&prefix]) } else { (lanes[&prefix], context) };
        let load = fc.b.build_load(ty, from, "")?.as_instruction_value().expect("a load is an instruction");
        let store = fc.b.build_store(to, load.as_any_value_enum().into_vector_value())?;
        for inst in [load, store] {
            let _ = inst.set_alignment(size);
        }
        // The context side carries its array's alias scopes.
        layout.scopes.tag(fc.cx, if to_lanes { load } else { store }, prefix);
        Ok(())
    };
    for &(_, prefix, size) in &slots {
        copy(fc, prefix, size, true)?;
    }
    let body_end = fc.b.get_insert_block().expect("positioned");

    // A warp that stops after region i writes back what is live there, then the next warp.
    let mut stops = vec![];
    for (i, live) in run.live_out.iter().enumerate() {
        let bb = fc.new_block(&format!("warprun{head_region}.stop{}", run.regions[i]));
        fc.b.position_at_end(bb);
        for &(r, prefix, size) in &slots {
            if live.contains(&r) {
                copy(fc, prefix, size, false)?;
            }
        }
        fc.b.build_unconditional_branch(out_bb)?;
        stops.push(bb);
    }
    // The chain, emitted from its end: each region's loop goes on to the next collective.
    *layout.warp_view.borrow_mut() = Some(WarpView { first, x0, lanes });
    let emitted = (|| -> R<BasicBlock<'ctx>> {
        let mut next = *stops.last().expect("a run has regions");
        for (i, &k) in run.regions.iter().enumerate().rev() {
            let last = i + 1 == run.regions.len();
            let states = match (last, run.checked) {
                (true, _) => last_states,
                (false, true) => States::Written,
                (false, false) => States::Implied,
            };
            if !last && !run.sole[i] {
                // The warp goes on if all its lanes wait at the collective.
                let check = fc.new_block(&format!("warprun{head_region}.check{k}"));
                fc.b.position_at_end(check);
                let all = warps::all_lanes_wait(fc, layout, first, run.regions[i + 1])?;
                fc.b.build_conditional_branch(all, next, stops[i])?;
                next = check;
            }
            let lp = emit_region_loop(fc, regions, layout, RegionSel::One(k), Filter::All, states, Some(&bounds), next)?;
            next = match (i, run_collective(fc.f, points[k])) {
                (0, _) => lp,
                (_, Some(op)) => {
                    let bb = fc.new_block(&format!("warprun{head_region}.collective{k}"));
                    fc.b.position_at_end(bb);
                    warps::emit_whole_warp(fc, layout, op, first)?;
                    fc.b.build_unconditional_branch(lp)?;
                    bb
                }
                (_, None) => return Err(crate::lower::LowerError::Internal("a warp run's region follows no warp collective".into())),
            };
        }
        Ok(next)
    })();
    *layout.warp_view.borrow_mut() = None;
    let chain = emitted?;
    fc.b.position_at_end(body_end);
    fc.b.build_unconditional_branch(chain)?;

    fc.b.position_at_end(out_bb);
    let b = &fc.b;
    let x_next = b.build_int_nuw_add(x0, i32t.const_int(LANES, false), "")?;
    let more = b.build_int_compare(P::ULT, x_next, x_extent, "")?;
    let out_end = b.get_insert_block().expect("positioned");
    let next_row = fc.new_block(&format!("warprun{head_region}.row.next"));
    b.build_conditional_branch(more, warp_bb, next_row)?;
    x0_phi.add_incoming(&[(&i32t.const_zero(), row_bb), (&x_next, out_end)]);
    b.position_at_end(next_row);
    let row_next = b.build_int_nuw_add(rowv, one, "")?;
    let more = b.build_int_compare(P::ULT, row_next, rows, "")?;
    b.build_conditional_branch(more, row_bb, after)?;
    row.add_incoming(&[(&i32t.const_zero(), start), (&row_next, next_row)]);
    Ok(start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::exec::{kernel, regions};

    /// A warp scan of two shuffles ending at a barrier (a chain every thread runs to its
    /// end), then a shuffle only warp 0 reaches while the others go on to the next barrier
    /// (a checked chain), then a region with a barrier only.
    const SCAN: &str = ".reg .pred %p; .reg .b32 %r<12>; .reg .b64 %rd<4>;
         mov.u32 %r1, %tid.x;
         mul.wide.u32 %rd1, %r1, 4;
         ld.shared.u32 %r3, [%rd1];
         shfl.sync.up.b32 %r4, %r3, 1, 0, -1;
         add.u32 %r5, %r4, %r3;
         shfl.sync.up.b32 %r6, %r5, 2, 0, -1;
         add.u32 %r7, %r6, %r5;
         st.shared.u32 [%rd1], %r7;
         bar.sync 0;
         shr.u32 %r8, %r1, 5;
         setp.ne.u32 %p, %r8, 0;
         @%p bra END;
         ld.shared.u32 %r9, [%rd1];
         shfl.sync.bfly.b32 %r10, %r9, 1, 31, -1;
         st.shared.u32 [%rd1], %r10;
         END: bar.sync 0;
         st.shared.u32 [%rd1], %r7;
         ret;";

    fn runs_of(body: &str) -> (ir::Function, Regions, Vec<(usize, Vec<usize>, bool)>, impl Fn(&str) -> RegId) {
        let (f, reg) = crate::ir::test_kernel(body);
        let r = regions::analyze(&f);
        let cx = inkwell::context::Context::create();
        let layout = kernel::context_layout(&cx, &f, &r, None, false);
        let mut runs: Vec<(usize, Vec<usize>, bool)> = plan(&f, &r, &layout).into_iter().map(|(h, run)| (h, run.regions.clone(), run.checked)).collect();
        runs.sort();
        (f, r, runs, reg)
    }

    #[test]
    fn chains_follow_shuffles_to_the_next_barrier() {
        let (f, r, runs, _) = runs_of(SCAN);
        let points = r.points(&f);
        assert_eq!(runs.len(), 2, "{runs:?}");
        // The scan: the entry region and the two after its shuffles, every thread on to the
        // end of the chain.
        let (head, chain, checked) = &runs[0];
        assert_eq!(*head, 0);
        assert_eq!(chain.len(), 3, "{chain:?}");
        assert!(chain[1..].iter().all(|&k| run_collective(&f, points[k]).is_some()));
        assert!(!checked);
        // Warp 0's shuffle after the first barrier: the other warps leave at the second.
        let (head, chain, checked) = &runs[1];
        assert!(points[*head].is_some_and(regions::is_plain_barrier));
        assert_eq!(chain.len(), 2, "{chain:?}");
        assert!(*checked);
    }

    #[test]
    fn a_chain_holds_what_it_writes_and_gives_back_what_is_live() {
        let (f, r, _, reg) = runs_of(SCAN);
        let cx = inkwell::context::Context::create();
        let layout = kernel::context_layout(&cx, &f, &r, None, false);
        let runs = plan(&f, &r, &layout);
        let scan = &runs[&0];
        // The shuffles' results and the sums between them live in the warp's arrays;
        // %r1 (the thread index, recomputed) and %rd1 are not kept at all.
        for name in ["%r4", "%r5", "%r6"] {
            assert!(scan.own.contains(&reg(name)), "{name} in {:?}", scan.own);
        }
        // After the last region only %r7 (read after the second barrier) is live.
        let last = scan.live_out.last().expect("a region");
        assert!(last.contains(&reg("%r7")) && !last.contains(&reg("%r5")), "{last:?}");
    }
}

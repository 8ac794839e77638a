//! What a block function runs next after a region, decided without the runtime where the
//! decision is simple.
//!
//! After a run of a region every thread has recorded in its state word the region it waits
//! to enter (after the sync point it reached) or `EXITED`. The runtime's scheduler
//! (`ptxrt::sched`) can decide any case; the block function first looks for the common ones:
//!
//! 1. Every thread waits at the same point. At a plain `bar.sync` the block goes on with the
//!    next region's dense loop (the scheduler's own first check); at a warp collective the
//!    block function completes it for every warp (`warps`, `Arrival::Whole`) and goes on
//!    densely too.
//! 2. Otherwise the point of the first live thread is tried: if it is a warp collective, the
//!    warps whose lanes can complete it do (`warps`, `Arrival::FromStates`), and the threads
//!    released run. A reduction's last step by warp 0 while the other warps have exited is
//!    this case.
//!
//! Everything else goes to the scheduler: barriers other threads still have to reach,
//! named and counted barriers, `bar.arrive`, matrix instructions, deadlock reports. Every
//! decision taken here is one the scheduler could take (warps are independent, so which of
//! several completable collectives goes first is free); to keep the scheduler's fairness
//! between spinning warps and the threads they wait for, at most `STREAK` decisions of case 2
//! follow each other before the scheduler decides once.

use crate::ir;
use crate::lower::abi::sync;
use crate::lower::exec::kernel::{load_context, store_context, ContextLayout, RegionEntries};
use crate::lower::exec::regions;
use crate::lower::exec::warps::{self, Arrival};
use crate::lower::thread::FnCx;
use crate::lower::{LowerError, R};
use inkwell::basic_block::BasicBlock;
use inkwell::values::PointerValue;
use inkwell::IntPredicate as P;

/// Most decisions of case 2 in a row before the scheduler decides once.
const STREAK: u64 = 64;

/// Per region: the completion of the warp collective it follows for a block whose threads
/// all wait there (`warps`, `Arrival::Whole`), going on with the region's dense loop; `None`
/// for regions after other points.
///
/// A dense run that can only end at that collective leaves the thread states unwritten
/// (`kernel::States::Implied`): where the completion cannot be made here (a block that is
/// not whole warps), every state word is set to the collective's region before the
/// scheduler reads them (after a decision of case 1 they already say so).
pub(crate) fn emit_whole_completions<'ctx>(
    fc: &FnCx<'ctx, '_>,
    layout: &ContextLayout<'ctx>,
    points: &[Option<&ir::SyncPoint>],
    entries: &RegionEntries<'ctx>,
    schedule: BasicBlock<'ctx>,
) -> R<Vec<Option<BasicBlock<'ctx>>>> {
    // One fill loop for all of them, given the region (kernels may have a hundred points).
    let mut fill: Option<(BasicBlock<'ctx>, inkwell::values::PhiValue<'ctx>)> = None;
    points
        .iter()
        .enumerate()
        .map(|(k, p)| match p {
            Some(p @ ir::SyncPoint::Warp(w)) if warps::computed_inline(fc.f, p) => {
                let (shared, region) = match fill {
                    Some(f) => f,
                    None => *fill.insert(emit_state_fill(fc, layout, schedule)?),
                };
                let fallback = fc.new_block(&format!("states{k}.fill"));
                fc.b.position_at_end(fallback);
                fc.b.build_unconditional_branch(shared)?;
                region.add_incoming(&[(&fc.cx.i32_type().const_int(k as u64, false), fallback)]);
                warps::emit_completion(fc, layout, w, k, Arrival::Whole, entries.dense[k], fallback).map(Some)
            }
            _ => Ok(None),
        })
        .collect()
}

/// A loop that sets every thread's state word to the region its phi receives (waiting to
/// enter it), then goes on to `then`. Returns its first block and the phi.
fn emit_state_fill<'ctx>(fc: &FnCx<'ctx, '_>, layout: &ContextLayout<'ctx>, then: BasicBlock<'ctx>) -> R<(BasicBlock<'ctx>, inkwell::values::PhiValue<'ctx>)> {
    let i32t = fc.cx.i32_type();
    let state = layout.state.ok_or_else(|| LowerError::Internal("warp collective without thread states".into()))?;
    let start = fc.new_block("states.fill");
    let body = fc.new_block("states.fill.loop");
    let b = &fc.b;
    b.position_at_end(start);
    let region = b.build_phi(i32t, "region")?;
    let k = region.as_basic_value().into_int_value();
    let nthreads = fc.uni.nthreads;
    let any = b.build_int_compare(P::NE, nthreads, i32t.const_zero(), "")?;
    b.build_conditional_branch(any, body, then)?;
    b.position_at_end(body);
    let i = b.build_phi(i32t, "thread")?;
    let iv = i.as_basic_value().into_int_value();
    store_context(fc, layout, state, k, iv)?;
    let next = b.build_int_nuw_add(iv, i32t.const_int(1, false), "")?;
    let more = b.build_int_compare(P::ULT, next, nthreads, "")?;
    b.build_conditional_branch(more, body, then)?;
    i.add_incoming(&[(&i32t.const_zero(), start), (&next, body)]);
    Ok((start, region))
}

/// Per region: the completion of the warp collective it follows for the warps whose live
/// lanes all wait there while other threads wait elsewhere (`warps`, `Arrival::FromStates`),
/// going on with the region's loop over released threads (`None` for regions after other
/// points, and after lockstep points: see `warps::computed_inline_for_some_warps`).
pub(crate) fn emit_some_completions<'ctx>(
    fc: &FnCx<'ctx, '_>,
    layout: &ContextLayout<'ctx>,
    points: &[Option<&ir::SyncPoint>],
    entries: &RegionEntries<'ctx>,
    schedule: BasicBlock<'ctx>,
) -> R<Vec<Option<BasicBlock<'ctx>>>> {
    points
        .iter()
        .enumerate()
        .map(|(k, p)| match p {
            Some(p @ ir::SyncPoint::Warp(w)) if warps::computed_inline_for_some_warps(fc.f, p) => {
                warps::emit_completion(fc, layout, w, k, Arrival::FromStates, entries.released[k], schedule).map(Some)
            }
            _ => Ok(None),
        })
        .collect()
}

/// The counter of case-2 decisions in a row, in the block function's frame.
pub(crate) fn streak_counter<'ctx>(fc: &FnCx<'ctx, '_>) -> R<PointerValue<'ctx>> {
    let i32t = fc.cx.i32_type();
    let entry = fc.func.get_first_basic_block().ok_or_else(|| LowerError::Internal("block function without entry".into()))?;
    let b = fc.cx.create_builder();
    match entry.get_first_instruction() {
        Some(i) => b.position_before(&i),
        None => b.position_at_end(entry),
    }
    let p = b.build_alloca(i32t, "decide.streak")?;
    b.build_store(p, i32t.const_zero())?;
    Ok(p)
}

/// Goes on to `target` (a case-2 completion) unless the streak is full: then to
/// `over` (the decision, which lets the scheduler decide once).
pub(crate) fn emit_streak_gate<'ctx>(fc: &FnCx<'ctx, '_>, streak: PointerValue<'ctx>, target: BasicBlock<'ctx>, over: BasicBlock<'ctx>) -> R<BasicBlock<'ctx>> {
    let i32t = fc.cx.i32_type();
    let gate = fc.new_block("streak");
    let count = fc.new_block("streak.count");
    let b = &fc.b;
    b.position_at_end(gate);
    let n = b.build_load(i32t, streak, "streak")?.into_int_value();
    let long = b.build_int_compare(P::UGE, n, i32t.const_int(STREAK, false), "")?;
    b.build_conditional_branch(long, over, count)?;
    b.position_at_end(count);
    b.build_store(streak, b.build_int_nuw_add(n, i32t.const_int(1, false), "")?)?;
    b.build_unconditional_branch(target)?;
    Ok(gate)
}

/// Emits the decision after a region (see the module documentation); `points[k]` is the
/// sync point region `k` follows, `whole` what `emit_whole_completions` made. Returns its
/// first block.
pub(crate) fn emit_decision<'ctx>(
    fc: &FnCx<'ctx, '_>,
    layout: &ContextLayout<'ctx>,
    points: &[Option<&ir::SyncPoint>],
    whole: &[Option<BasicBlock<'ctx>>],
    some: &[Option<BasicBlock<'ctx>>],
    streak: PointerValue<'ctx>,
    entries: &RegionEntries<'ctx>,
    schedule: BasicBlock<'ctx>,
    done: BasicBlock<'ctx>,
) -> R<BasicBlock<'ctx>> {
    let cx = fc.cx;
    let (i32t, bool_t) = (cx.i32_type(), cx.bool_type());
    let state = layout.state.ok_or_else(|| LowerError::Internal("kernel with sync points has a state array".into()))?;
    let start = fc.new_block("decide");
    let scan = fc.new_block("decide.same");
    let all_same = fc.new_block("decide.all_same");
    let some_block = fc.new_block("decide.some");

    // 1. Every thread at the same point? (No early exit: an `and` reduction LLVM vectorizes.)
    let b = &fc.b;
    b.position_at_end(start);
    let first = load_context(fc, layout, state, 4, i32t.const_zero(), "decide.first")?;
    b.build_unconditional_branch(scan)?;
    b.position_at_end(scan);
    let t = b.build_phi(i32t, "t")?;
    let same = b.build_phi(bool_t, "same")?;
    let tv = t.as_basic_value().into_int_value();
    let s = load_context(fc, layout, state, 4, tv, "decide.state")?;
    let same_next = b.build_and(same.as_basic_value().into_int_value(), b.build_int_compare(P::EQ, s, first, "")?, "")?;
    let t_next = b.build_int_nuw_add(tv, i32t.const_int(1, false), "")?;
    let more = b.build_int_compare(P::ULT, t_next, fc.uni.nthreads, "")?;
    let scanned = fc.new_block("decide.scanned");
    b.build_conditional_branch(more, scan, scanned)?;
    t.add_incoming(&[(&i32t.const_zero(), start), (&t_next, scan)]);
    same.add_incoming(&[(&bool_t.const_all_ones(), start), (&same_next, scan)]);
    b.position_at_end(scanned);
    b.build_conditional_branch(same_next, all_same, some_block)?;

    // Released threads carry a flag bit and exited ones `EXITED`: neither is a region index.
    // Every thread exited: the block is done.
    let mut cases = vec![(i32t.const_int(sync::EXITED, false), done)];
    for (k, point) in points.iter().enumerate() {
        let Some(point) = point else { continue };
        let target = match whole[k] {
            _ if regions::is_plain_barrier(point) => entries.dense[k],
            Some(completion) => completion,
            None => continue,
        };
        cases.push((i32t.const_int(k as u64, false), target));
    }
    fc.b.position_at_end(all_same);
    fc.b.build_switch(first, some_block, &cases)?;

    // 2. The point of the first live thread, if it is a warp collective some warps can
    //    complete (within the streak).
    let b = &fc.b;
    b.position_at_end(some_block);
    if some.iter().all(Option::is_none) {
        b.build_unconditional_branch(schedule)?;
        return Ok(start);
    }
    let n = b.build_load(i32t, streak, "streak")?.into_int_value();
    let long = b.build_int_compare(P::UGE, n, i32t.const_int(STREAK, false), "")?;
    let reset = fc.new_block("decide.reset");
    let find = fc.new_block("decide.find");
    b.build_conditional_branch(long, reset, find)?;
    b.position_at_end(reset);
    b.build_store(streak, i32t.const_zero())?;
    b.build_unconditional_branch(schedule)?;
    b.position_at_end(find);
    b.build_store(streak, b.build_int_nuw_add(n, i32t.const_int(1, false), "")?)?;
    // The first thread that has not exited.
    let find_loop = fc.new_block("decide.find.loop");
    let find_next = fc.new_block("decide.find.next");
    let found = fc.new_block("decide.found");
    b.build_unconditional_branch(find_loop)?;
    b.position_at_end(find_loop);
    let t = b.build_phi(i32t, "t")?;
    let tv = t.as_basic_value().into_int_value();
    let s = load_context(fc, layout, state, 4, tv, "decide.candidate")?;
    let exited = b.build_int_compare(P::EQ, s, i32t.const_int(sync::EXITED, false), "")?;
    b.build_conditional_branch(exited, find_next, found)?;
    b.position_at_end(find_next);
    let t_next = b.build_int_nuw_add(tv, i32t.const_int(1, false), "")?;
    let more = b.build_int_compare(P::ULT, t_next, fc.uni.nthreads, "")?;
    b.build_conditional_branch(more, find_loop, done)?;
    t.add_incoming(&[(&i32t.const_zero(), find), (&t_next, find_next)]);
    let cases: Vec<_> = some.iter().enumerate().filter_map(|(k, c)| c.map(|c| (i32t.const_int(k as u64, false), c))).collect();
    fc.b.position_at_end(found);
    fc.b.build_switch(s, schedule, &cases)?;
    Ok(start)
}

/// After a dense run of a region whose threads all end at the same sync point or all exit
/// (`Regions::converges`): thread 0's state says where the whole block waits, so the block
/// goes on without a look at the other threads: done, the next region's dense loop after a
/// plain barrier, the completion of a warp collective for every warp; `fallback` (the full
/// decision) for other points.
pub(crate) fn emit_after_converged<'ctx>(
    fc: &FnCx<'ctx, '_>,
    layout: &ContextLayout<'ctx>,
    points: &[Option<&ir::SyncPoint>],
    whole: &[Option<BasicBlock<'ctx>>],
    entries: &RegionEntries<'ctx>,
    fallback: BasicBlock<'ctx>,
    done: BasicBlock<'ctx>,
) -> R<BasicBlock<'ctx>> {
    let i32t = fc.cx.i32_type();
    let state = layout.state.ok_or_else(|| LowerError::Internal("kernel with sync points has a state array".into()))?;
    // The run wrote thread 0's word only (`kernel::States::Converged`): the general
    // decision reads every thread's, so they are set to it first.
    let (fill, region) = emit_state_fill(fc, layout, fallback)?;
    let start = fc.new_block("converged");
    let general = fc.new_block("converged.general");
    fc.b.position_at_end(start);
    let first = load_context(fc, layout, state, 4, i32t.const_zero(), "converged.state")?;
    region.add_incoming(&[(&first, general)]);
    let mut cases = vec![(i32t.const_int(sync::EXITED, false), done)];
    for (k, point) in points.iter().enumerate() {
        let Some(point) = point else { continue };
        let target = match whole[k] {
            _ if regions::is_plain_barrier(point) => entries.dense[k],
            Some(completion) => completion,
            None => continue,
        };
        cases.push((i32t.const_int(k as u64, false), target));
    }
    fc.b.build_switch(first, general, &cases)?;
    fc.b.position_at_end(general);
    fc.b.build_unconditional_branch(fill)?;
    Ok(start)
}

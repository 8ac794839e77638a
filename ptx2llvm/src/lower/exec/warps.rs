//! Warp collectives computed in the block function.
//!
//! A region ends where threads reach a sync point; a warp collective (`shfl`, `vote`,
//! `match`, `redux`, `activemask`, `elect`, `bar.warp.sync`, a lockstep point) completes for a
//! warp once every live lane of its membermask waits there (ISA 9.2 §9.7.9.6 ff.; the rules
//! are `ptxrt::sched`'s step 1). In the common, converged case the block function completes
//! it itself, with no runtime call: the 32 lanes of a warp are the 32 elements of a vector
//! loaded from the context area (structure of arrays, so a warp's slots are contiguous). A
//! shuffle is a permutation (a constant `shufflevector` when its lane operands are
//! constants, see `constants`), a ballot a bit cast of the predicates, a reduction an LLVM
//! vector reduction. Its results are stored back to the lanes' context slots, which the next
//! region's thread loop reads as ordinary, vectorizable loads.
//!
//! The dense floating-point `mma` forms and `ldmatrix` from shared memory complete here too
//! (`matrix`). The runtime's
//! scheduler stays the exact fallback: blocks that are not whole warps, warps with lanes
//! waiting elsewhere (divergence, partial membermasks), the other matrix instructions, and
//! every decision involving barriers.
//!
//! Which lanes take part (`at`) follows the scheduler exactly: the lanes of the warp that
//! wait at the instruction. A lane whose shuffle source does not take part keeps its own
//! value; a vote, match or reduction covers the lanes that take part.

use crate::ir::{self, Operand, ReduxOp, ShflMode, VoteMode, WarpOp};
use crate::lower::abi::sync;
use crate::lower::exec::kernel::ContextLayout;
use crate::lower::exec::matrix::{self, LdMatrixForm, MmaForm};
use crate::lower::thread::FnCx;
use crate::lower::{LowerError, R};
use inkwell::basic_block::BasicBlock;
use inkwell::types::VectorType;
use inkwell::values::{BasicValue, IntValue, VectorValue};
use inkwell::IntPredicate as P;

use crate::lower::exec::WARP_LANES as LANES;

/// Whether the block function can complete this sync point itself.
pub(crate) fn computed_inline(f: &ir::Function, point: &ir::SyncPoint) -> bool {
    match point {
        ir::SyncPoint::Warp(WarpOp::Matrix(m)) => matrix::computed_inline(f, m),
        ir::SyncPoint::Warp(_) => true,
        _ => false,
    }
}

/// Whether a block function may complete this point for some warps of a block whose other
/// threads wait elsewhere. Lockstep points are left to the scheduler there: they are the
/// polls of spin-waits, whose fairness towards barriers the scheduler keeps.
pub(crate) fn computed_inline_for_some_warps(f: &ir::Function, point: &ir::SyncPoint) -> bool {
    computed_inline(f, point) && !matches!(point, ir::SyncPoint::Warp(WarpOp::Lockstep))
}

/// Which lanes wait at the point.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arrival {
    /// Every thread of the block (a dense run of a region that can only end there, or a
    /// look at the states found them all there): every lane takes part and the states need
    /// no update, since the dense run of the next region does not read them.
    Whole,
    /// The thread states say which lanes wait; warps that complete are marked released
    /// (`RELEASED`), the others are left to the scheduler.
    FromStates,
}

/// Emits the completion of the warp collective `op` that region `k` follows, for every
/// warp of the block that can complete it. Control goes on to `released` once at least one
/// warp completed (with `Arrival::Whole`: all of them), else to `fallback` (also when the
/// block is not made of whole warps). Returns the first block.
#[allow(clippy::too_many_arguments)]
pub(crate) fn emit_completion<'ctx>(
    fc: &FnCx<'ctx, '_>,
    layout: &ContextLayout<'ctx>,
    op: &WarpOp,
    k: usize,
    arrival: Arrival,
    released: BasicBlock<'ctx>,
    fallback: BasicBlock<'ctx>,
) -> R<BasicBlock<'ctx>> {
    let cx = fc.cx;
    let (i32t, bool_t) = (cx.i32_type(), cx.bool_type());
    let tag = match arrival {
        Arrival::Whole => "all",
        Arrival::FromStates => "some",
    };
    let start = fc.new_block(&format!("warp{k}.{tag}"));
    let head = fc.new_block(&format!("warp{k}.{tag}.loop"));
    let compute = fc.new_block(&format!("warp{k}.{tag}.compute"));
    let latch = fc.new_block(&format!("warp{k}.{tag}.next"));
    let exit = fc.new_block(&format!("warp{k}.{tag}.done"));
    let b = &fc.b;
    b.position_at_end(start);
    let nthreads = fc.uni.nthreads;
    let partial_warp = b.build_and(nthreads, i32t.const_int(LANES as u64 - 1, false), "")?;
    let whole_warps = b.build_int_compare(P::EQ, partial_warp, i32t.const_zero(), "")?;
    let nwarps = b.build_right_shift(nthreads, i32t.const_int(5, false), false, "nwarps")?;
    // The warps it releases, for the loop over the released threads
    // (`ContextLayout::released_warps`).
    let released_warps = match arrival {
        Arrival::FromStates => layout.released_warps,
        Arrival::Whole => None,
    };
    if let Some(p) = released_warps {
        b.build_store(p, i32t.const_zero())?;
    }
    b.build_conditional_branch(whole_warps, head, fallback)?;

    b.position_at_end(head);
    let w = b.build_phi(i32t, "warp")?;
    let any = b.build_phi(bool_t, "any")?;
    let wv = w.as_basic_value().into_int_value();
    let base = b.build_int_nuw_mul(wv, i32t.const_int(LANES as u64, false), "lane0")?;
    let warp = Warp::new(fc, layout, base)?;
    let (at, at_v, states) = match arrival {
        Arrival::Whole => {
            b.build_unconditional_branch(compute)?;
            (i32t.const_all_ones(), lane_mask_vector(fc, i32t.const_all_ones())?, None)
        }
        Arrival::FromStates => {
            let state = layout.state.ok_or_else(|| LowerError::Internal("warp collective without thread states".into()))?;
            let s = warp.load(state, 4)?;
            let at_v = b.build_int_compare(P::EQ, s, splat(fc, i32t.const_int(k as u64, false))?, "at")?;
            let live_v = b.build_int_compare(P::NE, s, splat(fc, i32t.const_int(sync::EXITED, false))?, "live")?;
            let at = bits(fc, at_v)?;
            let live = bits(fc, live_v)?;
            // Completes once every live lane of the membermasks waits here (lanes with
            // another point's mask or none impose nothing).
            let members = match membermask(op) {
                Some(Operand::Imm(m)) => i32t.const_int(m & 0xffff_ffff, false),
                Some(m) => {
                    let masks = warp.operand(m, 32)?;
                    let masks = b.build_select(at_v, masks, i32t.vec_type(LANES).const_zero(), "")?.into_vector_value();
                    fc.call_intrinsic("llvm.vector.reduce.or", &[masks.get_type().into()], &[masks.into()])?.into_int_value()
                }
                None => i32t.const_zero(),
            };
            let missing = b.build_and(b.build_and(members, live, "")?, b.build_not(at, "")?, "missing")?;
            let ready = if matches!(op, WarpOp::Matrix(_)) {
                // A matrix instruction here only with all 32 lanes (with exited lanes the
                // scheduler decides what their fragments hold).
                b.build_int_compare(P::EQ, at, i32t.const_all_ones(), "ready")?
            } else {
                b.build_and(b.build_int_compare(P::NE, at, i32t.const_zero(), "")?, b.build_int_compare(P::EQ, missing, i32t.const_zero(), "")?, "ready")?
            };
            b.build_conditional_branch(ready, compute, latch)?;
            (at, at_v, Some(s))
        }
    };

    b.position_at_end(compute);
    let lanes = Lanes { warp: &warp, arrival, at, at_v };
    lanes.compute(op)?;
    if let (Some(s), Some(state)) = (states, layout.state) {
        let marked = b.build_select(at_v, splat(fc, i32t.const_int(k as u64 | sync::RELEASED, false))?, s, "")?.into_vector_value();
        warp.store(state, marked)?;
    }
    if let Some(p) = released_warps {
        let known = b.build_load(i32t, p, "")?.into_int_value();
        let bit = b.build_left_shift(i32t.const_int(1, false), wv, "")?;
        b.build_store(p, b.build_or(known, bit, "")?)?;
    }
    b.build_unconditional_branch(latch)?;

    b.position_at_end(latch);
    let any_next = b.build_phi(bool_t, "any.next")?;
    let from_head = match arrival {
        Arrival::Whole => None,
        Arrival::FromStates => Some(head),
    };
    any_next.add_incoming(&[(&bool_t.const_all_ones(), compute)]);
    if let Some(h) = from_head {
        any_next.add_incoming(&[(&any.as_basic_value(), h)]);
    }
    let any_next = any_next.as_basic_value().into_int_value();
    let w_next = b.build_int_nuw_add(wv, i32t.const_int(1, false), "")?;
    let more = b.build_int_compare(P::ULT, w_next, nwarps, "")?;
    b.build_conditional_branch(more, head, exit)?;
    w.add_incoming(&[(&i32t.const_zero(), start), (&w_next, latch)]);
    any.add_incoming(&[(&bool_t.const_zero(), start), (&any_next, latch)]);

    b.position_at_end(exit);
    match (arrival, released_warps) {
        (Arrival::Whole, _) => b.build_unconditional_branch(released)?,
        (Arrival::FromStates, None) => b.build_conditional_branch(any_next, released, fallback)?,
        (Arrival::FromStates, Some(p)) => {
            // To the scheduler: the mask is not known (all ones) for what it releases.
            let unknown = fc.new_block(&format!("warp{k}.{tag}.unknown"));
            b.build_conditional_branch(any_next, released, unknown)?;
            b.position_at_end(unknown);
            b.build_store(p, i32t.const_all_ones())?;
            b.build_unconditional_branch(fallback)?
        }
    };
    Ok(start)
}

/// Completes the warp collective `op` in the current block for the one warp whose lane 0
/// is `first`, all of whose lanes wait there (a warp run, `warp_runs`).
pub(crate) fn emit_whole_warp<'ctx>(fc: &FnCx<'ctx, '_>, layout: &ContextLayout<'ctx>, op: &WarpOp, first: IntValue<'ctx>) -> R<()> {
    let all = fc.cx.i32_type().const_all_ones();
    let warp = Warp::new(fc, layout, first)?;
    Lanes { warp: &warp, arrival: Arrival::Whole, at: all, at_v: lane_mask_vector(fc, all)? }.compute(op)
}

/// Whether every lane of the warp whose lane 0 is `first` waits to enter region `k` (its
/// state word says so): a warp run's check that the warp can go on (`warp_runs`).
pub(crate) fn all_lanes_wait<'ctx>(fc: &FnCx<'ctx, '_>, layout: &ContextLayout<'ctx>, first: IntValue<'ctx>, k: usize) -> R<IntValue<'ctx>> {
    let state = layout.state.ok_or_else(|| LowerError::Internal("a warp run without thread states".into()))?;
    let i32t = fc.cx.i32_type();
    let states = Warp::new(fc, layout, first)?.load(state, 4)?;
    let at = fc.b.build_int_compare(P::EQ, states, splat(fc, i32t.const_int(k as u64, false))?, "at")?;
    Ok(fc.b.build_int_compare(P::EQ, bits(fc, at)?, i32t.const_all_ones(), "all_lanes")?)
}

/// The membermask operand of a collective (`None`: the lanes that arrive together).
fn membermask(op: &WarpOp) -> Option<&Operand> {
    match op {
        WarpOp::Shfl { mask, .. } | WarpOp::Vote { mask, .. } => mask.as_ref(),
        WarpOp::Match { mask, .. } | WarpOp::Redux { mask, .. } | WarpOp::Elect { mask, .. } | WarpOp::WarpSync { mask } => Some(mask),
        WarpOp::ActiveMask { .. } | WarpOp::Lockstep | WarpOp::Matrix(_) => None,
    }
}

/// The context slots of one warp's 32 lanes.
struct Warp<'a, 'ctx, 'f> {
    fc: &'a FnCx<'ctx, 'f>,
    layout: &'a ContextLayout<'ctx>,
    /// Linear index of lane 0.
    base: IntValue<'ctx>,
}

impl<'a, 'ctx, 'f> Warp<'a, 'ctx, 'f> {
    fn new(fc: &'a FnCx<'ctx, 'f>, layout: &'a ContextLayout<'ctx>, base: IntValue<'ctx>) -> R<Self> {
        Ok(Warp { fc, layout, base })
    }

    fn vector_type(&self, size: u32) -> VectorType<'ctx> {
        self.fc.int_ty(size * 8).vec_type(LANES)
    }

    /// The 32 lanes' elements of the context array at `prefix` (elements of `size` bytes).
    fn load(&self, prefix: u64, size: u32) -> R<VectorValue<'ctx>> {
        let p = self.layout.slot_ptr(self.fc, prefix, size, self.base)?;
        let v = self.fc.b.build_load(self.vector_type(size), p, "")?;
        let inst = v.as_instruction_value().ok_or_else(|| LowerError::Internal("a load is an instruction".into()))?;
        inst.set_alignment(size).map_err(|e| LowerError::Internal(e.to_string()))?;
        self.layout.scopes.tag(self.fc.cx, inst, prefix);
        Ok(v.into_vector_value())
    }

    fn store(&self, prefix: u64, v: VectorValue<'ctx>) -> R<()> {
        let p = self.layout.slot_ptr(self.fc, prefix, v.get_type().get_element_type().into_int_type().get_bit_width() / 8, self.base)?;
        let st = self.fc.b.build_store(p, v)?;
        st.set_alignment(v.get_type().get_element_type().into_int_type().get_bit_width() / 8).map_err(|e| LowerError::Internal(e.to_string()))?;
        self.layout.scopes.tag(self.fc.cx, st, prefix);
        Ok(())
    }

    /// An operand's value in every lane, as `bits`-bit integers.
    fn operand(&self, o: &Operand, bits: u32) -> R<VectorValue<'ctx>> {
        let ty = self.fc.int_ty(bits);
        match o {
            Operand::Imm(v) => splat(self.fc, ty.const_int(*v, false)),
            Operand::Reg(r) => {
                let (prefix, size) = self.slot(*r)?;
                let v = self.load(prefix, size)?;
                resize_lanes(self.fc, v, bits)
            }
            _ => Err(LowerError::Unsupported("special registers and addresses as operands of warp collectives".into())),
        }
    }

    fn slot(&self, r: ir::RegId) -> R<(u64, u32)> {
        self.layout.slots.get(&r).copied().ok_or_else(|| LowerError::Internal("warp collective operand without a context slot".into()))
    }
}

/// The lanes that take part in one warp's collective.
struct Lanes<'w, 'a, 'ctx, 'f> {
    warp: &'w Warp<'a, 'ctx, 'f>,
    arrival: Arrival,
    /// Bit `l`: lane `l` takes part.
    at: IntValue<'ctx>,
    at_v: VectorValue<'ctx>,
}

impl<'ctx> Lanes<'_, '_, 'ctx, '_> {
    fn fc(&self) -> &FnCx<'ctx, '_> {
        self.warp.fc
    }

    /// Writes `v` to register `r` of the lanes that take part (a register the point writes
    /// that nothing reads afterwards has no slot and is not written).
    fn write(&self, r: ir::RegId, v: VectorValue<'ctx>) -> R<()> {
        let Some(&(prefix, size)) = self.warp.layout.slots.get(&r) else { return Ok(()) };
        let v = resize_lanes(self.fc(), v, size * 8)?;
        let v = match self.arrival {
            Arrival::Whole => v,
            Arrival::FromStates => {
                let old = self.warp.load(prefix, size)?;
                self.fc().b.build_select(self.at_v, v, old, "")?.into_vector_value()
            }
        };
        self.warp.store(prefix, v)
    }

    /// `write` where every lane of the warp takes part.
    fn write_every_lane(&self, r: ir::RegId, v: VectorValue<'ctx>) -> R<()> {
        let Some(&(prefix, size)) = self.warp.layout.slots.get(&r) else { return Ok(()) };
        self.warp.store(prefix, resize_lanes(self.fc(), v, size * 8)?)
    }

    fn compute(&self, op: &WarpOp) -> R<()> {
        let fc = self.fc();
        let b = &fc.b;
        let i32t = fc.cx.i32_type();
        match op {
            WarpOp::Shfl { mode, dst, pred, a, b: lane_op, c, .. } => {
                let values = self.warp.operand(a, 32)?;
                let (source, in_range) = match (lane_op, c) {
                    (Operand::Imm(bv), Operand::Imm(cv)) => {
                        let (source, in_range): (Vec<u32>, Vec<bool>) = (0..LANES).map(|l| shfl_source(*mode, l, *bv as u32, *cv as u32)).unzip();
                        let bool_t = fc.cx.bool_type();
                        let in_range = VectorType::const_vector(&in_range.iter().map(|&ok| bool_t.const_int(ok as u64, false)).collect::<Vec<_>>());
                        (Source::Fixed(source), in_range)
                    }
                    _ => {
                        let (source, in_range) = self.shfl_source_lanes(*mode, lane_op, c)?;
                        (Source::Dynamic(source), in_range)
                    }
                };
                let moved = source.permute(fc, values)?;
                let v = match self.arrival {
                    Arrival::Whole => moved,
                    // A source lane that does not take part: this lane keeps its own value.
                    Arrival::FromStates => {
                        let source_takes_part = source.permute(fc, self.at_v)?;
                        b.build_select(source_takes_part, moved, values, "")?.into_vector_value()
                    }
                };
                self.write(*dst, v)?;
                if let Some(p) = pred {
                    self.write(*p, in_range)?;
                }
            }
            WarpOp::Vote { mode, dst, src, .. } => {
                let p = self.warp.operand(&Operand::Reg(src.reg), 8)?;
                let one = splat(fc, fc.cx.i8_type().const_int(1, false))?;
                let set = b.build_int_compare(P::NE, b.build_and(p, one, "")?, fc.cx.i8_type().vec_type(LANES).const_zero(), "")?;
                let set = if src.negated { b.build_not(set, "")? } else { set };
                let ballot = b.build_and(bits(fc, set)?, self.at, "ballot")?;
                let all = b.build_int_compare(P::EQ, ballot, self.at, "")?;
                let none = b.build_int_compare(P::EQ, ballot, i32t.const_zero(), "")?;
                let v = match mode {
                    VoteMode::All => all,
                    VoteMode::Any => b.build_not(none, "")?,
                    VoteMode::Uni => b.build_or(all, none, "")?,
                    VoteMode::Ballot => ballot,
                };
                self.write(*dst, splat(fc, v)?)?;
            }
            WarpOp::Match { all, bits: width, dst, pred, a, .. } => {
                let values = self.warp.operand(a, *width)?;
                let equal_to = |x: IntValue<'ctx>| -> R<IntValue<'ctx>> {
                    let same = b.build_int_compare(P::EQ, values, splat(fc, x)?, "")?;
                    Ok(b.build_and(bits(fc, same)?, self.at, "")?)
                };
                // The scheduler compares with the first lane that takes part.
                let first_lane = fc.call_intrinsic("llvm.cttz", &[i32t.into()], &[self.at.into(), fc.cx.bool_type().const_zero().into()])?.into_int_value();
                let first = b.build_extract_element(values, first_lane, "")?.into_int_value();
                let all_equal = b.build_int_compare(P::EQ, equal_to(first)?, self.at, "all_equal")?;
                let d = if *all {
                    splat(fc, b.build_select(all_equal, self.at, i32t.const_zero(), "")?.into_int_value())?
                } else {
                    let mut d = i32t.vec_type(LANES).get_undef();
                    for l in 0..LANES {
                        let lane = i32t.const_int(l as u64, false);
                        let x = b.build_extract_element(values, lane, "")?.into_int_value();
                        d = b.build_insert_element(d, equal_to(x)?, lane, "")?;
                    }
                    d
                };
                self.write(*dst, d)?;
                if let Some(p) = pred {
                    self.write(*p, splat(fc, all_equal)?)?;
                }
            }
            WarpOp::Redux { op, signed, dst, a, .. } => {
                let values = self.warp.operand(a, 32)?;
                let (name, identity) = match (op, signed) {
                    (ReduxOp::Add, _) => ("llvm.vector.reduce.add", 0),
                    (ReduxOp::Min, true) => ("llvm.vector.reduce.smin", i32::MAX as u32 as u64),
                    (ReduxOp::Min, false) => ("llvm.vector.reduce.umin", u32::MAX as u64),
                    (ReduxOp::Max, true) => ("llvm.vector.reduce.smax", i32::MIN as u32 as u64),
                    (ReduxOp::Max, false) => ("llvm.vector.reduce.umax", 0),
                    (ReduxOp::And, _) => ("llvm.vector.reduce.and", u32::MAX as u64),
                    (ReduxOp::Or, _) => ("llvm.vector.reduce.or", 0),
                    (ReduxOp::Xor, _) => ("llvm.vector.reduce.xor", 0),
                };
                let values = match self.arrival {
                    Arrival::Whole => values,
                    Arrival::FromStates => b.build_select(self.at_v, values, splat(fc, i32t.const_int(identity, false))?, "")?.into_vector_value(),
                };
                let v = fc.call_intrinsic(name, &[values.get_type().into()], &[values.into()])?.into_int_value();
                self.write(*dst, splat(fc, v)?)?;
            }
            WarpOp::ActiveMask { dst } => self.write(*dst, splat(fc, self.at)?)?,
            WarpOp::Elect { dst, pred, mask } => {
                // The leader: the lowest lane of the membermask among the lanes that take
                // part (a lane whose mask has none of them elects itself).
                let masks = self.warp.operand(mask, 32)?;
                let members = b.build_and(masks, splat(fc, self.at)?, "")?;
                let lowest =
                    fc.call_intrinsic("llvm.cttz", &[members.get_type().into()], &[members.into(), fc.cx.bool_type().const_zero().into()])?.into_vector_value();
                let lane = lane_indices(fc)?;
                let nobody = b.build_int_compare(P::EQ, members, i32t.vec_type(LANES).const_zero(), "")?;
                let leader = b.build_select(nobody, lane, lowest, "leader")?.into_vector_value();
                self.write(*dst, leader)?;
                self.write(*pred, b.build_int_compare(P::EQ, leader, lane, "")?)?;
            }
            WarpOp::WarpSync { .. } | WarpOp::Lockstep => {}
            WarpOp::Matrix(m) => {
                let results = if let Some(form) = MmaForm::of(m) {
                    let sources = m.src.iter().map(|o| self.warp.operand(o, 32)).collect::<R<Vec<_>>>()?;
                    matrix::compute(fc, &form, &sources)?
                } else if let (Some(form), Some((addr, _))) = (LdMatrixForm::of(m), &m.addr) {
                    form.load(fc, self.warp.operand(addr, 64)?)?
                } else {
                    return Err(LowerError::Internal("this matrix instruction is completed by the runtime".into()));
                };
                // Every lane takes part (`emit_completion`): no lane keeps its old value.
                for (r, v) in m.dst.iter().zip(results) {
                    self.write_every_lane(*r, v)?;
                }
            }
        }
        Ok(())
    }

    /// The source lane and in-range predicate of every lane of a shuffle whose lane or
    /// clamp operand differs between lanes (`shfl_source`, as vectors).
    fn shfl_source_lanes(&self, mode: ShflMode, lane_op: &Operand, c: &Operand) -> R<(VectorValue<'ctx>, VectorValue<'ctx>)> {
        let fc = self.fc();
        let b = &fc.b;
        let i32t = fc.cx.i32_type();
        let k = |v: u64| splat(fc, i32t.const_int(v, false));
        let lane = lane_indices(fc)?;
        let bval = b.build_and(self.warp.operand(lane_op, 32)?, k(0x1f)?, "")?;
        let cv = self.warp.operand(c, 32)?;
        let clamp = b.build_and(cv, k(0x1f)?, "")?;
        let seg = b.build_and(b.build_right_shift(cv, k(8)?, false, "")?, k(0x1f)?, "")?;
        let not_seg = b.build_not(seg, "")?;
        let max_lane = b.build_or(b.build_and(lane, seg, "")?, b.build_and(clamp, not_seg, "")?, "")?;
        let (j, in_range) = match mode {
            ShflMode::Up => {
                let j = b.build_int_sub(lane, bval, "")?;
                (j, b.build_int_compare(P::SGE, j, max_lane, "")?)
            }
            ShflMode::Down => {
                let j = b.build_int_add(lane, bval, "")?;
                (j, b.build_int_compare(P::SLE, j, max_lane, "")?)
            }
            ShflMode::Bfly => {
                let j = b.build_xor(lane, bval, "")?;
                (j, b.build_int_compare(P::SLE, j, max_lane, "")?)
            }
            ShflMode::Idx => {
                let j = b.build_or(b.build_and(lane, seg, "")?, b.build_and(bval, not_seg, "")?, "")?;
                (j, b.build_int_compare(P::SLE, j, max_lane, "")?)
            }
        };
        let source = b.build_select(in_range, j, lane, "source")?.into_vector_value();
        Ok((source, in_range))
    }
}

/// The source lane of lane `l` of a shuffle with lane operand `b` and clamp operand `c`
/// (ISA 9.2 §9.7.9.6: `c` holds the clamp value in bits 0-4 and the segment mask in bits
/// 8-12), and whether it is in range (the predicate result; out of range, the lane reads
/// its own value).
fn shfl_source(mode: ShflMode, l: u32, b: u32, c: u32) -> (u32, bool) {
    let (l, bval) = (l as i64, (b & 0x1f) as i64);
    let clamp = (c & 0x1f) as i64;
    let seg = ((c >> 8) & 0x1f) as i64;
    let max_lane = (l & seg) | (clamp & !seg);
    let (j, ok) = match mode {
        ShflMode::Up => (l - bval, l - bval >= max_lane),
        ShflMode::Down => (l + bval, l + bval <= max_lane),
        ShflMode::Bfly => (l ^ bval, (l ^ bval) <= max_lane),
        ShflMode::Idx => {
            let j = (l & seg) | (bval & !seg);
            (j, j <= max_lane)
        }
    };
    (if ok { j as u32 } else { l as u32 }, ok)
}

/// Where each lane of a shuffle reads.
enum Source<'ctx> {
    /// Known at compile time.
    Fixed(Vec<u32>),
    /// A vector of lane indices.
    Dynamic(VectorValue<'ctx>),
}

impl<'ctx> Source<'ctx> {
    /// `v` with lane `l` taking the element of lane `source[l]`.
    fn permute(&self, fc: &FnCx<'ctx, '_>, v: VectorValue<'ctx>) -> R<VectorValue<'ctx>> {
        let i32t = fc.cx.i32_type();
        match self {
            Source::Fixed(lanes) => {
                let mask = VectorType::const_vector(&lanes.iter().map(|&j| i32t.const_int(j as u64, false)).collect::<Vec<_>>());
                Ok(fc.b.build_shuffle_vector(v, v.get_type().get_undef(), mask, "")?)
            }
            Source::Dynamic(source) => {
                let mut out = v.get_type().get_undef();
                for l in 0..LANES {
                    let lane = i32t.const_int(l as u64, false);
                    let j = fc.b.build_extract_element(*source, lane, "")?.into_int_value();
                    let x = fc.b.build_extract_element(v, j, "")?;
                    out = fc.b.build_insert_element(out, x, lane, "")?;
                }
                Ok(out)
            }
        }
    }
}

/// `<32 x T>` with every element `x`.
fn splat<'ctx>(fc: &FnCx<'ctx, '_>, x: IntValue<'ctx>) -> R<VectorValue<'ctx>> {
    let ty = x.get_type().vec_type(LANES);
    let one = fc.b.build_insert_element(ty.get_undef(), x, fc.cx.i32_type().const_zero(), "")?;
    Ok(fc.b.build_shuffle_vector(one, ty.get_undef(), fc.cx.i32_type().vec_type(LANES).const_zero(), "")?)
}

/// `<0, 1, ..., 31>`.
fn lane_indices<'ctx>(fc: &FnCx<'ctx, '_>) -> R<VectorValue<'ctx>> {
    let i32t = fc.cx.i32_type();
    Ok(VectorType::const_vector(&(0..LANES).map(|l| i32t.const_int(l as u64, false)).collect::<Vec<_>>()))
}

/// The lanes of a 32-bit lane mask as `<32 x i1>`.
fn lane_mask_vector<'ctx>(fc: &FnCx<'ctx, '_>, mask: IntValue<'ctx>) -> R<VectorValue<'ctx>> {
    Ok(fc.b.build_bit_cast(mask, fc.cx.bool_type().vec_type(LANES), "")?.into_vector_value())
}

/// A `<32 x i1>` as a 32-bit lane mask (bit `l`: lane `l`).
fn bits<'ctx>(fc: &FnCx<'ctx, '_>, v: VectorValue<'ctx>) -> R<IntValue<'ctx>> {
    Ok(fc.b.build_bit_cast(v, fc.cx.i32_type(), "")?.into_int_value())
}

/// Lane values truncated or zero-extended to `bits`.
fn resize_lanes<'ctx>(fc: &FnCx<'ctx, '_>, v: VectorValue<'ctx>, bits: u32) -> R<VectorValue<'ctx>> {
    let have = v.get_type().get_element_type().into_int_type().get_bit_width();
    let ty = fc.int_ty(bits).vec_type(LANES);
    Ok(match have.cmp(&bits) {
        std::cmp::Ordering::Equal => v,
        std::cmp::Ordering::Less => fc.b.build_int_z_extend(v, ty, "")?,
        std::cmp::Ordering::Greater => fc.b.build_int_truncate(v, ty, "")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_sources_follow_the_isa() {
        // down 16 within the whole warp (c = 31): lanes 16.. read nothing.
        assert_eq!(shfl_source(ShflMode::Down, 3, 16, 31), (19, true));
        assert_eq!(shfl_source(ShflMode::Down, 20, 16, 31), (20, false));
        // up 1 (c = 0): lane 0 keeps its own value.
        assert_eq!(shfl_source(ShflMode::Up, 0, 1, 0), (0, false));
        assert_eq!(shfl_source(ShflMode::Up, 5, 1, 0), (4, true));
        // xor within 8-lane segments (c = 0x1807: clamp 7, segment mask 0x18).
        assert_eq!(shfl_source(ShflMode::Bfly, 9, 2, 0x1807), (11, true));
        // Lane 1 xor 8 is lane 9, in a later segment: out of range, its own value. (Lane 9
        // xor 8 reads lane 1, an earlier segment, as CUDA's documentation says.)
        assert_eq!(shfl_source(ShflMode::Bfly, 1, 8, 0x1807), (1, false));
        assert_eq!(shfl_source(ShflMode::Bfly, 9, 8, 0x1807), (1, true));
        // idx 3 within 8-lane segments: lane 13 reads lane 11.
        assert_eq!(shfl_source(ShflMode::Idx, 13, 3, 0x1807), (11, true));
        // idx 40 reads lane 8 (the lane operand is taken modulo 32).
        assert_eq!(shfl_source(ShflMode::Idx, 2, 40, 31), (8, true));
    }
}

//! Thread loops in segments, where a wrapped thread index is affine.
//!
//! Kernels that treat a block's threads as a ring read a neighbour's element as
//! `s[(t + 1) & (n - 1)]` or `s[(t + n - 1) % n]`; warp-per-row kernels (softmax, layer
//! norm) address `row = t / 32` and `lane = t % 32`. In a thread loop such an index is not
//! affine in the loop's x index, so the vectorizer gathers (barrier_loop: 80% of its time
//! in two AVX-512 gathers per 16 threads). Over the threads of one row (`tid.y`, `tid.z`
//! fixed) the operand `a = tid.x + u` grows by one per thread, and the wrapped value `a & m`
//! (`m` a low mask `2^k - 1`) or `a % n` is `a - q·2^k` (`a - q·n`) with `q` constant
//! between the points where it wraps, where `a >> k` and `a / n` are constant. The block
//! function then runs the row's x range in segments that end where one of the region's
//! wrapped indices wraps: a segment header evaluates each wrapped value `v0` at the
//! segment's first thread `xs` (its pure operand chain with `tid.x = xs`) and the distance
//! to its next wrap; inside the segment the value is `x + (v0 - xs)` (or `v0`), and the
//! segment's x loop has contiguous accesses.
//!
//! What qualifies (per region, a dense thread loop, also narrowed by a guard and in
//! barrier-free kernels, including runs of blocks fused along x, where the global index is
//! `tid.x` plus a uniform start): `and.b32 d, a, m` (either operand
//! order), `rem.{u32,s32} d, a, n`, `shr.{u32,b32,s32} d, a, k` and `div.{u32,s32} d, a, n`
//! with `a = tid.x + u` in 32 bits, and `and.b64`/`shr.{u64,b64}` of `tid.x` itself;
//! `m`, `n`, `k`, `u` the same for the whole row (computed from immediates, parameters,
//! block indices and sizes, `tid.y` and `tid.z`, block-uniform registers and other wrapped
//! values that are constant in a segment, by pure integer instructions). They are looked
//! for among the instructions that recompute the region's live-in registers
//! (`Regions::replay`), along the chain of blocks every run of the region passes once, and
//! in the other blocks where what they read is set once (`analyze`). The header checks
//! what the ISA's arithmetic needs at run time: `m` a low mask (`m & (m + 1) == 0`; an
//! immediate `-2^k` makes the value constant between multiples of `2^k`), `n`
//! not zero, for signed types `a >= 0` and `n > 0` (truncating division then agrees with
//! the unsigned one) without crossing `2^31`, for unsigned ones without `a` wrapping past
//! `2^32` (masks and shifts wrap with it). Where a check fails the segment is one thread
//! long, which is exact (the value at `xs` is the instruction's own result).
//! Periods below 64 that are immediates (a lane index `t & 31`, a warp index `t >> 5`) make
//! short segments: they count only where the value reaches a memory address.
//!
//! Clamps too: `max.{s32,u32} d, a, lo` and `min d, a, hi` (a neighbour's index kept in a
//! range, `max(t - 1, first)`: Rodinia's pathfinder and hotspot) are `a` itself except at
//! the range's ends. A segment runs while the clamp does not act (up to where `a` passes
//! `hi`); where it acts the segment is one thread (a few at a block's edge), so the value
//! is `x + offset` everywhere and the neighbour's load is contiguous. Only clamps that
//! reach an address count. Without this LLVM gathers the neighbour (scalar loads on
//! targets without fast gathers, where it did not vectorize hotspot's step at all).

use crate::ir::visit::{defs, for_each_operand, successors, uses};
use crate::ir::{self, AddressBase, BlockId, Dim, IntBinOp, Op, Operand, RegId, ScalarType, SpecialReg, Terminator};
use crate::lower::exec::kernel::thread_at;
use crate::lower::exec::regions::Regions;
use crate::lower::thread::FnCx;
use crate::lower::{LowerError, R};
use inkwell::basic_block::BasicBlock;
use inkwell::values::{IntValue, PhiValue};
use inkwell::IntPredicate as P;
use std::collections::{BTreeSet, HashMap};

/// At most this many wrapped values per region (each costs the segment header a little).
const MAX_WRAPS: usize = 6;

/// Immediate periods below this count only for values that reach an address.
const MIN_IMMEDIATE_PERIOD: u64 = 64;

/// Regions with more blocks than this look for wrapped indices in their first block only.
const MAX_CHAIN_SEARCH_BLOCKS: usize = 64;

/// How a wrapped value wraps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WrapKind {
    /// `a & m`: `x + offset`, wrapping at multiples of `m + 1` if `m` is a low mask.
    Mask,
    /// `a & m` with an immediate high mask `m = -2^k` (`t & -32`, a warp's first thread):
    /// constant between multiples of `2^k`.
    HighMask,
    /// `a % n` (unsigned): `x + offset`, wrapping at multiples of `n`.
    RemUnsigned,
    /// `a % n` (signed): as unsigned while `a >= 0` and `n > 0`.
    RemSigned,
    /// `a >> k` (logical): constant between multiples of `2^k`.
    ShiftRight,
    /// `a >> k` (arithmetic, `.s32`): `floor(a / 2^k)`, constant between multiples of
    /// `2^k` (`k` clamped to 31). NVRTC's `int t / 64` is `(t + ((t >> 31) >>> 26)) >> 6`,
    /// with two of them (`t >> 31` is 0 for a thread index).
    ShiftRightSigned,
    /// `a / n` (unsigned): constant between multiples of `n`.
    DivUnsigned,
    /// `a / n` (signed): as unsigned while `a >= 0` and `n > 0`.
    DivSigned,
    /// `max(a, lo)` (`signed` or not): `lo` while `a < lo`, then `a` (a neighbour's index
    /// kept inside a range: `max(t - 1, first)`). A segment where it is `lo` is one thread
    /// long (the value at its first thread), so that the value is `x + offset` in every
    /// segment; the threads below the range are a few at a block's edge.
    ClampBelow { signed: bool },
    /// `min(a, hi)`: `a` while `a <= hi`, then `hi` (one-thread segments).
    ClampAbove { signed: bool },
}

impl WrapKind {
    /// Whether the value is the same for every thread of a segment (else `x + offset`).
    pub fn constant(self) -> bool {
        matches!(self, WrapKind::HighMask | WrapKind::ShiftRight | WrapKind::ShiftRightSigned | WrapKind::DivUnsigned | WrapKind::DivSigned)
    }
}

/// One wrapped index: the instruction that computes it and its operands.
#[derive(Debug, Clone)]
pub struct Wrap {
    pub kind: WrapKind,
    /// The instruction (in the replay or in the region's code).
    pub at: (BlockId, usize),
    pub dst: RegId,
    /// The instruction's type (32 bits, or 64 for `tid.x` itself).
    pub ty: ScalarType,
    /// `tid.x + u`.
    pub affine: Operand,
    /// The mask, modulus, shift or divisor.
    pub period: Operand,
}

/// A region's wrapped indices, and what the segment header evaluates for them.
#[derive(Debug, Clone)]
pub struct Segments {
    pub wraps: Vec<Wrap>,
    /// The pure instructions the wraps' operands need (and the wraps themselves), in the
    /// order a thread's run executes them: replay instructions, then (after the
    /// block-uniform registers live into the region are set, as a thread's run sets them)
    /// those of the region's code.
    pub replay_slice: Vec<(BlockId, usize)>,
    pub block_slice: Vec<(BlockId, usize)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// The same for every thread of a segment.
    Row,
    /// Exactly `tid.x` (thread indices fit in 16 bits).
    TidX,
    /// `tid.x + u` in the low 32 bits, `u` the same for the segment.
    X,
    Other,
}

impl Shape {
    fn as_x(self) -> Shape {
        match self {
            Shape::TidX => Shape::X,
            s => s,
        }
    }
}

/// Per register: its shape and the position of its last definition among the analyzed
/// instructions (`None`: from before them).
type RegShapes = HashMap<RegId, (Shape, Option<usize>)>;

/// Where an analyzed instruction runs, for the header's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Group {
    Replay,
    /// In the `c`-th block of the chain.
    Chain(usize),
    /// In the code after the `g`-th block of the chain (the whole region's code when the
    /// chain is empty).
    Gap(usize),
}

/// The wrapped indices of region `k` worth segmenting its dense loop for; registers in
/// `block_uniform` hold one value for the block.
///
/// The prefix (the replay, then the chain of blocks that every run of the region passes
/// once, in order: its first block and each one's immediate post-dominator that is in no
/// loop) runs once per thread: the shapes of its registers follow it, registers written in
/// the conditional code between two blocks of the chain are unknown after it. Any other
/// block of the region sees the values the chain gave before it for the registers that are
/// written nowhere else, and its own earlier instructions' (however often it runs).
pub fn analyze(f: &ir::Function, regions: &Regions, k: usize, block_uniform: &BTreeSet<RegId>) -> Option<Segments> {
    let start = *regions.starts.get(k)?;
    let code = regions.code_of(f, &[start.0 as usize]);
    let (chain, gaps) = once_chain(f, regions, start.0 as usize, &code);
    let defs_in = |blocks: &[usize]| -> BTreeSet<RegId> {
        let mut d = vec![];
        for &b in blocks {
            for ins in &f.blocks[b].insts {
                defs(&ins.op, &mut d);
            }
        }
        d.into_iter().collect()
    };
    let mut a = Analysis { f, insts: vec![], groups: vec![], reads: vec![], wraps: vec![] };
    let mut regs: RegShapes = HashMap::new();
    for &at in regions.replay.get(k)? {
        a.step(at, Group::Replay, &mut regs);
    }
    // After the replay the registers live into the region are read from the context.
    for r in regions.live_into_region(k) {
        regs.insert(r, (if block_uniform.contains(&r) { Shape::Row } else { Shape::Other }, None));
    }
    // What the code of each gap sees: the shapes after its chain block (after the replay
    // when the chain is empty and the gap is the whole region).
    let mut gap_shapes: Vec<RegShapes> = if chain.is_empty() { vec![regs.clone()] } else { vec![] };
    for (c, &b) in chain.iter().enumerate() {
        if c > 0 {
            // What the conditional code before this block wrote is unknown here.
            for r in defs_in(&gaps[c - 1]) {
                regs.insert(r, (Shape::Other, None));
            }
        }
        for i in 0..f.blocks[b].insts.len() {
            a.step((BlockId(b as u32), i), Group::Chain(c), &mut regs);
        }
        gap_shapes.push(regs.clone());
    }
    let gap_code: Vec<&[usize]> = if chain.is_empty() { vec![&code[..]] } else { gaps.iter().map(|g| &g[..]).collect() };
    let written_elsewhere = defs_in(&gap_code.concat());
    for (g, blocks) in gap_code.iter().enumerate() {
        let mut seen = gap_shapes[g].clone();
        for r in &written_elsewhere {
            seen.insert(*r, (Shape::Other, None));
        }
        for &b in blocks.iter() {
            let mut regs = seen.clone();
            for i in 0..f.blocks[b].insts.len() {
                a.step((BlockId(b as u32), i), Group::Gap(g), &mut regs);
            }
        }
    }
    let addressed = addressing(f, regions.replay.get(k)?, &code);
    let worth = |w: &Wrap| {
        if matches!(w.kind, WrapKind::ClampBelow { .. } | WrapKind::ClampAbove { .. }) {
            // A clamp that reaches no address costs LLVM nothing in a vector.
            return addressed.contains(&w.dst);
        }
        let short = match (w.period, w.kind) {
            (Operand::Imm(m), WrapKind::Mask) => m.saturating_add(1) < MIN_IMMEDIATE_PERIOD,
            (Operand::Imm(m), WrapKind::HighMask) => (!m & low_bits(w.ty)).saturating_add(1) < MIN_IMMEDIATE_PERIOD,
            (Operand::Imm(s), WrapKind::ShiftRight | WrapKind::ShiftRightSigned) => s < 6,
            (Operand::Imm(n), _) => n < MIN_IMMEDIATE_PERIOD,
            _ => false,
        };
        !short || addressed.contains(&w.dst)
    };
    // The slice: the wraps worth it and, transitively, the definitions their operands read.
    // A wrapped index among those (affine or constant only within its own segments) is kept
    // too: its reads are in the slice already.
    let mut needed = vec![false; a.insts.len()];
    let mut work: Vec<usize> = a.wraps.iter().filter(|(_, w)| worth(w)).map(|(p, _)| *p).collect();
    while let Some(p) = work.pop() {
        if !std::mem::replace(&mut needed[p], true) {
            work.extend(&a.reads[p]);
        }
    }
    let wraps: Vec<(usize, Wrap)> = a.wraps.into_iter().filter(|(p, _)| needed[*p]).collect();
    if wraps.is_empty() || wraps.len() > MAX_WRAPS {
        return None;
    }
    // The header runs the slice in a thread's order: each gap's after the chain block
    // before it (where the values it reads are the same).
    let group = |g: Group| -> Vec<(BlockId, usize)> { (0..a.insts.len()).filter(|p| needed[*p] && a.groups[*p] == g).map(|p| a.insts[p]).collect() };
    let mut block_slice = vec![];
    if chain.is_empty() {
        block_slice.extend(group(Group::Gap(0)));
    }
    for c in 0..chain.len() {
        block_slice.extend(group(Group::Chain(c)));
        block_slice.extend(group(Group::Gap(c)));
    }
    Some(Segments { wraps: wraps.into_iter().map(|(_, w)| w).collect(), replay_slice: group(Group::Replay), block_slice })
}

/// The current segment of a row of threads (`segments`): where it starts and ends, and per
/// wrapped index its offset from `tid.x` there.
pub(crate) struct RowSegment<'ctx> {
    pub header: BasicBlock<'ctx>,
    pub start: PhiValue<'ctx>,
    pub end: IntValue<'ctx>,
    offsets: Vec<(Wrap, IntValue<'ctx>)>,
}

impl<'ctx> RowSegment<'ctx> {
    /// After the instruction at `at` ran for the current thread: if it computes a wrapped
    /// index, its value is `tid.x + offset` in this segment (the same bits, affine in x).
    pub(crate) fn override_value(&self, fc: &FnCx<'ctx, '_>, at: (BlockId, usize)) -> R<()> {
        for (w, value) in self.offsets.iter().filter(|(w, _)| w.at == at) {
            let v = if w.kind.constant() {
                *value
            } else {
                let x = fc.resize(fc.thread().tid[0], w.ty.bits(), false)?;
                fc.b.build_int_add(x, *value, "wrapped")?
            };
            fc.write(w.dst, v, w.ty)?;
        }
        Ok(())
    }
}

/// The segment header of a row (`y`, `z`), at the end of `header`: the segment starts at
/// `xs` (a phi: the row's start, or the previous segment's end) and ends before `x_end` at
/// the first thread where one of the wrapped indices wraps (see `segments` for the checks).
pub(crate) fn emit_header<'ctx>(
    fc: &mut FnCx<'ctx, '_>,
    s: &Segments,
    uniform_values: &HashMap<RegId, IntValue<'ctx>>,
    header: BasicBlock<'ctx>,
    y: IntValue<'ctx>,
    z: IntValue<'ctx>,
    x_end: IntValue<'ctx>,
) -> R<RowSegment<'ctx>> {
    let cx = fc.cx;
    let (i32t, i64t) = (cx.i32_type(), cx.i64_type());
    let start = fc.b.build_phi(i32t, "segment")?;
    let xs = start.as_basic_value().into_int_value();
    let outer = fc.thread;
    fc.thread = Some(thread_at(fc, [xs, y, z])?);
    let f = fc.f;
    // Each wrapped index's value and operands, read as its instruction leaves them (a
    // shift amount as the `.u32` it is).
    let mut at_wraps: Vec<Option<(IntValue<'ctx>, IntValue<'ctx>, IntValue<'ctx>)>> = vec![None; s.wraps.len()];
    let mut run = |fc: &mut FnCx<'ctx, '_>, slice: &[(BlockId, usize)]| -> R<()> {
        for &at in slice {
            fc.inst_at(at)?;
            for (w, seen) in s.wraps.iter().zip(at_wraps.iter_mut()) {
                if w.at == at {
                    let period_ty = if matches!(w.kind, WrapKind::ShiftRight | WrapKind::ShiftRightSigned) { ScalarType::U32 } else { w.ty };
                    *seen = Some((fc.read(Operand::Reg(w.dst), w.ty)?, fc.read(w.affine, w.ty)?, fc.read(w.period, period_ty)?));
                }
            }
        }
        Ok(())
    };
    run(fc, &s.replay_slice)?;
    // As in a thread's run: the block-uniform registers live into the region next.
    let mut uniform: Vec<_> = uniform_values.iter().collect();
    uniform.sort_by_key(|(r, _)| **r);
    for (r, v) in uniform {
        let v = fc.resize(*v, f.regs[r.0 as usize].ty.bits(), false)?;
        fc.b.build_store(fc.regs[r.0 as usize], v)?;
    }
    run(fc, &s.block_slice)?;
    fc.thread = outer;
    let b = &fc.b;
    let c64 = |v: u64| i64t.const_int(v, false);
    let mut len: Option<IntValue<'ctx>> = None;
    let mut offsets = vec![];
    for (w, seen) in s.wraps.iter().zip(at_wraps) {
        let (v0, a0, p) = seen.ok_or_else(|| LowerError::Internal("a wrapped index outside its segment header".into()))?;
        let t = v0.get_type();
        // As 64-bit values: unsigned (`u`) or signed (`s`).
        let u = |v: IntValue<'ctx>| fc.resize(v, 64, false);
        let sx = |v: IntValue<'ctx>| fc.resize(v, 64, true);
        let signed_ok = |fc: &FnCx<'ctx, '_>| -> R<IntValue<'ctx>> {
            let positive = fc.b.build_int_compare(P::SGT, p, t.const_zero(), "")?;
            let non_negative = fc.b.build_int_compare(P::SGE, a0, t.const_zero(), "")?;
            Ok(fc.b.build_and(positive, non_negative, "")?)
        };
        // Threads until `a` wraps past 2^32 (unsigned) or 2^31 (signed).
        let to_overflow_u = b.build_int_sub(c64(1 << 32), u(a0)?, "")?;
        let to_overflow_s = b.build_int_sub(c64(1 << 31), sx(a0)?, "")?;
        let (ok, n) = match w.kind {
            WrapKind::Mask => {
                let p1 = b.build_int_add(p, t.const_int(1, false), "")?;
                let low = b.build_int_compare(P::EQ, b.build_and(p, p1, "")?, t.const_zero(), "low_mask")?;
                // m - v0 + 1 (v0 <= m), at most 2^32 + 1.
                let n = umin(fc, u(b.build_int_sub(p, v0, "")?)?, c64(1 << 32))?;
                (low, b.build_int_add(n, c64(1), "")?)
            }
            WrapKind::HighMask => {
                // An immediate -2^k: 2^k - (a mod 2^k).
                let low = b.build_not(p, "")?;
                let n = umin(fc, u(b.build_int_sub(low, b.build_and(a0, low, "")?, "")?)?, c64(1 << 32))?;
                (cx.bool_type().const_all_ones(), b.build_int_add(n, c64(1), "")?)
            }
            WrapKind::RemUnsigned => {
                let ok = b.build_int_compare(P::NE, p, t.const_zero(), "")?;
                (ok, umin(fc, b.build_int_sub(u(p)?, u(v0)?, "")?, to_overflow_u)?)
            }
            WrapKind::RemSigned => (signed_ok(fc)?, umin(fc, b.build_int_sub(sx(p)?, sx(v0)?, "")?, to_overflow_s)?),
            WrapKind::ShiftRight => {
                // 2^k - (a mod 2^k); a shift of 32 or more: one value up to the wrap at 2^32.
                let k = umin(fc, u(p)?, c64(32))?;
                let pow = b.build_left_shift(c64(1), k, "")?;
                let low_bits = b.build_and(u(a0)?, b.build_int_sub(pow, c64(1), "")?, "")?;
                (cx.bool_type().const_all_ones(), umin(fc, b.build_int_sub(pow, low_bits, "")?, to_overflow_u)?)
            }
            WrapKind::ShiftRightSigned => {
                // floor(a / 2^k) in two's complement, k clamped to 31 (larger amounts fill
                // with the sign bit): constant between multiples of 2^k, across 2^31 too
                // (a multiple of them); up to the wrap at 2^32.
                let k = umin(fc, u(p)?, c64(31))?;
                let pow = b.build_left_shift(c64(1), k, "")?;
                let low_bits = b.build_and(u(a0)?, b.build_int_sub(pow, c64(1), "")?, "")?;
                (cx.bool_type().const_all_ones(), umin(fc, b.build_int_sub(pow, low_bits, "")?, to_overflow_u)?)
            }
            WrapKind::DivUnsigned => {
                let ok = b.build_int_compare(P::NE, p, t.const_zero(), "")?;
                let rem = b.build_int_sub(u(a0)?, b.build_int_mul(u(v0)?, u(p)?, "")?, "")?;
                (ok, umin(fc, b.build_int_sub(u(p)?, rem, "")?, to_overflow_u)?)
            }
            WrapKind::DivSigned => {
                let rem = b.build_int_sub(sx(a0)?, b.build_int_mul(sx(v0)?, sx(p)?, "")?, "")?;
                (signed_ok(fc)?, umin(fc, b.build_int_sub(sx(p)?, rem, "")?, to_overflow_s)?)
            }
            // While unclamped: up to where `a` would wrap (`max`), or up to the bound
            // (`min`); clamped: one thread.
            WrapKind::ClampBelow { signed } => {
                let (ge, to_overflow) = if signed { (P::SGE, to_overflow_s) } else { (P::UGE, to_overflow_u) };
                let unclamped = b.build_int_compare(ge, a0, p, "")?;
                (cx.bool_type().const_all_ones(), b.build_select(unclamped, to_overflow, c64(1), "")?.into_int_value())
            }
            WrapKind::ClampAbove { signed } => {
                let (le, ext, to_overflow) = if signed { (P::SLE, true, to_overflow_s) } else { (P::ULE, false, to_overflow_u) };
                let unclamped = b.build_int_compare(le, a0, p, "")?;
                let to_bound = b.build_int_add(b.build_int_sub(fc.resize(p, 64, ext)?, fc.resize(a0, 64, ext)?, "")?, c64(1), "")?;
                let n = umin(fc, to_bound, to_overflow)?;
                (cx.bool_type().const_all_ones(), fc.b.build_select(unclamped, n, c64(1), "")?.into_int_value())
            }
        };
        let n = b.build_select(ok, n, c64(1), "")?.into_int_value();
        len = Some(match len {
            Some(l) => umin(fc, l, n)?,
            None => n,
        });
        let value = if w.kind.constant() { v0 } else { b.build_int_sub(v0, fc.resize(xs, t.get_bit_width(), false)?, "offset")? };
        offsets.push((w.clone(), value));
    }
    let len = len.ok_or_else(|| LowerError::Internal("segments without wrapped indices".into()))?;
    let end = b.build_int_nuw_add(b.build_int_z_extend(xs, i64t, "")?, len, "")?;
    let end = umin(fc, end, fc.b.build_int_z_extend(x_end, i64t, "")?)?;
    let end = fc.b.build_int_truncate(end, i32t, "segment.end")?;
    Ok(RowSegment { header, start, end, offsets })
}

fn umin<'ctx>(fc: &FnCx<'ctx, '_>, a: IntValue<'ctx>, b: IntValue<'ctx>) -> R<IntValue<'ctx>> {
    Ok(fc.call_intrinsic("llvm.umin", &[a.get_type().into()], &[a.into(), b.into()])?.into_int_value())
}

/// The analyzed instructions, in order, with what they read and the wrapped indices.
struct Analysis<'f> {
    f: &'f ir::Function,
    insts: Vec<(BlockId, usize)>,
    groups: Vec<Group>,
    /// Per analyzed instruction: the positions of the definitions it reads.
    reads: Vec<Vec<usize>>,
    wraps: Vec<(usize, Wrap)>,
}

impl Analysis<'_> {
    /// Analyzes the instruction at `at`, run after those that gave `regs`.
    fn step(&mut self, at: (BlockId, usize), group: Group, regs: &mut RegShapes) {
        let ins = &self.f.blocks[at.0 .0 as usize].insts[at.1];
        let pos = self.insts.len();
        let (shape, operands, wrap) = classify(ins, regs);
        if let (Some((kind, affine, period)), Op::IntBinary { ty, dst, .. }) = (wrap, &ins.op) {
            self.wraps.push((pos, Wrap { kind, at, dst: *dst, ty: *ty, affine, period }));
        }
        self.insts.push(at);
        self.groups.push(group);
        self.reads.push(operands.iter().filter_map(|o| if let Operand::Reg(r) = o { regs.get(r).and_then(|(_, p)| *p) } else { None }).collect());
        let mut d = vec![];
        defs(&ins.op, &mut d);
        for r in d {
            regs.insert(r, (shape, Some(pos)));
        }
    }
}

/// The registers whose values reach the address of a memory access through integer
/// arithmetic, in the region's replay and its `code`.
fn addressing(f: &ir::Function, replay: &[(BlockId, usize)], code: &[usize]) -> BTreeSet<RegId> {
    let ops: Vec<&Op> =
        replay.iter().map(|(b, i)| &f.blocks[b.0 as usize].insts[*i].op).chain(code.iter().flat_map(|b| f.blocks[*b].insts.iter().map(|i| &i.op))).collect();
    // Backwards from the addresses: a register is addressing if an integer instruction
    // that reads it defines an addressing register.
    let mut addressing: BTreeSet<RegId> = BTreeSet::new();
    for op in &ops {
        if let Op::Load { addr, .. } | Op::Store { addr, .. } | Op::Atomic { addr, .. } = op {
            if let AddressBase::Reg(r) = addr.base {
                addressing.insert(r);
            }
        }
    }
    for _ in 0..16 {
        let before = addressing.len();
        for op in &ops {
            if !matches!(op, Op::Mov { .. } | Op::Cvt { .. } | Op::IntBinary { .. } | Op::Mad { .. } | Op::MulWide { .. }) {
                continue;
            }
            let mut d = vec![];
            defs(op, &mut d);
            if d.iter().any(|r| addressing.contains(r)) {
                for_each_operand(op, &mut |o| {
                    if let Operand::Reg(r) = o {
                        addressing.insert(*r);
                    }
                });
            }
        }
        if addressing.len() == before {
            break;
        }
    }
    addressing
}

/// The blocks from `start` that every run of the region passes exactly once, in order
/// (each the immediate post-dominator of the one before, none in a loop of the region),
/// and per chain block the code between it and the next (after the last: the rest).
fn once_chain(f: &ir::Function, regions: &Regions, start: usize, code: &[usize]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let succs = |b: usize| -> Vec<usize> {
        match f.blocks[b].term {
            Terminator::Jump(_) | Terminator::Branch { .. } => successors(&f.blocks[b].term).into_iter().map(|s| s.0 as usize).collect(),
            _ => vec![],
        }
    };
    let in_loop = |b: usize| regions.code_of(f, &succs(b)).contains(&b);
    // The blocks reached from `from` without passing `avoid`, and whether a run can end
    // among them (a sync point, `exit`, `ret`).
    let reach_avoiding = |from: &[usize], avoid: Option<usize>| -> (Vec<usize>, bool) {
        let mut seen = BTreeSet::new();
        let mut work = from.to_vec();
        let mut ends = false;
        while let Some(b) = work.pop() {
            if Some(b) == avoid || !seen.insert(b) {
                continue;
            }
            let next = succs(b);
            ends |= next.is_empty();
            work.extend(next);
        }
        (seen.into_iter().collect(), ends)
    };
    let mut chain = vec![];
    let mut gaps: Vec<Vec<usize>> = vec![];
    let mut cur = start;
    loop {
        if in_loop(cur) {
            if let Some(g) = gaps.last_mut() {
                let (rest, _) = reach_avoiding(&[cur], None);
                g.extend(rest);
            }
            break;
        }
        chain.push(cur);
        let next = succs(cur);
        let (reach, _) = reach_avoiding(&next, None);
        let post_dominators: Vec<usize> =
            if code.len() > MAX_CHAIN_SEARCH_BLOCKS { vec![] } else { reach.iter().copied().filter(|d| !reach_avoiding(&next, Some(*d)).1).collect() };
        let immediate = post_dominators.iter().copied().find(|d| {
            let from_d = regions.code_of(f, &[*d]);
            post_dominators.iter().all(|p| from_d.contains(p))
        });
        match immediate {
            Some(d) => {
                gaps.push(reach_avoiding(&next, Some(d)).0);
                cur = d;
            }
            None => {
                gaps.push(reach);
                break;
            }
        }
    }
    (chain, gaps)
}

/// An instruction's result shape given its operands' (`regs`), the operands it reads for
/// that, and whether it computes a wrapped index: (how, `tid.x + u`, its period operand).
#[allow(clippy::type_complexity)]
fn classify(ins: &ir::Inst, regs: &RegShapes) -> (Shape, Vec<Operand>, Option<(WrapKind, Operand, Operand)>) {
    let shape_of = |o: &Operand| -> Shape {
        match o {
            Operand::Imm(_) => Shape::Row,
            Operand::Special(SpecialReg::Tid(Dim::X)) => Shape::TidX,
            Operand::Special(SpecialReg::Tid(_) | SpecialReg::Ntid(_) | SpecialReg::Ctaid(_) | SpecialReg::Nctaid(_)) => Shape::Row,
            Operand::Reg(r) => regs.get(r).map_or(Shape::Other, |(s, _)| *s),
            _ => Shape::Other,
        }
    };
    match &ins.op {
        _ if ins.guard.is_some() => (Shape::Other, vec![], None),
        // A kernel parameter (an address without registers).
        op if op.is_kernel_param_load() => {
            let mut used = vec![];
            uses(&ins.op, &mut used);
            (if used.is_empty() { Shape::Row } else { Shape::Other }, vec![], None)
        }
        Op::Mov { ty, src, .. } => (
            match shape_of(src) {
                Shape::TidX if ty.bits() >= 16 => Shape::TidX,
                Shape::X | Shape::TidX if ty.bits() == 32 => Shape::X,
                Shape::Row => Shape::Row,
                _ => Shape::Other,
            },
            vec![*src],
            None,
        ),
        Op::Cvt { dst_ty, src_ty, src, sat: false, .. } if !dst_ty.is_float() && !src_ty.is_float() => (
            match shape_of(src) {
                Shape::TidX if dst_ty.bits() >= 16 && src_ty.bits() >= 16 => Shape::TidX,
                Shape::X if dst_ty.bits() == 32 && src_ty.bits() == 32 => Shape::X,
                Shape::Row => Shape::Row,
                _ => Shape::Other,
            },
            vec![*src],
            None,
        ),
        Op::IntBinary { op, ty, sat: false, a, b, .. } => {
            let (ra, rb) = (shape_of(a), shape_of(b));
            let (sa, sb) = (ra.as_x(), rb.as_x());
            let mask = |m: &Operand| match m {
                Operand::Imm(m) if is_high_mask(*m, *ty) => WrapKind::HighMask,
                _ => WrapKind::Mask,
            };
            let wrap = match (op, sa, sb) {
                (IntBinOp::And, Shape::X, Shape::Row) if ty.bits() == 32 || ra == Shape::TidX => Some((mask(b), *a, *b)),
                (IntBinOp::And, Shape::Row, Shape::X) if ty.bits() == 32 || rb == Shape::TidX => Some((mask(a), *b, *a)),
                (IntBinOp::Rem, Shape::X, Shape::Row) if ty.bits() == 32 && ty.is_signed() => Some((WrapKind::RemSigned, *a, *b)),
                (IntBinOp::Rem, Shape::X, Shape::Row) if ty.bits() == 32 => Some((WrapKind::RemUnsigned, *a, *b)),
                (IntBinOp::Shr, Shape::X, Shape::Row) if !ty.is_signed() && (ty.bits() == 32 || ra == Shape::TidX) => Some((WrapKind::ShiftRight, *a, *b)),
                (IntBinOp::Shr, Shape::X, Shape::Row) if ty.bits() == 32 => Some((WrapKind::ShiftRightSigned, *a, *b)),
                (IntBinOp::Div, Shape::X, Shape::Row) if ty.bits() == 32 && ty.is_signed() => Some((WrapKind::DivSigned, *a, *b)),
                (IntBinOp::Div, Shape::X, Shape::Row) if ty.bits() == 32 => Some((WrapKind::DivUnsigned, *a, *b)),
                (IntBinOp::Max, Shape::X, Shape::Row) if ty.bits() == 32 => Some((WrapKind::ClampBelow { signed: ty.is_signed() }, *a, *b)),
                (IntBinOp::Max, Shape::Row, Shape::X) if ty.bits() == 32 => Some((WrapKind::ClampBelow { signed: ty.is_signed() }, *b, *a)),
                (IntBinOp::Min, Shape::X, Shape::Row) if ty.bits() == 32 => Some((WrapKind::ClampAbove { signed: ty.is_signed() }, *a, *b)),
                (IntBinOp::Min, Shape::Row, Shape::X) if ty.bits() == 32 => Some((WrapKind::ClampAbove { signed: ty.is_signed() }, *b, *a)),
                _ => None,
            };
            let shape = match (op, sa, sb) {
                (_, Shape::Row, Shape::Row) => Shape::Row,
                (IntBinOp::Add, Shape::X, Shape::Row) | (IntBinOp::Add, Shape::Row, Shape::X) | (IntBinOp::Sub, Shape::X, Shape::Row) if ty.bits() == 32 => {
                    Shape::X
                }
                // In a segment: `x + offset` (32 bits) or one value.
                _ => match wrap {
                    Some((kind, ..)) if kind.constant() => Shape::Row,
                    Some(_) if ty.bits() == 32 => Shape::X,
                    _ => Shape::Other,
                },
            };
            (shape, vec![*a, *b], wrap)
        }
        Op::Mad { mode: ir::MulMode::Lo, ty, sat: false, a, b, c, .. } => (
            match (shape_of(a), shape_of(b), shape_of(c).as_x()) {
                (Shape::Row, Shape::Row, Shape::Row) => Shape::Row,
                (Shape::Row, Shape::Row, Shape::X) if ty.bits() == 32 => Shape::X,
                _ => Shape::Other,
            },
            vec![*a, *b, *c],
            None,
        ),
        Op::MulWide { a, b, .. } => (if shape_of(a) == Shape::Row && shape_of(b) == Shape::Row { Shape::Row } else { Shape::Other }, vec![*a, *b], None),
        // Any other pure computation of values the same for the row (`neg`, `setp`, `selp`:
        // the first thread of a range, `blk_x < 0 ? -blk_x : 0`).
        op if op.is_value_computation() && !matches!(op, Op::Carry { .. }) => {
            let mut operands = vec![];
            for_each_operand(op, &mut |o| operands.push(*o));
            let mut regs_read = vec![];
            uses(op, &mut regs_read);
            operands.extend(regs_read.into_iter().map(Operand::Reg));
            let row = operands.iter().all(|o| shape_of(o) == Shape::Row);
            (if row { Shape::Row } else { Shape::Other }, if row { operands } else { vec![] }, None)
        }
        _ => (Shape::Other, vec![], None),
    }
}

/// The bits of a value of type `ty` (32 or 64).
fn low_bits(ty: ScalarType) -> u64 {
    if ty.bits() >= 64 {
        u64::MAX
    } else {
        (1u64 << ty.bits()) - 1
    }
}

/// Whether immediate `m` (as `ty`) is `-2^k` for some `k > 0`: its complement a low mask.
fn is_high_mask(m: u64, ty: ScalarType) -> bool {
    let low = !m & low_bits(ty);
    low != 0 && low & low.wrapping_add(1) == 0
}

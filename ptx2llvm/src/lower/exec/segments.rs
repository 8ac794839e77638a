//! Thread loops in segments, where a wrapped thread index is affine.
//!
//! Kernels that treat a block's threads as a ring read a neighbour's element as
//! `s[(t + 1) & (n - 1)]` or `s[(t + n - 1) % n]`. In a thread loop that index is not affine
//! in the loop's x index, so the vectorizer gathers (barrier_loop: 80% of its time in two
//! AVX-512 gathers per 16 threads). Over the threads of one row (`tid.y`, `tid.z` fixed) the
//! operand `a = tid.x + u` grows by one per thread, and the wrapped value `a & m` (`m` a low
//! mask `2^k - 1`) or `a % n` is `a - q·2^k` (`a - q·n`) with `q` constant between the
//! points where it wraps. The block function then runs the row's x range in segments that
//! end where one of the region's wrapped indices wraps: a segment header evaluates each
//! wrapped value `v0` at its first thread `xs` (its pure operand chain with `tid.x = xs`)
//! and the distance to its next wrap; inside the segment the value is `x + (v0 - xs)`, and
//! the segment's x loop has contiguous accesses.
//!
//! What qualifies (per region, a dense thread loop): `and.b32 d, a, m` (either operand
//! order) and `rem.{u32,s32} d, a, n` among the instructions that recompute the region's
//! live-in registers (`Regions::replay`) and those of its first block (when nothing in the
//! region jumps back to it), with `a = tid.x + u` in 32 bits and `m`, `n`, `u` the same for
//! the whole row (computed from immediates, parameters, block indices, sizes, `tid.y` and
//! `tid.z` by pure integer instructions). The header checks what the ISA's arithmetic needs
//! at run time: `m` a low mask (`m & (m + 1) == 0`), `n` not zero, for `rem.s32` `a >= 0`
//! and `n > 0` (truncating division then agrees with the unsigned one) without crossing
//! `2^31`, for `rem.u32` without `a` wrapping past `2^32`. Where a check fails the segment
//! is one thread long, which is exact (the value at `xs` is the instruction's own result).
//! Small immediate masks and moduli (a lane index, `t & 31`) are left alone: their segments
//! would be a few threads long.

use crate::ir::visit::{defs, successors, uses};
use crate::ir::{self, BlockId, Dim, IntBinOp, Op, Operand, RegId, ScalarType, SpecialReg, StateSpace, Terminator};
use crate::lower::exec::regions::Regions;
use std::collections::{BTreeSet, HashMap};

/// At most this many wrapped values per region (each costs the segment header a little).
const MAX_WRAPS: usize = 4;

/// Immediate masks and moduli below this period are not segmented.
const MIN_IMMEDIATE_PERIOD: u64 = 64;

/// How a wrapped value wraps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WrapKind {
    /// `a & m`: at multiples of `m + 1`, if `m` is a low mask.
    Mask,
    /// `a % n` (unsigned): at multiples of `n`.
    RemUnsigned,
    /// `a % n` (signed): as unsigned while `a >= 0` and `n > 0`.
    RemSigned,
}

/// One wrapped index: the instruction that computes it and its operands.
#[derive(Debug, Clone)]
pub struct Wrap {
    pub kind: WrapKind,
    /// The instruction: in the region's replay, or in its first block.
    pub at: (BlockId, usize),
    pub dst: RegId,
    /// The instruction's type (32 bits).
    pub ty: ScalarType,
    /// `tid.x + u`.
    pub affine: Operand,
    /// The mask or the modulus.
    pub period: Operand,
}

/// A region's wrapped indices, and what the segment header evaluates for them.
#[derive(Debug, Clone)]
pub struct Segments {
    pub wraps: Vec<Wrap>,
    /// The pure instructions the wraps' operands need (and the wraps themselves), in
    /// order: replay instructions, then (after the block-uniform registers live into the
    /// region are set, as a thread's run sets them) the first block's.
    pub replay_slice: Vec<(BlockId, usize)>,
    pub block_slice: Vec<(BlockId, usize)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// The same for every thread of a row.
    Row,
    /// Exactly `tid.x` (thread indices fit in 16 bits).
    TidX,
    /// `tid.x + u` in the low 32 bits, `u` the same for the row.
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

/// Per register: its shape and the prefix position of its last definition (`None`: from
/// before the prefix).
type RegShapes = HashMap<RegId, (Shape, Option<usize>)>;

/// Regions with more blocks than this look for wrapped indices in their first block only.
const MAX_CHAIN_SEARCH_BLOCKS: usize = 64;

/// The wrapped indices of region `k` worth segmenting its dense loop for; registers in
/// `block_uniform` hold one value for the block.
///
/// The prefix (the replay, then the chain of blocks that every run of the region passes
/// once, in order: its first block and each one's immediate post-dominator that is in no
/// loop) runs once per thread: the shapes of its registers follow it, registers written in
/// the conditional code between two blocks of the chain are unknown after it. Elsewhere in
/// the region a wrapped index qualifies when the registers it reads are written nowhere
/// else: they then hold the values the chain gave them before it (however often it runs).
pub fn analyze(f: &ir::Function, regions: &Regions, k: usize, block_uniform: &BTreeSet<RegId>) -> Option<Segments> {
    let start = *regions.starts.get(k)?;
    let code = regions.code_of(f, &[start.0 as usize]);
    let (chain, gaps) = once_chain(f, regions, start.0 as usize, &code);
    let mut prefix: Vec<(BlockId, usize)> = regions.replay.get(k)?.clone();
    let replayed = prefix.len();
    // Where each chain block's instructions start in the prefix.
    let mut chain_at = vec![];
    for &b in &chain {
        chain_at.push(prefix.len());
        prefix.extend((0..f.blocks[b].insts.len()).map(|i| (BlockId(b as u32), i)));
    }
    let inst = |(b, i): (BlockId, usize)| &f.blocks[b.0 as usize].insts[i];
    let defs_in = |blocks: &[usize]| -> BTreeSet<RegId> {
        let mut d = vec![];
        for &b in blocks {
            for ins in &f.blocks[b].insts {
                defs(&ins.op, &mut d);
            }
        }
        d.into_iter().collect()
    };
    let mut regs: RegShapes = HashMap::new();
    let mut wraps = vec![];
    // Per prefix position: the positions it reads (for the slice).
    let mut reads: Vec<Vec<usize>> = vec![];
    let run = |range: std::ops::Range<usize>, regs: &mut RegShapes, wraps: &mut Vec<(Gap, Wrap)>, reads: &mut Vec<Vec<usize>>| -> Option<()> {
        for pos in range {
            let at = prefix[pos];
            let (shape, operands, wrap) = classify(inst(at), regs);
            if let Some((kind, affine, period)) = wrap {
                wraps.push((Gap::Prefix(pos), wrap_at(f, at, kind, affine, period)?));
            }
            reads.push(positions(&operands, regs));
            let mut d = vec![];
            defs(&inst(at).op, &mut d);
            for r in d {
                regs.insert(r, (shape, Some(pos)));
            }
        }
        Some(())
    };
    run(0..replayed, &mut regs, &mut wraps, &mut reads)?;
    // After the replay the registers live into the region are read from the context.
    for r in regions.live_into_region(k) {
        regs.insert(r, (if block_uniform.contains(&r) { Shape::Row } else { Shape::Other }, None));
    }
    // The shapes after each chain block (what the code of the gap after it sees).
    let before_chain = regs.clone();
    let mut after_chain: Vec<RegShapes> = vec![];
    for c in 0..chain.len() {
        if c > 0 {
            // What the conditional code before this block wrote is unknown here.
            for r in defs_in(&gaps[c - 1]) {
                regs.insert(r, (Shape::Other, None));
            }
        }
        let to = chain_at.get(c + 1).copied().unwrap_or(prefix.len());
        run(chain_at[c]..to, &mut regs, &mut wraps, &mut reads)?;
        after_chain.push(regs.clone());
    }
    let gap_shapes = |g: usize| if chain.is_empty() { &before_chain } else { &after_chain[g] };
    let gap_code: Vec<&[usize]> = if chain.is_empty() { vec![&code[..]] } else { gaps.iter().map(|g| &g[..]).collect() };
    let written_elsewhere = defs_in(&gap_code.concat());
    let mut extra_reads = vec![];
    for (g, blocks) in gap_code.iter().enumerate() {
        for &b in blocks.iter() {
            for (i, ins) in f.blocks[b].insts.iter().enumerate() {
                let shapes = gap_shapes(g);
                let (_, operands, wrap) = classify(ins, shapes);
                let stable = operands.iter().all(|o| !matches!(o, Operand::Reg(r) if written_elsewhere.contains(r)));
                if let (Some((kind, affine, period)), true) = (wrap, stable) {
                    wraps.push((Gap::After(g), wrap_at(f, (BlockId(b as u32), i), kind, affine, period)?));
                    extra_reads.push(positions(&operands, shapes));
                }
            }
        }
    }
    if wraps.is_empty() {
        return None;
    }
    wraps.truncate(MAX_WRAPS);
    extra_reads.truncate(wraps.iter().filter(|(g, _)| matches!(g, Gap::After(_))).count());
    // The slice: the wraps and, transitively, the definitions their operands read.
    let mut needed = vec![false; prefix.len()];
    let mut work: Vec<usize> = wraps.iter().filter_map(|(g, _)| if let Gap::Prefix(p) = g { Some(*p) } else { None }).collect();
    work.extend(extra_reads.concat());
    while let Some(p) = work.pop() {
        if !std::mem::replace(&mut needed[p], true) {
            work.extend(&reads[p]);
        }
    }
    // The header runs the slice in the prefix's order, each gap's wraps after the chain
    // block before it (where the values they read are the same).
    let replay_slice = (0..replayed).filter(|p| needed[*p]).map(|p| prefix[p]).collect();
    let mut block_slice = vec![];
    let gap_wraps = |g: usize| wraps.iter().filter(move |(w, _)| *w == Gap::After(g)).map(|(_, w)| w.at);
    if chain.is_empty() {
        block_slice.extend(gap_wraps(0));
    }
    for (c, &from) in chain_at.iter().enumerate() {
        let to = chain_at.get(c + 1).copied().unwrap_or(prefix.len());
        block_slice.extend((from..to).filter(|p| needed[*p]).map(|p| prefix[p]));
        block_slice.extend(gap_wraps(c));
    }
    Some(Segments { wraps: wraps.into_iter().map(|(_, w)| w).collect(), replay_slice, block_slice })
}

/// Where a wrapped index is: in the prefix (its position), or in the code of a gap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gap {
    Prefix(usize),
    After(usize),
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

fn wrap_at(f: &ir::Function, at: (BlockId, usize), kind: WrapKind, affine: Operand, period: Operand) -> Option<Wrap> {
    match &f.blocks[at.0 .0 as usize].insts[at.1].op {
        Op::IntBinary { ty, dst, .. } => Some(Wrap { kind, at, dst: *dst, ty: *ty, affine, period }),
        _ => None,
    }
}

/// The prefix positions that define the registers among `operands`.
fn positions(operands: &[Operand], regs: &RegShapes) -> Vec<usize> {
    operands.iter().filter_map(|o| if let Operand::Reg(r) = o { regs.get(r).and_then(|(_, p)| *p) } else { None }).collect()
}

/// An instruction's result shape given its operands' (`regs`), the operands it reads for
/// that, and whether it computes a wrapped index: (how, `tid.x + u`, mask or modulus).
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
        Op::Load { space: StateSpace::Param, .. } => {
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
            let (sa, sb) = (shape_of(a).as_x(), shape_of(b).as_x());
            let shape = match (op, sa, sb) {
                (_, Shape::Row, Shape::Row) => Shape::Row,
                (IntBinOp::Add, Shape::X, Shape::Row) | (IntBinOp::Add, Shape::Row, Shape::X) | (IntBinOp::Sub, Shape::X, Shape::Row) if ty.bits() == 32 => {
                    Shape::X
                }
                _ => Shape::Other,
            };
            let wrap = match (op, sa, sb) {
                _ if ty.bits() != 32 => None,
                (IntBinOp::And, Shape::X, Shape::Row) => Some((WrapKind::Mask, *a, *b)),
                (IntBinOp::And, Shape::Row, Shape::X) => Some((WrapKind::Mask, *b, *a)),
                (IntBinOp::Rem, Shape::X, Shape::Row) if ty.is_signed() => Some((WrapKind::RemSigned, *a, *b)),
                (IntBinOp::Rem, Shape::X, Shape::Row) => Some((WrapKind::RemUnsigned, *a, *b)),
                _ => None,
            };
            // Small immediate periods make short segments.
            let long_enough = |(kind, _, period): &(WrapKind, Operand, Operand)| match (period, kind) {
                (Operand::Imm(m), WrapKind::Mask) => (*m & 0xffff_ffff) + 1 >= MIN_IMMEDIATE_PERIOD,
                (Operand::Imm(n), _) => *n & 0xffff_ffff >= MIN_IMMEDIATE_PERIOD,
                _ => true,
            };
            (shape, vec![*a, *b], wrap.filter(long_enough))
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
        _ => (Shape::Other, vec![], None),
    }
}

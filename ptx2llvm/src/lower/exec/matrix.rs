//! `mma.sync` computed in the block function.
//!
//! The dense floating-point forms most kernels use (`.f16`, `.bf16` and `.tf32`
//! multiplicands, `.f32` or `.f16` accumulators, shapes `m16n8k4`, `m16n8k8`, `m16n8k16`)
//! complete like the other warp collectives (`warps`): once every lane of a warp waits at
//! the instruction, the warp's fragment registers are loaded as `<32 x i32>` vectors (one
//! element per lane) and handed to a helper function of the module, one per form, which
//! returns D's registers the same way. No runtime call; the scheduler stays the fallback
//! for warps that are not all there.
//!
//! The helper keeps each row of D as a vector of N columns; each step along K adds one
//! element of A (broadcast) times a row of B. The arithmetic is the runtime's
//! (`ptxrt::matrix::multiply_accumulate`), so that warps completed here and warps the
//! scheduler completes agree bit for bit: every product of two multiplicands is exact in
//! f32 (at most 22 significant bits; where one underflows or overflows, f32's correctly
//! rounded multiply gives what the runtime's exact f64 product converted to f32 gives),
//! and each sum starts from C and adds the products in K order, every addition rounded to
//! nearest f32 (no fused multiply-add: the IR has no `contract` flags). An `.f16` D is C's
//! sum rounded to nearest even, a NaN keeping the top bits of its payload (the runtime's
//! rule). Fragment positions come from the contract (`ptx2llvm_abi::matrix::MmaLayout`).
//!
//! `ldmatrix` from shared memory completes here too: matrix `q`'s row `r` is at the address
//! lane `8q + r` gives (an offset in the block's shared window); the eight rows are loaded
//! whole and one shuffle hands each lane its two elements (`LdMatrixForm`, the runtime's
//! `ld_st_matrix`).
//!
//! Everything else (sparse, block-scaled, integer, `.f64`, single-bit and 8-bit float
//! forms, `m8n8k4`, `wmma`, `ldmatrix` through generic addresses, `stmatrix`, `movmatrix`)
//! stays with the runtime.

use crate::ir::{self, MatrixElem};
use crate::lower::thread::FnCx;
use crate::lower::{LowerError, R};
use inkwell::attributes::AttributeLoc;
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::Linkage;
use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum, VectorType};
use inkwell::values::{BasicValue, FunctionValue, VectorValue};
use inkwell::IntPredicate as P;
use ptx2llvm_abi::matrix::{MmaLayout, Role};

use crate::lower::exec::WARP_LANES as LANES;

/// The most matrix instructions a kernel may have for the block function to complete them.
/// Each completion is vector code over the warp's fragment registers (`<32 x i32>`, 8
/// registers apiece on SSE) in two places (a whole block waiting there, some warps); in a
/// Triton matmul of 64 `mma`s and 16 `ldmatrix`s (the corpus's LibreCuda `complex.ptx`)
/// they made register allocation of its one block function superlinear: -O2 4.6 -> 16.5 s,
/// -O0 1.6 -> 2.9 s. Such kernels keep the scheduler's completion.
pub(crate) const MAX_INLINE_MATRIX_POINTS: usize = 16;

/// Whether the block function of `f` completes matrix instruction `m` itself.
pub(crate) fn computed_inline(f: &ir::Function, m: &ir::MatrixOp) -> bool {
    (MmaForm::of(m).is_some() || LdMatrixForm::of(m).is_some()) && matrix_points(f) <= MAX_INLINE_MATRIX_POINTS
}

/// The matrix instructions of `f` (each a sync point).
fn matrix_points(f: &ir::Function) -> usize {
    f.blocks.iter().filter(|b| matches!(&b.term, ir::Terminator::Sync { point: ir::SyncPoint::Warp(ir::WarpOp::Matrix(_)), .. })).count()
}

/// Operands the block function can read for every lane: registers and immediates.
fn lane_operand(o: &ir::Operand) -> bool {
    matches!(o, ir::Operand::Reg(_) | ir::Operand::Imm(_))
}

/// An `mma` the block function computes itself: its element types, shape and register
/// counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MmaForm {
    /// A's and B's elements.
    ab: MatrixElem,
    c: MatrixElem,
    d: MatrixElem,
    shape: [usize; 3],
    /// Registers per lane of D, A, B and C.
    regs: [usize; 4],
}

fn per_reg(e: MatrixElem) -> usize {
    ptx2llvm_abi::matrix::elements_per_register(e.bits())
}

impl MmaForm {
    /// The form of `m`, when the block function computes it.
    pub(crate) fn of(m: &ir::MatrixOp) -> Option<MmaForm> {
        let ir::MatrixKind::Mma(t) = &m.kind else { return None };
        if t.sparse || t.block_scale.is_some() || t.bit_op.is_some() || t.a != t.b {
            return None;
        }
        let ab_ok = matches!(t.a, MatrixElem::F16 | MatrixElem::BF16 | MatrixElem::TF32);
        let acc_ok = |e: MatrixElem| matches!(e, MatrixElem::F16 | MatrixElem::F32);
        let shape = m.shape.map(|x| x as usize);
        let [mm, n, k] = shape;
        if !ab_ok || !acc_ok(t.c) || !acc_ok(t.d) || mm != 16 || n != 8 || !matches!(k, 4 | 8 | 16) {
            return None;
        }
        // Every element of every matrix in exactly one lane's fragment.
        let regs_of = |elements: usize, e: MatrixElem| (elements % (32 * per_reg(e)) == 0).then_some(elements / (32 * per_reg(e)));
        let regs = [regs_of(mm * n, t.d)?, regs_of(mm * k, t.a)?, regs_of(k * n, t.b)?, regs_of(mm * n, t.c)?];
        let counts = [m.dst.len(), m.src_counts[0] as usize, m.src_counts[1] as usize, m.src_counts[2] as usize];
        if regs != counts || m.src.len() != counts[1] + counts[2] + counts[3] || regs.contains(&0) || !m.src.iter().all(lane_operand) {
            return None;
        }
        Some(MmaForm { ab: t.a, c: t.c, d: t.d, shape, regs })
    }

    fn name(&self) -> String {
        let e = |e: MatrixElem| format!("{e:?}").to_lowercase();
        let [m, n, k] = self.shape;
        format!("__ptx_mma.m{m}n{n}k{k}.{}.{}.{}.{}", e(self.d), e(self.ab), e(self.ab), e(self.c))
    }

    fn layout(&self) -> MmaLayout {
        MmaLayout { shape: self.shape, m8n8k4_f16: false, a_col: false, b_col: false }
    }
}

/// D's registers of one warp, as `<32 x i32>` vectors, from its A, B and C registers
/// (`sources`, in that order, as `<32 x i32>`).
pub(crate) fn compute<'ctx>(fc: &FnCx<'ctx, '_>, form: &MmaForm, sources: &[VectorValue<'ctx>]) -> R<Vec<VectorValue<'ctx>>> {
    let helper = helper(fc, form)?;
    let args: Vec<_> = sources.iter().map(|v| (*v).into()).collect();
    let call = fc.b.build_call(helper, &args, "mma")?;
    let result = call.try_as_basic_value().basic().ok_or_else(|| LowerError::Internal("the mma helper returns no value".into()))?.into_struct_value();
    (0..form.regs[0] as u32).map(|j| Ok(fc.b.build_extract_value(result, j, "")?.into_vector_value())).collect()
}

/// The module's helper for `form` (made on first use).
fn helper<'ctx>(fc: &FnCx<'ctx, '_>, form: &MmaForm) -> R<FunctionValue<'ctx>> {
    let cx = fc.cx;
    let module = &fc.ml.module;
    let name = form.name();
    if let Some(f) = module.get_function(&name) {
        return Ok(f);
    }
    let lanes_ty = cx.i32_type().vec_type(LANES);
    let [nd, na, nb, nc] = form.regs;
    let ret = cx.struct_type(&vec![BasicTypeEnum::from(lanes_ty); nd], false);
    let params: Vec<BasicMetadataTypeEnum> = vec![lanes_ty.into(); na + nb + nc];
    let f = module.add_function(&name, ret.fn_type(&params, false), Some(Linkage::Internal));
    for attr in ["noinline", "nounwind", "willreturn", "nofree", "nosync"] {
        let kind = inkwell::attributes::Attribute::get_named_enum_kind_id(attr);
        f.add_attribute(AttributeLoc::Function, cx.create_enum_attribute(kind, 0));
    }
    let b = cx.create_builder();
    b.position_at_end(cx.append_basic_block(f, "entry"));
    let e = Emit { cx, b: &b };
    let regs: Vec<VectorValue> = f.get_param_iter().map(|p| p.into_vector_value()).collect();
    let (a_regs, rest) = regs.split_at(na);
    let (b_regs, c_regs) = rest.split_at(nb);
    let a = e.elements(form.ab, a_regs)?;
    let bm = e.elements(form.ab, b_regs)?;
    let c = e.elements(form.c, c_regs)?;
    let layout = form.layout();
    let [m, n, k] = form.shape;
    // Where each element of A, B and C is: (fragment element, lane).
    let place = |role: Role, elem: MatrixElem, count: usize, rows: usize, cols: usize| -> R<Vec<(usize, usize)>> {
        let mut at = vec![None; rows * cols];
        for lane in 0..LANES as usize {
            for i in 0..count * per_reg(elem) {
                let (_, r, col) = layout.position(role, elem.bits(), lane, i);
                if r < rows && col < cols {
                    at[r * cols + col] = Some((i, lane));
                }
            }
        }
        at.into_iter().map(|p| p.ok_or_else(|| LowerError::Internal(format!("{} leaves an element of its fragments out", form.name())))).collect()
    };
    let a_at = place(Role::A, form.ab, na, m, k)?;
    let b_at = place(Role::B, form.ab, nb, k, n)?;
    let c_at = place(Role::Acc, form.c, nc, m, n)?;
    let b_rows: Vec<VectorValue> = (0..k).map(|kk| e.pick(&bm, &b_at[kk * n..][..n])).collect::<R<_>>()?;
    let f32t = cx.f32_type();
    let mut d_rows = vec![];
    for r in 0..m {
        let mut acc = e.pick(&c, &c_at[r * n..][..n])?;
        for kk in 0..k {
            let (i, lane) = a_at[r * k + kk];
            let x = b.build_extract_element(a[i], cx.i32_type().const_int(lane as u64, false), "")?.into_float_value();
            let row = b.build_insert_element(f32t.vec_type(n as u32).get_poison(), x, cx.i32_type().const_zero(), "")?;
            let broadcast = b.build_shuffle_vector(row, row.get_type().get_poison(), cx.i32_type().vec_type(n as u32).const_zero(), "")?;
            let product = b.build_float_mul(broadcast, b_rows[kk], "")?;
            acc = b.build_float_add(acc, product, "")?;
        }
        d_rows.push(acc);
    }
    // D's fragment elements, lane by lane from the rows.
    let d_elems: Vec<VectorValue> = (0..nd * per_reg(form.d))
        .map(|i| {
            let picks: Vec<(usize, usize)> = (0..LANES as usize)
                .map(|lane| {
                    let (_, r, col) = layout.position(Role::Acc, form.d.bits(), lane, i);
                    (r, col)
                })
                .collect();
            e.pick(&d_rows, &picks)
        })
        .collect::<R<_>>()?;
    let d = e.registers(form.d, &d_elems)?;
    let mut out = ret.get_poison();
    for (j, v) in d.into_iter().enumerate() {
        out = b.build_insert_value(out, v, j as u32, "")?.into_struct_value();
    }
    b.build_return(Some(&out))?;
    Ok(f)
}

/// Vector code of the helper.
struct Emit<'a, 'ctx> {
    cx: &'ctx Context,
    b: &'a Builder<'ctx>,
}

impl<'ctx> Emit<'_, 'ctx> {
    /// `<32 x i32>` with every element `v`.
    fn k(&self, v: u64) -> VectorValue<'ctx> {
        let i32t = self.cx.i32_type();
        VectorType::const_vector(&vec![i32t.const_int(v, false); LANES as usize])
    }

    fn select(&self, c: VectorValue<'ctx>, a: VectorValue<'ctx>, b: VectorValue<'ctx>) -> R<VectorValue<'ctx>> {
        Ok(self.b.build_select(c, a, b, "")?.into_vector_value())
    }

    /// The fragment elements of `regs` (`<32 x i32>`) as `<32 x float>` values: element
    /// `i` is part `i % per_reg` of register `i / per_reg` (the low half first), decoded as
    /// the runtime's `Elem::decode` does (exactly).
    fn elements(&self, elem: MatrixElem, regs: &[VectorValue<'ctx>]) -> R<Vec<VectorValue<'ctx>>> {
        let b = self.b;
        let f32v = self.cx.f32_type().vec_type(LANES);
        let bits = |v: VectorValue<'ctx>| -> R<VectorValue<'ctx>> { Ok(b.build_bit_cast(v, f32v, "")?.into_vector_value()) };
        let mut out = vec![];
        for &r in regs {
            match elem {
                MatrixElem::F32 => out.push(bits(r)?),
                // The matrix unit reads the upper 19 bits.
                MatrixElem::TF32 => out.push(bits(b.build_and(r, self.k(0xffff_e000), "")?)?),
                MatrixElem::BF16 => {
                    out.push(bits(b.build_left_shift(r, self.k(16), "")?)?);
                    out.push(bits(b.build_and(r, self.k(0xffff_0000), "")?)?);
                }
                MatrixElem::F16 => {
                    let lo = b.build_and(r, self.k(0xffff), "")?;
                    let hi = b.build_right_shift(r, self.k(16), false, "")?;
                    out.push(self.f16_to_f32(lo)?);
                    out.push(self.f16_to_f32(hi)?);
                }
                _ => return Err(LowerError::Internal(format!("mma elements {elem:?} are the runtime's"))),
            }
        }
        Ok(out)
    }

    /// binary16 bits (in the low half of each `i32`) to their exact `f32` value.
    fn f16_to_f32(&self, h: VectorValue<'ctx>) -> R<VectorValue<'ctx>> {
        let b = self.b;
        let f32v = self.cx.f32_type().vec_type(LANES);
        let sign = b.build_left_shift(b.build_and(h, self.k(0x8000), "")?, self.k(16), "")?;
        let exp = b.build_and(h, self.k(0x7c00), "")?;
        // Normal numbers: the fields moved and the exponent rebiased (15 -> 127); infinities
        // and NaNs keep an all-ones exponent and the payload.
        let moved = b.build_left_shift(b.build_and(h, self.k(0x7fff), "")?, self.k(13), "")?;
        let normal = b.build_int_add(moved, self.k(112 << 23), "")?;
        let special = b.build_or(moved, self.k(0x7f80_0000), "")?;
        let is_special = b.build_int_compare(P::EQ, exp, self.k(0x7c00), "")?;
        let normal = self.select(is_special, special, normal)?;
        // Zeros and subnormals: the fraction times 2^-24, exact in f32.
        let frac = b.build_and(h, self.k(0x3ff), "")?;
        let scale = VectorType::const_vector(&vec![self.cx.f32_type().const_float(2f64.powi(-24)); LANES as usize]);
        let tiny = b.build_float_mul(b.build_unsigned_int_to_float(frac, f32v, "")?, scale, "")?;
        let tiny = b.build_bit_cast(tiny, self.cx.i32_type().vec_type(LANES), "")?.into_vector_value();
        let is_tiny = b.build_int_compare(P::EQ, exp, self.k(0), "")?;
        let magnitude = self.select(is_tiny, tiny, normal)?;
        Ok(b.build_bit_cast(b.build_or(magnitude, sign, "")?, f32v, "")?.into_vector_value())
    }

    /// `<32 x float>` to binary16 bits (in the low half of each `i32`), rounded to nearest
    /// even: beyond the largest finite value infinity, below half the smallest subnormal
    /// zero, a NaN quiet with the top 9 bits of its payload (the runtime's `f32_to_f16`).
    fn f32_to_f16(&self, x: VectorValue<'ctx>) -> R<VectorValue<'ctx>> {
        let b = self.b;
        let x = b.build_bit_cast(x, self.cx.i32_type().vec_type(LANES), "")?.into_vector_value();
        let sign = b.build_and(b.build_right_shift(x, self.k(16), false, "")?, self.k(0x8000), "")?;
        let exp = b.build_and(b.build_right_shift(x, self.k(23), false, "")?, self.k(0xff), "")?;
        let man = b.build_and(x, self.k(0x7f_ffff), "")?;
        // The f16 exponent, signed.
        let e = b.build_int_sub(exp, self.k(112), "")?;
        let normal = b.build_int_compare(P::SGE, e, self.k(1), "")?;
        // Normal: 13 bits dropped from exponent and mantissa together (a carry out of the
        // mantissa steps the exponent, up to infinity). Subnormal (e in -10..=0): the
        // mantissa with its leading one, 14 - e bits dropped.
        let value = self.select(normal, b.build_or(b.build_left_shift(e, self.k(23), "")?, man, "")?, b.build_or(man, self.k(0x80_0000), "")?)?;
        let sub_shift = b.build_int_sub(self.k(14), e, "")?;
        let sub_shift = self.select(b.build_int_compare(P::UGT, sub_shift, self.k(31), "")?, self.k(31), sub_shift)?;
        let shift = self.select(normal, self.k(13), sub_shift)?;
        let kept = b.build_right_shift(value, shift, false, "")?;
        let low_mask = b.build_int_sub(b.build_left_shift(self.k(1), shift, "")?, self.k(1), "")?;
        let rem = b.build_and(value, low_mask, "")?;
        let half = b.build_left_shift(self.k(1), b.build_int_sub(shift, self.k(1), "")?, "")?;
        let odd = b.build_int_compare(P::NE, b.build_and(kept, self.k(1), "")?, self.k(0), "")?;
        let above = b.build_int_compare(P::UGT, rem, half, "")?;
        let tie = b.build_and(b.build_int_compare(P::EQ, rem, half, "")?, odd, "")?;
        let up = b.build_int_z_extend(b.build_or(above, tie, "")?, self.cx.i32_type().vec_type(LANES), "")?;
        let rounded = b.build_or(sign, b.build_int_add(kept, up, "")?, "")?;
        let infinity = b.build_or(sign, self.k(0x7c00), "")?;
        let nan = b.build_or(infinity, b.build_or(self.k(0x200), b.build_right_shift(man, self.k(13), false, "")?, "")?, "")?;
        let is_nan_or_inf = b.build_int_compare(P::EQ, exp, self.k(0xff), "")?;
        let is_nan = b.build_and(is_nan_or_inf, b.build_int_compare(P::NE, man, self.k(0), "")?, "")?;
        let too_big = b.build_int_compare(P::SGE, e, self.k(0x1f), "")?;
        let too_small = b.build_int_compare(P::SLT, e, self.k((-10i64) as u64 & 0xffff_ffff), "")?;
        let r = self.select(too_small, sign, rounded)?;
        let r = self.select(b.build_or(too_big, is_nan_or_inf, "")?, infinity, r)?;
        self.select(is_nan, nan, r)
    }

    /// D's registers (`<32 x i32>`) from its fragment elements (`<32 x float>`).
    fn registers(&self, elem: MatrixElem, elems: &[VectorValue<'ctx>]) -> R<Vec<VectorValue<'ctx>>> {
        let b = self.b;
        let i32v = self.cx.i32_type().vec_type(LANES);
        match elem {
            MatrixElem::F32 => elems.iter().map(|v| Ok(b.build_bit_cast(*v, i32v, "")?.into_vector_value())).collect(),
            MatrixElem::F16 => elems
                .chunks(2)
                .map(|pair| {
                    let lo = self.f32_to_f16(pair[0])?;
                    let hi = match pair.get(1) {
                        Some(v) => b.build_left_shift(self.f32_to_f16(*v)?, self.k(16), "")?,
                        None => self.k(0),
                    };
                    Ok(b.build_or(lo, hi, "")?)
                })
                .collect(),
            _ => Err(LowerError::Internal(format!("mma results {elem:?} are the runtime's"))),
        }
    }

    /// A vector of `picks.len()` elements: element `j` is element `picks[j].1` of
    /// `sources[picks[j].0]` (vectors of one type). One shuffle of one or two sources;
    /// more sources are first joined into one vector.
    fn pick(&self, sources: &[VectorValue<'ctx>], picks: &[(usize, usize)]) -> R<VectorValue<'ctx>> {
        let b = self.b;
        let i32t = self.cx.i32_type();
        let mut used: Vec<usize> = picks.iter().map(|p| p.0).collect();
        used.sort_unstable();
        used.dedup();
        let width = sources[used[0]].get_type().get_size() as usize;
        let mask = |index: &dyn Fn(usize) -> usize| -> VectorValue<'ctx> {
            VectorType::const_vector(&picks.iter().map(|&(s, e)| i32t.const_int((index(s) * width + e) as u64, false)).collect::<Vec<_>>())
        };
        if used.len() <= 2 {
            let first = sources[used[0]];
            let second = used.get(1).map(|&s| sources[s]).unwrap_or_else(|| first.get_type().get_poison());
            let slot = |s: usize| if s == used[0] { 0 } else { 1 };
            return Ok(b.build_shuffle_vector(first, second, mask(&slot), "")?);
        }
        // Join the used sources pairwise (padding with poison to a power of two).
        let mut level: Vec<VectorValue<'ctx>> = used.iter().map(|&s| sources[s]).collect();
        level.resize(used.len().next_power_of_two(), sources[used[0]].get_type().get_poison());
        while level.len() > 1 {
            level = level
                .chunks(2)
                .map(|pair| {
                    let n = pair[0].get_type().get_size() as u64;
                    let both = VectorType::const_vector(&(0..2 * n).map(|i| i32t.const_int(i, false)).collect::<Vec<_>>());
                    Ok(b.build_shuffle_vector(pair[0], pair[1], both, "")?)
                })
                .collect::<R<_>>()?;
        }
        let joined = level[0];
        let slot = |s: usize| used.iter().position(|&u| u == s).unwrap_or(0);
        Ok(b.build_shuffle_vector(joined, joined.get_type().get_poison(), mask(&slot), "")?)
    }
}

/// An `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16` the block function completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LdMatrixForm {
    /// Matrices loaded (1, 2 or 4): one destination register each.
    num: usize,
    trans: bool,
}

impl LdMatrixForm {
    pub(crate) fn of(m: &ir::MatrixOp) -> Option<LdMatrixForm> {
        let ir::MatrixKind::LdMatrix { num, trans } = m.kind else { return None };
        let num = num as usize;
        let shared = matches!(&m.addr, Some((a, ir::StateSpace::Shared)) if lane_operand(a));
        (shared && matches!(num, 1 | 2 | 4) && m.dst.len() == num).then_some(LdMatrixForm { num, trans })
    }

    /// The lanes' destination registers (`<32 x i32>`, one per matrix) from the lanes'
    /// row addresses (`<32 x i64>` offsets in the shared window `shared`).
    pub(crate) fn load<'ctx>(&self, fc: &FnCx<'ctx, '_>, addresses: VectorValue<'ctx>) -> R<Vec<VectorValue<'ctx>>> {
        let (cx, b) = (fc.cx, &fc.b);
        let i32t = cx.i32_type();
        let i16t = cx.i16_type();
        let rows16 = i16t.vec_type(8);
        (0..self.num)
            .map(|q| {
                // Matrix q's eight rows of eight 16-bit elements, each read whole at the
                // address lane 8q + r gives (an offset in the block's shared window: the
                // ISA's contract for `.shared` row addresses, which the runtime reads the
                // same way), joined row-major into 64 elements.
                let mut rows = vec![];
                for r in 0..8u64 {
                    let offset = b.build_extract_element(addresses, i32t.const_int(8 * q as u64 + r, false), "")?.into_int_value();
                    // SAFETY (of the IR): an offset inside the shared window.
                    let at = unsafe { b.build_gep(cx.i8_type(), fc.uni.shared, &[offset], "ldmatrix.row")? };
                    let row = b.build_load(rows16, at, "")?;
                    row.as_instruction_value()
                        .ok_or_else(|| LowerError::Internal("a load is an instruction".into()))?
                        .set_alignment(1)
                        .map_err(|e| LowerError::Internal(e.to_string()))?;
                    rows.push(row.into_vector_value());
                }
                let all: Vec<(usize, usize)> = (0..64).map(|e| (e / 8, e % 8)).collect();
                let m = Emit { cx, b }.pick(&rows, &all)?;
                // Lane l holds elements (l / 4, 2 (l % 4)) and (l / 4, 2 (l % 4) + 1), low
                // half first; `.trans`: those of the transpose, (2 (l % 4), l / 4) and
                // (2 (l % 4) + 1, l / 4).
                let element = |row: usize, col: usize| i32t.const_int((8 * row + col) as u64, false);
                let mask: Vec<_> = (0..LANES as usize)
                    .flat_map(|l| {
                        let (r, c) = (l / 4, 2 * (l % 4));
                        if self.trans {
                            [element(c, r), element(c + 1, r)]
                        } else {
                            [element(r, c), element(r, c + 1)]
                        }
                    })
                    .collect();
                let pairs = b.build_shuffle_vector(m, m.get_type().get_poison(), VectorType::const_vector(&mask), "ldmatrix")?;
                Ok(b.build_bit_cast(pairs, i32t.vec_type(LANES), "")?.into_vector_value())
            })
            .collect()
    }
}

//! Warp-level matrix instructions (`mma`, `wmma.load/.mma/.store`, `ldmatrix`, `stmatrix`,
//! `movmatrix`, ISA 9.2 §9.7.14) and the non-bulk asynchronous copy (`cp.async`,
//! `cp.async.commit_group`, `cp.async.wait_group`, `cp.async.wait_all`, §9.7.9.25.3).
//!
//! The matrix instructions become warp sync points (`ir::WarpOp::Matrix`): the runtime
//! computes them once every live lane of the warp arrived, reading and writing the lanes'
//! fragment registers. Their memory operand is handed over as one value (a register, or a
//! scratch register computed just before the sync point from `[reg+offset]` / `[var+offset]`).

use super::function::{FnScope, LocalOrGlobal, LocalSymbol};
use super::instruction::{expect_operands, unsupported, Converted, Mods, PendingTerm};
use super::operands::Width;
use crate::front::ast::{self, Operand as A, Spanned};
use crate::ir::{
    self, AddressBase, BlockScale, IntBinOp, MatrixElem, MatrixKind, MatrixOp, MatrixRole, MmaBitOp, MmaTypes, Op, Operand, Rounding, ScalarType, StateSpace,
};

type Guard = Option<ir::PredRef>;

const ELEM_NAMES: &[&str] =
    &[".f16", ".bf16", ".tf32", ".f32", ".f64", ".s8", ".u8", ".s32", ".s4", ".u4", ".e4m3", ".e5m2", ".b1", ".e3m2", ".e2m3", ".e2m1", ".b16", ".b8"];

const SHAPES: &[&str] = &[
    ".m8n8k4",
    ".m16n8k4",
    ".m16n8k8",
    ".m16n8k16",
    ".m16n8k32",
    ".m16n8k64",
    ".m8n8k16",
    ".m8n8k32",
    ".m8n8k128",
    ".m16n8k128",
    ".m16n8k256",
    ".m16n16k16",
    ".m32n8k16",
    ".m8n32k16",
    ".m16n16k8",
];

fn elem(name: &str) -> Option<MatrixElem> {
    Some(match name {
        ".f16" => MatrixElem::F16,
        ".bf16" => MatrixElem::BF16,
        ".tf32" => MatrixElem::TF32,
        ".f32" => MatrixElem::F32,
        ".f64" => MatrixElem::F64,
        ".s8" => MatrixElem::S8,
        ".u8" => MatrixElem::U8,
        ".s32" => MatrixElem::S32,
        ".s4" => MatrixElem::S4,
        ".u4" => MatrixElem::U4,
        ".e4m3" => MatrixElem::E4M3,
        ".e5m2" => MatrixElem::E5M2,
        ".b1" => MatrixElem::B1,
        ".e3m2" => MatrixElem::E3M2,
        ".e2m3" => MatrixElem::E2M3,
        ".e2m1" => MatrixElem::E2M1,
        _ => return None,
    })
}

/// The element-type modifiers in written order; `None` for types the runtime lacks
/// (`.b16`, `.b8` of the load/store forms it does not translate).
fn elem_types(mods: &mut Mods) -> Vec<Option<MatrixElem>> {
    let mut out = vec![];
    while let Some(n) = mods.one_of(ELEM_NAMES) {
        out.push(elem(n));
    }
    out
}

/// `.mMnNkK` as `[M, N, K]`.
fn shape(mods: &mut Mods) -> Option<[u32; 3]> {
    let s = mods.one_of(SHAPES)?;
    let (m, rest) = s.strip_prefix(".m")?.split_once('n')?;
    let (n, k) = rest.split_once('k')?;
    Some([m.parse().ok()?, n.parse().ok()?, k.parse().ok()?])
}

/// The register type a fragment element is checked against: packed elements live in
/// `.b32` registers (`.f16x2`, four `.s8`, ...), the others in registers of their own type.
fn register_type(e: MatrixElem) -> ScalarType {
    match e {
        MatrixElem::F32 => ScalarType::F32,
        MatrixElem::F64 => ScalarType::F64,
        MatrixElem::S32 => ScalarType::S32,
        _ => ScalarType::B32,
    }
}

/// Registers of an `mma` fragment holding `elements` elements of `bits` bits per lane.
fn packed_regs(elements: u32, bits: u32) -> u32 {
    if bits >= 32 {
        elements
    } else {
        elements * bits / 32
    }
}

/// Registers per lane of each `mma` fragment (A, B, C, D), per the ISA's fragment tables.
fn mma_regs(shape: [u32; 3], t: &MmaTypes) -> [u32; 4] {
    let [m, n, k] = shape;
    if shape == [8, 8, 4] && t.a == MatrixElem::F16 {
        // Four 8x8x4 products per warp: each lane holds 4 elements of A and B, 8 of C/D.
        return [2, 2, packed_regs(8, t.c.bits()), packed_regs(8, t.d.bits())];
    }
    // `.kind::mxf4*` packs `.e2m1` eight to a register instead of in 8-bit containers.
    let multiplicand_bits = |e: MatrixElem| if t.block_scale.is_some_and(|s| s.packed_e2m1) { 4 } else { e.bits() };
    [
        packed_regs(m * k / 32, multiplicand_bits(t.a)),
        packed_regs(k * n / 32, multiplicand_bits(t.b)),
        packed_regs(m * n / 32, t.c.bits()),
        packed_regs(m * n / 32, t.d.bits()),
    ]
}

/// Registers per lane of a `wmma` fragment of `role` (`None`: C/D) with elements `e`, per the
/// ISA's table: the matrix divided evenly over the 32 lanes, except `.f16` A and B fragments,
/// which are always eight `.f16x2` registers.
fn wmma_regs(shape: [u32; 3], role: Option<MatrixRole>, e: MatrixElem) -> u32 {
    let [m, n, k] = shape;
    let elements = match role {
        Some(MatrixRole::A) => m * k,
        Some(MatrixRole::B) => k * n,
        _ => m * n,
    } / 32;
    if e == MatrixElem::F16 && role.is_some_and(|r| r != MatrixRole::C) {
        return 8;
    }
    packed_regs(elements, e.bits())
}

/// Fragment and selector operands are written as vectors even of one register (`{%r0}`),
/// or name a vector variable; ptxas rejects a bare register there.
fn vector_syntax(scope: &mut FnScope, op: &Spanned<A>, what: &str) -> Option<()> {
    let named_vector = match &op.node {
        A::Name { name, component: None } => matches!(scope.lookup(name), Some(LocalOrGlobal::Local(LocalSymbol::Vector(..)))),
        _ => false,
    };
    if matches!(op.node, A::Vector(_)) || named_vector {
        return Some(());
    }
    scope.error(op.span.clone(), format!("{what} is a vector operand (`{{...}}`), even of one register"));
    None
}

/// The registers of a vector operand `{r0, r1, ...}` as destinations.
fn dst_vector(scope: &mut FnScope, op: &Spanned<A>, count: u32, ty: ScalarType, what: &str) -> Option<Vec<ir::RegId>> {
    vector_syntax(scope, op, what)?;
    let elems = scope.vector_elements(op);
    if elems.len() != count as usize {
        scope.error(op.span.clone(), format!("{what} is a vector of {count} registers here, found {}", elems.len()));
        return None;
    }
    elems.iter().map(|e| scope.dst(e, ty, Width::Exact)).collect()
}

fn src_vector(scope: &mut FnScope, op: &Spanned<A>, count: u32, ty: ScalarType, what: &str) -> Option<Vec<Operand>> {
    vector_syntax(scope, op, what)?;
    let elems = scope.vector_elements(op);
    if elems.len() != count as usize {
        scope.error(op.span.clone(), format!("{what} is a vector of {count} registers here, found {}", elems.len()));
        return None;
    }
    elems.iter().map(|e| scope.src(e, ty, Width::Exact)).collect()
}

/// The memory operand of a matrix load/store as one value and its state space. Offsets and
/// variables are folded into a scratch register by an instruction pushed to `prep`.
fn matrix_address(scope: &mut FnScope, op: &Spanned<A>, space: StateSpace, prep: &mut Vec<ir::Inst>, span: &ast::Span) -> Option<(Operand, StateSpace)> {
    let addr = scope.address_in(op, space)?;
    let inst = |op| ir::Inst { guard: None, op, span: span.clone() };
    match addr.base {
        AddressBase::Reg(r) if addr.offset == 0 => Some((Operand::Reg(r), space)),
        AddressBase::Reg(r) => {
            let ty = if scope.reg_type(r).bits() == 64 { ScalarType::U64 } else { ScalarType::U32 };
            let dst = scope.scratch_reg(ty);
            let off = if ty == ScalarType::U32 { addr.offset as u32 as u64 } else { addr.offset as u64 };
            prep.push(inst(Op::IntBinary { op: IntBinOp::Add, ty, sat: false, dst, a: Operand::Reg(r), b: Operand::Imm(off) }));
            Some((Operand::Reg(dst), space))
        }
        AddressBase::Var(v) => {
            // A variable's address in its own space: shared variables are window offsets,
            // global and const ones host addresses.
            let var_space = match scope.cx.out.vars[v.0 as usize].space {
                StateSpace::Shared => StateSpace::Shared,
                StateSpace::Global | StateSpace::Const => StateSpace::Global,
                _ => {
                    scope.error(op.span.clone(), "matrix instructions address `.shared`, `.global` or generic memory");
                    return None;
                }
            };
            let dst = scope.scratch_reg(ScalarType::U64);
            prep.push(inst(Op::Mov { ty: ScalarType::U64, dst, src: Operand::VarAddr(v, addr.offset) }));
            Some((Operand::Reg(dst), var_space))
        }
        AddressBase::Absolute => Some((Operand::Imm(addr.offset as u64), space)),
        AddressBase::Param(_) | AddressBase::Return(_) => {
            scope.error(op.span.clone(), "matrix instructions address `.shared`, `.global` or generic memory, not parameters");
            None
        }
    }
}

fn matrix_space(mods: &mut Mods) -> StateSpace {
    match mods.one_of(&[".shared", ".shared::cta", ".global"]) {
        Some(".global") => StateSpace::Global,
        Some(_) => StateSpace::Shared,
        None => StateSpace::Generic,
    }
}

/// The instruction as written (`` `mma.sync.aligned...` ``), for `not supported yet` messages.
fn written(inst: &ast::Instruction) -> String {
    let mods: String = inst.modifiers.iter().map(|m| m.node.as_str()).collect();
    format!("`{}{mods}`", inst.opcode.node)
}

fn finish(op: MatrixOp, prep: Vec<ir::Inst>, guard: Guard) -> Option<Converted> {
    let term = PendingTerm::Sync(ir::SyncPoint::Warp(ir::WarpOp::Matrix(Box::new(op))));
    if prep.is_empty() {
        Some(Converted::Term(term, guard))
    } else {
        Some(Converted::Prepared(prep, term, guard))
    }
}

pub(super) fn warp_matrix(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    mods.has(".sync");
    mods.has(".aligned");
    match opcode {
        "mma" => mma(scope, inst, mods, guard),
        "wmma" => wmma(scope, inst, mods, guard),
        _ => ld_st_mov_matrix(scope, inst, mods, guard),
    }
}

/// The types of `mma`/`wmma.mma` from the written type list (`.dtype.atype.btype.ctype`,
/// or `.dtype.ctype` for `.f16` multiplicands).
fn mma_types(types: &[Option<MatrixElem>]) -> Option<[MatrixElem; 4]> {
    let [d, a, b, c] = match types {
        [d, c] => [*d, Some(MatrixElem::F16), Some(MatrixElem::F16), *c],
        [d, a, b, c] => [*d, *a, *b, *c],
        _ => return None,
    };
    Some([a?, b?, c?, d?])
}

/// The layouts, `.satfinite`, rounding, single-bit operation, `.kind`, block scaling and
/// element types of `mma` and `wmma.mma`. The form table has checked which of them go
/// together, except `.ue4m3` with `.scale_vec::2X` (see `mma`).
fn mma_form(mods: &mut Mods) -> Option<MmaTypes> {
    let a_col = mods.one_of(&[".row", ".col"]) == Some(".col");
    let b_col = mods.one_of(&[".row", ".col"]) == Some(".col");
    let satfinite = mods.has(".satfinite");
    let rounding = match mods.one_of(&[".rn", ".rz", ".rm", ".rp"]) {
        Some(".rz") => Rounding::TowardZero,
        Some(".rm") => Rounding::Down,
        Some(".rp") => Rounding::Up,
        _ => Rounding::NearestEven,
    };
    let bit_op = match mods.one_of(&[".xor", ".and"]) {
        Some(".xor") => Some(MmaBitOp::Xor),
        Some(_) => Some(MmaBitOp::And),
        None => None,
    };
    // `.popc` completes the single-bit operation (the form table requires it there).
    mods.has(".popc");
    // `.kind::f8f6f4` and `.kind::mxf8f6f4` only say that 6- and 4-bit elements sit in
    // 8-bit containers, which their element types already say; `.kind::mxf4*` packs them.
    let kind = mods.one_of(&[".kind::f8f6f4", ".kind::mxf8f6f4", ".kind::mxf4", ".kind::mxf4nvf4"]);
    let scaled = mods.has(".block_scale");
    let vec = mods.one_of(&[".scale_vec::1X", ".scale_vec::2X", ".scale_vec::4X"]);
    let [a, b, c, d] = mma_types(&elem_types(mods))?;
    let stype = mods.one_of(&[".ue8m0", ".ue4m3"]);
    let block_scale = match (scaled, vec, stype) {
        (false, None, None) => None,
        (false, ..) => return None,
        (true, ..) => {
            let packed_e2m1 = matches!(kind, Some(".kind::mxf4" | ".kind::mxf4nvf4"));
            // Without `.scale_vec`: 2X for `.kind::mxf4`, 1X for `.kind::mxf8f6f4`.
            let vec = match vec {
                Some(".scale_vec::1X") => 1,
                Some(".scale_vec::2X") => 2,
                Some(_) => 4,
                None if packed_e2m1 => 2,
                None => 1,
            };
            Some(BlockScale { vec, ue4m3: stype == Some(".ue4m3"), packed_e2m1 })
        }
    };
    Some(MmaTypes { a, b, c, d, a_col, b_col, satfinite, rounding, bit_op, block_scale, sparse: false })
}

fn mma(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let what = written(inst);
    // `.sp::ordered_metadata` only promises sorted metadata indices: the same product.
    let sparse = mods.one_of(&[".sp", ".sp::ordered_metadata"]).is_some();
    let Some(shape) = shape(&mut mods) else { return unsupported(scope, inst, guard, what) };
    let Some(mut t) = mma_form(&mut mods) else { return unsupported(scope, inst, guard, what) };
    if !mods.finish() {
        return unsupported(scope, inst, guard, what);
    }
    t.sparse = sparse;
    // d, a, b, c; then e, f of a sparse A; then the block-scaling operands.
    let scale_first = if sparse { 6 } else { 4 };
    if !expect_operands(scope, inst, &[scale_first + if t.block_scale.is_some() { 4 } else { 0 }]) {
        return None;
    }
    let mut regs = mma_regs(shape, &t);
    let mut extra = vec![];
    if sparse {
        // A sparse A fragment holds the K/2 stored columns.
        regs[0] /= 2;
        extra = sparsity_operands(scope, inst, shape, &t)?;
    }
    let Some(scaling) = t.block_scale else {
        return mma_operands(scope, inst, MatrixKind::Mma(t), shape, regs, &t, extra, guard);
    };
    // Table 36: `.ue4m3` scale factors come four per register only.
    if scaling.ue4m3 && scaling.vec != 4 {
        scope.error(inst.opcode.span.clone(), "`.ue4m3` scale factors need `.scale_vec::4X`");
        return None;
    }
    // A combination the form table cannot express: four `.ue8m0` per register came with 9.1.
    let version = scope.cx.out.version;
    if scaling.vec == 4 && !scaling.ue4m3 && version < (9, 1) {
        let msg = format!("`.scale_vec::4X` with `.ue8m0` requires PTX ISA version 9.1 or later (the file declares `.version {}.{}`)", version.0, version.1);
        scope.error(inst.opcode.span.clone(), msg);
        return None;
    }
    extra.extend(scale_operands(scope, &inst.operands[scale_first..], scaling)?);
    mma_operands(scope, inst, MatrixKind::Mma(t), shape, regs, &t, extra, guard)
}

/// Operands `e, f` of `mma.sp`: the sparsity metadata (a 32-bit register) and the sparsity
/// selector, an integer constant naming the lanes of each quad that hold the metadata
/// (§9.7.14.6.1): one lane (0 to 3), a lane pair (0 or 1) or all four (0). The ranges are
/// ptxas's, which also accepts 2 and 3 for `.f16` m16n8k32 with `.f32` accumulators
/// (undefined behaviour there, reported at run time).
fn sparsity_operands(scope: &mut FnScope, inst: &ast::Instruction, shape: [u32; 3], t: &MmaTypes) -> Option<Vec<Operand>> {
    let ops = &inst.operands;
    let metadata = scope.src(&ops[4], ScalarType::B32, Width::Exact)?;
    if let Operand::Imm(_) = metadata {
        scope.error(ops[4].span.clone(), "the sparsity metadata of `mma.sp` is a register");
        return None;
    }
    let selector = scope.src(&ops[5], ScalarType::U32, Width::Exact)?;
    let Operand::Imm(value) = selector else {
        scope.error(ops[5].span.clone(), "the sparsity selector of `mma.sp` is an integer constant");
        return None;
    };
    // Chunks of a row of A (4 elements; 2 for `.tf32`, 8 for 4-bit ones), 4 per metadata lane.
    let bits = if t.block_scale.is_some_and(|s| s.packed_e2m1) { 4 } else { t.a.bits() };
    let chunk = match bits {
        32 => 2,
        4 => 8,
        _ => 4,
    };
    let max = match shape[2] / chunk / 4 {
        1 => 3,
        2 if t.a == MatrixElem::F16 && t.d == MatrixElem::F32 => 3,
        2 => 1,
        _ => 0,
    };
    if value > max {
        let valid = if max == 0 { "0".to_string() } else { format!("0 to {max}") };
        scope.error(ops[5].span.clone(), format!("the sparsity selector is {valid} for this shape and type, found {value}"));
        return None;
    }
    Some(vec![metadata, selector])
}

/// The four operands of a block-scaled `mma` after its fragments (and sparsity operands):
/// scale-a-data, `{byte-id-a, thread-id-a}`, scale-b-data, `{byte-id-b, thread-id-b}` as six
/// values. Immediate selectors are checked against the ISA's Table 37 (other values are
/// undefined behaviour).
fn scale_operands(scope: &mut FnScope, ops: &[Spanned<A>], scaling: BlockScale) -> Option<Vec<Operand>> {
    let mut out = vec![];
    // thread-id-a picks a lane pair of each quad, thread-id-b one lane.
    for (data, selector, matrix, lanes) in [(&ops[0], &ops[1], 'a', 2), (&ops[2], &ops[3], 'b', 4)] {
        out.push(scope.src(data, ScalarType::B32, Width::Exact)?);
        let what = format!("the selector `{{byte-id-{matrix}, thread-id-{matrix}}}`");
        let pair = src_vector(scope, selector, 2, ScalarType::U16, &what)?;
        let elems = scope.vector_elements(selector);
        let bytes: &[u64] = match scaling.vec {
            1 => &[0, 1, 2, 3],
            2 => &[0, 2],
            _ => &[0],
        };
        if let Operand::Imm(byte) = pair[0] {
            if !bytes.contains(&byte) {
                let valid = match bytes {
                    [only] => format!("is {only}"),
                    _ => format!("is one of {}", bytes.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(", ")),
                };
                scope.error(elems[0].span.clone(), format!("byte-id-{matrix} {valid} with `.scale_vec::{}X`, found {byte}", scaling.vec));
                return None;
            }
        }
        if let Operand::Imm(thread) = pair[1] {
            if thread >= lanes {
                scope.error(elems[1].span.clone(), format!("thread-id-{matrix} is 0 to {}, found {thread}", lanes - 1));
                return None;
            }
        }
        out.extend(pair);
    }
    Some(out)
}

/// The operands of `mma` and `wmma.mma`: D, A, B, C fragments, then `extra` sources.
#[allow(clippy::too_many_arguments)]
fn mma_operands(
    scope: &mut FnScope,
    inst: &ast::Instruction,
    kind: MatrixKind,
    shape: [u32; 3],
    regs: [u32; 4],
    t: &MmaTypes,
    extra: Vec<Operand>,
    guard: Guard,
) -> Option<Converted> {
    let ops = &inst.operands;
    let dst = dst_vector(scope, &ops[0], regs[3], register_type(t.d), "the D fragment")?;
    let mut src = src_vector(scope, &ops[1], regs[0], register_type(t.a), "the A fragment")?;
    src.extend(src_vector(scope, &ops[2], regs[1], register_type(t.b), "the B fragment")?);
    src.extend(src_vector(scope, &ops[3], regs[2], register_type(t.c), "the C fragment")?);
    src.extend(extra);
    let op = MatrixOp { kind, shape, dst, src, src_counts: [regs[0], regs[1], regs[2]], addr: None, stride: None };
    finish(op, vec![], guard)
}

fn wmma(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let what = written(inst);
    let action = mods.one_of(&[".load", ".store", ".mma"]);
    let role = match mods.one_of(&[".a", ".b", ".c", ".d"]) {
        Some(".a") => Some(MatrixRole::A),
        Some(".b") => Some(MatrixRole::B),
        Some(".c") => Some(MatrixRole::C),
        _ => None,
    };
    let Some(shape) = shape(&mut mods) else { return unsupported(scope, inst, guard, what) };
    let ops = &inst.operands;
    match action {
        Some(".mma") => {
            let Some(t) = mma_form(&mut mods) else { return unsupported(scope, inst, guard, what) };
            if t.block_scale.is_some() || !mods.finish() {
                return unsupported(scope, inst, guard, what);
            }
            // The form table has no separate entry for single-bit `.and` (ISA: PTX 7.1, `sm_80`).
            if t.bit_op == Some(MmaBitOp::And) {
                let declared = scope.cx.out.version;
                let target = scope.cx.target_sm.filter(|&sm| sm < 80);
                if declared < (7, 1) || target.is_some() {
                    let file = match target {
                        Some(sm) => format!("the file targets `sm_{sm}`"),
                        None => format!("the file declares `.version {}.{}`", declared.0, declared.1),
                    };
                    scope.error(
                        inst.opcode.span.start..inst.span.end,
                        format!("`.and` in {what} requires PTX ISA version 7.1 and `.target sm_80` or higher ({file})"),
                    );
                    return None;
                }
            }
            if !expect_operands(scope, inst, &[4]) {
                return None;
            }
            let regs = [
                wmma_regs(shape, Some(MatrixRole::A), t.a),
                wmma_regs(shape, Some(MatrixRole::B), t.b),
                wmma_regs(shape, None, t.c),
                wmma_regs(shape, None, t.d),
            ];
            mma_operands(scope, inst, MatrixKind::WmmaMma(t), shape, regs, &t, vec![], guard)
        }
        Some(action) => {
            let col = mods.one_of(&[".row", ".col"]) == Some(".col");
            let space = matrix_space(&mut mods);
            let types = elem_types(&mut mods);
            let Some(&[Some(e)]) = Some(&types[..]) else { return unsupported(scope, inst, guard, what) };
            if !mods.finish() {
                return unsupported(scope, inst, guard, what);
            }
            if !expect_operands(scope, inst, &[2, 3]) {
                return None;
            }
            let load = action == ".load";
            let role = if load { role } else { None };
            let regs = wmma_regs(shape, role, e);
            let (frag, mem) = if load { (&ops[0], &ops[1]) } else { (&ops[1], &ops[0]) };
            let mut prep = vec![];
            let addr = matrix_address(scope, mem, space, &mut prep, &inst.span)?;
            let stride = match ops.get(2) {
                Some(s) => Some(scope.src(s, ScalarType::U32, Width::Exact)?),
                None => None,
            };
            let op = if load {
                let dst = dst_vector(scope, frag, regs, register_type(e), "the fragment")?;
                MatrixOp {
                    kind: MatrixKind::WmmaLoad { role: role.unwrap_or(MatrixRole::C), elem: e, col },
                    shape,
                    dst,
                    src: vec![],
                    src_counts: [0; 3],
                    addr: Some(addr),
                    stride,
                }
            } else {
                let src = src_vector(scope, frag, regs, register_type(e), "the fragment")?;
                MatrixOp { kind: MatrixKind::WmmaStore { elem: e, col }, shape, dst: vec![], src, src_counts: [regs, 0, 0], addr: Some(addr), stride }
            };
            finish(op, prep, guard)
        }
        None => unsupported(scope, inst, guard, what),
    }
}

/// `ldmatrix`, `stmatrix`, `movmatrix` on 8x8 matrices of 16-bit elements.
fn ld_st_mov_matrix(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let what = written(inst);
    let m8n8 = mods.has(".m8n8");
    let num = match mods.one_of(&[".x1", ".x2", ".x4"]) {
        Some(".x1") => 1,
        Some(".x2") => 2,
        Some(_) => 4,
        None => 1,
    };
    let trans = mods.has(".trans");
    let space = matrix_space(&mut mods);
    let b16 = mods.has(".b16");
    if !m8n8 || !b16 || !mods.finish() {
        // The `.m16n16`/`.m8n16`/`.m16n8` shapes of 8-bit and packed 4/6-bit data.
        return unsupported(scope, inst, guard, what);
    }
    let ops = &inst.operands;
    if opcode == "movmatrix" {
        if !trans || !expect_operands(scope, inst, &[2]) {
            return None;
        }
        let dst = scope.dst(&ops[0], ScalarType::B32, Width::Exact)?;
        let src = scope.src(&ops[1], ScalarType::B32, Width::Exact)?;
        let op = MatrixOp { kind: MatrixKind::MovMatrix, shape: [8, 8, 0], dst: vec![dst], src: vec![src], src_counts: [1, 0, 0], addr: None, stride: None };
        return finish(op, vec![], guard);
    }
    if !expect_operands(scope, inst, &[2]) {
        return None;
    }
    let load = opcode == "ldmatrix";
    let (frag, mem) = if load { (&ops[0], &ops[1]) } else { (&ops[1], &ops[0]) };
    let mut prep = vec![];
    let addr = matrix_address(scope, mem, space, &mut prep, &inst.span)?;
    let op = if load {
        let dst = dst_vector(scope, frag, num, ScalarType::B32, "the destination")?;
        MatrixOp { kind: MatrixKind::LdMatrix { num, trans }, shape: [8, 8, 0], dst, src: vec![], src_counts: [0; 3], addr: Some(addr), stride: None }
    } else {
        let src = src_vector(scope, frag, num, ScalarType::B32, "the source")?;
        MatrixOp { kind: MatrixKind::StMatrix { num, trans }, shape: [8, 8, 0], dst: vec![], src, src_counts: [num, 0, 0], addr: Some(addr), stride: None }
    };
    finish(op, prep, guard)
}

/// `cp.async`, its group instructions and `cp.async.mbarrier.arrive`; the bulk and tensor
/// forms stay unsupported.
pub(super) fn async_copy(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let what = written(inst);
    let done = |op| Some(Converted::Inst(ir::Inst { guard, op, span: inst.span.clone() }));
    if !mods.has(".async") {
        return unsupported(scope, inst, guard, what);
    }
    if mods.has(".mbarrier") {
        return super::mbarrier::async_copy_arrive(scope, inst, mods, guard);
    }
    let ops = &inst.operands;
    // The copies complete at `cp.async` itself (see lower::ops::async_copy), so committing and
    // waiting have nothing left to do.
    if mods.one_of(&[".commit_group", ".wait_group", ".wait_all"]).is_some() {
        if !mods.finish() {
            return unsupported(scope, inst, guard, what);
        }
        for o in ops {
            scope.src(o, ScalarType::U32, Width::Exact)?;
        }
        return done(Op::Nop);
    }
    let cg = mods.one_of(&[".ca", ".cg"]) == Some(".cg");
    let shared = mods.one_of(&[".shared", ".shared::cta"]).is_some();
    let global = mods.has(".global");
    let policy = mods.has(".L2::cache_hint");
    mods.drop_hints();
    if !shared || !global || !mods.finish() {
        return unsupported(scope, inst, guard, what);
    }
    // [dst], [src], size, then src-size or ignore-src, then the cache policy (with `.L2::cache_hint`).
    let counts: &[usize] = if policy { &[4, 5] } else { &[3, 4] };
    if !expect_operands(scope, inst, counts) {
        return None;
    }
    let dst = scope.address_in(&ops[0], StateSpace::Shared)?;
    let src = scope.address_in(&ops[1], StateSpace::Global)?;
    let size = match scope.src(&ops[2], ScalarType::U32, Width::Exact)? {
        Operand::Imm(v) if matches!(v, 4 | 8 | 16) && (!cg || v == 16) => v as u32,
        _ => {
            let msg = if cg { "`cp.async.cg` copies 16 bytes (the size must be the constant 16)" } else { "`cp.async` copies 4, 8 or 16 bytes (a constant)" };
            scope.error(ops[2].span.clone(), msg);
            return None;
        }
    };
    let extra = &ops[3..ops.len() - policy as usize];
    if policy {
        scope.src(&ops[ops.len() - 1], ScalarType::B64, Width::Exact)?;
    }
    let (mut src_size, mut ignore_src) = (None, None);
    match extra {
        [] => {}
        [o] if is_predicate(scope, o) => ignore_src = Some(scope.pred(o)?),
        [o] => src_size = Some(scope.src(o, ScalarType::U32, Width::Exact)?),
        _ => {
            scope.error(inst.span.clone(), "`cp.async` takes at most one of src-size and ignore-src, then the cache policy");
            return None;
        }
    }
    done(Op::AsyncCopy { size, dst, src, src_size, ignore_src })
}

fn is_predicate(scope: &FnScope, op: &Spanned<A>) -> bool {
    let name = match &op.node {
        A::Name { name, component: None } | A::Not(name) => name,
        _ => return false,
    };
    matches!(scope.lookup(name), Some(LocalOrGlobal::Local(LocalSymbol::Reg(r))) if scope.reg_type(r) == ScalarType::Pred)
}

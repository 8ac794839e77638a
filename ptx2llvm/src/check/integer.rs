//! Integer, bit-manipulation, extended-precision, funnel-shift, permute, `set`/`slct`, vector
//! `mov` and video instruction forms (ISA 9.2 §9.7.1, §9.7.2, §9.7.6, §9.7.8, §9.7.9.7, §9.7.18).
//!
//! Each handler checks the modifiers and operand types of its instruction's Syntax block and
//! builds the IR operation; the exact semantics are documented on the `ir::Op` variants.

use super::function::FnScope;
use super::instruction::{cmp_op, done, expect_operands, one_type, Converted, Mods};
use super::operands::Width;
use crate::front::ast::{self, Operand as A, Spanned};
use crate::ir::{self, BoolOp, CarryOp, CmpOp, LaneOp, Op, PrmtMode, ScalarType, Selector, TypeKind, VideoOp, VideoSecondary};

type Guard = Option<ir::PredRef>;

fn error(scope: &mut FnScope, inst: &ast::Instruction, msg: impl Into<String>) -> Option<Converted> {
    scope.error(inst.opcode.span.clone(), msg);
    None
}

/// Is `name` among the instruction's modifiers? (Used to route forms before a handler runs.)
pub(super) fn has_modifier(inst: &ast::Instruction, names: &[&str]) -> bool {
    inst.modifiers.iter().any(|m| names.contains(&m.node.as_str()))
}

fn finish(scope: &mut FnScope, mods: Mods, inst: &ast::Instruction, counts: &[usize]) -> bool {
    mods.finish() && expect_operands(scope, inst, counts)
}

fn is_signed_or_unsigned(t: ScalarType) -> bool {
    matches!(t.kind(), TypeKind::Signed | TypeKind::Unsigned)
}

/// The hidden per-function register holding the carry flag `CC.CF` of the extended-precision
/// instructions. It is an ordinary `.pred` register for liveness and barrier regions; its name
/// is not a PTX identifier, so no source name can refer to it.
fn carry_flag(scope: &mut FnScope) -> ir::RegId {
    const NAME: &str = "CC.CF";
    if let Some(i) = scope.regs.iter().position(|r| r.name == NAME) {
        return ir::RegId(i as u32);
    }
    scope.regs.push(ir::RegDecl { name: NAME.to_string(), ty: ScalarType::Pred });
    ir::RegId(scope.regs.len() as u32 - 1)
}

/// `add/sub/min/max` on `.u16x2`/`.s16x2`, and `min/max.relu.s32`.
pub(super) fn lanes(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let relu = mods.has(".relu");
    let lane = match mods.one_of(&[".u16x2", ".s16x2"]) {
        Some(".u16x2") => ScalarType::U16,
        Some(_) => ScalarType::S16,
        None => {
            let t = one_type(scope, &mut mods, inst)?;
            if t != ScalarType::S32 {
                return error(scope, inst, format!("`{opcode}.relu` takes `.s32` or `.s16x2`, not `{}`", t.name()));
            }
            ScalarType::S32
        }
    };
    if !finish(scope, mods, inst, &[3]) {
        return None;
    }
    let op = match opcode {
        "add" => LaneOp::Add,
        "sub" => return error(scope, inst, "`sub` has no `.u16x2`/`.s16x2` or `.relu` forms"),
        "min" => LaneOp::Min,
        _ => LaneOp::Max,
    };
    if relu && (lane == ScalarType::U16 || op == LaneOp::Add) {
        return error(scope, inst, "`.relu` applies only to `min`/`max` of `.s16x2` and `.s32`");
    }
    let ty = if lane == ScalarType::S32 { ScalarType::S32 } else { ScalarType::B32 };
    let ops = &inst.operands;
    let op = Op::Lanes {
        op,
        lane,
        relu,
        dst: scope.dst(&ops[0], ty, Width::Exact)?,
        a: scope.src(&ops[1], ty, Width::Exact)?,
        b: scope.src(&ops[2], ty, Width::Exact)?,
    };
    done(guard, op, inst)
}

/// `add.cc addc sub.cc subc mad.cc madc`.
pub(super) fn carry(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let carry_out = mods.has(".cc");
    let carry_in = matches!(opcode, "addc" | "subc" | "madc");
    if !carry_in && !carry_out {
        return error(scope, inst, format!("`{opcode}` without `.cc` is not an extended-precision instruction"));
    }
    let op = match opcode {
        "add" | "addc" => CarryOp::Add,
        "sub" | "subc" => CarryOp::Sub,
        _ => match mods.one_of(&[".lo", ".hi"]) {
            Some(".lo") => CarryOp::MadLo,
            Some(_) => CarryOp::MadHi,
            None => return error(scope, inst, format!("`{opcode}` needs `.lo` or `.hi`")),
        },
    };
    let ty = one_type(scope, &mut mods, inst)?;
    let is_mad = matches!(op, CarryOp::MadLo | CarryOp::MadHi);
    if !finish(scope, mods, inst, if is_mad { &[4] } else { &[3] }) {
        return None;
    }
    if !matches!(ty, ScalarType::U32 | ScalarType::S32 | ScalarType::U64 | ScalarType::S64) {
        return error(scope, inst, format!("`{opcode}` takes `.u32`, `.s32`, `.u64` or `.s64`, not `{}`", ty.name()));
    }
    let ops = &inst.operands;
    let dst = scope.dst(&ops[0], ty, Width::Exact)?;
    let a = scope.src(&ops[1], ty, Width::Exact)?;
    let b = scope.src(&ops[2], ty, Width::Exact)?;
    let c = if is_mad { Some(scope.src(&ops[3], ty, Width::Exact)?) } else { None };
    let cc = carry_flag(scope);
    done(guard, Op::Carry { op, ty, carry_in, carry_out, cc, dst, a, b, c }, inst)
}

/// `mul24` and `mad24`.
pub(super) fn mul24(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let hi = match mods.one_of(&[".lo", ".hi"]) {
        Some(m) => m == ".hi",
        None => return error(scope, inst, format!("`{opcode}` needs `.lo` or `.hi`")),
    };
    let sat = mods.has(".sat");
    let ty = one_type(scope, &mut mods, inst)?;
    let is_mad = opcode == "mad24";
    if !finish(scope, mods, inst, if is_mad { &[4] } else { &[3] }) {
        return None;
    }
    if !matches!(ty, ScalarType::U32 | ScalarType::S32) {
        return error(scope, inst, format!("`{opcode}` takes `.u32` or `.s32`, not `{}`", ty.name()));
    }
    if sat && !(is_mad && hi && ty == ScalarType::S32) {
        return error(scope, inst, "`.sat` is only allowed on `mad24.hi.s32`");
    }
    let ops = &inst.operands;
    let dst = scope.dst(&ops[0], ty, Width::Exact)?;
    let a = scope.src(&ops[1], ty, Width::Exact)?;
    let b = scope.src(&ops[2], ty, Width::Exact)?;
    let c = if is_mad { Some(scope.src(&ops[3], ty, Width::Exact)?) } else { None };
    done(guard, Op::Mul24 { hi, ty, sat, dst, a, b, c }, inst)
}

pub(super) fn sad(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let ty = one_type(scope, &mut mods, inst)?;
    if !finish(scope, mods, inst, &[4]) {
        return None;
    }
    if !is_signed_or_unsigned(ty) || ty.bits() < 16 {
        return error(scope, inst, format!("`sad` takes a 16-, 32- or 64-bit signed or unsigned type, not `{}`", ty.name()));
    }
    let ops = &inst.operands;
    let op = Op::Sad {
        ty,
        dst: scope.dst(&ops[0], ty, Width::Exact)?,
        a: scope.src(&ops[1], ty, Width::Exact)?,
        b: scope.src(&ops[2], ty, Width::Exact)?,
        c: scope.src(&ops[3], ty, Width::Exact)?,
    };
    done(guard, op, inst)
}

pub(super) fn bfind(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let shiftamt = mods.has(".shiftamt");
    let ty = one_type(scope, &mut mods, inst)?;
    if !finish(scope, mods, inst, &[2]) {
        return None;
    }
    if !is_signed_or_unsigned(ty) || ty.bits() < 32 {
        return error(scope, inst, format!("`bfind` takes `.u32`, `.u64`, `.s32` or `.s64`, not `{}`", ty.name()));
    }
    let op = if shiftamt { ir::IntUnOp::BfindShiftAmt } else { ir::IntUnOp::Bfind };
    let ops = &inst.operands;
    let op = Op::IntUnary { op, ty, dst: scope.dst(&ops[0], ScalarType::U32, Width::Exact)?, a: scope.src(&ops[1], ty, Width::Exact)? };
    done(guard, op, inst)
}

pub(super) fn fns(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let ty = one_type(scope, &mut mods, inst)?;
    if !finish(scope, mods, inst, &[4]) {
        return None;
    }
    if ty != ScalarType::B32 {
        return error(scope, inst, format!("`fns` takes `.b32`, not `{}`", ty.name()));
    }
    let ops = &inst.operands;
    let op = Op::Fns {
        dst: scope.dst(&ops[0], ScalarType::B32, Width::Exact)?,
        mask: scope.src(&ops[1], ScalarType::B32, Width::Exact)?,
        base: scope.src(&ops[2], ScalarType::B32, Width::Exact)?,
        offset: scope.src(&ops[3], ScalarType::S32, Width::Exact)?,
    };
    done(guard, op, inst)
}

/// `bfe` and `bfi`.
pub(super) fn bitfield(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let ty = one_type(scope, &mut mods, inst)?;
    let insert = opcode == "bfi";
    if !finish(scope, mods, inst, if insert { &[5] } else { &[4] }) {
        return None;
    }
    let ops = &inst.operands;
    let op = if insert {
        if !matches!(ty, ScalarType::B32 | ScalarType::B64) {
            return error(scope, inst, format!("`bfi` takes `.b32` or `.b64`, not `{}`", ty.name()));
        }
        Op::Bfi {
            ty,
            dst: scope.dst(&ops[0], ty, Width::Exact)?,
            a: scope.src(&ops[1], ty, Width::Exact)?,
            b: scope.src(&ops[2], ty, Width::Exact)?,
            pos: scope.src(&ops[3], ScalarType::U32, Width::Exact)?,
            len: scope.src(&ops[4], ScalarType::U32, Width::Exact)?,
        }
    } else {
        // The ISA's own example writes `bfe.b32`, which NVIDIA's assembler rejects.
        if !is_signed_or_unsigned(ty) || ty.bits() < 32 {
            return error(scope, inst, format!("`bfe` takes `.u32`, `.u64`, `.s32` or `.s64`, not `{}`", ty.name()));
        }
        Op::Bfe {
            ty,
            dst: scope.dst(&ops[0], ty, Width::Exact)?,
            a: scope.src(&ops[1], ty, Width::Exact)?,
            pos: scope.src(&ops[2], ScalarType::U32, Width::Exact)?,
            len: scope.src(&ops[3], ScalarType::U32, Width::Exact)?,
        }
    };
    done(guard, op, inst)
}

/// `szext` and `bmsk`.
pub(super) fn extend_mask(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let clamp = match mods.one_of(&[".clamp", ".wrap"]) {
        Some(m) => m == ".clamp",
        None => return error(scope, inst, format!("`{opcode}` needs `.clamp` or `.wrap`")),
    };
    let ty = one_type(scope, &mut mods, inst)?;
    if !finish(scope, mods, inst, &[3]) {
        return None;
    }
    let ops = &inst.operands;
    let op = if opcode == "szext" {
        if !matches!(ty, ScalarType::U32 | ScalarType::S32) {
            return error(scope, inst, format!("`szext` takes `.u32` or `.s32`, not `{}`", ty.name()));
        }
        Op::Szext {
            clamp,
            signed: ty == ScalarType::S32,
            dst: scope.dst(&ops[0], ty, Width::Exact)?,
            a: scope.src(&ops[1], ty, Width::Exact)?,
            b: scope.src(&ops[2], ScalarType::U32, Width::Exact)?,
        }
    } else {
        if ty != ScalarType::B32 {
            return error(scope, inst, format!("`bmsk` takes `.b32`, not `{}`", ty.name()));
        }
        Op::Bmsk {
            clamp,
            dst: scope.dst(&ops[0], ty, Width::Exact)?,
            a: scope.src(&ops[1], ScalarType::U32, Width::Exact)?,
            b: scope.src(&ops[2], ScalarType::U32, Width::Exact)?,
        }
    };
    done(guard, op, inst)
}

/// `dp4a` and `dp2a`.
pub(super) fn dot(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let half = if opcode == "dp2a" {
        match mods.one_of(&[".lo", ".hi"]) {
            Some(m) => Some(m == ".hi"),
            None => return error(scope, inst, "`dp2a` needs `.lo` or `.hi`"),
        }
    } else {
        None
    };
    let types = mods.types();
    if !finish(scope, mods, inst, &[4]) {
        return None;
    }
    let [at, bt] = types[..] else {
        return error(scope, inst, format!("`{opcode}` needs two types (`{opcode}.u32.s32`)"));
    };
    if !matches!(at, ScalarType::U32 | ScalarType::S32) || !matches!(bt, ScalarType::U32 | ScalarType::S32) {
        return error(scope, inst, format!("`{opcode}` types are `.u32` or `.s32`"));
    }
    let (a_signed, b_signed) = (at.is_signed(), bt.is_signed());
    let cty = if a_signed || b_signed { ScalarType::S32 } else { ScalarType::U32 };
    let ops = &inst.operands;
    let op = Op::Dot {
        half,
        a_signed,
        b_signed,
        dst: scope.dst(&ops[0], cty, Width::Exact)?,
        a: scope.src(&ops[1], at, Width::Exact)?,
        b: scope.src(&ops[2], bt, Width::Exact)?,
        c: scope.src(&ops[3], cty, Width::Exact)?,
    };
    done(guard, op, inst)
}

pub(super) fn shf(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let left = match mods.one_of(&[".l", ".r"]) {
        Some(d) => d == ".l",
        None => return error(scope, inst, "`shf` needs a direction (`.l` or `.r`)"),
    };
    let clamp = match mods.one_of(&[".clamp", ".wrap"]) {
        Some(m) => m == ".clamp",
        None => return error(scope, inst, "`shf` needs `.clamp` or `.wrap`"),
    };
    let ty = one_type(scope, &mut mods, inst)?;
    if !finish(scope, mods, inst, &[4]) {
        return None;
    }
    if ty != ScalarType::B32 {
        return error(scope, inst, format!("`shf` takes `.b32`, not `{}`", ty.name()));
    }
    let ops = &inst.operands;
    let op = Op::FunnelShift {
        left,
        clamp,
        dst: scope.dst(&ops[0], ty, Width::Exact)?,
        a: scope.src(&ops[1], ty, Width::Exact)?,
        b: scope.src(&ops[2], ty, Width::Exact)?,
        c: scope.src(&ops[3], ScalarType::U32, Width::Exact)?,
    };
    done(guard, op, inst)
}

pub(super) fn prmt(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let mode = mods.one_of(&[".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"]).map(|m| match m {
        ".f4e" => PrmtMode::F4e,
        ".b4e" => PrmtMode::B4e,
        ".rc8" => PrmtMode::Rc8,
        ".ecl" => PrmtMode::Ecl,
        ".ecr" => PrmtMode::Ecr,
        _ => PrmtMode::Rc16,
    });
    let ty = one_type(scope, &mut mods, inst)?;
    if !finish(scope, mods, inst, &[4]) {
        return None;
    }
    if ty != ScalarType::B32 {
        return error(scope, inst, format!("`prmt` takes `.b32`, not `{}`", ty.name()));
    }
    let ops = &inst.operands;
    let op = Op::Prmt {
        mode,
        dst: scope.dst(&ops[0], ty, Width::Exact)?,
        a: scope.src(&ops[1], ty, Width::Exact)?,
        b: scope.src(&ops[2], ty, Width::Exact)?,
        c: scope.src(&ops[3], ty, Width::Exact)?,
    };
    done(guard, op, inst)
}

pub(super) fn lop3(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let bool_op = mods.one_of(&[".and", ".or"]).map(|b| if b == ".and" { BoolOp::And } else { BoolOp::Or });
    let ty = one_type(scope, &mut mods, inst)?;
    if !finish(scope, mods, inst, if bool_op.is_some() { &[6] } else { &[5] }) {
        return None;
    }
    if ty != ScalarType::B32 {
        return error(scope, inst, format!("`lop3` takes `.b32`, not `{}`", ty.name()));
    }
    let ops = &inst.operands;
    let lut = match &ops[4].node {
        A::Expr(e) => crate::front::parser::const_eval(e).filter(|v| *v <= 0xff),
        _ => None,
    };
    let Some(lut) = lut else {
        scope.error(ops[4].span.clone(), "`lop3` needs an immediate look-up table in 0..=255");
        return None;
    };
    let named = |n: &str| Spanned::new(A::Name { name: n.to_string(), component: None }, ops[0].span.clone());
    let (dst, pred) = match (&ops[0].node, bool_op) {
        (A::Pair(d, p), Some(op)) => {
            let dst = if d == "_" { None } else { Some(scope.dst(&named(d), ty, Width::Exact)?) };
            let p = scope.dst(&named(p), ScalarType::Pred, Width::Exact)?;
            let q = scope.pred(&ops[5])?;
            (dst, Some((op, p, q)))
        }
        (_, Some(_)) => {
            scope.error(ops[0].span.clone(), "`lop3` with `.and`/`.or` writes `d|p`");
            return None;
        }
        (_, None) => (Some(scope.dst(&ops[0], ty, Width::Exact)?), None),
    };
    let a = scope.src(&ops[1], ty, Width::Exact)?;
    let b = scope.src(&ops[2], ty, Width::Exact)?;
    let c = scope.src(&ops[3], ty, Width::Exact)?;
    done(guard, Op::Lop3 { lut: lut as u8, dst, a, b, c, pred }, inst)
}

/// Checks a comparison against a source type the way `setp` does.
pub(super) fn comparison_fits(scope: &mut FnScope, inst: &ast::Instruction, cmp: CmpOp, ty: ScalarType) -> bool {
    let unsigned_only = matches!(cmp, CmpOp::Lo | CmpOp::Ls | CmpOp::Hi | CmpOp::Hs);
    let float_only = matches!(cmp, CmpOp::Equ | CmpOp::Neu | CmpOp::Ltu | CmpOp::Leu | CmpOp::Gtu | CmpOp::Geu | CmpOp::Num | CmpOp::Nan);
    let ordering = !matches!(cmp, CmpOp::Eq | CmpOp::Ne);
    if (unsigned_only && ty.is_float()) || (float_only && !ty.is_float()) || (ordering && ty.kind() == TypeKind::Bits) {
        scope.error(inst.opcode.span.clone(), format!("comparison is not valid for `{}`", ty.name()));
        return false;
    }
    true
}

pub(super) const COMPARISONS: &[&str] =
    &[".eq", ".ne", ".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi", ".hs", ".equ", ".neu", ".ltu", ".leu", ".gtu", ".geu", ".num", ".nan"];

pub(super) fn set(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let Some(cmp) = mods.one_of(COMPARISONS).and_then(cmp_op) else {
        return error(scope, inst, "`set` needs a comparison operator (`.eq`, `.lt`, ...)");
    };
    let combine = mods.one_of(&[".and", ".or", ".xor"]).map(|b| match b {
        ".and" => BoolOp::And,
        ".or" => BoolOp::Or,
        _ => BoolOp::Xor,
    });
    let ftz = mods.has(".ftz");
    let types = mods.types();
    if !finish(scope, mods, inst, if combine.is_some() { &[4] } else { &[3] }) {
        return None;
    }
    let [dty, sty] = types[..] else {
        return error(scope, inst, "`set` needs a destination and a source type (`set.lt.u32.s32`)");
    };
    if !matches!(dty, ScalarType::U32 | ScalarType::S32 | ScalarType::F32) {
        return error(scope, inst, format!("`set` destination type is `.u32`, `.s32` or `.f32`, not `{}`", dty.name()));
    }
    if sty == ScalarType::Pred || sty.bits() < 16 || sty.bits() > 64 || (sty.is_float() && !matches!(sty, ScalarType::F32 | ScalarType::F64)) {
        return error(scope, inst, format!("`set` does not take source type `{}`", sty.name()));
    }
    if !comparison_fits(scope, inst, cmp, sty) {
        return None;
    }
    let ops = &inst.operands;
    let dst = scope.dst(&ops[0], dty, Width::Exact)?;
    let a = scope.src(&ops[1], sty, Width::Exact)?;
    let b = scope.src(&ops[2], sty, Width::Exact)?;
    let combine = match combine {
        Some(op) => Some((op, scope.pred(&ops[3])?)),
        None => None,
    };
    let op = Op::Set { cmp, ty: sty, ftz: ftz && sty == ScalarType::F32, float_result: dty == ScalarType::F32, dst, a, b, combine };
    done(guard, op, inst)
}

pub(super) fn slct(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let ftz = mods.has(".ftz");
    let types = mods.types();
    if !finish(scope, mods, inst, &[4]) {
        return None;
    }
    let [ty, c_ty] = types[..] else {
        return error(scope, inst, "`slct` needs a destination and an operand type (`slct.u32.s32`)");
    };
    if !matches!(c_ty, ScalarType::S32 | ScalarType::F32) {
        return error(scope, inst, format!("`slct` compares `.s32` or `.f32`, not `{}`", c_ty.name()));
    }
    if ftz && c_ty != ScalarType::F32 {
        return error(scope, inst, "`.ftz` applies only to `slct` with an `.f32` operand");
    }
    if ty == ScalarType::Pred || ty.bits() < 16 || ty.bits() > 64 || (ty.is_float() && !matches!(ty, ScalarType::F32 | ScalarType::F64)) {
        return error(scope, inst, format!("`slct` does not take `{}`", ty.name()));
    }
    let ops = &inst.operands;
    let op = Op::Slct {
        ty,
        c_ty,
        ftz,
        dst: scope.dst(&ops[0], ty, Width::Exact)?,
        a: scope.src(&ops[1], ty, Width::Exact)?,
        b: scope.src(&ops[2], ty, Width::Exact)?,
        c: scope.src(&ops[3], c_ty, Width::Exact)?,
    };
    done(guard, op, inst)
}

/// `mov` with a vector operand: `mov.b64 d, {a, b}` packs, `mov.b64 {a, b}, d` unpacks.
pub(super) fn mov_vector(scope: &mut FnScope, inst: &ast::Instruction, ty: ScalarType, guard: Guard) -> Option<Converted> {
    let ops = &inst.operands;
    let (vector, other, pack) = match (&ops[0].node, &ops[1].node) {
        (A::Vector(v), A::Vector(_)) => {
            scope.error(ops[1].span.clone(), "`mov` cannot have vector operands on both sides");
            let _ = v;
            return None;
        }
        (A::Vector(v), _) => (v, &ops[1], false),
        (_, A::Vector(v)) => (v, &ops[0], true),
        _ => unreachable!("called for vector operands only"),
    };
    let n = vector.len() as u32;
    let elem = match ty.kind() {
        TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed if n >= 2 && ty.bits() % n == 0 => ScalarType::from_name(&format!(".b{}", ty.bits() / n)),
        _ => None,
    };
    let Some(elem) = elem.filter(|e| e.bits() >= 8) else {
        return error(scope, inst, format!("`mov{}` cannot be split into {n} elements", ty.name()));
    };
    let op = if pack {
        let mut src = vec![];
        for e in vector {
            src.push(scope.src(e, elem, Width::Exact)?);
        }
        Op::Pack { ty, dst: scope.dst(other, ty, Width::Exact)?, src }
    } else {
        let mut dst = vec![];
        for e in vector {
            dst.push(match e.node {
                A::Sink => None,
                _ => Some(scope.dst(e, elem, Width::Exact)?),
            });
        }
        Op::Unpack { ty, dst, src: scope.src(other, ty, Width::Exact)? }
    };
    done(guard, op, inst)
}

// ---------------------------------------------------------------------------------------
// Video instructions
// ---------------------------------------------------------------------------------------

/// A register operand of a video instruction: its name without a selector, the selector
/// text (`b0`, `h10`, `b3210`, ...) and whether it is negated (`-r`, `vmad` only).
struct VideoOperand {
    op: Spanned<A>,
    sel: Option<String>,
    negated: bool,
}

fn video_operand(op: &Spanned<A>) -> VideoOperand {
    match &op.node {
        // `%tid.x` is a special register, not a register with a selector.
        A::Name { name, component: Some(c) } if super::operands::special_register(name, Some(c)).is_none() => {
            VideoOperand { op: Spanned::new(A::Name { name: name.clone(), component: None }, op.span.clone()), sel: Some(c.clone()), negated: false }
        }
        A::Neg(inner) => VideoOperand { negated: true, ..video_operand(inner) },
        _ => VideoOperand { op: op.clone(), sel: None, negated: false },
    }
}

fn scalar_selector(scope: &mut FnScope, op: &VideoOperand) -> Option<Selector> {
    Some(match op.sel.as_deref() {
        None => Selector::Word,
        Some(s @ ("b0" | "b1" | "b2" | "b3")) => Selector::Byte(s.as_bytes()[1] - b'0'),
        Some(s @ ("h0" | "h1")) => Selector::Half(s.as_bytes()[1] - b'0'),
        Some(s) => {
            scope.error(op.op.span.clone(), format!("`.{s}` is not a video operand selector (`.b0` to `.b3`, `.h0`, `.h1`)"));
            return None;
        }
    })
}

fn video_types(scope: &mut FnScope, inst: &ast::Instruction, types: &[ScalarType], want: usize) -> Option<Vec<bool>> {
    if types.len() != want || types.iter().any(|t| !matches!(t, ScalarType::U32 | ScalarType::S32)) {
        let which = if want == 3 { "`.dtype.atype.btype`" } else { "`.atype.btype`" };
        scope.error(inst.opcode.span.clone(), format!("`{}` needs {which}, each `.u32` or `.s32`", inst.opcode.node));
        return None;
    }
    Some(types.iter().map(|t| t.is_signed()).collect())
}

fn video_cmp(scope: &mut FnScope, inst: &ast::Instruction, mods: &mut Mods) -> Option<CmpOp> {
    match mods.one_of(&[".eq", ".ne", ".lt", ".le", ".gt", ".ge"]).and_then(cmp_op) {
        Some(c) => Some(c),
        None => {
            scope.error(inst.opcode.span.clone(), format!("`{}` needs a comparison (`.eq .ne .lt .le .gt .ge`)", inst.opcode.node));
            None
        }
    }
}

/// `vadd vsub vabsdiff vmin vmax vshl vshr vset`.
pub(super) fn video(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let op = match opcode {
        "vadd" => VideoOp::Add,
        "vsub" => VideoOp::Sub,
        "vabsdiff" => VideoOp::AbsDiff,
        "vmin" => VideoOp::Min,
        "vmax" => VideoOp::Max,
        "vshl" => VideoOp::Shl,
        "vshr" => VideoOp::Shr,
        _ => VideoOp::Set(video_cmp(scope, inst, &mut mods)?),
    };
    let is_set = matches!(op, VideoOp::Set(_));
    let is_shift = matches!(op, VideoOp::Shl | VideoOp::Shr);
    let sat = !is_set && mods.has(".sat");
    let shift_clamp = if is_shift {
        match mods.one_of(&[".clamp", ".wrap"]) {
            Some(m) => m == ".clamp",
            None => return error(scope, inst, format!("`{opcode}` needs `.clamp` or `.wrap`")),
        }
    } else {
        false
    };
    let second = mods.one_of(&[".add", ".min", ".max"]).map(|s| match s {
        ".add" => VideoSecondary::Add,
        ".min" => VideoSecondary::Min,
        _ => VideoSecondary::Max,
    });
    let types = mods.types();
    if !finish(scope, mods, inst, &[3, 4]) {
        return None;
    }
    let signs = video_types(scope, inst, &types, if is_set { 2 } else { 3 })?;
    // `vset`'s result is unsigned: 0 or 1.
    let (d_signed, a_signed, b_signed) = if is_set { (false, signs[0], signs[1]) } else { (signs[0], signs[1], signs[2]) };
    if is_shift && types[2] != ScalarType::U32 {
        return error(scope, inst, format!("the shift amount type of `{opcode}` is `.u32`"));
    }
    let ops = &inst.operands;
    let (d, a, b) = (video_operand(&ops[0]), video_operand(&ops[1]), video_operand(&ops[2]));
    let dsel = scalar_selector(scope, &d)?;
    let asel = scalar_selector(scope, &a)?;
    let bsel = scalar_selector(scope, &b)?;
    if d.negated || a.negated || b.negated {
        return error(scope, inst, format!("`{opcode}` operands cannot be negated"));
    }
    let merge = dsel != Selector::Word;
    if merge && second.is_some() {
        return error(scope, inst, "a video instruction has either a secondary operation or a destination selector, not both");
    }
    if (merge || second.is_some()) != (ops.len() == 4) {
        return error(scope, inst, format!("`{opcode}` has a fourth operand `c` exactly when it has a secondary operation or a destination selector"));
    }
    let dty = if d_signed { ScalarType::S32 } else { ScalarType::U32 };
    let aty = if a_signed { ScalarType::S32 } else { ScalarType::U32 };
    let bty = if b_signed { ScalarType::S32 } else { ScalarType::U32 };
    let dst = scope.dst(&d.op, dty, Width::Exact)?;
    let a = scope.src(&a.op, aty, Width::Exact)?;
    let b = scope.src(&b.op, bty, Width::Exact)?;
    let c = match ops.get(3) {
        Some(c) => Some(scope.src(c, dty, Width::Exact)?),
        None => None,
    };
    let op = Op::Video { op, d_signed, a_signed, b_signed, asel, bsel, dsel, sat, shift_clamp, second, dst, a, b, c };
    done(guard, op, inst)
}

pub(super) fn vmad(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let plus_one = mods.has(".po");
    let sat = mods.has(".sat");
    let scale = match mods.one_of(&[".shr7", ".shr15"]) {
        Some(".shr7") => 7,
        Some(_) => 15,
        None => 0,
    };
    let types = mods.types();
    if !finish(scope, mods, inst, &[4]) {
        return None;
    }
    let signs = video_types(scope, inst, &types, 3)?;
    let ops = &inst.operands;
    let (d, a, b, c) = (video_operand(&ops[0]), video_operand(&ops[1]), video_operand(&ops[2]), video_operand(&ops[3]));
    if d.sel.is_some() || c.sel.is_some() || d.negated {
        return error(scope, inst, "`vmad` has no destination or `c` selector");
    }
    let asel = scalar_selector(scope, &a)?;
    let bsel = scalar_selector(scope, &b)?;
    let neg_product = a.negated != b.negated;
    if plus_one && (a.negated || b.negated || c.negated) {
        return error(scope, inst, "operands of `vmad.po` cannot be negated");
    }
    if neg_product && c.negated {
        return error(scope, inst, "`vmad` negates either the product or `c`, not both");
    }
    let (a_signed, b_signed) = (signs[1], signs[2]);
    let ty = |s: bool| if s { ScalarType::S32 } else { ScalarType::U32 };
    let dst = scope.dst(&d.op, ty(signs[0]), Width::Exact)?;
    let a_op = scope.src(&a.op, ty(a_signed), Width::Exact)?;
    let b_op = scope.src(&b.op, ty(b_signed), Width::Exact)?;
    let c_op = scope.src(&c.op, ScalarType::B32, Width::Exact)?;
    let op = Op::VideoMad { a_signed, b_signed, asel, bsel, neg_product, neg_c: c.negated, plus_one, scale, sat, dst, a: a_op, b: b_op, c: c_op };
    done(guard, op, inst)
}

/// Lane selectors of a SIMD operand: `.hxy` (2 lanes, lane 1 first) or `.bxyzw` (4 lanes, lane
/// 3 first); each digit picks a lane of the 64-bit `{b, a}`.
fn simd_selector(scope: &mut FnScope, op: &VideoOperand, lanes: u32, default: [u8; 4]) -> Option<[u8; 4]> {
    let Some(sel) = op.sel.as_deref() else { return Some(default) };
    let (prefix, max) = if lanes == 2 { ('h', b'3') } else { ('b', b'7') };
    let digits = sel.strip_prefix(prefix).map(str::as_bytes).unwrap_or_default();
    if digits.len() != lanes as usize || digits.iter().any(|d| !(b'0'..=max).contains(d)) {
        let form = if lanes == 2 { "`.hxy` with x, y in 0..=3" } else { "`.bxyzw` with x, y, z, w in 0..=7" };
        scope.error(op.op.span.clone(), format!("`.{sel}` is not a SIMD selector: expected {form}"));
        return None;
    }
    let mut out = [0u8; 4];
    for (i, d) in digits.iter().rev().enumerate() {
        out[i] = d - b'0';
    }
    Some(out)
}

/// The lanes written by a SIMD destination mask (`.h0 .h1 .h10`, `.b0` ... `.b3210`): digits in
/// strictly decreasing order.
fn simd_mask(scope: &mut FnScope, op: &VideoOperand, lanes: u32) -> Option<u8> {
    let all = if lanes == 2 { 0b11 } else { 0b1111 };
    let Some(sel) = op.sel.as_deref() else { return Some(all) };
    let prefix = if lanes == 2 { 'h' } else { 'b' };
    let digits = sel.strip_prefix(prefix).map(str::as_bytes).unwrap_or_default();
    let valid = !digits.is_empty() && digits.iter().all(|d| d.is_ascii_digit() && ((d - b'0') as u32) < lanes) && digits.windows(2).all(|w| w[0] > w[1]);
    if !valid {
        scope.error(
            op.op.span.clone(),
            format!("`.{sel}` is not a destination mask of {lanes}-lane SIMD video instructions (lanes in decreasing order, each once)"),
        );
        return None;
    }
    Some(digits.iter().fold(0, |m, d| m | 1 << (d - b'0')))
}

/// `vadd2/4 vsub2/4 vavrg2/4 vabsdiff2/4 vmin2/4 vmax2/4 vset2/4`.
pub(super) fn video_simd(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let (base, lanes) = opcode.split_at(opcode.len() - 1);
    let lanes: u32 = if lanes == "2" { 2 } else { 4 };
    let op = match base {
        "vadd" => VideoOp::Add,
        "vsub" => VideoOp::Sub,
        "vavrg" => VideoOp::Avg,
        "vabsdiff" => VideoOp::AbsDiff,
        "vmin" => VideoOp::Min,
        "vmax" => VideoOp::Max,
        _ => VideoOp::Set(video_cmp(scope, inst, &mut mods)?),
    };
    let is_set = matches!(op, VideoOp::Set(_));
    let sat = !is_set && mods.has(".sat");
    let accumulate = mods.has(".add");
    let types = mods.types();
    if !finish(scope, mods, inst, &[4]) {
        return None;
    }
    if sat && accumulate {
        return error(scope, inst, "saturation cannot be used with the secondary accumulate operation `.add`");
    }
    let signs = video_types(scope, inst, &types, if is_set { 2 } else { 3 })?;
    let (d_signed, a_signed, b_signed) = if is_set { (false, signs[0], signs[1]) } else { (signs[0], signs[1], signs[2]) };
    let ops = &inst.operands;
    let (d, a, b) = (video_operand(&ops[0]), video_operand(&ops[1]), video_operand(&ops[2]));
    if d.negated || a.negated || b.negated {
        return error(scope, inst, format!("`{opcode}` operands cannot be negated"));
    }
    let mask = simd_mask(scope, &d, lanes)?;
    let (adef, bdef) = if lanes == 2 { ([0, 1, 0, 0], [2, 3, 0, 0]) } else { ([0, 1, 2, 3], [4, 5, 6, 7]) };
    let asel = simd_selector(scope, &a, lanes, adef)?;
    let bsel = simd_selector(scope, &b, lanes, bdef)?;
    let ty = |s: bool| if s { ScalarType::S32 } else { ScalarType::U32 };
    let dst = scope.dst(&d.op, ty(d_signed), Width::Exact)?;
    let a = scope.src(&a.op, ty(a_signed), Width::Exact)?;
    let b = scope.src(&b.op, ty(b_signed), Width::Exact)?;
    let c = scope.src(&ops[3], ty(d_signed), Width::Exact)?;
    let op = Op::VideoSimd { op, lanes, d_signed, a_signed, b_signed, asel, bsel, sat, accumulate, mask, dst, a, b, c };
    done(guard, op, inst)
}

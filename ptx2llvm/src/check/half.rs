//! Half-precision forms (ISA 9.2 §9.7.4 arithmetic, §9.7.5 mixed precision, §9.7.7
//! comparison): `add sub mul fma neg abs min max tanh ex2 set setp` whose instruction type
//! (or one of the `set` types) is `.f16 .f16x2 .bf16 .bf16x2`, and `add/sub/fma.f32.{f16,bf16}`.
//! The form table has already checked which modifiers go together.

use super::function::FnScope;
use super::instruction::{cmp_op, done, expect_operands, rounding, Converted, Mods};
use super::integer::{comparison_fits, COMPARISONS};
use super::operands::Width;
use crate::front::ast::{self, Operand as A};
use crate::ir::{self, BoolOp, HalfMods, HalfOp, MixedOp, Op, Rounding, ScalarType};

type Guard = Option<ir::PredRef>;

const HALF_TYPES: &[&str] = &[".f16", ".f16x2", ".bf16", ".bf16x2"];

fn is_half(t: ScalarType) -> bool {
    matches!(t, ScalarType::F16 | ScalarType::F16x2 | ScalarType::BF16 | ScalarType::BF16x2)
}

/// Whether `inst` is a half-precision form handled here.
pub(super) fn handles(inst: &ast::Instruction) -> bool {
    matches!(inst.opcode.node.as_str(), "add" | "sub" | "mul" | "fma" | "neg" | "abs" | "min" | "max" | "tanh" | "ex2" | "set" | "setp")
        && inst.modifiers.iter().any(|m| HALF_TYPES.contains(&m.node.as_str()))
}

fn error(scope: &mut FnScope, inst: &ast::Instruction, msg: impl Into<String>) -> Option<Converted> {
    scope.error(inst.opcode.span.clone(), msg);
    None
}

fn combine_op(mods: &mut Mods) -> Option<BoolOp> {
    mods.one_of(&[".and", ".or", ".xor"]).map(|b| match b {
        ".and" => BoolOp::And,
        ".or" => BoolOp::Or,
        _ => BoolOp::Xor,
    })
}

pub(super) fn convert(scope: &mut FnScope, inst: &ast::Instruction, mods: Mods, guard: Guard) -> Option<Converted> {
    match inst.opcode.node.as_str() {
        "setp" => setp(scope, inst, mods, guard),
        "set" => set(scope, inst, mods, guard),
        _ => arithmetic(scope, inst, mods, guard),
    }
}

fn arithmetic(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let ops = &inst.operands;
    let rnd = rounding(&mut mods);
    let approx = mods.has(".approx");
    let flags = HalfMods {
        ftz: mods.has(".ftz"),
        sat: mods.has(".sat"),
        relu: mods.has(".relu"),
        nan: mods.has(".NaN"),
        xorsign_abs: mods.has(".xorsign"),
        oob: mods.has(".oob"),
    };
    let abs = mods.has(".abs");
    let types = mods.types();
    // `fma.rz.sat.f32.f16.sat` (the ISA's own example) repeats `.sat`.
    let sat_again = mods.has(".sat");
    if !mods.finish() {
        return None;
    }
    if flags.xorsign_abs != abs {
        return error(scope, inst, "`.xorsign` and `.abs` go together");
    }
    // Mixed precision: `.f32` result, `.f16`/`.bf16` sources.
    if let [ScalarType::F32, src_ty] = types[..] {
        let op = match opcode {
            "add" => MixedOp::Add,
            "sub" => MixedOp::Sub,
            "fma" => MixedOp::Fma,
            _ => return error(scope, inst, format!("`{opcode}` has no mixed-precision form")),
        };
        if !matches!(src_ty, ScalarType::F16 | ScalarType::BF16) {
            return error(scope, inst, format!("mixed-precision `{opcode}` takes `.f16` or `.bf16` sources, not `{}`", src_ty.name()));
        }
        if op == MixedOp::Fma && rnd.is_none() {
            return error(scope, inst, "`fma` needs a rounding modifier (`.rn`, `.rz`, `.rm`, `.rp`)");
        }
        if !expect_operands(scope, inst, if op == MixedOp::Fma { &[4] } else { &[3] }) {
            return None;
        }
        let dst = scope.dst(&ops[0], ScalarType::F32, Width::Exact)?;
        let a = scope.src(&ops[1], src_ty, Width::Exact)?;
        let (b, c) = if op == MixedOp::Fma {
            (Some(scope.src(&ops[2], src_ty, Width::Exact)?), scope.src(&ops[3], ScalarType::F32, Width::Exact)?)
        } else {
            (None, scope.src(&ops[2], ScalarType::F32, Width::Exact)?)
        };
        let op = Op::Mixed { op, src_ty, rnd: rnd.unwrap_or(Rounding::NearestEven), sat: flags.sat || sat_again, dst, a, b, c };
        return done(guard, op, inst);
    }
    let [ty] = types[..] else {
        return error(scope, inst, format!("`{opcode}` needs one half-precision type (`.f16`, `.f16x2`, `.bf16`, `.bf16x2`)"));
    };
    if !is_half(ty) || sat_again {
        return error(scope, inst, format!("`{opcode}` does not take these types"));
    }
    if rnd.is_some_and(|r| r != Rounding::NearestEven) {
        return error(scope, inst, "half-precision arithmetic rounds only to nearest even (`.rn`)");
    }
    let (op, operands) = match opcode {
        "add" => (HalfOp::Add, 3),
        "sub" => (HalfOp::Sub, 3),
        "mul" => (HalfOp::Mul, 3),
        "fma" => (HalfOp::Fma, 4),
        "neg" => (HalfOp::Neg, 2),
        "abs" => (HalfOp::Abs, 2),
        "min" => (HalfOp::Min, 3),
        "max" => (HalfOp::Max, 3),
        "tanh" => (HalfOp::Tanh, 2),
        _ => (HalfOp::Ex2, 2),
    };
    if op == HalfOp::Fma && rnd.is_none() {
        return error(scope, inst, "`fma` needs a rounding modifier (`.rn`)");
    }
    if matches!(op, HalfOp::Tanh | HalfOp::Ex2) && !approx {
        return error(scope, inst, format!("`{opcode}` on half-precision types needs `.approx`"));
    }
    if !expect_operands(scope, inst, &[operands]) {
        return None;
    }
    let dst = scope.dst(&ops[0], ty, Width::Exact)?;
    let a = scope.src(&ops[1], ty, Width::Exact)?;
    let b = if operands >= 3 { Some(scope.src(&ops[2], ty, Width::Exact)?) } else { None };
    let c = if operands == 4 { Some(scope.src(&ops[3], ty, Width::Exact)?) } else { None };
    done(guard, Op::Half { op, ty, mods: flags, dst, a, b, c }, inst)
}

fn comparison(scope: &mut FnScope, inst: &ast::Instruction, mods: &mut Mods) -> Option<ir::CmpOp> {
    let cmp = mods.one_of(COMPARISONS).and_then(cmp_op);
    if cmp.is_none() {
        scope.error(inst.opcode.span.clone(), format!("`{}` needs a comparison operator (`.eq`, `.lt`, ...)", inst.opcode.node));
    }
    cmp
}

fn setp(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let ops = &inst.operands;
    let cmp = comparison(scope, inst, &mut mods)?;
    let combine = combine_op(&mut mods);
    let ftz = mods.has(".ftz");
    let types = mods.types();
    if !mods.finish() || !expect_operands(scope, inst, if combine.is_some() { &[4] } else { &[3] }) {
        return None;
    }
    let [ty] = types[..] else {
        return error(scope, inst, "`setp` needs exactly one type modifier");
    };
    if !comparison_fits(scope, inst, cmp, ty) {
        return None;
    }
    let pair = matches!(ty, ScalarType::F16x2 | ScalarType::BF16x2);
    if matches!(ops[0].node, A::Pair(..)) != pair {
        let what = if pair { "writes two predicates: `p|q`" } else { "writes one predicate" };
        scope.error(ops[0].span.clone(), format!("`setp{}` {what}", ty.name()));
        return None;
    }
    let (dst, dst_hi) = super::instruction::setp_destinations(scope, &ops[0])?;
    let a = scope.src(&ops[1], ty, Width::Exact)?;
    let b = scope.src(&ops[2], ty, Width::Exact)?;
    let combine = match combine {
        Some(op) => Some((op, scope.pred(&ops[3])?)),
        None => None,
    };
    done(guard, Op::HalfSetp { cmp, ty, ftz, dst, dst_hi, a, b, combine }, inst)
}

fn set(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let ops = &inst.operands;
    let cmp = comparison(scope, inst, &mut mods)?;
    let combine = combine_op(&mut mods);
    let ftz = mods.has(".ftz");
    let types = mods.types();
    if !mods.finish() || !expect_operands(scope, inst, if combine.is_some() { &[4] } else { &[3] }) {
        return None;
    }
    let [dst_ty, src_ty] = types[..] else {
        return error(scope, inst, "`set` needs a destination and a source type (`set.lt.u32.f16`)");
    };
    let x2 = |t: ScalarType| matches!(t, ScalarType::F16x2 | ScalarType::BF16x2);
    let valid = if x2(src_ty) {
        dst_ty == src_ty || matches!(dst_ty, ScalarType::U32 | ScalarType::S32)
    } else if is_half(dst_ty) {
        !x2(dst_ty) && src_ty != ScalarType::Pred && src_ty.bits() >= 16 && src_ty.bits() <= 64
    } else {
        matches!(src_ty, ScalarType::F16 | ScalarType::BF16) && matches!(dst_ty, ScalarType::U16 | ScalarType::S16 | ScalarType::U32 | ScalarType::S32)
    };
    if !valid {
        return error(scope, inst, format!("`set` does not take `{}{}`", dst_ty.name(), src_ty.name()));
    }
    if !comparison_fits(scope, inst, cmp, src_ty) {
        return None;
    }
    let dst = scope.dst(&ops[0], dst_ty, Width::Exact)?;
    let a = scope.src(&ops[1], src_ty, Width::Exact)?;
    let b = scope.src(&ops[2], src_ty, Width::Exact)?;
    let combine = match combine {
        Some(op) => Some((op, scope.pred(&ops[3])?)),
        None => None,
    };
    // `.ftz` flushes `.f16` (and, for `set.f16.f32`, `.f32`) subnormal inputs; other source
    // types have none.
    let ftz = ftz && matches!(src_ty, ScalarType::F16 | ScalarType::F16x2 | ScalarType::F32);
    done(guard, Op::HalfSet { cmp, dst_ty, src_ty, ftz, dst, a, b, combine }, inst)
}

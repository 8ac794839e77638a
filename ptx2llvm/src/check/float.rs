//! `.f32`/`.f64` floating-point instruction forms (ISA 9.2 §9.7.3, ISA 1.4 §8.7.2): `add sub
//! mul fma mad div rcp sqrt rsqrt sin cos lg2 ex2 tanh abs neg min max copysign testp`, and
//! the packed `.f32x2` forms of `add sub mul fma`.
//!
//! The form table has already checked that the modifiers make a valid form for the file's
//! `.version` and `.target`; this module decides what the form means:
//! - sm_1x targets flush `.f32` subnormals as if `.ftz` were given (ISA 9.2 §9.7.3), and
//!   their `mad.f32` is the unfused legacy multiply-add (ISA 1.4 `mad`).
//! - Before PTX ISA 1.4, `div rcp sqrt rsqrt sin cos lg2 ex2` without modifiers mean the
//!   `.approx.ftz` forms for `.f32` and `.rn` (`rsqrt`: `.approx`) for `.f64`; `mad.f32` of
//!   PTX ISA 1.x is `mad.ftz.f32`; `mad` without rounding (allowed up to ISA 3.1) is `.rn`.
//! - `map_f64_to_f32` targets run `.f64` instructions in single precision (see `lower::ops::float`),
//!   with the sm_1x flushing of single precision.

use super::function::FnScope;
use super::instruction::{done, expect_operands, one_type, rounding, Converted, Mods};
use super::operands::Width;
use crate::front::ast;
use crate::ir::{self, FloatBinOp, FloatClass, FloatUnOp, Op, Rounding, ScalarType};

/// Whether `inst` is a floating-point form this module translates (a `.f32`/`.f64` type).
pub(super) fn is_float_form(inst: &ast::Instruction) -> bool {
    inst.modifiers.iter().any(|m| matches!(m.node.as_str(), ".f32" | ".f64" | ".f32x2"))
}

/// What the file's target says about single precision.
struct Target {
    /// sm_10–sm_13: `.f32` arithmetic flushes subnormals; `mad.f32` is unfused.
    sm_1x: bool,
    /// `.target map_f64_to_f32`.
    maps_f64: bool,
    version: (u32, u32),
}

impl Target {
    fn of(scope: &FnScope) -> Target {
        Target {
            sm_1x: scope.cx.target_sm.is_some_and(|sm| sm < 20),
            maps_f64: scope.cx.out.targets.iter().any(|t| t == "map_f64_to_f32"),
            version: scope.cx.out.version,
        }
    }

    /// Whether subnormals are flushed without `.ftz`: single precision on sm_1x.
    fn flushes(&self, ty: ScalarType) -> bool {
        self.sm_1x && (ty == ScalarType::F32 || ty == ScalarType::F64 && self.maps_f64)
    }

    /// Before PTX ISA 1.4 these instructions took no `.approx`/rounding modifier.
    fn legacy_defaults(&self) -> bool {
        self.version < (1, 4)
    }
}

pub(super) fn convert(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    // `.f32x2` (`add sub mul fma`): `.b64` operands holding two `.f32` lanes.
    let packed = inst.modifiers.iter().any(|m| m.node == ".f32x2");
    let target = Target::of(scope);
    let rnd = rounding(&mut mods);
    let approx = mods.one_of(&[".approx", ".full"]);
    let ftz_given = mods.has(".ftz");
    let sat = mods.has(".sat");
    let nan = mods.has(".NaN");
    let xorsign = mods.has(".xorsign");
    let abs = mods.has(".abs");
    let class = mods.one_of(&[".finite", ".infinite", ".number", ".notanumber", ".normal", ".subnormal"]);
    let ty = if packed {
        mods.has(".f32x2");
        ScalarType::F32
    } else {
        one_type(scope, &mut mods, inst)?
    };
    // The register type of the operands.
    let reg_ty = if packed { ScalarType::B64 } else { ty };
    if !mods.finish() {
        return None;
    }
    if !matches!(ty, ScalarType::F32 | ScalarType::F64) {
        scope.error(inst.opcode.span.clone(), format!("`{opcode}` does not take `{}` here", ty.name()));
        return None;
    }
    let ftz = ftz_given || target.flushes(ty);
    let ops = &inst.operands;
    let needs_mode = |scope: &mut FnScope, what: &str| {
        scope.error(inst.opcode.span.clone(), format!("`{opcode}{}` needs {what}", ty.name()));
        None
    };
    match opcode {
        "add" | "sub" | "mul" | "div" | "copysign" => {
            if !expect_operands(scope, inst, &[3]) {
                return None;
            }
            let (op, rnd, ftz) = match (opcode, approx, rnd) {
                ("add", _, _) => (FloatBinOp::Add, rnd, ftz),
                ("sub", _, _) => (FloatBinOp::Sub, rnd, ftz),
                ("mul", _, _) => (FloatBinOp::Mul, rnd, ftz),
                ("copysign", _, _) => (FloatBinOp::CopySign, None, false),
                (_, Some(".approx"), _) => (FloatBinOp::DivApprox, None, ftz),
                (_, Some(_), _) => (FloatBinOp::DivFull, None, ftz),
                (_, None, Some(r)) => (FloatBinOp::Div, Some(r), ftz),
                (_, None, None) if target.legacy_defaults() && ty == ScalarType::F32 => (FloatBinOp::DivApprox, None, true),
                (_, None, None) if target.legacy_defaults() => (FloatBinOp::Div, None, ftz),
                _ => return needs_mode(scope, "`.approx`, `.full` or a rounding modifier"),
            };
            let op = Op::FloatBinary {
                op,
                ty,
                rnd: rnd.unwrap_or(Rounding::NearestEven),
                ftz,
                sat,
                packed,
                dst: scope.dst(&ops[0], reg_ty, Width::Exact)?,
                a: scope.src(&ops[1], reg_ty, Width::Exact)?,
                b: scope.src(&ops[2], reg_ty, Width::Exact)?,
            };
            done(guard, op, inst)
        }
        "min" | "max" => {
            if !expect_operands(scope, inst, &[3, 4]) {
                return None;
            }
            let c = match ops.get(3) {
                Some(c) => Some(scope.src(c, ty, Width::Exact)?),
                None => None,
            };
            let op = Op::FloatMinMax {
                max: opcode == "max",
                ty,
                ftz,
                nan,
                abs,
                xorsign,
                dst: scope.dst(&ops[0], ty, Width::Exact)?,
                a: scope.src(&ops[1], ty, Width::Exact)?,
                b: scope.src(&ops[2], ty, Width::Exact)?,
                c,
            };
            done(guard, op, inst)
        }
        "mad" | "fma" => {
            if !expect_operands(scope, inst, &[4]) {
                return None;
            }
            // `mad.f32` without rounding: the legacy unfused form on sm_1x, else `.rn`
            // (PTX ISA 1.x: `.ftz` too). `mad.f64` without rounding is `mad.rn.f64`.
            let legacy_mad = opcode == "mad" && rnd.is_none() && ty == ScalarType::F32;
            if opcode == "fma" && rnd.is_none() {
                return needs_mode(scope, "a rounding modifier");
            }
            let fused = !(legacy_mad && target.sm_1x);
            let ftz = ftz || legacy_mad && target.version < (2, 0);
            let op = Op::Fma {
                ty,
                rnd: rnd.unwrap_or(Rounding::NearestEven),
                ftz,
                sat,
                fused,
                packed,
                dst: scope.dst(&ops[0], reg_ty, Width::Exact)?,
                a: scope.src(&ops[1], reg_ty, Width::Exact)?,
                b: scope.src(&ops[2], reg_ty, Width::Exact)?,
                c: scope.src(&ops[3], reg_ty, Width::Exact)?,
            };
            done(guard, op, inst)
        }
        "testp" => {
            if !expect_operands(scope, inst, &[2]) {
                return None;
            }
            let class = match class {
                Some(".finite") => FloatClass::Finite,
                Some(".infinite") => FloatClass::Infinite,
                Some(".number") => FloatClass::Number,
                Some(".notanumber") => FloatClass::NotANumber,
                Some(".normal") => FloatClass::Normal,
                Some(".subnormal") => FloatClass::Subnormal,
                _ => return needs_mode(scope, "a property (`.finite`, `.normal`, ...)"),
            };
            let op = Op::Testp { class, ty, dst: scope.dst(&ops[0], ScalarType::Pred, Width::Exact)?, a: scope.src(&ops[1], ty, Width::Exact)? };
            done(guard, op, inst)
        }
        _ => {
            if !expect_operands(scope, inst, &[2]) {
                return None;
            }
            let legacy = target.legacy_defaults() && approx.is_none() && rnd.is_none();
            // Legacy single-precision defaults are the `.approx.ftz` forms.
            let legacy_f32 = legacy && ty == ScalarType::F32;
            let (op, ftz) = match opcode {
                "neg" => (FloatUnOp::Neg, ftz),
                "abs" => (FloatUnOp::Abs, ftz),
                "sqrt" | "rcp" if rnd.is_some() || legacy && ty == ScalarType::F64 => (if opcode == "sqrt" { FloatUnOp::Sqrt } else { FloatUnOp::Rcp }, ftz),
                "sqrt" | "rcp" if approx.is_some() || legacy_f32 => {
                    (if opcode == "sqrt" { FloatUnOp::SqrtApprox } else { FloatUnOp::RcpApprox }, ftz || legacy_f32)
                }
                "sqrt" | "rcp" => return needs_mode(scope, "`.approx` or a rounding modifier"),
                _ if approx.is_none() && !legacy => return needs_mode(scope, "`.approx`"),
                "rsqrt" => (FloatUnOp::RsqrtApprox, ftz || legacy_f32),
                "sin" => (FloatUnOp::Sin, ftz || legacy_f32),
                "cos" => (FloatUnOp::Cos, ftz || legacy_f32),
                "lg2" => (FloatUnOp::Lg2, ftz || legacy_f32),
                "ex2" => (FloatUnOp::Ex2, ftz || legacy_f32),
                "tanh" => (FloatUnOp::Tanh, false),
                _ => {
                    scope.error(inst.opcode.span.clone(), format!("`{opcode}` does not take `{}`", ty.name()));
                    return None;
                }
            };
            let op = Op::FloatUnary {
                op,
                ty,
                rnd: rnd.unwrap_or(Rounding::NearestEven),
                ftz,
                dst: scope.dst(&ops[0], ty, Width::Exact)?,
                a: scope.src(&ops[1], ty, Width::Exact)?,
            };
            done(guard, op, inst)
        }
    }
}

//! `cvt` and `cvt.pack` forms (ISA 9.2 §9.7.9.21, §9.7.9.22). The form table has already
//! checked which modifiers go together; this turns a form into `Op::Cvt`, `Op::CvtPacked`
//! or `Op::CvtPackSat`, and the semantics are documented on those variants.

use super::function::FnScope;
use super::instruction::{done, expect_operands, unsupported, Converted, Mods};
use super::operands::Width;
use crate::front::ast;
use crate::ir::{self, CvtRounding, FloatFormat, Op, Rounding, ScalarType};

type Guard = Option<ir::PredRef>;

/// A `cvt` type modifier: a register type, or `lanes` elements of a float format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CvtType {
    Scalar(ScalarType),
    Packed(FloatFormat, u32),
}

impl CvtType {
    fn from_name(name: &str) -> Option<CvtType> {
        Some(match name {
            ".f16x2" => CvtType::Packed(FloatFormat::F16, 2),
            ".bf16x2" => CvtType::Packed(FloatFormat::BF16, 2),
            ".tf32" => CvtType::Packed(FloatFormat::Tf32, 1),
            ".e4m3x2" => CvtType::Packed(FloatFormat::E4m3, 2),
            ".e5m2x2" => CvtType::Packed(FloatFormat::E5m2, 2),
            ".e2m3x2" => CvtType::Packed(FloatFormat::E2m3, 2),
            ".e3m2x2" => CvtType::Packed(FloatFormat::E3m2, 2),
            ".e2m1x2" => CvtType::Packed(FloatFormat::E2m1, 2),
            ".e4m3x4" => CvtType::Packed(FloatFormat::E4m3, 4),
            ".e5m2x4" => CvtType::Packed(FloatFormat::E5m2, 4),
            ".e2m3x4" => CvtType::Packed(FloatFormat::E2m3, 4),
            ".e3m2x4" => CvtType::Packed(FloatFormat::E3m2, 4),
            ".e2m1x4" => CvtType::Packed(FloatFormat::E2m1, 4),
            ".ue8m0x2" => CvtType::Packed(FloatFormat::Ue8m0, 2),
            ".s2f6x2" => CvtType::Packed(FloatFormat::S2f6, 2),
            _ => match ScalarType::from_name(name)? {
                ScalarType::Pred | ScalarType::B128 => return None,
                t => CvtType::Scalar(t),
            },
        })
    }
}

pub(super) fn cvt(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    if mods.has(".pack") {
        return cvt_pack(scope, inst, mods, guard);
    }
    let ops = &inst.operands;
    let rnd = match mods.one_of(&[".rn", ".rz", ".rm", ".rp", ".rna", ".rs", ".rni", ".rzi", ".rmi", ".rpi"]) {
        None => None,
        Some(".rna") => Some(CvtRounding::NearestAway),
        Some(".rs") => Some(CvtRounding::Stochastic),
        Some(r) => {
            let base = match &r[..3] {
                ".rn" => Rounding::NearestEven,
                ".rz" => Rounding::TowardZero,
                ".rm" => Rounding::Down,
                _ => Rounding::Up,
            };
            Some(if r.len() == 4 { CvtRounding::Integer(base) } else { CvtRounding::Float(base) })
        }
    };
    let ftz = mods.has(".ftz");
    let sat = mods.has(".sat");
    let relu = mods.has(".relu");
    let satfinite = mods.has(".satfinite");
    let scaled = mods.has(".scaled::n2::ue8m0");
    // Types in the order written: destination, then source.
    let mut types = vec![];
    for m in &inst.modifiers {
        if let Some(t) = CvtType::from_name(&m.node) {
            mods.has(&m.node);
            types.push(t);
        }
    }
    if !mods.finish() {
        return None;
    }
    let [dst_ty, src_ty] = types[..] else {
        scope.error(inst.opcode.span.clone(), "`cvt` needs a destination and a source type (`cvt.f32.s32`)");
        return None;
    };
    match (dst_ty, src_ty) {
        (CvtType::Scalar(dst_ty), CvtType::Scalar(src_ty)) => {
            if !expect_operands(scope, inst, &[2]) {
                return None;
            }
            if dst_ty.kind() == ir::TypeKind::Bits || src_ty.kind() == ir::TypeKind::Bits {
                scope.error(inst.opcode.span.clone(), "`cvt` does not take `.b` types; use `.u` or `.s` types");
                return None;
            }
            let needs_rounding = (dst_ty.is_float() != src_ty.is_float()) || (dst_ty.is_float() && dst_ty != src_ty && narrower(dst_ty, src_ty));
            if rnd.is_none() && needs_rounding {
                scope.error(inst.opcode.span.clone(), format!("`cvt{}{}` needs a rounding modifier", dst_ty.name(), src_ty.name()));
                return None;
            }
            if rnd == Some(CvtRounding::NearestAway) {
                scope.error(inst.opcode.span.clone(), "`.rna` applies only to `cvt.rna.tf32.f32`");
                return None;
            }
            if rnd == Some(CvtRounding::Stochastic) {
                scope.error(inst.opcode.span.clone(), STOCHASTIC_FORMS);
                return None;
            }
            if scaled {
                scope.error(inst.opcode.span.clone(), SCALED_FORMS);
                return None;
            }
            // bf16 operands must be `.b16` registers exactly; others may be wider.
            let width = |t: ScalarType| if t == ScalarType::BF16 { Width::Exact } else { Width::AllowWider };
            // sm_1x flushes single-precision subnormal inputs and results of float-to-float
            // conversions without `.ftz` (ISA 9.2 cvt, "Floating Point Notes"); integer
            // rounding flushes only with `.ftz` there, as on later targets.
            let sm_1x = scope.cx.target_sm.is_some_and(|sm| sm < 20);
            let legacy_ftz = sm_1x
                && dst_ty.is_float()
                && src_ty.is_float()
                && (dst_ty == ScalarType::F32 || src_ty == ScalarType::F32)
                && !matches!(rnd, Some(CvtRounding::Integer(_)));
            let op = Op::Cvt {
                dst_ty,
                src_ty,
                rnd,
                ftz: ftz || legacy_ftz,
                sat,
                relu,
                satfinite,
                dst: scope.dst(&ops[0], dst_ty, width(dst_ty))?,
                src: scope.src(&ops[1], src_ty, width(src_ty))?,
            };
            done(guard, op, inst)
        }
        (to, from) => {
            let (to, lanes) = match to {
                CvtType::Packed(f, n) => (f, n),
                CvtType::Scalar(_) => return unsupported(scope, inst, guard, format!("`cvt{}`", type_names(inst))),
            };
            let (from, from_lanes) = match from {
                CvtType::Packed(f, n) => (f, n),
                CvtType::Scalar(ScalarType::F32) => (FloatFormat::F32, 1),
                CvtType::Scalar(_) => return unsupported(scope, inst, guard, format!("`cvt{}`", type_names(inst))),
            };
            let Some(rnd) = rnd else {
                scope.error(inst.opcode.span.clone(), format!("`cvt{}` needs a rounding modifier", type_names(inst)));
                return None;
            };
            if matches!(rnd, CvtRounding::Integer(_)) || ftz || sat {
                scope.error(inst.opcode.span.clone(), "packed `cvt` takes no integer rounding, `.ftz` or `.sat`");
                return None;
            }
            let f32_elements = from == FloatFormat::F32;
            if !f32_elements && from_lanes != lanes {
                return unsupported(scope, inst, guard, format!("`cvt{}`", type_names(inst)));
            }
            let stochastic = rnd == CvtRounding::Stochastic;
            if to == FloatFormat::Ue8m0 || from == FloatFormat::Ue8m0 {
                let ok = if to == FloatFormat::Ue8m0 {
                    matches!(from, FloatFormat::F32 | FloatFormat::BF16) && matches!(rnd, CvtRounding::Float(Rounding::TowardZero | Rounding::Up)) && !relu
                } else {
                    to == FloatFormat::BF16 && rnd == CvtRounding::Float(Rounding::NearestEven) && !relu && !satfinite
                };
                if !ok {
                    scope.error(inst.opcode.span.clone(), "`.ue8m0x2` forms are `cvt.{rz,rp}{.satfinite}.ue8m0x2.{f32,bf16x2}` and `cvt.rn.bf16x2.ue8m0x2`");
                    return None;
                }
            }
            let narrow = matches!(from, FloatFormat::E4m3 | FloatFormat::E5m2 | FloatFormat::E2m3 | FloatFormat::E3m2 | FloatFormat::E2m1);
            if scaled && !(to == FloatFormat::S2f6 || (to == FloatFormat::BF16 && (narrow || from == FloatFormat::S2f6))) {
                scope.error(inst.opcode.span.clone(), SCALED_FORMS);
                return None;
            }
            let s2f6_ok = if to == FloatFormat::S2f6 { matches!(from, FloatFormat::F32 | FloatFormat::BF16) && satfinite } else { to == FloatFormat::BF16 };
            if (to == FloatFormat::S2f6 || from == FloatFormat::S2f6) && !(s2f6_ok && rnd == CvtRounding::Float(Rounding::NearestEven)) {
                scope.error(inst.opcode.span.clone(), "`.s2f6x2` forms are `cvt.rn.satfinite{.relu}.s2f6x2.{f32,bf16x2}` and `cvt.rn{.satfinite}{.relu}.bf16x2.s2f6x2` (each with an optional `.scaled::n2::ue8m0`)");
                return None;
            }
            let four = lanes == 4;
            if (stochastic != four && !(stochastic && lanes == 2 && matches!(to, FloatFormat::F16 | FloatFormat::BF16))) || (stochastic && !f32_elements) {
                scope.error(inst.opcode.span.clone(), STOCHASTIC_FORMS);
                return None;
            }
            if four && !satfinite {
                scope.error(inst.opcode.span.clone(), "the four-element `cvt.rs` forms need `.satfinite`");
                return None;
            }
            // The four elements come as one vector operand `{a, b, e, f}`.
            let n_src = if four {
                1
            } else if f32_elements {
                lanes as usize
            } else {
                1
            };
            // `.rs` takes the random bits `rbits` after the elements.
            // `.scaled::n2::ue8m0` takes the scale factors last.
            if !expect_operands(scope, inst, &[1 + n_src + stochastic as usize + scaled as usize]) {
                return None;
            }
            let dst_bits = lanes * to.container_bits();
            let dst = scope.dst(&ops[0], bits_type(dst_bits), Width::Exact)?;
            let mut src = vec![];
            if four {
                let elems = scope.vector_elements(&ops[1]);
                if elems.len() != 4 {
                    scope.error(
                        ops[1].span.clone(),
                        format!("`cvt{}` takes its inputs as a vector of four `.f32` registers `{{a, b, e, f}}`", type_names(inst)),
                    );
                    return None;
                }
                for e in &elems {
                    src.push(scope.src(e, ScalarType::B32, Width::Exact)?);
                }
                src.push(scope.src(&ops[2], ScalarType::B32, Width::Exact)?);
                return done(guard, Op::CvtPacked { to, from, lanes, rnd, relu, satfinite, dst, src }, inst);
            }
            for o in &ops[1..1 + n_src] {
                let t = if f32_elements { ScalarType::B32 } else { bits_type(lanes * from.container_bits()) };
                src.push(scope.src(o, t, Width::Exact)?);
            }
            if let Some(o) = ops.get(1 + n_src) {
                // `rbits` is a `.b32`, the two scale factors a `.b16`.
                let t = if stochastic { ScalarType::B32 } else { ScalarType::B16 };
                src.push(scope.src(o, t, Width::Exact)?);
            }
            done(guard, Op::CvtPacked { to, from, lanes, rnd, relu, satfinite, dst, src }, inst)
        }
    }
}

const SCALED_FORMS: &str = "`.scaled::n2::ue8m0` applies only to conversions to `.s2f6x2` and to `.bf16x2` from `.s2f6x2` and the 8/6/4-bit formats";
const STOCHASTIC_FORMS: &str = "`.rs` applies only to `cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b, rbits` and the four-element forms";

/// `cvt.pack.sat.{u16,s16}.s32 d, a, b` and `cvt.pack.sat.{u2,s2,u4,s4,u8,s8}.s32.b32 d, a, b, c`.
fn cvt_pack(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Guard) -> Option<Converted> {
    let sat = mods.has(".sat");
    let convert = mods.one_of(&[".u2", ".s2", ".u4", ".s4", ".u8", ".s8", ".u16", ".s16"]);
    let ab = mods.has(".s32");
    let with_c = mods.has(".b32");
    if !mods.finish() {
        return None;
    }
    let Some(convert) = convert.filter(|_| sat && ab) else {
        scope.error(inst.opcode.span.clone(), "`cvt.pack` is `cvt.pack.sat.<type>.s32` (with `.b32` for types narrower than 16 bits)");
        return None;
    };
    let signed = convert.starts_with(".s");
    let bits: u32 = convert[2..].parse().unwrap_or(16);
    if with_c != (bits < 16) {
        scope.error(inst.opcode.span.clone(), format!("`cvt.pack.sat{convert}.s32` {} a `.b32` operand `c`", if bits < 16 { "needs" } else { "takes no" }));
        return None;
    }
    if !expect_operands(scope, inst, if with_c { &[4] } else { &[3] }) {
        return None;
    }
    let ops = &inst.operands;
    let dst = scope.dst(&ops[0], ScalarType::U32, Width::Exact)?;
    let a = scope.src(&ops[1], ScalarType::S32, Width::Exact)?;
    let b = scope.src(&ops[2], ScalarType::S32, Width::Exact)?;
    let c = if with_c { Some(scope.src(&ops[3], ScalarType::B32, Width::Exact)?) } else { None };
    done(guard, Op::CvtPackSat { bits, signed, dst, a, b, c }, inst)
}

/// Is float type `a` narrower than `b`?
fn narrower(a: ScalarType, b: ScalarType) -> bool {
    let rank = |t: ScalarType| match t {
        ScalarType::F16 | ScalarType::BF16 => 1,
        ScalarType::F32 => 2,
        _ => 3,
    };
    // f16 and bf16 do not hold each other's values: either way loses precision or range.
    rank(a) < rank(b) || (rank(a) == 1 && rank(b) == 1)
}

fn bits_type(bits: u32) -> ScalarType {
    match bits {
        0..=8 => ScalarType::B8,
        9..=16 => ScalarType::B16,
        17..=32 => ScalarType::B32,
        _ => ScalarType::B64,
    }
}

/// The type modifiers of an instruction as written (`.e4m3x2.f32`).
fn type_names(inst: &ast::Instruction) -> String {
    inst.modifiers.iter().filter(|m| CvtType::from_name(&m.node).is_some()).map(|m| m.node.as_str()).collect()
}

//! IEEE operations in a directed rounding mode (`.rz .rm .rp`).
//!
//! Round-to-nearest-even is the default floating-point environment (ptxrt's workers reset
//! it), so `.rn` operations are plain LLVM instructions that optimize and vectorize freely.
//! A directed mode is a scoped change of the hardware rounding mode: the operation runs in
//! a small out-of-line helper, `strictfp` so that LLVM neither folds nor moves the operation
//! out of the scope, which sets the requested mode, does the operation as a constrained
//! intrinsic, and restores round-to-nearest-even (the mode of every worker) before it
//! returns. (`.f32` `add sub mul fma` are computed inline instead, from their exact f64
//! result: `directed_f32_inline`.) (Restoring a saved mode instead would read the x87 control word on x86-64, which
//! ptxrt does not promise to match MXCSR.) The change never leaks
//! into other code: the caller's own floating-point operations are outside the helper, and
//! LLVM does not inline a `strictfp` function into a normal one. The hardware (SSE's MXCSR,
//! AArch64's FPCR) then gives the exact IEEE result, subnormals and overflow included.

use crate::ir::Rounding;
use crate::lower::thread::FnCx;
use crate::lower::{LowerError, R};
use inkwell::attributes::AttributeLoc;
use inkwell::module::Linkage;
use inkwell::types::{BasicType, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue};

/// An IEEE operation whose result depends on the rounding mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundedOp {
    Add,
    Sub,
    Mul,
    Div,
    Sqrt,
    /// `a * b + c` with one rounding.
    Fma,
    /// Float to a narrower float.
    Narrow,
    /// Signed or unsigned integer to float.
    FromSigned,
    FromUnsigned,
}

impl RoundedOp {
    fn name(self) -> &'static str {
        match self {
            RoundedOp::Add => "fadd",
            RoundedOp::Sub => "fsub",
            RoundedOp::Mul => "fmul",
            RoundedOp::Div => "fdiv",
            RoundedOp::Sqrt => "sqrt",
            RoundedOp::Fma => "fma",
            RoundedOp::Narrow => "fptrunc",
            RoundedOp::FromSigned => "sitofp",
            RoundedOp::FromUnsigned => "uitofp",
        }
    }

    fn arity(self) -> usize {
        match self {
            RoundedOp::Sqrt | RoundedOp::Narrow | RoundedOp::FromSigned | RoundedOp::FromUnsigned => 1,
            RoundedOp::Fma => 3,
            _ => 2,
        }
    }
}

/// The argument of `llvm.set.rounding` for a mode (C's `FLT_ROUNDS` numbering).
fn flt_rounds(r: Rounding) -> u64 {
    match r {
        Rounding::TowardZero => 0,
        Rounding::NearestEven => 1,
        Rounding::Up => 2,
        Rounding::Down => 3,
    }
}

fn mode_name(r: Rounding) -> &'static str {
    match r {
        Rounding::TowardZero => "rz",
        Rounding::NearestEven => "rn",
        Rounding::Up => "rp",
        Rounding::Down => "rm",
    }
}

fn type_name(t: BasicTypeEnum) -> String {
    t.print_to_string().to_string()
}

impl<'ctx> FnCx<'ctx, '_> {
    /// `op(args)` rounded with `rnd`, as a value of type `ret` (the float type of the
    /// result; for `Narrow`/`FromSigned`/`FromUnsigned` the destination type).
    pub fn rounded(&self, op: RoundedOp, rnd: Rounding, args: &[BasicValueEnum<'ctx>], ret: BasicTypeEnum<'ctx>) -> R<BasicValueEnum<'ctx>> {
        if args.len() != op.arity() {
            return Err(LowerError::Internal(format!("{} takes {} operands", op.name(), op.arity())));
        }
        if rnd == Rounding::NearestEven {
            return self.nearest(op, args, ret);
        }
        if let Some(v) = self.directed_f32_inline(op, rnd, args, ret)? {
            return Ok(v);
        }
        let helper = self.rounding_helper(op, rnd, args, ret)?;
        let call_args: Vec<BasicMetadataValueEnum> = args.iter().map(|a| (*a).into()).collect();
        let call = self.b.build_call(helper, &call_args, "")?;
        call.try_as_basic_value().basic().ok_or_else(|| LowerError::Internal("rounding helper returns no value".into()))
    }

    /// `.f32` `add sub mul fma` in a directed mode without changing the hardware mode
    /// (`None` for other operations and types): the exact result is `s + e` with `s` its
    /// f64 rounding and `e` the error of that rounding (the product of two f32 is exact in
    /// f64, a sum's error comes from TwoSum, exact since nothing overflows f64 here), so the
    /// f32 result is `s` rounded to nearest, stepped one f32 towards the requested direction
    /// when it lies on the wrong side of `s + e`. Straight-line code LLVM can vectorize,
    /// where a mode change costs two control-register writes and a call per operation
    /// (CUDA's `expf` uses `fma.rm.f32`).
    fn directed_f32_inline(&self, op: RoundedOp, rnd: Rounding, args: &[BasicValueEnum<'ctx>], ret: BasicTypeEnum<'ctx>) -> R<Option<BasicValueEnum<'ctx>>> {
        let f32t = self.cx.f32_type();
        let is_f32 = |t: BasicTypeEnum<'ctx>| t.is_float_type() && t.into_float_type() == f32t;
        if !matches!(op, RoundedOp::Add | RoundedOp::Sub | RoundedOp::Mul | RoundedOp::Fma) || !is_f32(ret) || !args.iter().all(|a| is_f32(a.get_type())) {
            return Ok(None);
        }
        use inkwell::FloatPredicate as F;
        use inkwell::IntPredicate as I;
        let b = &self.b;
        let (f64t, i32t) = (self.cx.f64_type(), self.cx.i32_type());
        let wide: Vec<_> = args.iter().map(|a| b.build_float_ext(a.into_float_value(), f64t, "")).collect::<Result<_, _>>()?;
        // The two summands (x + y) whose exact sum is the result, or the exact product.
        let (x, y) = match op {
            RoundedOp::Add => (wide[0], wide[1]),
            RoundedOp::Sub => (wide[0], b.build_float_neg(wide[1], "")?),
            RoundedOp::Mul => (b.build_float_mul(wide[0], wide[1], "")?, f64t.const_zero()),
            _ => (b.build_float_mul(wide[0], wide[1], "")?, wide[2]),
        };
        let zero_f64 = f64t.const_zero();
        let (s, e) = if op == RoundedOp::Mul {
            (x, f64t.const_zero())
        } else {
            // TwoSum: s = fl(x + y), e = (x + y) - s exactly.
            let s = b.build_float_add(x, y, "")?;
            let yy = b.build_float_sub(s, x, "")?;
            let xx = b.build_float_sub(s, yy, "")?;
            let e = b.build_float_add(b.build_float_sub(x, xx, "")?, b.build_float_sub(y, yy, "")?, "")?;
            // Infinite or NaN sums have no error term (it would be NaN).
            let finite = b.build_float_compare(F::OEQ, b.build_float_sub(s, s, "")?, zero_f64, "")?;
            (s, b.build_select(finite, e, f64t.const_zero(), "")?.into_float_value())
        };
        let r = b.build_float_trunc(s, f32t, "")?;
        let rw = b.build_float_ext(r, f64t, "")?;
        let zero = f64t.const_zero();
        let above = b.build_or(
            b.build_float_compare(F::OGT, rw, s, "")?,
            b.build_and(b.build_float_compare(F::OEQ, rw, s, "")?, b.build_float_compare(F::OLT, e, zero, "")?, "")?,
            "",
        )?;
        let below = b.build_or(
            b.build_float_compare(F::OLT, rw, s, "")?,
            b.build_and(b.build_float_compare(F::OEQ, rw, s, "")?, b.build_float_compare(F::OGT, e, zero, "")?, "")?,
            "",
        )?;
        let positive = b.build_or(
            b.build_float_compare(F::OGT, s, zero, "")?,
            b.build_and(b.build_float_compare(F::OEQ, s, zero, "")?, b.build_float_compare(F::OGT, e, zero, "")?, "")?,
            "",
        )?;
        let (down, up) = match rnd {
            Rounding::Down => (above, self.cx.bool_type().const_zero()),
            Rounding::Up => (self.cx.bool_type().const_zero(), below),
            _ => (b.build_and(positive, above, "")?, b.build_and(b.build_not(positive, "")?, below, "")?),
        };
        // One f32 step down or up, through the bits (from a zero of either sign: the
        // smallest subnormal of the direction's sign).
        let bits = b.build_bit_cast(r, i32t, "")?.into_int_value();
        let magnitude = b.build_and(bits, i32t.const_int(0x7fff_ffff, false), "")?;
        let is_zero = b.build_int_compare(I::EQ, magnitude, i32t.const_zero(), "")?;
        let negative = b.build_int_compare(I::SLT, bits, i32t.const_zero(), "")?;
        let plus1 = b.build_int_add(bits, i32t.const_int(1, false), "")?;
        let minus1 = b.build_int_sub(bits, i32t.const_int(1, false), "")?;
        let stepped_down =
            b.build_select(is_zero, i32t.const_int(0x8000_0001, false), b.build_select(negative, plus1, minus1, "")?.into_int_value(), "")?.into_int_value();
        let stepped_up = b.build_select(is_zero, i32t.const_int(1, false), b.build_select(negative, minus1, plus1, "")?.into_int_value(), "")?.into_int_value();
        let bits = b.build_select(down, stepped_down, bits, "")?.into_int_value();
        let bits = b.build_select(up, stepped_up, bits, "")?.into_int_value();
        let mut result = b.build_bit_cast(bits, f32t, "")?.into_float_value();
        if rnd == Rounding::Down && op != RoundedOp::Mul {
            // An exact zero sum is -0 rounding down, unless both summands are +0 (IEEE 754
            // §6.3); round to nearest made it +0 unless both were -0.
            let exact_zero = b.build_and(b.build_float_compare(F::OEQ, s, zero, "")?, b.build_float_compare(F::OEQ, e, zero, "")?, "")?;
            let i64t = self.cx.i64_type();
            let plus_zero = |v| -> R<_> { Ok(b.build_int_compare(I::EQ, b.build_bit_cast(v, i64t, "")?.into_int_value(), i64t.const_zero(), "")?) };
            let both_plus = b.build_and(plus_zero(x)?, plus_zero(y)?, "")?;
            let minus_zero = b.build_and(exact_zero, b.build_not(both_plus, "")?, "")?;
            result = b.build_select(minus_zero, f32t.const_float(-0.0), result, "")?.into_float_value();
        }
        Ok(Some(result.into()))
    }

    /// The default-environment (round-to-nearest-even) operation.
    fn nearest(&self, op: RoundedOp, args: &[BasicValueEnum<'ctx>], ret: BasicTypeEnum<'ctx>) -> R<BasicValueEnum<'ctx>> {
        let f = |i: usize| args[i].into_float_value();
        let ft = ret.into_float_type();
        Ok(match op {
            RoundedOp::Add => self.b.build_float_add(f(0), f(1), "")?.into(),
            RoundedOp::Sub => self.b.build_float_sub(f(0), f(1), "")?.into(),
            RoundedOp::Mul => self.b.build_float_mul(f(0), f(1), "")?.into(),
            RoundedOp::Div => self.b.build_float_div(f(0), f(1), "")?.into(),
            RoundedOp::Sqrt => self.call_intrinsic("llvm.sqrt", &[ret], &[args[0]])?,
            RoundedOp::Fma => self.call_intrinsic("llvm.fma", &[ret], args)?,
            RoundedOp::Narrow => self.b.build_float_trunc(f(0), ft, "")?.into(),
            RoundedOp::FromSigned => self.b.build_signed_int_to_float(args[0].into_int_value(), ft, "")?.into(),
            RoundedOp::FromUnsigned => self.b.build_unsigned_int_to_float(args[0].into_int_value(), ft, "")?.into(),
        })
    }

    /// The module's helper for one operation, mode and type signature (made on first use).
    fn rounding_helper(&self, op: RoundedOp, rnd: Rounding, args: &[BasicValueEnum<'ctx>], ret: BasicTypeEnum<'ctx>) -> R<FunctionValue<'ctx>> {
        let arg_types: Vec<BasicTypeEnum> = args.iter().map(|a| a.get_type()).collect();
        let name = format!(
            "__ptx_rounded.{}.{}.{}.{}",
            op.name(),
            mode_name(rnd),
            arg_types.iter().map(|t| type_name(*t)).collect::<Vec<_>>().join("."),
            type_name(ret)
        );
        if let Some(f) = self.module.get_function(&name) {
            return Ok(f);
        }
        let params: Vec<_> = arg_types.iter().map(|t| (*t).into()).collect();
        let fn_ty = ret.fn_type(&params, false);
        let helper = self.module.add_function(&name, fn_ty, Some(Linkage::Internal));
        for attr in ["strictfp", "noinline", "nounwind", "willreturn"] {
            let kind = inkwell::attributes::Attribute::get_named_enum_kind_id(attr);
            helper.add_attribute(AttributeLoc::Function, self.cx.create_enum_attribute(kind, 0));
        }

        let b = self.cx.create_builder();
        b.position_at_end(self.cx.append_basic_block(helper, "entry"));
        let i32t = self.cx.i32_type();
        let set = self.ml.intrinsic("llvm.set.rounding", &[])?;
        b.build_call(set, &[i32t.const_int(flt_rounds(rnd), false).into()], "")?;

        let dynamic = self.cx.metadata_string("round.dynamic");
        let ignore = self.cx.metadata_string("fpexcept.ignore");
        let mut call_args: Vec<BasicMetadataValueEnum> = (0..args.len()).map(|i| helper.get_nth_param(i as u32).expect("declared parameter").into()).collect();
        let (intrinsic, types): (String, Vec<BasicTypeEnum>) = match op {
            RoundedOp::Narrow | RoundedOp::FromSigned | RoundedOp::FromUnsigned => {
                (format!("llvm.experimental.constrained.{}", op.name()), vec![ret, arg_types[0]])
            }
            _ => (format!("llvm.experimental.constrained.{}", op.name()), vec![ret]),
        };
        call_args.push(dynamic.into());
        call_args.push(ignore.into());
        let constrained = self.ml.intrinsic(&intrinsic, &types)?;
        let call = b.build_call(constrained, &call_args, "")?;
        let strictfp = self.cx.create_enum_attribute(inkwell::attributes::Attribute::get_named_enum_kind_id("strictfp"), 0);
        call.add_attribute(AttributeLoc::Function, strictfp);
        let result = call.try_as_basic_value().basic().ok_or_else(|| LowerError::Internal(format!("{intrinsic} returns no value")))?;
        b.build_call(set, &[i32t.const_int(flt_rounds(Rounding::NearestEven), false).into()], "")?;
        b.build_return(Some(&result))?;
        Ok(helper)
    }
}

//! IEEE operations in a directed rounding mode (`.rz .rm .rp`).
//!
//! Round-to-nearest-even is the default floating-point environment (ptxrt's workers reset
//! it), so `.rn` operations are plain LLVM instructions that optimize and vectorize freely.
//! A directed mode is a scoped change of the hardware rounding mode: the operation runs in
//! a small out-of-line helper, `strictfp` so that LLVM neither folds nor moves the operation
//! out of the scope, which sets the requested mode, does the operation as a constrained
//! intrinsic, and restores round-to-nearest-even (the mode of every worker) before it
//! returns. (Restoring a saved mode instead would read the x87 control word on x86-64, which
//! ptxrt does not promise to match MXCSR.) The change never leaks
//! into other code: the caller's own floating-point operations are outside the helper, and
//! LLVM does not inline a `strictfp` function into a normal one. The hardware (SSE's MXCSR,
//! AArch64's FPCR) then gives the exact IEEE result, subnormals and overflow included.

use crate::lower::thread::FnCx;
use crate::lower::{LowerError, R};
use crate::ir::Rounding;
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
        let helper = self.rounding_helper(op, rnd, args, ret)?;
        let call_args: Vec<BasicMetadataValueEnum> = args.iter().map(|a| (*a).into()).collect();
        let call = self.b.build_call(helper, &call_args, "")?;
        call.try_as_basic_value().basic().ok_or_else(|| LowerError::Internal("rounding helper returns no value".into()))
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
            RoundedOp::Narrow | RoundedOp::FromSigned | RoundedOp::FromUnsigned => (format!("llvm.experimental.constrained.{}", op.name()), vec![ret, arg_types[0]]),
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

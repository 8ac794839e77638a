//! `.func` functions and calls.
//!
//! A `.func` becomes an LLVM function
//! `i32 f(ptr env, ptr local, i32 tid.x, i32 tid.y, i32 tid.z, ptr param0.., ptr ret0..)`:
//! the calling thread's identity (its block environment, `.local` window and thread index)
//! and one pointer per parameter and return parameter (the caller's `.param` variables, which
//! live in the caller's stack frame). The result is a status: 0 when the function returned,
//! `EXIT_STATUS` when the thread executed `exit`, otherwise a ptxrt error code whose message
//! is already in the environment (`trap`, `__assertfail`, a failed launch check), which every
//! caller up to the block function passes on. `.local` variables of a `.func` live in its
//! stack frame, so recursion works. Functions declared `.extern` are resolved by the linker
//! against another PTX module's `.visible .func` (same symbol naming) or the runtime.

use crate::ir::{self, Callee, Operand, StateSpace, Terminator};
use crate::lower::abi;
use crate::lower::exec::kernel::load_uniforms;
use crate::lower::thread::{int_type, FnCx, Thread};
use crate::lower::{LowerError, ModuleLowerer, R};
use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::module::Linkage;
use inkwell::types::FunctionType;
use inkwell::values::{BasicMetadataValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::AddressSpace;
use std::collections::HashMap;

/// Status of a callee whose thread executed `exit`.
pub const EXIT_STATUS: u64 = u32::MAX as u64;

/// The LLVM type of every `.func` with `pointers` parameters and return parameters.
pub fn func_type<'ctx>(ml: &ModuleLowerer<'ctx, '_>, pointers: usize) -> FunctionType<'ctx> {
    let cx = ml.cx;
    let ptr = cx.ptr_type(AddressSpace::default());
    let i32t = cx.i32_type();
    let mut params: Vec<inkwell::types::BasicMetadataTypeEnum> = vec![ptr.into(), ptr.into(), i32t.into(), i32t.into(), i32t.into()];
    params.extend(std::iter::repeat_n(inkwell::types::BasicMetadataTypeEnum::from(ptr), pointers));
    i32t.fn_type(&params, false)
}

/// Declares every `.func` of the module; `defines(i)`: this unit lowers function `i`'s body
/// (`lower_func`), else it is a declaration of a definition elsewhere (another codegen unit,
/// another object) or nowhere (not needed, `ir::reach`).
pub fn declare_functions<'ctx>(ml: &ModuleLowerer<'ctx, '_>, defines: impl Fn(usize) -> bool) -> Vec<Option<FunctionValue<'ctx>>> {
    ml.ir
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if f.kind != ir::FunctionKind::Func {
                return None;
            }
            let ty = func_type(ml, f.params.len() + f.returns.len());
            let linkage = match f.linkage {
                _ if !(f.has_body && defines(i)) => Linkage::External,
                ir::Linkage::Internal => Linkage::Internal,
                // C++'s inline functions (`ir::reach`): one definition per program, so the
                // module may inline its own.
                ir::Linkage::Weak => Linkage::WeakODR,
                ir::Linkage::Public | ir::Linkage::External => Linkage::External,
            };
            let func = ml.module.add_function(&abi::ptx_symbol(&f.name), ty, Some(linkage));
            let nounwind = ml.cx.create_enum_attribute(inkwell::attributes::Attribute::get_named_enum_kind_id("nounwind"), 0);
            func.add_attribute(inkwell::attributes::AttributeLoc::Function, nounwind);
            Some(func)
        })
        .collect()
}

/// Stack slots for the variables of function `owner` that live in its frame: `.param`
/// variables (call arguments and results), and in a `.func` also its `.local` variables.
pub fn frame_vars<'ctx>(ml: &ModuleLowerer<'ctx, '_>, b: &Builder<'ctx>, owner: usize) -> R<HashMap<ir::VarId, PointerValue<'ctx>>> {
    let is_func = ml.ir.functions[owner].kind == ir::FunctionKind::Func;
    let mut out = HashMap::new();
    for (i, v) in ml.ir.vars.iter().enumerate() {
        let in_frame = v.space == StateSpace::Param || (is_func && v.space == StateSpace::Local);
        if v.owner != Some(owner) || !in_frame || ml.layout.per_thread_param(ir::VarId(i as u32)) {
            continue;
        }
        let ty = ml.cx.i8_type().array_type(v.size.max(1) as u32);
        let slot = b.build_alloca(ty, &v.name)?;
        slot.as_instruction()
            .ok_or_else(|| LowerError::Internal("alloca is not an instruction".into()))?
            .set_alignment(v.align.max(16))
            .map_err(|e| LowerError::Internal(e.to_string()))?;
        out.insert(ir::VarId(i as u32), slot);
    }
    Ok(out)
}

/// `.alias a, b`: `a`'s body calls `b` with the same arguments.
pub fn lower_alias<'ctx>(ml: &ModuleLowerer<'ctx, '_>, alias: u32, target: u32) -> R<()> {
    let (a, b) = (ml.function(alias)?, ml.function(target)?);
    let bld = ml.cx.create_builder();
    bld.position_at_end(ml.cx.append_basic_block(a, "entry"));
    let args: Vec<BasicMetadataValueEnum> = a.get_param_iter().map(|p| p.into()).collect();
    let status = bld.build_call(b, &args, "status")?.try_as_basic_value().basic().ok_or_else(|| LowerError::Internal("call without status".into()))?;
    bld.build_return(Some(&status))?;
    Ok(())
}

/// Lowers the body of `.func` number `index`.
pub fn lower_func<'ctx>(ml: &ModuleLowerer<'ctx, '_>, index: usize, f: &ir::Function) -> R<()> {
    lower_thread_fn(ml, index, f, ml.function(index as u32)?)
}

/// Lowers function `index` (a `.func`, or an `.entry` run by the fiber scheduler) as
/// per-thread code into `func`, which has the `.func` ABI (an entry has no parameter
/// pointers: it reads the launch's arguments, and its `.local` window is the thread's).
/// Sync points suspend the calling thread's fiber (`fibers`).
pub fn lower_thread_fn<'ctx>(ml: &ModuleLowerer<'ctx, '_>, index: usize, f: &ir::Function, func: FunctionValue<'ctx>) -> R<()> {
    let cx = ml.cx;
    let is_entry = f.kind == ir::FunctionKind::Entry;
    let b = cx.create_builder();
    let entry = cx.append_basic_block(func, "entry");
    b.position_at_end(entry);
    let arg = |i: u32| func.get_nth_param(i).ok_or_else(|| LowerError::Internal("missing function argument".into()));
    let mut uni = load_uniforms(ml, &b, func, is_entry.then_some(f))?;
    if !is_entry {
        let np = f.params.len() as u32;
        uni.params = (0..np).map(|i| Ok(arg(5 + i)?.into_pointer_value())).collect::<R<_>>()?;
        uni.returns = (0..f.returns.len() as u32).map(|i| Ok(arg(5 + np + i)?.into_pointer_value())).collect::<R<_>>()?;
    }
    let tid = [arg(2)?.into_int_value(), arg(3)?.into_int_value(), arg(4)?.into_int_value()];
    let zy = b.build_int_mul(tid[2], uni.ntid[1], "")?;
    let zy = b.build_int_add(zy, tid[1], "")?;
    let lin = b.build_int_mul(zy, uni.ntid[0], "")?;
    let linear = b.build_int_add(lin, tid[0], "tid")?;
    let local = if is_entry {
        // A fiber kernel's thread keeps its `.local` window in its own stack (see `fibers`).
        let window = b.build_alloca(cx.i8_type().array_type(ml.layout.local_bytes.max(1) as u32), "local")?;
        window
            .as_instruction()
            .ok_or_else(|| LowerError::Internal("alloca is not an instruction".into()))?
            .set_alignment(16)
            .map_err(|e| LowerError::Internal(e.to_string()))?;
        window
    } else {
        arg(1)?.into_pointer_value()
    };
    let frame = frame_vars(ml, &b, index)?;
    let regs = f.regs.iter().map(|r| b.build_alloca(int_type(cx, r.ty.bits()), &r.name)).collect::<Result<Vec<_>, _>>()?;
    let exit_bb = cx.append_basic_block(func, "exit");
    let mut fc = FnCx {
        cx,
        module: &ml.module,
        b,
        ml,
        f,
        func,
        regs,
        uni,
        thread: Some(Thread { tid, linear, linear_wide: None, warp_lane: None }),
        frame_vars: frame,
        local_override: Some(local),
        on_exit: Some(exit_bb),
        known_preds: HashMap::new(),
        guarded_indices: HashMap::new(),
        debug: None,
        at: 0,
        linear_textures: false,
        homes: None,
        defs_cache: std::cell::OnceCell::new(),
    };
    fc.begin_debug()?;
    // `.reg` parameters: read the arguments into their registers.
    for (i, p) in f.params.iter().enumerate() {
        if let Some(r) = p.reg {
            let ty = f.regs[r.0 as usize].ty;
            let v = fc.b.build_load(fc.int_ty(ty.bits()), fc.uni.params[i], "")?.into_int_value();
            fc.write(r, v, ty)?;
        }
    }
    let bbs: Vec<BasicBlock<'ctx>> = (0..f.blocks.len()).map(|i| fc.new_block(&format!("b{i}"))).collect();
    let first = *bbs.first().ok_or_else(|| LowerError::Internal(format!("`{}` has no blocks", f.name)))?;
    fc.b.build_unconditional_branch(first)?;
    for (i, block) in f.blocks.iter().enumerate() {
        fc.b.position_at_end(bbs[i]);
        for inst in &block.insts {
            fc.inst(inst).map_err(|e| e.at(&inst.span))?;
        }
        match &block.term {
            Terminator::Jump(t) => {
                fc.b.build_unconditional_branch(bbs[t.0 as usize])?;
            }
            Terminator::Branch { cond, then_, else_ } => {
                let c = fc.read_pred(*cond)?;
                fc.b.build_conditional_branch(c, bbs[then_.0 as usize], bbs[else_.0 as usize])?;
            }
            Terminator::Return => {
                // `.reg` return parameters: hand their registers' values back.
                for (i, p) in f.returns.iter().enumerate() {
                    if let Some(r) = p.reg {
                        let v = fc.load_reg(r)?;
                        fc.b.build_store(fc.uni.returns[i], v)?;
                    }
                }
                fc.b.build_return(Some(&cx.i32_type().const_zero()))?;
            }
            Terminator::Exit => {
                fc.b.build_unconditional_branch(exit_bb)?;
            }
            Terminator::Sync { point, next } => {
                // Direct calls from kernels are inlined (check/inline.rs); what remains is
                // reached through recursion or an indirect call, from a fiber kernel.
                fc.fiber_sync(point, bbs[next.0 as usize])?;
            }
        }
    }
    fc.b.position_at_end(exit_bb);
    fc.b.build_return(Some(&cx.i32_type().const_int(EXIT_STATUS, false)))?;
    Ok(())
}

impl<'ctx> FnCx<'ctx, '_> {
    /// An `alloca` in the function's entry block (so that calls inside loops reuse it).
    pub(crate) fn entry_alloca(&self, bytes: u32) -> R<PointerValue<'ctx>> {
        let entry = self.func.get_first_basic_block().ok_or_else(|| LowerError::Internal("function without entry block".into()))?;
        let b = self.cx.create_builder();
        match entry.get_first_instruction() {
            Some(i) => b.position_before(&i),
            None => b.position_at_end(entry),
        }
        let slot = b.build_alloca(self.cx.i8_type().array_type(bytes.max(1)), "call.tmp")?;
        slot.as_instruction()
            .ok_or_else(|| LowerError::Internal("alloca is not an instruction".into()))?
            .set_alignment(16)
            .map_err(|e| LowerError::Internal(e.to_string()))?;
        Ok(slot)
    }

    /// The pointer passed for one argument or result of a call.
    fn call_slot(&self, op: Operand, size: u32, value_ty: Option<ir::ScalarType>) -> R<PointerValue<'ctx>> {
        let i8t = self.cx.i8_type();
        match op {
            Operand::VarAddr(v, off) if self.frame_vars.contains_key(&v) => {
                // SAFETY (of the generated code): offsets stay inside the `.param` variable.
                Ok(unsafe { self.b.build_gep(i8t, self.frame_vars[&v], &[self.i64(off as u64)], "")? })
            }
            Operand::VarAddr(v, off) if self.ml.layout.per_thread_param(v) => self.local_var_ptr(v, off),
            Operand::ParamAddr(i, off) => Ok(unsafe { self.b.build_gep(i8t, self.uni.params[i as usize], &[self.i64(off as u64)], "")? }),
            other => {
                // A register or immediate argument (ISA 1.x convention): passed through a slot.
                let slot = self.entry_alloca(size.max(8))?;
                if let Some(ty) = value_ty {
                    let v = self.read(other, ty)?;
                    self.b.build_store(slot, v)?;
                }
                Ok(slot)
            }
        }
    }

    pub fn call(&mut self, callee: &Callee, args: &[Operand], rets: &[Option<Operand>]) -> R<()> {
        let (target, ir_callee): (Result<FunctionValue<'ctx>, PointerValue<'ctx>>, Option<&ir::Function>) = match callee {
            Callee::Direct(f) => (Ok(self.ml.function(*f)?), Some(&self.ml.ir.functions[*f as usize])),
            Callee::Indirect { target, .. } => {
                let v = self.load_reg(*target)?;
                let v = self.resize(v, 64, false)?;
                (Err(self.b.build_int_to_ptr(v, self.ptr_ty(), "fptr")?), None)
            }
            // An OptiX device-API function (`_rt_buffer_get_64`, ...), which OptiX's PTX calls
            // without declaring it: an external function with the `.func` ABI (module symbol
            // naming included), for the program that links the object to provide.
            Callee::External(name) => {
                let symbol = abi::ptx_symbol(name);
                let f = match self.module.get_function(&symbol) {
                    Some(f) => f,
                    None => self.module.add_function(&symbol, func_type(self.ml, args.len() + rets.len()), Some(Linkage::External)),
                };
                (Ok(f), None)
            }
        };
        let reg_ty = |op: &Operand| match op {
            Operand::Reg(r) => Some(self.f.regs[r.0 as usize].ty),
            _ => None,
        };
        let mut call_args: Vec<BasicMetadataValueEnum<'ctx>> = vec![self.uni.env.into(), self.local_base()?.into()];
        let t = self.thread();
        call_args.extend(t.tid.iter().map(|v| BasicMetadataValueEnum::from(*v)));
        for (i, a) in args.iter().enumerate() {
            let param = ir_callee.and_then(|f| f.params.get(i));
            let ty = param.map(|p| p.ty).or_else(|| reg_ty(a)).unwrap_or(ir::ScalarType::B64);
            let size = param.map_or(8, |p| p.size);
            call_args.push(self.call_slot(*a, size, Some(ty))?.into());
        }
        let mut copy_back = vec![];
        for (i, r) in rets.iter().enumerate() {
            let size = ir_callee.and_then(|f| f.returns.get(i)).map_or(64, |p| p.size);
            let slot = match r {
                Some(op @ Operand::Reg(reg)) => {
                    let slot = self.call_slot(*op, size, None)?;
                    copy_back.push((*reg, slot));
                    slot
                }
                Some(op) => self.call_slot(*op, size, None)?,
                None => self.entry_alloca(size)?,
            };
            call_args.push(slot.into());
        }
        let fn_ty = func_type(self.ml, args.len() + rets.len());
        let status = match target {
            Ok(f) => self.b.build_call(f, &call_args, "status")?,
            Err(p) => self.b.build_indirect_call(fn_ty, p, &call_args, "status")?,
        };
        let status: IntValue<'ctx> = status.try_as_basic_value().basic().ok_or_else(|| LowerError::Internal("call without status".into()))?.into_int_value();
        // Non-zero status: the thread exited, or an error to pass on to the runtime.
        let i32t = self.cx.i32_type();
        let failed = self.b.build_int_compare(inkwell::IntPredicate::NE, status, i32t.const_zero(), "")?;
        let stop = self.new_block("call.stop");
        let cont = self.new_block("call.cont");
        self.b.build_conditional_branch(failed, stop, cont)?;
        self.b.position_at_end(stop);
        let exited = self.b.build_int_compare(inkwell::IntPredicate::EQ, status, i32t.const_int(EXIT_STATUS, false), "")?;
        let propagate = self.new_block("call.error");
        let on_exit = self.on_exit.ok_or_else(|| LowerError::Internal("call outside of a thread".into()))?;
        self.b.build_conditional_branch(exited, on_exit, propagate)?;
        self.b.position_at_end(propagate);
        self.b.build_return(Some(&status))?;
        self.b.position_at_end(cont);
        for (reg, slot) in copy_back {
            let ty = self.f.regs[reg.0 as usize].ty;
            let v = self.b.build_load(self.int_ty(ty.bits()), slot, "")?.into_int_value();
            self.write(reg, v, ty)?;
        }
        Ok(())
    }
}

//! Per-thread code: registers, operands, addresses and the dispatch of each operation to
//! its family (`int`, `float`, `compare`, `convert`, `memory`).
//!
//! Every PTX register is an `alloca` of an integer type of its width (predicates: `i1`);
//! floating-point operations bitcast. `mem2reg`/SROA turn this into SSA form.

use super::debug::FnDebug;
use super::{LowerError, ModuleLowerer, R};
use crate::ir::{self, Dim, Op, Operand, RegId, ScalarType, SpecialReg, StateSpace};
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::types::{BasicTypeEnum, FloatType, IntType};
use inkwell::values::{BasicValueEnum, FloatValue, FunctionValue, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use std::collections::HashMap;

/// The LLVM integer type of a width in bits (widths come from PTX types: 1 to 128).
pub fn int_type(cx: &Context, bits: u32) -> IntType<'_> {
    match bits {
        1 => cx.bool_type(),
        8 => cx.i8_type(),
        16 => cx.i16_type(),
        32 => cx.i32_type(),
        64 => cx.i64_type(),
        128 => cx.i128_type(),
        _ => cx.custom_width_int_type(std::num::NonZeroU32::new(bits.max(1)).expect("nonzero")).expect("valid integer width"),
    }
}

/// Values that are the same for every thread of the block.
#[derive(Clone)]
pub struct Uniform<'ctx> {
    pub env: PointerValue<'ctx>,
    pub ntid: [IntValue<'ctx>; 3],
    pub nctaid: [IntValue<'ctx>; 3],
    pub ctaid: [IntValue<'ctx>; 3],
    /// The threads this call runs: the block's, or a fused run's (`x_extent * ntid.y *
    /// ntid.z`, see `fusion`); the context area holds this many threads.
    pub nthreads: IntValue<'ctx>,
    pub shared: PointerValue<'ctx>,
    pub local: PointerValue<'ctx>,
    pub context: PointerValue<'ctx>,
    pub params: Vec<PointerValue<'ctx>>,
    /// Return parameters of a `.func` (empty in kernels).
    pub returns: Vec<PointerValue<'ctx>>,
    pub worker_index: IntValue<'ctx>,
    pub num_workers: IntValue<'ctx>,
    pub dynamic_shared: IntValue<'ctx>,
    /// How far the x thread loop runs: `ntid.x`, or for a kernel that runs several blocks
    /// along x per call, `ntid.x * blocks_x` (`fusion`).
    pub x_extent: IntValue<'ctx>,
}

/// The current thread inside a region loop.
#[derive(Clone, Copy)]
pub struct Thread<'ctx> {
    pub tid: [IntValue<'ctx>; 3],
    /// x + ntid.x * (y + ntid.y * z)
    pub linear: IntValue<'ctx>,
    /// `linear` as an i64 computed without a 32-bit add (in a thread loop: the loop's
    /// x index plus the row's start), for context addresses: LLVM then sees them as affine
    /// in the loop index without proving that the i32 sum does not wrap.
    pub linear_wide: Option<IntValue<'ctx>>,
    /// In a warp's loop (`exec::warp_runs`): the loop's own lane index, 0 to 31, which
    /// addresses the warp's lane arrays (`tid.x` less the warp's first x index is the same
    /// value, but after vectorization and unrolling LLVM no longer folds it to a constant
    /// and the arrays stay in memory).
    pub warp_lane: Option<IntValue<'ctx>>,
}

impl<'ctx> Thread<'ctx> {
    /// Thread (0, 0, 0): where a block function computes, outside its thread loops, what a
    /// thread's code gives for the whole block (bounds, a pass's start, a prefetch gate).
    pub fn first(cx: &'ctx Context) -> Self {
        let zero = cx.i32_type().const_zero();
        Thread { tid: [zero; 3], linear: zero, linear_wide: None, warp_lane: None }
    }
}

pub struct FnCx<'ctx, 'a> {
    pub cx: &'ctx Context,
    pub module: &'a Module<'ctx>,
    pub b: Builder<'ctx>,
    pub ml: &'a ModuleLowerer<'ctx, 'a>,
    pub f: &'a ir::Function,
    pub func: FunctionValue<'ctx>,
    pub regs: Vec<PointerValue<'ctx>>,
    pub uni: Uniform<'ctx>,
    pub thread: Option<Thread<'ctx>>,
    /// Variables that live in the LLVM function's stack frame: `.param` variables (call
    /// arguments) and the `.local` variables of `.func` functions (one copy per call, so
    /// recursion works).
    pub frame_vars: HashMap<ir::VarId, PointerValue<'ctx>>,
    /// In a `.func`: the calling thread's `.local` window, passed by the caller.
    pub local_override: Option<PointerValue<'ctx>>,
    /// Where the current thread goes when it executes `exit` (or a callee reports it did).
    pub on_exit: Option<inkwell::basic_block::BasicBlock<'ctx>>,
    /// Predicates whose value is known where the code is being emitted (`setp` writes the
    /// constant): the guards a narrowed thread loop has already applied (`guards`).
    pub known_preds: HashMap<ir::RegId, bool>,
    /// For some of those guards, the register they compare as a thread index without
    /// wrapping (`GuardedIndex`), keyed by the guard's predicate.
    pub guarded_indices: HashMap<ir::RegId, GuardedIndex<'ctx>>,
    /// `-g`: the function's debug scope and the variables that show the current thread.
    pub debug: Option<DebugVars<'ctx>>,
    /// The PTX offset of the instruction being lowered (`--check` reports name it).
    pub at: usize,
    /// The thread loop being emitted runs only when every integer-indexed 1D texture
    /// fetch reads linear memory (`exec::texture_versions`).
    pub linear_textures: bool,
    /// Registers whose storage (`regs`) is currently their slot in the thread's frame
    /// (`kernel::frame_homes`): their loads and stores carry the frame's alias scopes.
    pub homes: Option<(std::collections::HashSet<RegId>, crate::lower::exec::alias::FrameScopes<'ctx>)>,
    /// Where each register of `f` is defined, made on first use (`defs`).
    pub(crate) defs_cache: std::cell::OnceCell<crate::lower::exec::recompute::Defs>,
}

/// A register that a narrowed thread loop's guard compares (`guards::Bound::affine`): it
/// holds `base + tid.dim` (`base - tid.dim` if `negated`), and the loop runs only where
/// none of its threads' values wraps in 32 bits (`exec::kernel`'s `fits`). The guard's
/// `setp` writes it again as that sum with `nsw` (`nuw` when compared unsigned): the same
/// bits, but LLVM then sees `sext(index)` as affine in the loop and the accesses it
/// addresses as consecutive, where it otherwise scalarizes them (a gather of eight loads).
#[derive(Clone, Copy)]
pub struct GuardedIndex<'ctx> {
    pub reg: RegId,
    pub base: IntValue<'ctx>,
    pub dim: usize,
    pub negated: bool,
    pub signed: bool,
}

/// `-g` state of a function being lowered (`lower::debug`).
pub struct DebugVars<'ctx> {
    pub scope: FnDebug<'ctx>,
    /// `tid_x/y/z`: the thread the code runs for (stored where a thread loop picks it).
    tid: [PointerValue<'ctx>; 3],
}

impl<'ctx, 'a> FnCx<'ctx, 'a> {
    /// Where each register of the function is defined.
    pub(crate) fn defs(&self) -> &crate::lower::exec::recompute::Defs {
        self.defs_cache.get_or_init(|| crate::lower::exec::recompute::Defs::new(self.f))
    }

    /// The instruction that defines register operand `op`, if it has exactly one
    /// definition and that one is unguarded: a register read anywhere then holds its
    /// result (or nothing defined, where no definition ran before the read).
    pub(crate) fn only_definition(&self, op: Operand) -> Option<&'a ir::Op> {
        let Operand::Reg(r) = op else { return None };
        let (b, i) = self.defs().single(r)?;
        Some(&self.f.blocks[b].insts.get(i)?.op)
    }

    pub fn int_ty(&self, bits: u32) -> IntType<'ctx> {
        int_type(self.cx, bits)
    }

    pub fn i32(&self, v: u64) -> IntValue<'ctx> {
        self.cx.i32_type().const_int(v, false)
    }

    pub fn i64(&self, v: u64) -> IntValue<'ctx> {
        self.cx.i64_type().const_int(v, false)
    }

    pub fn ptr_ty(&self) -> inkwell::types::PointerType<'ctx> {
        self.cx.ptr_type(AddressSpace::default())
    }

    pub fn float_ty(&self, ty: ScalarType) -> FloatType<'ctx> {
        match ty {
            ScalarType::F64 => self.cx.f64_type(),
            ScalarType::F16 => self.cx.f16_type(),
            _ => self.cx.f32_type(),
        }
    }

    /// The storage type of a register.
    pub fn reg_storage(&self, ty: ScalarType) -> IntType<'ctx> {
        self.int_ty(ty.bits())
    }

    pub fn thread(&self) -> Thread<'ctx> {
        self.thread.expect("per-thread code is emitted inside a thread loop")
    }

    /// Puts a memory access of the current thread that no other thread of its region may
    /// touch without a data race in the thread loops' access group (`exec::alias`), when
    /// it is emitted into a thread loop of a kernel's block function. Not in a `.func` or a
    /// fiber kernel: inlined into a thread loop, their frames would be shared by its
    /// iterations.
    pub fn tag_thread_access(&self, inst: inkwell::values::InstructionValue<'ctx>) {
        if self.thread.is_some() && self.local_override.is_none() {
            crate::lower::exec::alias::tag_thread_access(self.cx, inst);
        }
    }

    pub fn new_block(&self, name: &str) -> inkwell::basic_block::BasicBlock<'ctx> {
        self.cx.append_basic_block(self.func, name)
    }

    /// Reads a register as stored (its declared width).
    pub fn load_reg(&self, r: RegId) -> R<IntValue<'ctx>> {
        let ty = self.reg_storage(self.f.regs[r.0 as usize].ty);
        let v = self.b.build_load(ty, self.regs[r.0 as usize], "")?;
        if let Some(inst) = inkwell::values::BasicValue::as_instruction_value(&v) {
            self.tag_home(r, inst);
        }
        Ok(v.into_int_value())
    }

    /// Tags an access of register `r`'s storage if that is its frame slot (`homes`).
    fn tag_home(&self, r: RegId, inst: inkwell::values::InstructionValue<'ctx>) {
        if let Some((regs, scopes)) = &self.homes {
            if regs.contains(&r) {
                scopes.tag(self.cx, inst);
                crate::lower::exec::alias::tag_thread_access(self.cx, inst);
            }
        }
    }

    /// Writes a value of instruction type `ty` to a register, extending it (by the
    /// signedness of `ty`) or truncating it to the register's width.
    pub fn write(&self, r: RegId, v: IntValue<'ctx>, ty: ScalarType) -> R<()> {
        let reg_ty = self.reg_storage(self.f.regs[r.0 as usize].ty);
        let v = self.resize(v, reg_ty.get_bit_width(), ty.is_signed())?;
        let st = self.b.build_store(self.regs[r.0 as usize], v)?;
        self.tag_home(r, st);
        Ok(())
    }

    pub fn write_float(&self, r: RegId, v: FloatValue<'ctx>, ty: ScalarType) -> R<()> {
        let bits = self.b.build_bit_cast(v, self.int_ty(ty.bits()), "")?.into_int_value();
        self.write(r, bits, ty)
    }

    pub fn resize(&self, v: IntValue<'ctx>, bits: u32, signed: bool) -> R<IntValue<'ctx>> {
        let have = v.get_type().get_bit_width();
        let to = self.int_ty(bits);
        Ok(if have == bits {
            v
        } else if have > bits {
            self.b.build_int_truncate(v, to, "")?
        } else if signed {
            self.b.build_int_s_extend(v, to, "")?
        } else {
            self.b.build_int_z_extend(v, to, "")?
        })
    }

    /// Reads an operand as the bits of instruction type `ty`.
    pub fn read(&self, op: Operand, ty: ScalarType) -> R<IntValue<'ctx>> {
        let bits = ty.bits();
        match op {
            Operand::Reg(r) => {
                let v = self.load_reg(r)?;
                let reg_ty = self.f.regs[r.0 as usize].ty;
                self.resize(v, bits, reg_ty.is_signed())
            }
            Operand::Imm(v) => Ok(self.int_ty(bits).const_int(v, false)),
            Operand::Special(s) => {
                let v = self.special(s)?;
                self.resize(v, bits, false)
            }
            Operand::VarAddr(v, off) => {
                let a = self.var_address_value(v, off)?;
                self.resize(a, bits, false)
            }
            Operand::ParamAddr(i, off) => {
                let p = self.uni.params[i as usize];
                let a = self.b.build_ptr_to_int(p, self.cx.i64_type(), "")?;
                let a = self.b.build_int_add(a, self.i64(off as u64), "")?;
                self.resize(a, bits, false)
            }
            Operand::FuncAddr(f) => {
                let a = self.b.build_ptr_to_int(self.ml.function_address(f)?, self.cx.i64_type(), "")?;
                self.resize(a, bits, false)
            }
            Operand::Handle(h) => {
                let v = self.handle_value(h)?;
                self.resize(v, bits, false)
            }
        }
    }

    pub fn read_float(&self, op: Operand, ty: ScalarType) -> R<FloatValue<'ctx>> {
        let v = self.read(op, ty)?;
        Ok(self.b.build_bit_cast(v, self.float_ty(ty), "")?.into_float_value())
    }

    pub fn read_pred(&self, p: ir::PredRef) -> R<IntValue<'ctx>> {
        let v = self.load_reg(p.reg)?;
        Ok(if p.negated { self.b.build_not(v, "")? } else { v })
    }

    /// The value of a variable's address in its own state space (window offset for
    /// shared/local, host address for global/const).
    pub fn var_address_value(&self, v: ir::VarId, off: i64) -> R<IntValue<'ctx>> {
        let var = &self.ml.ir.vars[v.0 as usize];
        if let Some(p) = self.frame_vars.get(&v) {
            let a = self.b.build_ptr_to_int(*p, self.cx.i64_type(), "")?;
            let a = if var.space == StateSpace::Local {
                // A window offset: relative to this thread's `.local` base.
                let base = self.b.build_ptr_to_int(self.local_base()?, self.cx.i64_type(), "")?;
                self.b.build_int_sub(a, base, "")?
            } else {
                a
            };
            return Ok(self.b.build_int_add(a, self.i64(off as u64), "")?);
        }
        if self.ml.layout.per_thread_param(v) {
            // A host address, as `.param` addresses are (`ops::memory`).
            return Ok(self.b.build_ptr_to_int(self.local_var_ptr(v, off)?, self.cx.i64_type(), "")?);
        }
        match var.space {
            StateSpace::Shared => Ok(self.i64(self.ml.layout.shared_offset(v).wrapping_add(off as u64))),
            StateSpace::Local => Ok(self.i64(self.ml.layout.local_offset(v).wrapping_add(off as u64))),
            _ => {
                let g = self.ml.global_ptr(v).ok_or_else(|| LowerError::Unsupported(format!("address of `{}`", var.name)))?;
                let a = self.b.build_ptr_to_int(g, self.cx.i64_type(), "")?;
                Ok(self.b.build_int_add(a, self.i64(off as u64), "")?)
            }
        }
    }

    /// Byte `off` of the current thread's copy of variable `v` in its `.local` window: a
    /// kernel's `.local` variable, or a call's `.param` variable kept there
    /// (`MemoryLayout::per_thread_param`).
    pub fn local_var_ptr(&self, v: ir::VarId, off: i64) -> R<PointerValue<'ctx>> {
        let at = self.i64(self.ml.layout.local_offset(v).wrapping_add(off as u64));
        // SAFETY (of the generated code): the variable lies in the thread's `.local` window.
        Ok(unsafe { self.b.build_gep(self.cx.i8_type(), self.local_base()?, &[at], "")? })
    }

    /// Base of the current thread's `.local` window.
    pub fn local_base(&self) -> R<PointerValue<'ctx>> {
        if let Some(p) = self.local_override {
            return Ok(p);
        }
        let t = self.thread();
        let per = self.ml.layout.local_bytes;
        let idx = self.b.build_int_z_extend(t.linear, self.cx.i64_type(), "")?;
        let off = self.b.build_int_mul(idx, self.i64(per), "")?;
        // SAFETY (of the generated code): local is sized local_bytes_per_thread * threads.
        Ok(unsafe { self.b.build_in_bounds_gep(self.cx.i8_type(), self.uni.local, &[off], "local")? })
    }

    pub fn special(&self, s: SpecialReg) -> R<IntValue<'ctx>> {
        let d = |d: Dim| match d {
            Dim::X => 0,
            Dim::Y => 1,
            Dim::Z => 2,
        };
        Ok(match s {
            SpecialReg::Tid(x) => self.thread().tid[d(x)],
            SpecialReg::Ntid(x) => self.uni.ntid[d(x)],
            SpecialReg::Ctaid(x) => self.uni.ctaid[d(x)],
            SpecialReg::Nctaid(x) => self.uni.nctaid[d(x)],
            SpecialReg::LaneId => self.b.build_and(self.thread().linear, self.i32(31), "laneid")?,
            SpecialReg::WarpId => self.b.build_right_shift(self.thread().linear, self.i32(5), false, "warpid")?,
            SpecialReg::NWarpId => {
                let n = self.b.build_int_add(self.uni.nthreads, self.i32(31), "")?;
                self.b.build_right_shift(n, self.i32(5), false, "nwarpid")?
            }
            SpecialReg::SmId => self.uni.worker_index,
            SpecialReg::NSmId => self.uni.num_workers,
            SpecialReg::GridId => self.launch_field(super::abi::launch::GRID_ID, self.cx.i64_type().into(), "gridid")?.into_int_value(),
            SpecialReg::LanemaskEq | SpecialReg::LanemaskLe | SpecialReg::LanemaskLt | SpecialReg::LanemaskGe | SpecialReg::LanemaskGt => {
                let lane = self.b.build_and(self.thread().linear, self.i32(31), "")?;
                let eq = self.b.build_left_shift(self.i32(1), lane, "")?;
                let lt = self.b.build_int_sub(eq, self.i32(1), "")?;
                match s {
                    SpecialReg::LanemaskEq => eq,
                    SpecialReg::LanemaskLt => lt,
                    SpecialReg::LanemaskLe => self.b.build_or(lt, eq, "")?,
                    SpecialReg::LanemaskGe => self.b.build_not(lt, "")?,
                    _ => {
                        let le = self.b.build_or(lt, eq, "")?;
                        self.b.build_not(le, "")?
                    }
                }
            }
            SpecialReg::Clock | SpecialReg::Clock64 => self.clock64()?,
            SpecialReg::ClockHi => {
                let c = self.clock64()?;
                self.b.build_right_shift(c, self.i64(32), false, "")?
            }
            SpecialReg::GlobalTimer => self.global_timer()?,
            SpecialReg::GlobalTimerLo => self.global_timer()?,
            SpecialReg::GlobalTimerHi => {
                let t = self.global_timer()?;
                self.b.build_right_shift(t, self.i64(32), false, "")?
            }
            SpecialReg::DynamicSmemSize => self.uni.dynamic_shared,
            SpecialReg::TotalSmemSize | SpecialReg::AggrSmemSize => {
                let s = self.i32(self.ml.layout.static_shared_aligned());
                self.b.build_int_add(s, self.uni.dynamic_shared, "")?
            }
            SpecialReg::Pm64(_) | SpecialReg::CurrentGraphExec => self.i64(0),
            // CUDA's driver passes a cooperative launch's grid-barrier workspace in
            // %envreg1 (high half of the address) and %envreg2 (low half); other words 0.
            SpecialReg::EnvReg(n @ (1 | 2)) => {
                let ws = self.launch_field(super::abi::launch::GRID_WORKSPACE, self.ptr_ty().into(), "grid_workspace")?.into_pointer_value();
                let ws = self.b.build_ptr_to_int(ws, self.cx.i64_type(), "")?;
                let ws = if n == 1 { self.b.build_right_shift(ws, self.i64(32), false, "")? } else { ws };
                self.b.build_int_truncate(ws, self.cx.i32_type(), "")?
            }
            SpecialReg::Pm(_) | SpecialReg::EnvReg(_) | SpecialReg::ReservedSmem | SpecialReg::VectorW => self.i32(0),
            SpecialReg::IsExplicitCluster => self.cx.bool_type().const_zero(),
            SpecialReg::ClusterId(x) => self.uni.ctaid[d(x)],
            SpecialReg::NClusterId(x) => self.uni.nctaid[d(x)],
            SpecialReg::ClusterCtaid(_) | SpecialReg::ClusterCtaRank => self.i32(0),
            SpecialReg::ClusterNctaid(_) | SpecialReg::ClusterNCtaRank => self.i32(1),
        })
    }

    /// Field `field` (of type `ty`) of the launch's `ptxrtLaunchInfo`, read through the block
    /// environment.
    fn launch_field(&self, field: u32, ty: inkwell::types::BasicTypeEnum<'ctx>, name: &str) -> R<inkwell::values::BasicValueEnum<'ctx>> {
        let t = &self.ml.abi;
        let p = self.b.build_struct_gep(t.block_env, self.uni.env, super::abi::env::LAUNCH, "")?;
        let launch = self.b.build_load(self.ptr_ty(), p, "launch")?.into_pointer_value();
        let p = self.b.build_struct_gep(t.launch_info, launch, field, "")?;
        Ok(self.b.build_load(ty, p, name)?)
    }

    /// A function of the runtime's support layer, declared on first use.
    pub fn runtime_function(&self, name: &str, ty: inkwell::types::FunctionType<'ctx>) -> FunctionValue<'ctx> {
        self.module.get_function(name).unwrap_or_else(|| self.module.add_function(name, ty, Some(inkwell::module::Linkage::External)))
    }

    /// `%clock64`: the CPU's cycle counter where user code may read it (x86-64 `rdtsc`,
    /// constant-rate and monotonic on current CPUs), else the runtime's monotonic clock in ns.
    fn clock64(&self) -> R<IntValue<'ctx>> {
        let triple = self.module.get_triple();
        let call = if triple.as_str().to_string_lossy().starts_with("x86_64") {
            let f = self.ml.intrinsic("llvm.readcyclecounter", &[])?;
            self.b.build_call(f, &[], "clock")?
        } else {
            let f = self.runtime_function("__ptxrt_clock64", self.cx.i64_type().fn_type(&[], false));
            self.b.build_call(f, &[], "clock")?
        };
        call.try_as_basic_value().basic().map(|v| v.into_int_value()).ok_or_else(|| LowerError::Internal("the clock returns a value".into()))
    }

    /// `%globaltimer`: nanoseconds of the runtime's monotonic clock.
    fn global_timer(&self) -> R<IntValue<'ctx>> {
        let f = self.runtime_function("__ptxrt_globaltimer", self.cx.i64_type().fn_type(&[], false));
        let call = self.b.build_call(f, &[], "globaltimer")?;
        call.try_as_basic_value().basic().map(|v| v.into_int_value()).ok_or_else(|| LowerError::Internal("the timer returns a value".into()))
    }

    /// `-g` (when the module has debug information): gives the function its subprogram,
    /// positions the code that follows at the function's first line, and describes the
    /// registers and the thread and block indices as its local variables. Call it in the
    /// entry block, after the registers' `alloca`s.
    pub fn begin_debug(&mut self) -> R<()> {
        let Some(mut scope) = FnDebug::new(self.ml, self.func, self.f) else { return Ok(()) };
        let start = self.f.blocks.iter().flat_map(|b| b.insts.iter().map(|i| i.span.start)).next().unwrap_or(self.f.span.start);
        let Some(at) = scope.entry_location(self.ml, start) else { return Ok(()) };
        self.b.set_current_debug_location(at);
        let entry = self.b.get_insert_block().ok_or_else(|| LowerError::Internal("no entry block".into()))?;
        for (r, decl) in self.regs.iter().zip(&self.f.regs) {
            scope.declare(self.ml, *r, decl.name.trim_start_matches('%'), decl.ty, at, entry);
        }
        let mut index_var = |name: &'static str| -> R<(PointerValue<'ctx>, &'static str)> {
            let p = self.b.build_alloca(self.cx.i32_type(), name)?;
            scope.declare(self.ml, p, name, ScalarType::U32, at, entry);
            Ok((p, name))
        };
        let vars = ["tid_x", "tid_y", "tid_z", "ctaid_x", "ctaid_y", "ctaid_z"].map(&mut index_var);
        let vars = vars.into_iter().collect::<R<Vec<_>>>()?;
        let mut first_store = None;
        for ((p, _), v) in vars[3..].iter().zip(self.uni.ctaid) {
            let store = self.b.build_store(*p, v)?;
            first_store.get_or_insert(store);
        }
        let tid = [vars[0].0, vars[1].0, vars[2].0];
        scope.set_index_vars(vars, first_store);
        self.debug = Some(DebugVars { scope, tid });
        if self.thread.is_some() {
            self.debug_thread()?;
        }
        Ok(())
    }

    /// `-g`: records the current thread in `tid_x/y/z` (where a thread loop picks it).
    pub fn debug_thread(&mut self) -> R<()> {
        if let (Some(d), Some(t)) = (&self.debug, self.thread) {
            for (p, v) in d.tid.iter().zip(t.tid) {
                self.b.build_store(*p, v)?;
            }
        }
        Ok(())
    }

    /// Lowers one instruction, branching around it when it is guarded.
    /// Lowers the instruction at `(block, index)` of the function (a replayed or
    /// re-evaluated one), with errors placed at it.
    pub fn inst_at(&mut self, (b, i): (ir::BlockId, usize)) -> R<()> {
        let f = self.f;
        let inst = &f.blocks[b.0 as usize].insts[i];
        self.inst(inst).map_err(|e| e.at(&inst.span))
    }

    pub fn inst(&mut self, inst: &ir::Inst) -> R<()> {
        self.at = inst.span.start;
        if let Some(d) = &mut self.debug {
            if let Some(at) = d.scope.location(self.ml, inst.span.start) {
                self.b.set_current_debug_location(at);
            }
        }
        let Some(guard) = inst.guard else {
            return self.op(&inst.op);
        };
        let cond = self.read_pred(guard)?;
        let then_bb = self.new_block("guarded");
        let cont = self.new_block("cont");
        self.b.build_conditional_branch(cond, then_bb, cont)?;
        self.b.position_at_end(then_bb);
        self.op(&inst.op)?;
        self.b.build_unconditional_branch(cont)?;
        self.b.position_at_end(cont);
        Ok(())
    }

    fn op(&mut self, op: &Op) -> R<()> {
        match op {
            Op::Mov { ty, dst, src } => {
                let v = self.read(*src, *ty)?;
                self.write(*dst, v, *ty)
            }
            Op::IntBinary { op, ty, sat, dst, a, b } => self.int_binary(*op, *ty, *sat, *dst, *a, *b),
            Op::MulWide { ty, dst, a, b } => self.mul_wide(*ty, *dst, *a, *b),
            Op::Mad { mode, ty, sat, dst, a, b, c } => self.mad(*mode, *ty, *sat, *dst, *a, *b, *c),
            Op::IntUnary { op, ty, dst, a } => self.int_unary(*op, *ty, *dst, *a),
            Op::FloatBinary { op, ty, rnd, ftz, sat, packed, dst, a, b } => self.float_binary(*op, *ty, *rnd, *ftz, *sat, *packed, *dst, *a, *b),
            Op::FloatUnary { op, ty, rnd, ftz, dst, a } => self.float_unary(*op, *ty, *rnd, *ftz, *dst, *a),
            Op::Fma { ty, rnd, ftz, sat, fused, packed, dst, a, b, c } => self.fma(*ty, *rnd, *ftz, *sat, *fused, *packed, *dst, *a, *b, *c),
            Op::FloatMinMax { .. } => self.float_min_max(op),
            Op::Testp { class, ty, dst, a } => self.testp(*class, *ty, *dst, *a),
            Op::Setp { cmp, ty, ftz, dst, dst_not, a, b, combine } => self.setp(*cmp, *ty, *ftz, *dst, *dst_not, *a, *b, *combine),
            Op::Selp { ty, dst, a, b, cond } => {
                let c = self.read_pred(*cond)?;
                let (a, b) = (self.read(*a, *ty)?, self.read(*b, *ty)?);
                let v = self.b.build_select(c, a, b, "")?.into_int_value();
                self.write(*dst, v, *ty)
            }
            Op::PredLogic { op, dst, a, b } => self.pred_logic(*op, *dst, *a, *b),
            Op::Cvt { dst_ty, src_ty, rnd, ftz, sat, relu, satfinite, dst, src } => self.cvt(*dst_ty, *src_ty, *rnd, *ftz, *sat, *relu, *satfinite, *dst, *src),
            Op::CvtPacked { to, from, lanes, rnd, relu, satfinite, dst, src } => self.cvt_packed(*to, *from, *lanes, *rnd, *relu, *satfinite, *dst, src),
            Op::CvtPackSat { bits, signed, dst, a, b, c } => self.cvt_pack_sat(*bits, *signed, *dst, *a, *b, *c),
            Op::Cvta { to_generic, space, ty, dst, src } => self.cvta(*to_generic, *space, *ty, *dst, *src),
            Op::Load { space, ty, volatile, order, dst, addr } => self.load(*space, *ty, *volatile, *order, dst, *addr),
            Op::Store { space, ty, volatile, order, src, addr } => self.store(*space, *ty, *volatile, *order, src, *addr),
            Op::Prefetch { space, addr } => self.prefetch(*space, *addr, false),
            Op::Alloca { ty, dst, size, align } => self.alloca(*ty, *dst, *size, *align),
            Op::StackSave { ty, dst } => self.stack_save(*ty, *dst),
            Op::StackRestore { ty, a } => self.stack_restore(*ty, *a),
            Op::Nanosleep { ns } => {
                let ns = self.read(*ns, ScalarType::U32)?;
                let f = self.runtime_function("__ptxrt_nanosleep", self.cx.void_type().fn_type(&[self.cx.i32_type().into()], false));
                self.b.build_call(f, &[ns.into()], "")?;
                Ok(())
            }
            Op::Breakpoint => {
                let f = self.runtime_function("__ptxrt_brkpt", self.cx.void_type().fn_type(&[], false));
                self.b.build_call(f, &[], "")?;
                Ok(())
            }
            Op::Fault { what } => {
                let place = match self.f.kind {
                    ir::FunctionKind::Entry => format!("{what} in kernel `{}`", self.f.name),
                    ir::FunctionKind::Func => format!("{what} in function `{}`", self.f.name),
                };
                self.report_error(&place)?;
                let dead = self.new_block("after.fault");
                self.b.position_at_end(dead);
                Ok(())
            }
            Op::Atomic { op, ty, space, order, dst, addr, b, c } => self.atomic(*op, *ty, *space, *order, dst, *addr, b, *c),
            Op::Fence { order, scope } => self.fence(*order, *scope),
            Op::Nop => Ok(()),
            Op::Texture(t) => self.texture(t),
            Op::AsyncCopy { size, dst, src, src_size, ignore_src } => self.async_copy(*size, *dst, *src, *src_size, *ignore_src),
            Op::IsSpace { space, dst, a } => self.is_space(*space, *dst, *a),
            Op::Mbarrier { op, space, addr } => self.mbarrier(op, *space, *addr),
            Op::MbarrierPendingCount { dst, state } => self.mbarrier_pending_count(*dst, *state),
            Op::Trap => {
                let what = match self.f.kind {
                    ir::FunctionKind::Entry => format!("`trap` executed in kernel `{}`", self.f.name),
                    ir::FunctionKind::Func => format!("`trap` executed in function `{}`", self.f.name),
                };
                self.report_error(&what)?;
                // Code after the trap is unreachable but may still be emitted into.
                let dead = self.new_block("after.trap");
                self.b.position_at_end(dead);
                Ok(())
            }
            Op::Call { callee, args, rets, .. } => self.call(callee, args, rets),
            Op::Lanes { op, lane, relu, dst, a, b } => self.lanes(*op, *lane, *relu, *dst, *a, *b),
            Op::Mul24 { hi, ty, sat, dst, a, b, c } => self.mul24(*hi, *ty, *sat, *dst, *a, *b, *c),
            Op::Sad { ty, dst, a, b, c } => self.sad(*ty, *dst, *a, *b, *c),
            Op::Bfe { ty, dst, a, pos, len } => self.bfe(*ty, *dst, *a, *pos, *len),
            Op::Bfi { ty, dst, a, b, pos, len } => self.bfi(*ty, *dst, *a, *b, *pos, *len),
            Op::Fns { dst, mask, base, offset } => self.fns(*dst, *mask, *base, *offset),
            Op::Szext { clamp, signed, dst, a, b } => self.szext(*clamp, *signed, *dst, *a, *b),
            Op::Bmsk { clamp, dst, a, b } => self.bmsk(*clamp, *dst, *a, *b),
            Op::Dot { half, a_signed, b_signed, dst, a, b, c } => self.dot(*half, *a_signed, *b_signed, *dst, *a, *b, *c),
            Op::Carry { op, ty, carry_in, carry_out, cc, dst, a, b, c } => self.carry(*op, *ty, *carry_in, *carry_out, *cc, *dst, *a, *b, *c),
            Op::FunnelShift { left, clamp, dst, a, b, c } => self.funnel_shift(*left, *clamp, *dst, *a, *b, *c),
            Op::Prmt { mode, dst, a, b, c } => self.prmt(*mode, *dst, *a, *b, *c),
            Op::Lop3 { lut, dst, a, b, c, pred } => self.lop3(*lut, *dst, *a, *b, *c, *pred),
            Op::Set { cmp, ty, ftz, float_result, dst, a, b, combine } => self.set(*cmp, *ty, *ftz, *float_result, *dst, *a, *b, *combine),
            Op::Slct { ty, c_ty, ftz, dst, a, b, c } => self.slct(*ty, *c_ty, *ftz, *dst, *a, *b, *c),
            Op::Pack { ty, dst, src } => self.pack(*ty, *dst, src),
            Op::Unpack { ty, dst, src } => self.unpack(*ty, dst, *src),
            Op::Video { .. } => self.video(op),
            Op::VideoMad { .. } => self.video_mad(op),
            Op::VideoSimd { .. } => self.video_simd(op),
            Op::Half { op, ty, mods, dst, a, b, c } => self.half(*op, *ty, *mods, *dst, *a, *b, *c),
            Op::Mixed { op, src_ty, rnd, sat, dst, a, b, c } => self.mixed(*op, *src_ty, *rnd, *sat, *dst, *a, *b, *c),
            Op::HalfSetp { cmp, ty, ftz, dst, dst_hi, a, b, combine } => self.half_setp(*cmp, *ty, *ftz, *dst, *dst_hi, *a, *b, *combine),
            Op::HalfSet { cmp, dst_ty, src_ty, ftz, dst, a, b, combine } => self.half_set(*cmp, *dst_ty, *src_ty, *ftz, *dst, *a, *b, *combine),
            Op::Unsupported { what } => Err(LowerError::Unsupported(what.clone())),
        }
    }

    pub fn call_intrinsic(&self, name: &str, types: &[BasicTypeEnum<'ctx>], args: &[BasicValueEnum<'ctx>]) -> R<BasicValueEnum<'ctx>> {
        let f = self.ml.intrinsic(name, types)?;
        let args: Vec<_> = args.iter().map(|a| (*a).into()).collect();
        Ok(self.b.build_call(f, &args, "")?.try_as_basic_value().basic().expect("intrinsic returns a value"))
    }

    pub fn icmp(&self, p: IntPredicate, a: IntValue<'ctx>, b: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        Ok(self.b.build_int_compare(p, a, b, "")?)
    }

    pub fn select(&self, c: IntValue<'ctx>, a: IntValue<'ctx>, b: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        Ok(self.b.build_select(c, a, b, "")?.into_int_value())
    }
}

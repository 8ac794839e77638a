//! `--check`: every load and store asks ptxrt's checker (`ptxrt/src/check.rs`) before it
//! happens, with the address, size and kind of the access, the block's shared window and
//! the thread's local window, the thread and the PTX position. A problem ends the thread
//! with the checker's error (the launch then fails with its report). Checked kernels run
//! on fibers, and each thread reports the block-wide barriers it passes (`fibers`), so that
//! the checker can tell accesses that are ordered by a barrier from races.

use crate::ir::{self, StateSpace};
use crate::lower::thread::FnCx;
use crate::lower::{LowerError, R};
use inkwell::module::Linkage;
use inkwell::values::PointerValue;
use inkwell::IntPredicate;

/// `kind` bits of `__ptxrt_check_access` (ptxrt's `check::kind`).
const WRITE: u64 = 1;
const SPACE_SHIFT: u64 = 1;

fn space_code(space: StateSpace) -> u64 {
    match space {
        StateSpace::Global | StateSpace::Const | StateSpace::Param => 1,
        StateSpace::Shared => 2,
        StateSpace::Local => 3,
        _ => 0,
    }
}

impl<'ctx> FnCx<'ctx, '_> {
    /// Checks an access of `bytes` bytes at `p` in `space` (kernel parameters are not
    /// checked: they are the launch's own copies).
    pub fn check_access(&mut self, space: StateSpace, p: PointerValue<'ctx>, bytes: u64, write: bool) -> R<()> {
        let Some(positions) = &self.ml.check else { return Ok(()) };
        if matches!(space, StateSpace::Param | StateSpace::Const) {
            return Ok(());
        }
        let (i32t, i64t, ptr) = (self.cx.i32_type(), self.cx.i64_type(), self.ptr_ty());
        let check = self.ml.module.get_function("__ptxrt_check_access").unwrap_or_else(|| {
            let params = [
                ptr.into(),
                i64t.into(),
                i64t.into(),
                i32t.into(),
                i64t.into(),
                i64t.into(),
                i64t.into(),
                i64t.into(),
                ptr.into(),
                ptr.into(),
                i32t.into(),
                i32t.into(),
                i32t.into(),
                i32t.into(),
            ];
            self.ml.module.add_function("__ptxrt_check_access", i32t.fn_type(&params, false), Some(Linkage::External))
        });
        // The block's shared window: a kernel's own static part (plus dynamic memory,
        // which starts after the module's static part); in a `.func`, the module's.
        let dynamic = self.b.build_int_z_extend(self.uni.dynamic_shared, i64t, "")?;
        let kernel_static = match self.f.kind {
            ir::FunctionKind::Entry => self.ml.ir.functions.iter().position(|g| g.name == self.f.name).map(|i| self.ml.layout.kernel_static_shared(i)),
            ir::FunctionKind::Func => None,
        };
        let shared_bytes = match kernel_static {
            Some(s) if s < self.ml.layout.static_shared => self.i64(s),
            _ => self.b.build_int_add(self.i64(self.ml.layout.static_shared_aligned()), dynamic, "")?,
        };
        let shared = self.b.build_ptr_to_int(self.uni.shared, i64t, "")?;
        let local = self.b.build_ptr_to_int(self.local_base()?, i64t, "")?;
        let addr = self.b.build_ptr_to_int(p, i64t, "")?;
        let kind = u64::from(write) * WRITE | space_code(space) << SPACE_SHIFT;
        let kernel = self.b.build_global_string_ptr(&self.f.name, "ptxrt.check.fn")?;
        let position = self.b.build_global_string_ptr(&positions.describe(self.ml.ir, self.at), "ptxrt.check.at")?;
        let t = self.thread();
        let args = [
            self.uni.env.into(),
            addr.into(),
            self.i64(bytes).into(),
            i32t.const_int(kind, false).into(),
            shared.into(),
            shared_bytes.into(),
            local.into(),
            self.i64(self.ml.layout.local_bytes).into(),
            kernel.as_pointer_value().into(),
            position.as_pointer_value().into(),
            t.tid[0].into(),
            t.tid[1].into(),
            t.tid[2].into(),
            t.linear.into(),
        ];
        let status = self
            .b
            .build_call(check, &args, "check")?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| LowerError::Internal("__ptxrt_check_access returns a status".into()))?
            .into_int_value();
        // Non-zero: the checker put its report in the environment; the thread ends with it.
        let failed = self.b.build_int_compare(IntPredicate::NE, status, i32t.const_zero(), "")?;
        let fail_bb = self.new_block("check.failed");
        let cont = self.new_block("check.ok");
        self.b.build_conditional_branch(failed, fail_bb, cont)?;
        self.b.position_at_end(fail_bb);
        self.b.build_return(Some(&status))?;
        self.b.position_at_end(cont);
        Ok(())
    }

    /// After a block-wide barrier: this thread's later accesses are ordered after what the
    /// other threads did before it.
    pub fn check_barrier(&mut self) -> R<()> {
        if self.ml.check.is_none() {
            return Ok(());
        }
        let (i32t, ptr) = (self.cx.i32_type(), self.ptr_ty());
        let f = self.ml.module.get_function("__ptxrt_check_barrier").unwrap_or_else(|| {
            self.ml.module.add_function("__ptxrt_check_barrier", self.cx.void_type().fn_type(&[ptr.into(), i32t.into()], false), Some(Linkage::External))
        });
        self.b.build_call(f, &[self.uni.env.into(), self.thread().linear.into()], "")?;
        Ok(())
    }
}

//! `cp.async` (ISA 9.2 §9.7.9.25.3): the non-bulk asynchronous copy from global to shared
//! memory, performed synchronously.
//!
//! Why a synchronous copy is exact: the ISA only makes the copied bytes visible to the
//! issuing thread after a `cp.async.wait_group`/`cp.async.wait_all` that covers the copy's
//! group (reading the destination or writing the source before then is undefined), and
//! gives no ordering between `cp.async` operations that are not separated by such a wait.
//! A copy that completes at the `cp.async` itself satisfies every one of those rules: each
//! wait finds its groups already complete, so `cp.async.commit_group` and the waits have
//! nothing to do (the checker turns them into `Op::Nop`).

use crate::ir::{Address, Operand, PredRef, ScalarType, StateSpace};
use crate::lower::thread::FnCx;
use crate::lower::R;
use inkwell::IntPredicate;

impl<'ctx> FnCx<'ctx, '_> {
    pub fn async_copy(&self, size: u32, dst: Address, src: Address, src_size: Option<Operand>, ignore_src: Option<PredRef>) -> R<()> {
        let to = self.address(StateSpace::Shared, dst)?;
        let from = self.address(StateSpace::Global, src)?;
        let i64t = self.cx.i64_type();
        let full = i64t.const_int(size as u64, false);
        if src_size.is_none() && ignore_src.is_none() {
            // The common case: a constant-size copy LLVM turns into one load and store.
            self.b.build_memcpy(to, 1, from, 1, full)?;
            return Ok(());
        }
        // Bytes taken from the source: min(src_size, size), or none when ignore-src is set.
        let mut n = match src_size {
            Some(s) => {
                let s = self.read(s, ScalarType::U32)?;
                let s = self.b.build_int_z_extend(s, i64t, "")?;
                let smaller = self.icmp(IntPredicate::ULT, s, full)?;
                self.select(smaller, s, full)?
            }
            None => full,
        };
        if let Some(p) = ignore_src {
            let ignore = self.read_pred(p)?;
            n = self.select(ignore, i64t.const_zero(), n)?;
        }
        let whole = self.new_block("cp.async.whole");
        let partial = self.new_block("cp.async.partial");
        let done = self.new_block("cp.async.done");
        let is_whole = self.icmp(IntPredicate::EQ, n, full)?;
        self.b.build_conditional_branch(is_whole, whole, partial)?;
        self.b.position_at_end(whole);
        self.b.build_memcpy(to, 1, from, 1, full)?;
        self.b.build_unconditional_branch(done)?;
        self.b.position_at_end(partial);
        self.b.build_memcpy(to, 1, from, 1, n)?;
        // SAFETY (of the generated code): n <= size, so the zero-filled tail is inside the
        // destination's `size` bytes.
        let tail = unsafe { self.b.build_gep(self.cx.i8_type(), to, &[n], "")? };
        let rest = self.b.build_int_sub(full, n, "")?;
        self.b.build_memset(tail, 1, self.cx.i8_type().const_zero(), rest)?;
        self.b.build_unconditional_branch(done)?;
        self.b.position_at_end(done);
        Ok(())
    }
}

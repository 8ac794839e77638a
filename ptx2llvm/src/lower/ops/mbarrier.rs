//! `mbarrier` (ISA 9.2 §9.7.13.15): barriers that live in shared memory.
//!
//! The object is the 8-byte word at its address, in this encoding (the one place that
//! knows it):
//!
//! | bits   | field                                                      |
//! | ------ | ---------------------------------------------------------- |
//! | 0–19   | pending arrival count of the current phase (0..2^20-1)     |
//! | 20–39  | expected arrival count (1..2^20-1)                         |
//! | 40–60  | tx-count, 21-bit two's complement (-(2^20-1)..2^20-1)      |
//! | 63     | parity of the current phase                                |
//!
//! The opaque `state` an arrive returns is the whole word as it was before the operation:
//! bit 63 is the phase the arrive took part in (a test of `state` is true once the current
//! phase's parity differs from it; the ISA only allows tests in the current and the next
//! phase, so the parity tells them apart), and bits 0–19 are the pending count before
//! the arrive-on, which `mbarrier.pending_count` returns.
//!
//! A thread block runs on one CPU thread (thread loops or fibers switched at sync points),
//! so each operation is a plain read-modify-write of the word: no other thread of the block
//! runs in between, and no thread of another block may touch it (a cluster is one block).
//! Counts beyond the ISA's ranges are undefined behaviour there; here they wrap within
//! their field, so they never disturb the other fields.
//!
//! Waiting is a loop around `test_wait`/`try_wait`; `lockstep` makes each of those tests a
//! warp point of such a loop, so the threads that arrive get to run.

use crate::ir::{Address, MbarrierOp, Operand, RegId, ScalarType, StateSpace};
use crate::lower::thread::FnCx;
use crate::lower::R;
use inkwell::values::{BasicValue, IntValue, PointerValue};
use inkwell::IntPredicate;

const COUNT_BITS: u64 = 20;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;
const EXPECTED_SHIFT: u64 = 20;
const TX_SHIFT: u64 = 40;
const TX_BITS: u64 = 21;
const PHASE_SHIFT: u64 = 63;

/// The fields of an mbarrier word as 64-bit values (`tx` sign-extended, `phase` 0 or 1).
struct Fields<'ctx> {
    pending: IntValue<'ctx>,
    expected: IntValue<'ctx>,
    tx: IntValue<'ctx>,
    phase: IntValue<'ctx>,
}

impl<'ctx> FnCx<'ctx, '_> {
    pub fn mbarrier(&self, op: &MbarrierOp, space: StateSpace, addr: Address) -> R<()> {
        let ptr = self.address(space, addr)?;
        match op {
            MbarrierOp::Init { count } => {
                let count = self.mbarrier_count(*count)?;
                let zero = self.i64(0);
                let fields = Fields { pending: count, expected: count, tx: zero, phase: zero };
                let word = self.mbarrier_pack(&fields)?;
                self.mbarrier_store(ptr, word, space)
            }
            MbarrierOp::Inval => Ok(()),
            MbarrierOp::Arrive { drop, count, expect_tx, state } => {
                let count = self.mbarrier_count(*count)?;
                let expect_tx = match expect_tx {
                    Some(t) => Some(self.mbarrier_count(*t)?),
                    None => None,
                };
                let old = self.mbarrier_update(ptr, space, true, |f| {
                    if let Some(t) = expect_tx {
                        f.tx = self.b.build_int_add(f.tx, t, "")?;
                    }
                    if *drop {
                        f.expected = self.b.build_int_sub(f.expected, count, "")?;
                    }
                    f.pending = self.b.build_int_sub(f.pending, count, "")?;
                    Ok(())
                })?;
                match state {
                    Some(s) => self.write(*s, old, ScalarType::B64),
                    None => Ok(()),
                }
            }
            MbarrierOp::AsyncCopyArrive { noinc } => {
                self.mbarrier_update(ptr, space, true, |f| {
                    // With `.noinc` the arrive-on counts against the count given at init.
                    // Without it, +1 for the copies being tracked and -1 for their arrive-on
                    // (due now: the copies are complete) cancel out.
                    if *noinc {
                        f.pending = self.b.build_int_sub(f.pending, self.i64(1), "")?;
                    }
                    Ok(())
                })?;
                Ok(())
            }
            MbarrierOp::ExpectTx { tx } => {
                let tx = self.mbarrier_count(*tx)?;
                self.mbarrier_update(ptr, space, false, |f| {
                    f.tx = self.b.build_int_add(f.tx, tx, "")?;
                    Ok(())
                })?;
                Ok(())
            }
            MbarrierOp::CompleteTx { tx } => {
                let tx = self.mbarrier_count(*tx)?;
                self.mbarrier_update(ptr, space, true, |f| {
                    f.tx = self.b.build_int_sub(f.tx, tx, "")?;
                    Ok(())
                })?;
                Ok(())
            }
            MbarrierOp::TestWait { parity, phase, dst } => {
                let word = self.mbarrier_load(ptr, space)?;
                let current = self.b.build_right_shift(word, self.i64(PHASE_SHIFT), false, "mbarrier.phase")?;
                let tested = if *parity {
                    let p = self.read(*phase, ScalarType::U32)?;
                    let p = self.b.build_int_z_extend(p, self.cx.i64_type(), "")?;
                    self.b.build_and(p, self.i64(1), "")?
                } else {
                    let state = self.read(*phase, ScalarType::B64)?;
                    self.b.build_right_shift(state, self.i64(PHASE_SHIFT), false, "")?
                };
                // The tested phase is complete iff it is not the current one.
                let complete = self.icmp(IntPredicate::NE, tested, current)?;
                self.write(*dst, complete, ScalarType::Pred)
            }
        }
    }

    /// `mbarrier.pending_count`: the pending count recorded in an arrive's state.
    pub fn mbarrier_pending_count(&self, dst: RegId, state: Operand) -> R<()> {
        let state = self.read(state, ScalarType::B64)?;
        let pending = self.b.build_and(state, self.i64(COUNT_MASK), "")?;
        let pending = self.b.build_int_truncate(pending, self.cx.i32_type(), "")?;
        self.write(dst, pending, ScalarType::U32)
    }

    /// A 32-bit unsigned count operand as a 64-bit value.
    fn mbarrier_count(&self, op: Operand) -> R<IntValue<'ctx>> {
        let v = self.read(op, ScalarType::U32)?;
        Ok(self.b.build_int_z_extend(v, self.cx.i64_type(), "")?)
    }

    /// Reads the word, lets `change` update its fields, completes the phase when
    /// `may_complete` and both the pending count and the tx-count are zero (the phase
    /// flips and the pending count becomes the expected count), and writes the word back.
    /// Returns the word as it was.
    fn mbarrier_update(
        &self,
        ptr: PointerValue<'ctx>,
        space: StateSpace,
        may_complete: bool,
        change: impl FnOnce(&mut Fields<'ctx>) -> R<()>,
    ) -> R<IntValue<'ctx>> {
        let old = self.mbarrier_load(ptr, space)?;
        let mut f = self.mbarrier_unpack(old)?;
        change(&mut f)?;
        // Wrap each field to its width, so that the completion test sees what is stored.
        f.pending = self.b.build_and(f.pending, self.i64(COUNT_MASK), "")?;
        f.expected = self.b.build_and(f.expected, self.i64(COUNT_MASK), "")?;
        f.tx = self.sign_extend_tx(f.tx)?;
        if may_complete {
            let no_pending = self.icmp(IntPredicate::EQ, f.pending, self.i64(0))?;
            let no_tx = self.icmp(IntPredicate::EQ, f.tx, self.i64(0))?;
            let done = self.b.build_and(no_pending, no_tx, "mbarrier.complete")?;
            let flipped = self.b.build_xor(f.phase, self.i64(1), "")?;
            f.phase = self.select(done, flipped, f.phase)?;
            f.pending = self.select(done, f.expected, f.pending)?;
        }
        let new = self.mbarrier_pack(&f)?;
        self.mbarrier_store(ptr, new, space)?;
        Ok(old)
    }

    fn mbarrier_unpack(&self, w: IntValue<'ctx>) -> R<Fields<'ctx>> {
        let b = &self.b;
        let pending = b.build_and(w, self.i64(COUNT_MASK), "mbarrier.pending")?;
        let expected = b.build_right_shift(w, self.i64(EXPECTED_SHIFT), false, "")?;
        let expected = b.build_and(expected, self.i64(COUNT_MASK), "mbarrier.expected")?;
        let tx = b.build_right_shift(w, self.i64(TX_SHIFT), false, "")?;
        let tx = self.sign_extend_tx(tx)?;
        let phase = b.build_right_shift(w, self.i64(PHASE_SHIFT), false, "")?;
        Ok(Fields { pending, expected, tx, phase })
    }

    /// The word of `f`, each field cut to its width (counts out of the ISA's ranges wrap).
    fn mbarrier_pack(&self, f: &Fields<'ctx>) -> R<IntValue<'ctx>> {
        let b = &self.b;
        let pending = b.build_and(f.pending, self.i64(COUNT_MASK), "")?;
        let expected = b.build_and(f.expected, self.i64(COUNT_MASK), "")?;
        let expected = b.build_left_shift(expected, self.i64(EXPECTED_SHIFT), "")?;
        let tx = b.build_and(f.tx, self.i64((1 << TX_BITS) - 1), "")?;
        let tx = b.build_left_shift(tx, self.i64(TX_SHIFT), "")?;
        let phase = b.build_left_shift(f.phase, self.i64(PHASE_SHIFT), "")?;
        let w = b.build_or(pending, expected, "")?;
        let w = b.build_or(w, tx, "")?;
        Ok(b.build_or(w, phase, "mbarrier.word")?)
    }

    /// The low 21 bits of `v` as a signed tx-count.
    fn sign_extend_tx(&self, v: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let unused = self.i64(64 - TX_BITS);
        let high = self.b.build_left_shift(v, unused, "")?;
        Ok(self.b.build_right_shift(high, unused, true, "mbarrier.tx")?)
    }

    fn mbarrier_load(&self, ptr: PointerValue<'ctx>, space: StateSpace) -> R<IntValue<'ctx>> {
        let v = self.b.build_load(self.cx.i64_type(), ptr, "mbarrier")?;
        if let Some(inst) = v.as_instruction_value() {
            // The ISA requires 8-byte alignment.
            let _ = inst.set_alignment(8);
            crate::lower::exec::alias::tag_ptx_access(self.cx, inst, space);
        }
        Ok(v.into_int_value())
    }

    fn mbarrier_store(&self, ptr: PointerValue<'ctx>, word: IntValue<'ctx>, space: StateSpace) -> R<()> {
        let inst = self.b.build_store(ptr, word)?;
        let _ = inst.set_alignment(8);
        crate::lower::exec::alias::tag_ptx_access(self.cx, inst, space);
        Ok(())
    }
}

//! The stacks kernel code runs on, and how their overflow becomes a launch error.
//!
//! Generated code runs on stacks the runtime owns: each worker runs its blocks on a block
//! stack (`PTXRT_STACK_BYTES`, see [`crate::pool`]) and each thread of a fiber kernel on a
//! fiber stack (`PTXRT_FIBER_STACK_BYTES`, see [`crate::fibers`]). Both are
//! [`GuardedStack`]s: memory with an inaccessible guard region below it, run as
//! `corosensei` coroutines ([`GuardedCoroutine`]). Deep recursion in a kernel's `.func`
//! eventually touches the guard region, and the CPU raises `SIGSEGV`. The handler
//! installed here recognises that fault (the faulting address is in the guard region of
//! the coroutine this thread is running, and the stack pointer is inside that stack's
//! memory) and makes the coroutine return [`StackOverflow`] at once, discarding its stack;
//! the launch then fails with a message, as on a GPU, and the process survives. Any other
//! fault goes to the handler that was installed before ours (or the default action, which
//! ends the process as before).
//!
//! The handler runs on an alternate signal stack (the faulting stack is exhausted): the
//! threads that run guarded code get one unless they already have one.
//!
//! Abandoning a coroutine mid-call is safe for generated code: it holds no locks and owns
//! nothing that needs dropping, and what it wrote to memory is the failed launch's
//! (undefined, as on a GPU). A runtime function that overflows while holding a lock would
//! leave it held; the functions device code calls that take locks check for room first
//! ([`check_room`]).

use std::cell::Cell;
use std::ops::Range;
use std::sync::Once;

use corosensei::trap::CoroutineTrapHandler;
use corosensei::{Coroutine, CoroutineResult, Yielder};

/// Size of the inaccessible region below every stack. A function whose frame is larger
/// than this could step over it (generated code does not probe its stack), so it is far
/// larger than a page; it costs address space only.
pub const GUARD_BYTES: usize = 64 << 10;

/// The overflow of a coroutine's stack (also what [`check_room`] reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackOverflow;

/// What ended a coroutine on a guarded stack other than its own return.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trap {
    /// Its stack overflowed.
    StackOverflow,
    /// It raised a fault signal: `SIGSEGV`/`SIGBUS` (an invalid memory access at `addr`),
    /// `SIGFPE` (an arithmetic trap) or `SIGILL` (an illegal instruction) at `addr`.
    Fault { signal: i32, addr: usize },
}

impl From<StackOverflow> for Trap {
    fn from(_: StackOverflow) -> Trap {
        Trap::StackOverflow
    }
}

impl Trap {
    /// What happened, in words, for a launch error: "an invalid memory access at address
    /// 0x10 (SIGSEGV)".
    pub fn describe(&self) -> String {
        match *self {
            Trap::StackOverflow => "stack overflow".to_string(),
            Trap::Fault { signal, addr } => {
                let (what, name) = match signal {
                    libc::SIGSEGV => ("an invalid memory access", "SIGSEGV"),
                    libc::SIGBUS => ("an invalid memory access", "SIGBUS"),
                    libc::SIGFPE => ("an arithmetic trap", "SIGFPE"),
                    libc::SIGILL => ("an illegal instruction", "SIGILL"),
                    _ => ("a fault", "signal"),
                };
                format!("{what} at address {addr:#x} ({name})")
            }
        }
    }
}

/// A coroutine's result: its function's status, or the trap that ended it.
pub type Outcome = Result<i32, Trap>;

fn page_size() -> usize {
    // SAFETY: sysconf has no memory-safety preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 && (p as usize).is_power_of_two() {
        p as usize
    } else {
        4096
    }
}

/// A stack of `usable` bytes (rounded up to pages) above a [`GUARD_BYTES`] guard region,
/// reserved with `mmap`; the OS commits pages only when they are touched.
pub struct GuardedStack {
    /// Lowest address of the mapping (the start of the guard region).
    low: usize,
    /// Bytes mapped, guard included.
    len: usize,
}

impl GuardedStack {
    pub fn new(usable: usize) -> Result<GuardedStack, String> {
        let page = page_size();
        let usable = usable.max(corosensei::stack::MIN_STACK_SIZE).checked_add(page - 1).map(|b| b & !(page - 1));
        let Some(len) = usable.and_then(|u| u.checked_add(GUARD_BYTES)) else {
            return Err(format!("a stack of {usable:?} bytes does not fit in the address space"));
        };
        // SAFETY: an anonymous private mapping at an address the kernel picks.
        let p = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_NONE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE, -1, 0) };
        if p == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error().to_string());
        }
        let stack = GuardedStack { low: p as usize, len };
        // SAFETY: the range lies inside the mapping just created.
        if unsafe { libc::mprotect((stack.low + GUARD_BYTES) as *mut libc::c_void, len - GUARD_BYTES, libc::PROT_READ | libc::PROT_WRITE) } != 0 {
            return Err(std::io::Error::last_os_error().to_string());
        }
        Ok(stack)
    }

    fn guard(&self) -> Range<usize> {
        self.low..self.low + GUARD_BYTES
    }
}

impl Drop for GuardedStack {
    fn drop(&mut self) {
        // SAFETY: the mapping is this stack's own and nothing runs on it any more (a
        // coroutine gives its stack back only when it has finished).
        unsafe { libc::munmap(self.low as *mut libc::c_void, self.len) };
    }
}

// SAFETY: the usable region is readable and writable and lies above a guard region that
// faults (the trait's requirement); both ends are page aligned, so aligned for calls.
unsafe impl corosensei::stack::Stack for GuardedStack {
    fn base(&self) -> corosensei::stack::StackPointer {
        // The mapping is never at address 0, so low + len is not 0 either.
        corosensei::stack::StackPointer::new(self.low + self.len).unwrap_or(corosensei::stack::StackPointer::MIN)
    }

    fn limit(&self) -> corosensei::stack::StackPointer {
        corosensei::stack::StackPointer::new(self.low).unwrap_or(corosensei::stack::StackPointer::MIN)
    }
}

/// What the fault handler needs to know about a coroutine's stack.
#[derive(Clone, Copy)]
struct Watch {
    trap: CoroutineTrapHandler<Outcome>,
    guard_start: usize,
    /// End of the guard region: the lowest usable address.
    guard_end: usize,
}

thread_local! {
    /// The coroutine this thread is running right now (null: none); set around each resume,
    /// pointing into the [`GuardedCoroutine`] being resumed.
    static RUNNING: Cell<*const Watch> = const { Cell::new(std::ptr::null()) };
}

/// A coroutine on a [`GuardedStack`] whose stack overflow or fault ends it with a [`Trap`].
/// Input is `()`; it suspends with `Y` values.
pub struct GuardedCoroutine<Y> {
    coroutine: Coroutine<(), Y, Outcome, GuardedStack>,
    watch: Watch,
}

impl<Y: 'static> GuardedCoroutine<Y> {
    pub fn new(stack: GuardedStack, f: impl FnOnce(&Yielder<(), Y>) -> i32 + 'static) -> Self {
        install_handler();
        let guard = stack.guard();
        Self::watched(Coroutine::with_stack(stack, move |y: &Yielder<(), Y>, ()| Ok(f(y))), guard)
    }
}

impl<Y> GuardedCoroutine<Y> {
    fn watched(coroutine: Coroutine<(), Y, Outcome, GuardedStack>, guard: Range<usize>) -> Self {
        let watch = Watch { trap: coroutine.trap_handler(), guard_start: guard.start, guard_end: guard.end };
        GuardedCoroutine { coroutine, watch }
    }

    /// Runs the coroutine until it suspends or ends; an overflow of its stack or a fault in
    /// its code ends it with `Return(Err(trap))`.
    pub fn resume(&mut self) -> CoroutineResult<Y, Outcome> {
        // `self` stays in place while it runs, so the pointer stays valid until reset.
        let outer = RUNNING.with(|r| r.replace(&self.watch));
        let result = self.coroutine.resume(());
        RUNNING.with(|r| r.set(outer));
        result
    }

    pub fn done(&self) -> bool {
        self.coroutine.done()
    }

    /// Marks a suspended coroutine finished without unwinding it.
    ///
    /// # Safety
    /// Nothing on its stack may need dropping (as for `Coroutine::force_reset`).
    pub unsafe fn force_reset(&mut self) {
        self.coroutine.force_reset();
    }

    /// The stack back, for the next coroutine. The coroutine must be done.
    pub fn into_stack(self) -> GuardedStack {
        self.coroutine.into_stack()
    }
}

/// Runs `f` to completion on `stack`; returns the stack for reuse and `f`'s status, or the
/// [`Trap`] that ended `f` (then whatever `f` was doing is abandoned: see the module
/// documentation for what may run there).
pub fn run_on<F: FnOnce() -> i32>(stack: GuardedStack, f: F) -> (GuardedStack, Outcome) {
    install_handler();
    let guard = stack.guard();
    // SAFETY: what `f` borrows outlives this call, and the coroutine finishes (returns,
    // overflows, or unwinds a panic into this frame, which drops it) before it returns.
    let coroutine = unsafe { Coroutine::with_stack_unchecked(stack, move |_: &Yielder<(), ()>, ()| Ok(f())) };
    let mut co = GuardedCoroutine::watched(coroutine, guard);
    let outcome = match co.resume() {
        CoroutineResult::Return(r) => r,
        // `f` cannot suspend: it has no yielder.
        CoroutineResult::Yield(()) => unreachable!("a coroutine without a yielder suspended"),
    };
    (co.into_stack(), outcome)
}

/// Whether the stack this thread is running on (a guarded stack; the OS thread's own
/// stack always passes) has at least `bytes` left above its guard region. Runtime
/// functions that device code calls and that take locks check this first, so that a stack
/// overflow never strikes while they hold one.
pub fn check_room(bytes: usize) -> Result<(), StackOverflow> {
    let here = &bytes as *const usize as usize;
    let running = RUNNING.try_with(Cell::get).unwrap_or(std::ptr::null());
    // SAFETY: non-null RUNNING points at the watch of the coroutine this thread runs.
    match unsafe { running.as_ref() } {
        Some(w) if here >= w.guard_start && here < w.guard_end.saturating_add(bytes) => Err(StackOverflow),
        _ => Ok(()),
    }
}

// ----------------------------------------------------------------------------------------
// The fault handler
// ----------------------------------------------------------------------------------------

#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64")))]
mod handler {
    use super::{Outcome, Trap, Watch, RUNNING};
    use std::sync::OnceLock;

    /// The fault signals kernel code can raise: a stack overflow or an invalid access
    /// (Linux raises SIGSEGV; SIGBUS for some mappings), an arithmetic trap, an illegal
    /// instruction.
    const SIGNALS: [libc::c_int; 4] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL];

    /// The handlers that were installed before ours, in `SIGNALS` order.
    struct Previous([libc::sigaction; 4]);
    // SAFETY: plain data (handler addresses, flags, masks), only read after it is set.
    unsafe impl Sync for Previous {}
    unsafe impl Send for Previous {}
    static PREVIOUS: OnceLock<Previous> = OnceLock::new();

    pub fn install() {
        let mut previous = [unsafe { std::mem::zeroed::<libc::sigaction>() }; 4];
        for (sig, old) in SIGNALS.iter().zip(previous.iter_mut()) {
            // SAFETY: reads the current disposition into a valid struct.
            unsafe { libc::sigaction(*sig, std::ptr::null(), old) };
        }
        if PREVIOUS.set(Previous(previous)).is_err() {
            return;
        }
        for sig in SIGNALS {
            // SAFETY: a zeroed sigaction is valid; `on_fault` has the SA_SIGINFO signature
            // and is async-signal-safe (see there).
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_fault as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(sig, &action, std::ptr::null_mut());
            }
        }
    }

    /// Only touches this thread's `RUNNING` cell (already initialised: it is set before
    /// any guarded code runs), the coroutine's stack and the interrupted context.
    extern "C" fn on_fault(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo and ucontext for SA_SIGINFO handlers.
        unsafe {
            let addr = (*info).si_addr() as usize;
            let uc = context as *mut libc::ucontext_t;
            let running = RUNNING.try_with(|r| r.get()).unwrap_or(std::ptr::null());
            // A fault while this thread runs a guarded coroutine, on that coroutine's stack:
            // kernel code (or a runtime function it called) faulted. Host code never runs
            // there, so its faults go on to the previous handler.
            if let Some(w) = running.as_ref() {
                if w.trap.stack_ptr_in_bounds(stack_pointer(uc)) {
                    let trap = if (w.guard_start..w.guard_end).contains(&addr) && matches!(sig, libc::SIGSEGV | libc::SIGBUS) {
                        Trap::StackOverflow
                    } else {
                        Trap::Fault { signal: sig, addr }
                    };
                    redirect(uc, w, trap);
                    return;
                }
            }
            chain(sig, info, context);
        }
    }

    unsafe fn redirect(uc: *mut libc::ucontext_t, w: &Watch, trap: Trap) {
        RUNNING.with(|r| r.set(std::ptr::null()));
        // SAFETY: the context's stack pointer is inside this coroutine's stack (checked),
        // and the registers the trampoline needs are written back below.
        let regs = w.trap.setup_trap_handler(move || -> Outcome { Err(trap) });
        let m = &mut (*uc).uc_mcontext;
        #[cfg(target_arch = "x86_64")]
        {
            m.gregs[libc::REG_RIP as usize] = regs.rip as i64;
            m.gregs[libc::REG_RSP as usize] = regs.rsp as i64;
            m.gregs[libc::REG_RBP as usize] = regs.rbp as i64;
            m.gregs[libc::REG_RDI as usize] = regs.rdi as i64;
            m.gregs[libc::REG_RSI as usize] = regs.rsi as i64;
        }
        #[cfg(target_arch = "aarch64")]
        {
            m.pc = regs.pc;
            m.sp = regs.sp;
            m.regs[0] = regs.x0;
            m.regs[1] = regs.x1;
            m.regs[29] = regs.x29;
            m.regs[30] = regs.lr;
        }
    }

    unsafe fn stack_pointer(uc: *const libc::ucontext_t) -> usize {
        #[cfg(target_arch = "x86_64")]
        {
            (*uc).uc_mcontext.gregs[libc::REG_RSP as usize] as usize
        }
        #[cfg(target_arch = "aarch64")]
        {
            (*uc).uc_mcontext.sp as usize
        }
    }

    /// Hands a fault that is not ours to the handler installed before ours; where that was
    /// the default action (or "ignore", which a fault cannot honour), restores it and
    /// returns, so the faulting instruction runs again and the process ends as it would
    /// have without ptxrt.
    unsafe fn chain(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        let Some(previous) = PREVIOUS.get() else { return };
        let Some(index) = SIGNALS.iter().position(|s| *s == sig) else { return };
        let old = &previous.0[index];
        match old.sa_sigaction {
            libc::SIG_DFL | libc::SIG_IGN => {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(sig, &action, std::ptr::null_mut());
                // A signal sent by a process (not a fault) does not come back by itself.
                if (*info).si_code <= 0 {
                    libc::raise(sig);
                }
            }
            f if old.sa_flags & libc::SA_SIGINFO != 0 => {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = std::mem::transmute(f);
                f(sig, info, context)
            }
            f => {
                let f: extern "C" fn(libc::c_int) = std::mem::transmute(f);
                f(sig)
            }
        }
    }

    /// Bytes of the alternate signal stacks ptxrt gives threads that have none.
    const ALT_STACK_BYTES: usize = 64 << 10;

    /// This thread's alternate signal stack, if ptxrt installed it; removed and freed when
    /// the thread exits.
    struct AltStack {
        mapping: *mut libc::c_void,
        len: usize,
    }

    impl AltStack {
        fn install() -> Option<AltStack> {
            // SAFETY: queries this thread's alternate stack into a valid struct.
            let mut current: libc::stack_t = unsafe { std::mem::zeroed() };
            if unsafe { libc::sigaltstack(std::ptr::null(), &mut current) } != 0 || current.ss_flags & libc::SS_DISABLE == 0 {
                // The thread has one already (the program's or the Rust runtime's).
                return None;
            }
            let page = super::page_size();
            let len = ALT_STACK_BYTES + page;
            // SAFETY: a fresh anonymous mapping; its lowest page stays inaccessible as a guard.
            unsafe {
                let mapping = libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0);
                if mapping == libc::MAP_FAILED {
                    return None;
                }
                libc::mprotect(mapping, page, libc::PROT_NONE);
                let stack = libc::stack_t { ss_sp: mapping.cast::<u8>().add(page).cast(), ss_flags: 0, ss_size: ALT_STACK_BYTES };
                if libc::sigaltstack(&stack, std::ptr::null_mut()) != 0 {
                    libc::munmap(mapping, len);
                    return None;
                }
                Some(AltStack { mapping, len })
            }
        }
    }

    impl Drop for AltStack {
        fn drop(&mut self) {
            // SAFETY: disables the alternate stack only if it is still ours, then frees it.
            unsafe {
                let mut current: libc::stack_t = std::mem::zeroed();
                libc::sigaltstack(std::ptr::null(), &mut current);
                let ours = current.ss_sp as usize == self.mapping as usize + super::page_size();
                if ours {
                    let disable = libc::stack_t { ss_sp: std::ptr::null_mut(), ss_flags: libc::SS_DISABLE, ss_size: 0 };
                    libc::sigaltstack(&disable, std::ptr::null_mut());
                    libc::munmap(self.mapping, self.len);
                }
            }
        }
    }

    thread_local! {
        static ALT_STACK: Option<AltStack> = AltStack::install();
    }

    pub fn ensure_alt_stack() {
        let _ = ALT_STACK.try_with(|_| ());
    }
}

#[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"))))]
mod handler {
    /// Elsewhere a stack overflow ends the process, as on the host.
    pub fn install() {}
    pub fn ensure_alt_stack() {}
}

/// Installs the process's fault handler (once) and gives this thread an alternate signal
/// stack for it (once per thread, if it has none).
fn install_handler() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(handler::install);
    handler::ensure_alt_stack();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn recurse(depth: u64, probe: &mut [u8; 512]) -> u64 {
        let mut frame = [0u8; 512];
        frame[(depth % 512) as usize] = probe[0].wrapping_add(depth as u8);
        if depth == 0 {
            return u64::from(frame[0]);
        }
        let below = recurse(depth - 1, &mut frame);
        std::hint::black_box(below + u64::from(frame[(depth % 7) as usize]))
    }

    #[test]
    fn overflow_ends_the_coroutine_and_the_stack_is_reusable() {
        let stack = GuardedStack::new(64 << 10).unwrap();
        let expected = recurse(10, &mut [0; 512]) as i32;
        let (stack, shallow) = run_on(stack, || recurse(10, &mut [0; 512]) as i32);
        assert_eq!(shallow, Ok(expected));
        let (stack, deep) = run_on(stack, || recurse(1 << 20, &mut [0; 512]) as i32);
        assert_eq!(deep, Err(Trap::StackOverflow));
        let (_, again) = run_on(stack, || recurse(10, &mut [0; 512]) as i32);
        assert_eq!(again, Ok(expected));
    }

    #[test]
    fn room_is_checked_against_the_running_stack() {
        assert_eq!(check_room(1 << 40), Ok(()), "the thread's own stack is not watched");
        let (_, r) = run_on(GuardedStack::new(64 << 10).unwrap(), || (check_room(1 << 10).is_ok() as i32) | (check_room(1 << 20).is_err() as i32) << 1);
        assert_eq!(r, Ok(3));
    }
}

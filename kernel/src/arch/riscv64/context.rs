//! Register frames: the blocks of saved registers the assembly fills and
//! restores (a thread's user registers on a trap, its kernel context on a
//! switch, its FP registers) -- not to be confused with mm/frames.rs, the
//! physical *page* frames. Layouts are shared with trap.S, switch.S and
//! fp.S: change them together.

/// A user thread's registers while it is in the kernel. `regs[0]` is the pc,
/// `regs[n]` is xn — the order of Linux's `user_regs_struct` and of the
/// registers in a signal frame.
#[repr(C)]
#[derive(Clone, Debug)]
pub struct TrapFrame {
    pub regs: [u64; 32],
    /// Top of this thread's kernel stack, loaded by trap entry.
    pub kernel_sp: u64,
    /// This hart's per-CPU pointer, loaded into tp by trap entry.
    pub kernel_tp: u64,
}

const RA: usize = 1;
const SP: usize = 2;
const TP: usize = 4;
const A0: usize = 10;
const A7: usize = 17;

impl TrapFrame {
    pub const fn zeroed() -> Self {
        TrapFrame { regs: [0; 32], kernel_sp: 0, kernel_tp: 0 }
    }
    pub fn pc(&self) -> u64 {
        self.regs[0]
    }
    pub fn set_pc(&mut self, pc: u64) {
        self.regs[0] = pc;
    }
    pub fn sp(&self) -> u64 {
        self.regs[SP]
    }
    pub fn set_sp(&mut self, sp: u64) {
        self.regs[SP] = sp;
    }
    /// The thread pointer (Go's TLS base is the tp register).
    pub fn set_tls(&mut self, tls: u64) {
        self.regs[TP] = tls;
    }
    /// Sets the return address register (ra).
    pub fn set_return_address(&mut self, ra: u64) {
        self.regs[RA] = ra;
    }
    /// The system call number (a7).
    pub fn syscall_number(&self) -> usize {
        self.regs[A7] as usize
    }
    /// Argument register a`n`.
    pub fn arg(&self, n: usize) -> u64 {
        self.regs[A0 + n]
    }
    /// Sets argument register a`n` (a handler's arguments).
    pub fn set_arg(&mut self, n: usize, v: u64) {
        self.regs[A0 + n] = v;
    }
    /// The system call's result (a0).
    pub fn set_ret(&mut self, v: u64) {
        self.regs[A0] = v;
    }
    /// Moves the pc past the `ecall` that trapped (sepc points at it).
    pub fn skip_syscall_instruction(&mut self) {
        self.regs[0] += 4;
    }
}

/// Callee-saved registers of a kernel thread, saved by `switch_context`.
#[repr(C)]
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub ra: u64,
    pub sp: u64,
    pub s: [u64; 12],
}

impl Context {
    pub const fn zeroed() -> Self {
        Context { ra: 0, sp: 0, s: [0; 12] }
    }

    /// A context that starts in `thread_trampoline` on the stack `sp`, which
    /// passes `arg` (in s0) to `thread_first_run`.
    pub fn new_thread(sp: u64, arg: u64) -> Self {
        let mut s = [0; 12];
        s[0] = arg;
        Context { ra: super::thread_trampoline as *const () as u64, sp, s }
    }
}

/// f0..f31 and fcsr.
#[repr(C)]
#[derive(Clone, Debug, Default)]
pub struct FpState {
    pub f: [u64; 32],
    pub fcsr: u64,
}

//! Register frames: the blocks of saved registers the assembly fills and
//! restores (a thread's user registers on a trap, its kernel context on a
//! switch, its FP/SIMD registers). Layouts are shared with trap.S,
//! switch.S and fp.S: change them together.

/// A user thread's registers while it is in the kernel: x0..x30, then
/// sp (SP_EL0), pc (ELR_EL1), pstate (SPSR_EL1), TPIDR_EL0 — the order of
/// Linux's `user_pt_regs` with the TLS register after it.
#[repr(C)]
#[derive(Clone, Debug)]
pub struct TrapFrame {
    pub x: [u64; 31],
    pub sp: u64,
    pub pc: u64,
    pub pstate: u64,
    pub tpidr: u64,
    /// Top of this thread's kernel stack, loaded by trap entry.
    pub kernel_sp: u64,
    /// This CPU's per-CPU pointer (TPIDR_EL1 holds it in the kernel).
    pub kernel_tp: u64,
    /// Which vector entered the kernel: 0 synchronous, 1 IRQ (trap.S).
    pub vector: u64,
}

/// The saved-state flags a user thread may have: NZCV only (EL0t, every
/// interrupt unmasked).
pub const PSTATE_USER_MASK: u64 = 0xf000_0000;

const LR: usize = 30;

impl TrapFrame {
    pub const fn zeroed() -> Self {
        TrapFrame { x: [0; 31], sp: 0, pc: 0, pstate: 0, tpidr: 0, kernel_sp: 0, kernel_tp: 0, vector: 0 }
    }
    pub fn pc(&self) -> u64 {
        self.pc
    }
    pub fn set_pc(&mut self, pc: u64) {
        self.pc = pc;
    }
    pub fn sp(&self) -> u64 {
        self.sp
    }
    pub fn set_sp(&mut self, sp: u64) {
        self.sp = sp;
    }
    /// The thread pointer (TPIDR_EL0).
    pub fn set_tls(&mut self, tls: u64) {
        self.tpidr = tls;
    }
    /// Sets the link register (x30).
    pub fn set_return_address(&mut self, ra: u64) {
        self.x[LR] = ra;
    }
    /// The system call number (x8).
    pub fn syscall_number(&self) -> usize {
        self.x[8] as usize
    }
    /// Argument register x`n`.
    pub fn arg(&self, n: usize) -> u64 {
        self.x[n]
    }
    /// Sets argument register x`n` (a handler's arguments).
    pub fn set_arg(&mut self, n: usize, v: u64) {
        self.x[n] = v;
    }
    /// The system call's result (x0).
    pub fn set_ret(&mut self, v: u64) {
        self.x[0] = v;
    }
}

/// Callee-saved registers of a kernel thread, saved by `switch_context`:
/// x19..x30 (x29 the frame pointer, x30 the return address), then sp.
#[repr(C)]
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub x: [u64; 12],
    pub sp: u64,
}

impl Context {
    pub const fn zeroed() -> Self {
        Context { x: [0; 12], sp: 0 }
    }

    /// A context that starts in `thread_trampoline` on the stack `sp`, which
    /// passes `arg` (in x19) to `thread_first_run`.
    pub fn new_thread(sp: u64, arg: u64) -> Self {
        let mut x = [0; 12];
        x[0] = arg;
        x[11] = super::thread_trampoline as *const () as u64;
        Context { x, sp }
    }
}

/// v0..v31 (128 bits each, as two halves), FPSR and FPCR.
#[repr(C, align(16))]
#[derive(Clone, Debug, Default)]
pub struct FpState {
    pub v: [[u64; 2]; 32],
    pub fpsr: u64,
    pub fpcr: u64,
}

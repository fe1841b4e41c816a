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
    /// This hart's `Hart` pointer, loaded into tp by trap entry.
    pub kernel_tp: u64,
}

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
    /// Argument register a`n` (x10 + n).
    pub fn arg(&self, n: usize) -> u64 {
        self.regs[10 + n]
    }
    pub fn set_ret(&mut self, v: u64) {
        self.regs[10] = v;
    }
    pub fn sp(&self) -> u64 {
        self.regs[2]
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

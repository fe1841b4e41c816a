//! The riscv64 side of signal delivery: the registers in the frame
//! (gometal_core::arch::riscv64::sigframe lays it out), the registers a
//! handler starts with, and reading them back in rt_sigreturn. The handler
//! returns to `ra`, which points at the vDSO's rt_sigreturn (as Linux's
//! riscv64 vDSO provides; Go passes no SA_RESTORER there).

use super::context::{FpState, TrapFrame};
use gometal_core::arch::riscv64::sigframe::{self, UserContext};
use gometal_core::signal::sigframe::{SigInfo, StackT, SIGINFO_SIZE, SI_SIGNO, UCONTEXT};

pub const FRAME_SIZE: usize = sigframe::FRAME_SIZE;
const _: () = assert!(SIGINFO_SIZE == UCONTEXT);

/// Writes the frame for a handler interrupting `frame` (the thread's FP
/// registers already saved in `fp`).
pub fn write_frame(buf: &mut [u8; FRAME_SIZE], frame: &TrapFrame, fp: &FpState, info: &SigInfo, mask: u64, stack: StackT) {
    let mut ctx = UserContext { pc: frame.pc(), x: frame.regs, f: fp.f, fcsr: fp.fcsr as u32 };
    ctx.x[0] = 0;
    sigframe::write_frame(buf, info, &ctx, mask, stack);
}

/// Points the thread at `handler(signo, &info, &ucontext)` with the frame
/// at `sp`, returning to `restorer`.
pub fn enter_handler(frame: &mut TrapFrame, handler: u64, sp: u64, signo: usize, restorer: u64) {
    frame.set_pc(handler);
    frame.set_return_address(restorer);
    frame.set_sp(sp);
    frame.set_arg(0, signo as u64);
    frame.set_arg(1, sp + SI_SIGNO as u64);
    frame.set_arg(2, sp + UCONTEXT as u64);
}

/// Restores the registers saved (and perhaps edited by the handler) in
/// `buf`; returns the signal mask to restore.
pub fn read_frame(buf: &[u8; FRAME_SIZE], frame: &mut TrapFrame, fp: &mut FpState) -> u64 {
    let (ctx, mask) = sigframe::read_frame(buf);
    frame.regs = ctx.x;
    frame.regs[0] = ctx.pc;
    fp.f = ctx.f;
    fp.fcsr = ctx.fcsr as u64;
    mask
}

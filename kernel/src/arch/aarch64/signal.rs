//! The aarch64 side of signal delivery: the registers in the frame
//! (gometal_core::arch::aarch64::sigframe lays it out, FPSIMD record
//! included), the registers a handler starts with, and reading them back
//! in rt_sigreturn. The handler returns to x30, which points at the vDSO's
//! __kernel_rt_sigreturn (Go's arm64 runtime passes no SA_RESTORER; Linux
//! returns through its vDSO the same way).

use super::context::{FpState, TrapFrame, PSTATE_USER_MASK};
use gometal_core::arch::aarch64::sigframe::{self, UserContext, FRAME_RECORD};
use gometal_core::signal::sigframe::{SigInfo, StackT, SI_SIGNO, UCONTEXT};

pub const FRAME_SIZE: usize = sigframe::FRAME_SIZE;

/// Writes the frame for a handler interrupting `frame` (the thread's FP
/// registers already saved in `fp`).
pub fn write_frame(buf: &mut [u8; FRAME_SIZE], frame: &TrapFrame, fp: &FpState, info: &SigInfo, mask: u64, stack: StackT) {
    let ctx = UserContext {
        x: frame.x,
        sp: frame.sp,
        pc: frame.pc,
        pstate: frame.pstate,
        v: fp.v,
        fpsr: fp.fpsr as u32,
        fpcr: fp.fpcr as u32,
        fault_address: if info.addr_is_fault { info.pid_or_addr } else { 0 },
    };
    sigframe::write_frame(buf, info, &ctx, mask, stack);
}

/// Points the thread at `handler(signo, &info, &ucontext)` with the frame
/// at `sp`, returning to `restorer`; x29 points at the frame record.
pub fn enter_handler(frame: &mut TrapFrame, handler: u64, sp: u64, signo: usize, restorer: u64) {
    frame.set_pc(handler);
    frame.set_return_address(restorer);
    frame.set_sp(sp);
    frame.x[29] = sp + FRAME_RECORD as u64;
    frame.set_arg(0, signo as u64);
    frame.set_arg(1, sp + SI_SIGNO as u64);
    frame.set_arg(2, sp + UCONTEXT as u64);
}

/// Restores the registers saved (and perhaps edited by the handler) in
/// `buf`; returns the signal mask to restore. Only the condition flags of
/// pstate come back: a frame cannot raise the thread's privilege.
pub fn read_frame(buf: &[u8; FRAME_SIZE], frame: &mut TrapFrame, fp: &mut FpState) -> u64 {
    let (ctx, mask, has_fp) = sigframe::read_frame(buf);
    frame.x = ctx.x;
    frame.sp = ctx.sp;
    frame.pc = ctx.pc;
    frame.pstate = ctx.pstate & PSTATE_USER_MASK;
    if has_fp {
        fp.v = ctx.v;
        fp.fpsr = ctx.fpsr as u64;
        fp.fpcr = ctx.fpcr as u64;
    }
    mask
}

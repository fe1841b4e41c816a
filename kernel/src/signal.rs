//! Signal delivery: per-thread masks and pending sets, the process's
//! actions, building the rt_sigframe on the way back to user mode, and
//! rt_sigreturn. Go depends on this for async preemption (SIGURG) and for
//! turning faults (SIGSEGV with si_addr) into panics.

use crate::arch::{self, signal::FRAME_SIZE};
use crate::memlayout::VDSO_BASE;
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::process::{self, process};
use crate::sched::Thread;
use alloc::sync::Arc;
use gometal_core::signal::sigframe::{self, SigInfo, StackT};
use gometal_core::signal::{self as sig, DefaultAction, SigAction};

pub use crate::sched::sigstate::{AltStack, ThreadSignals};

/// si_code of a POSIX timer's signal.
pub const SI_TIMER: i32 = -2;


/// Makes `signo` pending on `t` and, unless `t` blocks it, interrupts the
/// wait it is in (so the wait returns EINTR and the signal is delivered). A
/// blocked (masked) signal only stays pending: it must not end a wait.
pub fn send_to_thread(t: &Arc<Thread>, signo: usize, info: SigInfo) {
    let deliverable = {
        let mut s = t.signals.lock();
        // A signal already pending is not queued again, and keeps the
        // first sender's siginfo (Linux's legacy_queue). But a POSIX
        // timer's signal, which Linux queues apart, wins over another
        // pending one: Go counts a profiling SIGPROF only with SI_TIMER
        // on a thread that has its own timer.
        let pending = sig::contains(s.pending, signo);
        let timer_wins = info.code == SI_TIMER && s.info_of(signo).is_some_and(|i| i.code != SI_TIMER);
        s.set_info(signo, info, !pending || timer_wins);
        s.pending |= sig::bit(signo);
        !sig::contains(s.blocked, signo)
    };
    if !deliverable {
        return;
    }
    // After `pending` is set: a thread about to block sees it under its
    // state lock (sched::block), one already blocked is woken here.
    crate::sched::block::interrupt(t);
    // Running on another CPU: make it trap now, so the signal (SIGURG for
    // preemption above all) is delivered without waiting for its next tick.
    if let Some(h) = t.running_on() {
        crate::sched::smp::interrupt(crate::sched::cpu::cpu(h));
    }
}

/// A process-directed signal (kill): goes to a thread that does not block it.
pub fn send_to_process(signo: usize, info: SigInfo) {
    let threads = process().threads_snapshot();
    let target = threads
        .iter()
        .find(|t| !sig::contains(t.signals.lock().blocked, signo))
        .or(threads.first());
    if let Some(t) = target {
        send_to_thread(t, signo, info);
    }
}

/// A synchronous fault in user code (page fault, illegal instruction). If the
/// program cannot handle it (blocked, ignored or default) it is terminated, as
/// Linux's force_sig does.
pub fn force_fault(t: &Arc<Thread>, signo: usize, code: i32, addr: u64) {
    let info = SigInfo { signo: signo as i32, code, pid_or_addr: addr, uid: 0, addr_is_fault: true, value: 0 };
    let action = process().action(signo);
    let blocked = sig::contains(t.signals.lock().blocked, signo);
    if blocked || action.handler == sig::SIG_IGN || action.handler == sig::SIG_DFL {
        process::kill_by_signal(signo, Some(addr), t.frame().pc());
    }
    send_to_thread(t, signo, info);
}

/// Delivers every deliverable signal to the current thread `t`: runs default
/// actions and builds a frame for each handled signal (the last one built
/// runs first, as on Linux).
pub fn deliver_pending(user: &mut UserSpace, t: &Arc<Thread>) {
    loop {
        let (signo, info) = {
            let mut s = t.signals.lock();
            let Some(signo) = sig::lowest(s.pending & !s.blocked) else { return };
            s.pending &= !sig::bit(signo);
            (signo, s.take_info(signo))
        };
        let action = process().action(signo);
        match action.handler {
            sig::SIG_IGN => continue,
            sig::SIG_DFL => match sig::default_action(signo) {
                DefaultAction::Terminate | DefaultAction::CoreDump => {
                    process::kill_by_signal(signo, None, t.frame().pc())
                }
                _ => continue,
            },
            _ => {
                if !build_frame(user, t, signo, &info, &action) {
                    process::kill_by_signal(sig::SIGSEGV, None, t.frame().pc());
                }
            }
        }
    }
}

/// Pushes an rt_sigframe and points the thread at the handler.
fn build_frame(user: &mut UserSpace, t: &Arc<Thread>, signo: usize, info: &SigInfo, action: &SigAction) -> bool {
    let frame = t.frame();
    let (old_mask, alt) = {
        let s = t.signals.lock();
        (s.blocked, s.altstack)
    };
    let use_alt = action.flags & sig::SA_ONSTACK != 0 && alt.enabled() && !alt.contains(frame.sp());
    let top = if use_alt { alt.sp + alt.size } else { frame.sp() };
    let sp = sigframe::frame_sp(top, FRAME_SIZE);
    arch::save_fp(t.fp());
    let on_alt = if alt.contains(frame.sp()) { sig::SS_ONSTACK } else { alt.flags };
    let mut buf = [0u8; FRAME_SIZE];
    let stack = StackT { sp: alt.sp, flags: on_alt, size: alt.size };
    arch::signal::write_frame(&mut buf, frame, t.fp(), info, old_mask, stack);
    if user.write_bytes(UserPtr::new(sp).slice(FRAME_SIZE), &buf).is_err() {
        return false;
    }
    // The handler returns into the vDSO's rt_sigreturn (Go on riscv64 and
    // arm64 passes no SA_RESTORER; Linux does the same).
    let restorer = VDSO_BASE + arch::vdso::sigreturn_offset() as u64;
    arch::signal::enter_handler(frame, action.handler, sp, signo, restorer);
    let mut s = t.signals.lock();
    s.blocked |= action.mask;
    if action.flags & sig::SA_NODEFER == 0 {
        s.blocked |= sig::bit(signo);
    }
    s.blocked &= !sig::UNBLOCKABLE;
    if action.flags & sig::SA_RESETHAND != 0 {
        process().set_action(signo, SigAction::default());
    }
    true
}

/// rt_sigreturn: restores the registers and mask saved (and perhaps edited
/// by the handler) in the frame at the current sp.
pub fn sigreturn(user: &mut UserSpace, t: &Arc<Thread>) {
    let frame = t.frame();
    let mut buf = [0u8; FRAME_SIZE];
    let sp = frame.sp();
    match user.read_bytes(UserPtr::new(sp).slice(FRAME_SIZE)) {
        Ok(bytes) => buf.copy_from_slice(&bytes),
        Err(_) => process::kill_by_signal(sig::SIGSEGV, Some(sp), frame.pc()),
    }
    let fp = t.fp();
    let mask = arch::signal::read_frame(&buf, frame, fp);
    arch::restore_fp(fp);
    t.signals.lock().blocked = mask & !sig::UNBLOCKABLE;
}

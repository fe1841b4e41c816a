//! Decoding a trap from U-mode (scause, stval) into the neutral
//! [`TrapCause`], and taking or polling pending interrupts: the timer and
//! the software interrupt (IPI) are the hart's; an external interrupt is
//! the interrupt controller's, which the sink asks (drivers/irqchip). trap.S enters
//! the generic `user_trap` (kernel/src/trap.rs) with the registers saved; a
//! trap taken in S-mode is always a kernel bug and ends in `kernel_trap`.

use super::context::TrapFrame;
use super::csr;
use crate::arch::{FaultAccess, InterruptSink, TrapCause};
use gometal_core::signal as sig;

const IRQ_SOFTWARE: u64 = 1;
const IRQ_TIMER: u64 = 5;
const IRQ_EXTERNAL: u64 = 9;

const EXC_INSN_MISALIGNED: u64 = 0;
const EXC_INSN_ACCESS: u64 = 1;
const EXC_ILLEGAL_INSN: u64 = 2;
const EXC_BREAKPOINT: u64 = 3;
const EXC_LOAD_MISALIGNED: u64 = 4;
const EXC_LOAD_ACCESS: u64 = 5;
const EXC_STORE_MISALIGNED: u64 = 6;
const EXC_STORE_ACCESS: u64 = 7;
const EXC_USER_ECALL: u64 = 8;
const EXC_INSN_PAGE_FAULT: u64 = 12;
const EXC_LOAD_PAGE_FAULT: u64 = 13;
const EXC_STORE_PAGE_FAULT: u64 = 15;

/// Why the current trap from U-mode happened. For a system call, `frame`'s
/// pc is moved past the `ecall` (a clone child copies it so).
pub fn trap_cause(frame: &mut TrapFrame) -> TrapCause {
    let scause = csr::scause();
    if scause & csr::SCAUSE_INTERRUPT != 0 {
        return TrapCause::Interrupt;
    }
    let addr = csr::stval();
    let fault = |signo, code| TrapCause::Fault { signo, code, addr };
    match scause {
        EXC_USER_ECALL => {
            frame.skip_syscall_instruction();
            TrapCause::Syscall
        }
        EXC_LOAD_PAGE_FAULT => TrapCause::PageFault { addr, access: FaultAccess::Read },
        EXC_STORE_PAGE_FAULT => TrapCause::PageFault { addr, access: FaultAccess::Write },
        EXC_INSN_PAGE_FAULT => TrapCause::PageFault { addr, access: FaultAccess::Execute },
        EXC_ILLEGAL_INSN => fault(sig::SIGILL, sig::ILL_ILLOPC),
        EXC_BREAKPOINT => fault(sig::SIGTRAP, 1),
        EXC_INSN_MISALIGNED | EXC_LOAD_MISALIGNED | EXC_STORE_MISALIGNED => fault(sig::SIGBUS, sig::BUS_ADRALN),
        EXC_INSN_ACCESS | EXC_LOAD_ACCESS | EXC_STORE_ACCESS => fault(sig::SIGSEGV, sig::SEGV_ACCERR),
        _ => fault(sig::SIGILL, sig::ILL_ILLOPC),
    }
}

/// Takes the interrupt the current trap is for (scause) on hart `hartid`.
pub fn take_interrupts(_hartid: usize, sink: &mut dyn InterruptSink) {
    match csr::scause() & !csr::SCAUSE_INTERRUPT {
        IRQ_TIMER => sink.timer(),
        IRQ_SOFTWARE => {
            csr::clear_software_interrupt();
            sink.ipi();
        }
        IRQ_EXTERNAL => sink.external(),
        _ => {}
    }
}

/// Takes whatever is pending on an idle hart, which polls instead of
/// trapping (S-mode never enables interrupts).
pub fn poll_interrupts(_hartid: usize, sink: &mut dyn InterruptSink) {
    let sip = csr::sip();
    if sip & csr::SIE_STIE != 0 {
        sink.timer();
    }
    if sip & csr::SIE_SSIE != 0 {
        csr::clear_software_interrupt();
        sink.ipi();
    }
    if sip & csr::SIE_SEIE != 0 {
        sink.external();
    }
}

/// A trap taken in S-mode is always a kernel bug.
#[no_mangle]
extern "C" fn kernel_trap(frame: &TrapFrame) -> ! {
    panic!(
        "trap in kernel: scause {:#x} stval {:#x} sepc {:#x} ra {:#x} sp {:#x}",
        csr::scause(),
        csr::stval(),
        frame.pc(),
        frame.regs[1],
        frame.regs[2]
    )
}

/// riscv64 emulates no instruction: an illegal one is SIGILL (and is
/// reported as a `Fault`, so this is never asked).
pub fn emulate_instruction(_frame: &mut TrapFrame, _insn: u32) -> bool {
    false
}

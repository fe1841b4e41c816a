//! Traps: from user mode (system calls, page faults, interrupts) and, as a
//! kernel bug, from S-mode. Interrupts are only ever taken from user mode;
//! idle CPUs poll for them with `poll_interrupts`.

use crate::arch::{self, csr, TrapFrame};
use crate::mm::addrspace::{Access, Fault};
use crate::mm::uaccess::UserSpace;
use crate::sched::cpu::{this_cpu, Cpu};
use crate::sched::{current, timer, yield_now};
use crate::signal;
use core::sync::atomic::Ordering;
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

/// Entered from trap.S with the user registers saved in `frame`.
#[no_mangle]
extern "C" fn user_trap(_frame: *mut TrapFrame) -> ! {
    let scause = csr::scause();
    let code = scause & !csr::SCAUSE_INTERRUPT;
    let mut slice_over = false;
    if scause & csr::SCAUSE_INTERRUPT != 0 {
        slice_over = handle_interrupt(this_cpu(), code);
    } else if code == EXC_USER_ECALL {
        this_cpu().stats.syscalls.fetch_add(1, Ordering::Relaxed);
        // SAFETY: just entered from user mode: this CPU holds no lock.
        let mut user = unsafe { UserSpace::enter() };
        crate::linux::syscall(&mut user);
    } else {
        user_exception(code, csr::stval());
    }
    // The tick ended the slice, or a wakeup queued a thread here (place.rs).
    if slice_over || crate::sched::place::should_preempt(this_cpu()) {
        yield_now();
    }
    return_to_user()
}

/// Delivers pending signals and returns to the current thread's user code.
pub fn return_to_user() -> ! {
    crate::smp::halt_if_requested();
    let t = current();
    // SAFETY: about to leave for user mode: this CPU holds no lock (the
    // callers are the trap handler's end and a new thread's first run).
    let mut user = unsafe { UserSpace::enter() };
    signal::deliver_pending(&mut user, &t);
    let cpu = this_cpu();
    // Not through the mm lock: every return to user passes here.
    let root = crate::process::process().root;
    if cpu.page_table.swap(root, Ordering::Relaxed) != root {
        csr::set_page_table(root);
    }
    let frame = t.frame();
    frame.kernel_sp = t.kernel_stack_top();
    frame.kernel_tp = this_cpu() as *const Cpu as u64;
    let frame_ptr = t.frame_ptr();
    drop(t);
    csr::prepare_user_return();
    // SAFETY: the frame lives in the current thread, which stays alive while
    // it runs (the CPU's `current` holds it); the CPU was set up above.
    unsafe { arch::enter_user(frame_ptr) }
}

/// Handles interrupt `code`; returns true if the running thread should yield.
fn handle_interrupt(cpu: &Cpu, code: u64) -> bool {
    cpu.stats.interrupts.fetch_add(1, Ordering::Relaxed);
    match code {
        IRQ_TIMER => timer::on_interrupt(cpu) && crate::sched::runqueue::has_local_work(cpu),
        IRQ_SOFTWARE => {
            csr::clear_software_interrupt();
            crate::smp::handle_ipi(cpu);
            false
        }
        IRQ_EXTERNAL => {
            handle_external(cpu);
            false
        }
        _ => false,
    }
}

fn handle_external(cpu: &Cpu) {
    while let Some(irq) = crate::drivers::plic::claim_irq(cpu.hwid()) {
        if Some(irq) == crate::devices::uart_irq() {
            crate::console::receive();
        } else if Some(irq) == crate::drivers::virtio::console::irq() {
            crate::drivers::virtio::console::on_interrupt();
        } else if Some(irq) == crate::net::nic::irq() {
            crate::net::nic::on_interrupt();
        } else {
            crate::uio::on_irq(irq);
        }
        crate::drivers::plic::complete(irq, cpu.hwid());
    }
}

/// Handles whatever interrupts are pending on an idle CPU.
pub fn poll_interrupts(cpu: &Cpu) {
    let sip = csr::sip();
    if sip & csr::SIE_STIE != 0 {
        handle_interrupt(cpu, IRQ_TIMER);
    }
    if sip & csr::SIE_SSIE != 0 {
        handle_interrupt(cpu, IRQ_SOFTWARE);
    }
    if sip & csr::SIE_SEIE != 0 {
        handle_interrupt(cpu, IRQ_EXTERNAL);
    }
}

/// A fault in user code: demand paging, or a signal for the program.
fn user_exception(code: u64, stval: u64) {
    let t = current();
    let access = match code {
        EXC_LOAD_PAGE_FAULT => Some(Access::Read),
        EXC_STORE_PAGE_FAULT => Some(Access::Write),
        EXC_INSN_PAGE_FAULT => Some(Access::Execute),
        _ => None,
    };
    if let Some(access) = access {
        // SAFETY: a page fault from user mode: this CPU holds no lock.
        let mut user = unsafe { UserSpace::enter() };
        let result = user.lock().page_for(stval, access);
        match result {
            Ok(_) => csr::flush_tlb_page(stval),
            Err(Fault::Unmapped) => signal::force_fault(&t, sig::SIGSEGV, sig::SEGV_MAPERR, stval),
            Err(Fault::Denied) => signal::force_fault(&t, sig::SIGSEGV, sig::SEGV_ACCERR, stval),
            Err(Fault::OutOfMemory) => crate::process::out_of_memory(),
            Err(Fault::BeyondEnd) => signal::force_fault(&t, sig::SIGBUS, sig::BUS_ADRERR, stval),
        }
        return;
    }
    let (signo, si_code) = match code {
        EXC_ILLEGAL_INSN => (sig::SIGILL, sig::ILL_ILLOPC),
        EXC_BREAKPOINT => (sig::SIGTRAP, 1),
        EXC_INSN_MISALIGNED | EXC_LOAD_MISALIGNED | EXC_STORE_MISALIGNED => (sig::SIGBUS, sig::BUS_ADRALN),
        EXC_INSN_ACCESS | EXC_LOAD_ACCESS | EXC_STORE_ACCESS => (sig::SIGSEGV, sig::SEGV_ACCERR),
        _ => (sig::SIGILL, sig::ILL_ILLOPC),
    };
    signal::force_fault(&t, signo, si_code, stval);
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

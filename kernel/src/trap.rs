//! Traps from user mode: system calls, page faults, other faults and
//! interrupts, as the architecture decoded them (arch::TrapCause). The
//! kernel never takes a trap in kernel mode except as a bug (the arch's
//! kernel_trap); interrupts are taken from user mode here, or polled by idle
//! CPUs with `poll_interrupts`.

use crate::arch::{self, FaultAccess, InterruptSink, TrapCause, TrapFrame};
use crate::mm::addrspace::{Access, Fault};
use crate::mm::uaccess::UserSpace;
use crate::sched::cpu::{this_cpu, Cpu};
use crate::sched::{current, timer, yield_now};
use crate::signal;
use core::sync::atomic::Ordering;
use gometal_core::signal as sig;

/// Entered from the architecture's trap vector with the user registers
/// saved in `frame` (the current thread's).
#[no_mangle]
extern "C" fn user_trap(frame: *mut TrapFrame) -> ! {
    // SAFETY: trap entry passes the current thread's frame, which nothing
    // else touches while this thread runs in the kernel.
    let cause = arch::trap_cause(unsafe { &mut *frame });
    let mut slice_over = false;
    match cause {
        TrapCause::Syscall => {
            this_cpu().stats.syscalls.fetch_add(1, Ordering::Relaxed);
            // SAFETY: just entered from user mode: this CPU holds no lock.
            let mut user = unsafe { UserSpace::enter(&crate::process::process().mm) };
            crate::linux::syscall(&mut user);
        }
        TrapCause::PageFault { addr, access } => page_fault(addr, access),
        TrapCause::Fault { signo, code, addr } => signal::force_fault(&current(), signo, code, addr),
        // SAFETY: as above.
        TrapCause::Undefined { addr } => undefined_instruction(unsafe { &mut *frame }, addr),
        TrapCause::Interrupt => {
            let cpu = this_cpu();
            cpu.stats.interrupts.fetch_add(1, Ordering::Relaxed);
            let mut sink = Sink { cpu, slice_over: false };
            arch::take_interrupts(cpu.hwid(), &mut sink);
            slice_over = sink.slice_over;
            crate::itimer::on_interrupt(&current()); // profiling timers on CPU clocks
        }
    }
    // The tick ended the slice, or a wakeup queued a thread here (place.rs).
    if slice_over || crate::sched::place::should_preempt(this_cpu()) {
        yield_now();
    }
    return_to_user()
}

/// Entered through the architecture's `thread_trampoline` the first time a
/// thread runs. The first thread, with `verbose`, first checks that the
/// kernel cannot touch user memory directly (mm/strayaccess.rs).
#[no_mangle]
// Its argument (the Context's word) is not used: the Thread moved after
// its Context was built, so the registers are read through current().
extern "C" fn thread_first_run(_frame: *mut TrapFrame) -> ! {
    let t = current();
    arch::restore_fp(t.fp());
    let sp = t.frame().sp();
    drop(t);
    activate_user_memory();
    crate::mm::strayaccess::run_once(sp);
    return_to_user()
}

/// Makes the program's page table this CPU's, unless it already is.
fn activate_user_memory() {
    let cpu = this_cpu();
    // Not through the mm lock: every return to user passes here.
    let process = crate::process::process();
    if cpu.page_table.swap(process.root, Ordering::Relaxed) != process.root {
        crate::mm::asid::activate(process.root, &process.asid, cpu.index());
    }
}

/// Delivers pending signals and returns to the current thread's user code.
pub fn return_to_user() -> ! {
    crate::sched::smp::halt_if_requested();
    let t = current();
    // SAFETY: about to leave for user mode: this CPU holds no lock (the
    // callers are the trap handler's end and a new thread's first run).
    let mut user = unsafe { UserSpace::enter(&crate::process::process().mm) };
    signal::deliver_pending(&mut user, &t);
    let cpu = this_cpu();
    activate_user_memory();
    let kernel_sp = t.kernel_stack_top();
    let frame_ptr = t.frame_ptr();
    drop(t);
    // SAFETY: the frame lives in the current thread, which stays alive while
    // it runs (the CPU's `current` holds it); kernel_sp is its kernel stack.
    unsafe { arch::enter_user(frame_ptr, kernel_sp, cpu as *const Cpu as usize) }
}

/// What this kernel does with each interrupt: timers wake sleepers and end
/// time slices, IPIs carry requests between CPUs, device lines go to the
/// handler their driver registered (drivers/irq.rs); what the interrupt
/// controller signals, its driver sorts into those (drivers/irqchip).
struct Sink<'a> {
    cpu: &'a Cpu,
    slice_over: bool,
}

impl InterruptSink for Sink<'_> {
    fn timer(&mut self) {
        self.slice_over |= timer::on_interrupt(self.cpu) && crate::sched::runqueue::has_local_work(self.cpu);
    }
    fn ipi(&mut self) {
        crate::sched::smp::handle_ipi(self.cpu);
    }
    fn device(&mut self, line: u32) {
        crate::drivers::irq::dispatch(line);
    }
    fn external(&mut self) {
        crate::drivers::irqchip::take_pending(self.cpu.hwid(), self);
    }
}

/// Handles whatever interrupts are pending on an idle CPU (registered with
/// sched/idle.rs at boot).
pub fn poll_interrupts(cpu: &Cpu) {
    let mut sink = Sink { cpu, slice_over: false };
    arch::poll_interrupts(cpu.hwid(), &mut sink);
}

/// An undefined instruction at `addr`: emulated if the architecture knows
/// it (arm64's MRS of an ID register), SIGILL otherwise.
fn undefined_instruction(frame: &mut TrapFrame, addr: u64) {
    // SAFETY: a trap from user mode: this CPU holds no lock.
    let mut user = unsafe { UserSpace::enter(&crate::process::process().mm) };
    let insn = user.read(crate::mm::uaccess::UserPtr::<u32>::new(addr));
    if !insn.is_ok_and(|insn| arch::emulate_instruction(frame, insn)) {
        signal::force_fault(&current(), sig::SIGILL, sig::ILL_ILLOPC, addr);
    }
}

/// A page fault in user code: demand paging, or a signal for the program.
fn page_fault(addr: u64, access: FaultAccess) {
    let t = current();
    let access = match access {
        FaultAccess::Read => Access::Read,
        FaultAccess::Write => Access::Write,
        FaultAccess::Execute => Access::Execute,
    };
    // SAFETY: a page fault from user mode: this CPU holds no lock.
    let mut user = unsafe { UserSpace::enter(&crate::process::process().mm) };
    let result = user.lock().page_for(addr, access);
    match result {
        Ok(_) => arch::flush_tlb_page(addr),
        Err(Fault::Unmapped) => signal::force_fault(&t, sig::SIGSEGV, sig::SEGV_MAPERR, addr),
        Err(Fault::Denied) => signal::force_fault(&t, sig::SIGSEGV, sig::SEGV_ACCERR, addr),
        Err(Fault::OutOfMemory) => crate::process::out_of_memory(),
        Err(Fault::BeyondEnd) => signal::force_fault(&t, sig::SIGBUS, sig::BUS_ADRERR, addr),
    }
}

//! Decoding an exception from EL0 (the vector trap.S entered through, and
//! ESR_EL1/FAR_EL1 for a synchronous one) into the neutral [`TrapCause`],
//! and taking or polling pending interrupts: every one arrives through the
//! interrupt controller (drivers/irqchip), which the sink asks. trap.S enters the
//! generic `user_trap` (kernel/src/trap.rs) with the registers saved; an
//! exception taken at EL1 is always a kernel bug and ends in `kernel_trap`.

use super::context::TrapFrame;
use super::sysreg::read_sysreg;
use crate::arch::{FaultAccess, InterruptSink, TrapCause};
use gometal_core::arch::aarch64::esr::{self, Exception};
use gometal_core::arch::aarch64::idregs::{self, IdReg, ID_AA64ISAR0, ID_AA64ISAR1, ID_AA64ISAR2, ID_AA64PFR0, MIDR};

const SIGILL: usize = 4;

/// Emulates the undefined instruction `insn` at the pc if it is an MRS of
/// an ID register (idregs.rs): the value goes to its target register and
/// the pc past it. False: SIGILL.
pub fn emulate_instruction(frame: &mut TrapFrame, insn: u32) -> bool {
    let Some(access) = idregs::SysRegAccess::from_mrs(insn) else {
        return false;
    };
    let Some(value) = idregs::emulate(access, read_id_register) else {
        return false;
    };
    if access.rt != 31 {
        frame.x[access.rt as usize] = value; // x31 is xzr here
    }
    frame.pc += 4;
    true
}

/// This CPU's own value of an ID register that idregs.rs sanitizes.
fn read_id_register(reg: IdReg) -> u64 {
    match reg {
        MIDR => read_sysreg!("midr_el1"),
        ID_AA64PFR0 => read_sysreg!("id_aa64pfr0_el1"),
        ID_AA64ISAR0 => read_sysreg!("id_aa64isar0_el1"),
        ID_AA64ISAR1 => read_sysreg!("id_aa64isar1_el1"),
        ID_AA64ISAR2 => read_sysreg!("s3_0_c0_c6_2"), // ID_AA64ISAR2_EL1
        _ => 0,
    }
}

/// trap.S's `vector` value for the IRQ and FIQ entries.
const VECTOR_IRQ: u64 = 1;

/// Why the current exception from EL0 happened. For a system call the pc
/// is already past the `svc` (ELR_EL1 points at the next instruction).
pub fn trap_cause(frame: &mut TrapFrame) -> TrapCause {
    if frame.vector == VECTOR_IRQ {
        return TrapCause::Interrupt;
    }
    let syndrome = read_sysreg!("esr_el1");
    match esr::decode(syndrome) {
        Exception::Svc => TrapCause::Syscall,
        Exception::PageFault { write, exec } => {
            let access = if exec {
                FaultAccess::Execute
            } else if write {
                FaultAccess::Write
            } else {
                FaultAccess::Read
            };
            TrapCause::PageFault { addr: read_sysreg!("far_el1"), access }
        }
        // EL0's MRS of an ID register is an undefined instruction (class
        // 0), or with FEAT_IDST a trapped one (class 0x18, like every MRS
        // or MSR a control bit traps): the generic code reads it and
        // emulate_instruction takes the ID register reads; the rest is SIGILL.
        Exception::SysReg(_) => TrapCause::Undefined { addr: frame.pc },
        Exception::Signal(SIGILL, _) if esr::class(syndrome) == 0 => TrapCause::Undefined { addr: frame.pc },
        Exception::Signal(signo, code) => {
            let ec = esr::class(syndrome);
            // Aborts and alignment faults name the data address; the
            // rest (undefined instruction, breakpoint) the instruction's.
            let addr = if matches!(ec, 0x20 | 0x21 | 0x22 | 0x24 | 0x25) { read_sysreg!("far_el1") } else { frame.pc };
            TrapCause::Fault { signo, code, addr }
        }
    }
}

/// Takes the interrupts pending for the current exception on CPU `hwid`:
/// an IRQ exception is always the controller's.
pub fn take_interrupts(_hwid: usize, sink: &mut dyn InterruptSink) {
    sink.external();
}

/// Takes whatever is pending on an idle CPU, which polls instead of
/// taking the exception (the kernel runs with interrupts masked); the
/// controller answers "nothing" cheaply.
pub fn poll_interrupts(_hwid: usize, sink: &mut dyn InterruptSink) {
    sink.external();
}

/// An exception taken at EL1 is always a kernel bug, but for one: the
/// semihosting call of power_off faulting because QEMU was started without
/// `-semihosting` although the command line said `semihosting` — the
/// user's mistake, said in one line before powering off through PSCI.
#[no_mangle]
extern "C" fn kernel_trap(frame: &TrapFrame) -> ! {
    if super::power::is_semihosting_call(frame.pc()) {
        crate::println!("gometal: the kernel option `semihosting` was given, but QEMU was started without -semihosting: the exit status cannot reach the host; powering off");
        super::power::power_off_without_semihosting()
    }
    panic!(
        "trap in kernel: ESR {:#x} FAR {:#x} ELR {:#x} lr {:#x} sp {:#x}",
        read_sysreg!("esr_el1"),
        read_sysreg!("far_el1"),
        frame.pc(),
        frame.x[30],
        frame.sp
    )
}

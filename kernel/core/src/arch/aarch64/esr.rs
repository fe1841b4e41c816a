//! The exception syndrome (ESR_EL1) of a synchronous exception from EL0,
//! decoded into what the kernel does with it: a system call, a page fault
//! to resolve, or the signal Linux sends.

/// What an exception from EL0 was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exception {
    /// SVC #0 (ELR already points past it).
    Svc,
    /// A translation or permission fault at FAR: demand paging or SIGSEGV.
    PageFault { write: bool, exec: bool },
    /// A trapped MRS or MSR: emulated if it reads an ID register
    /// (idregs.rs), else SIGILL.
    SysReg(super::idregs::SysRegAccess),
    /// Anything else: (signal, si_code).
    Signal(usize, i32),
}

const EC_UNKNOWN: u64 = 0x00;
const EC_FP_TRAPPED: u64 = 0x07;
const EC_ILLEGAL_STATE: u64 = 0x0e;
const EC_SVC64: u64 = 0x15;
const EC_SYSREG: u64 = 0x18;
const EC_SVE: u64 = 0x19;
const EC_IABT_LOW: u64 = 0x20;
const EC_PC_ALIGN: u64 = 0x22;
const EC_DABT_LOW: u64 = 0x24;
const EC_SP_ALIGN: u64 = 0x26;
const EC_FP_EXC64: u64 = 0x2c;
const EC_BREAKPOINT_LOW: u64 = 0x30;
const EC_SOFTSTEP_LOW: u64 = 0x32;
const EC_WATCHPOINT_LOW: u64 = 0x34;
const EC_BRK64: u64 = 0x3c;

const SIGILL: usize = 4;
const SIGTRAP: usize = 5;
const SIGBUS: usize = 7;
const SIGFPE: usize = 8;
const SIGSEGV: usize = 11;
const ILL_ILLOPC: i32 = 1;
const FPE_FLTINV: i32 = 7;
const BUS_ADRALN: i32 = 1;
const BUS_ADRERR: i32 = 2;
const SEGV_ACCERR: i32 = 2;
const TRAP_BRKPT: i32 = 1;

/// The exception class: ESR bits 31:26.
pub fn class(esr: u64) -> u64 {
    (esr >> 26) & 0x3f
}

/// Decodes an exception taken from EL0.
pub fn decode(esr: u64) -> Exception {
    let iss = esr & 0x01ff_ffff;
    match class(esr) {
        EC_SVC64 => Exception::Svc,
        ec @ (EC_IABT_LOW | EC_DABT_LOW) => {
            // DFSC/IFSC: 0b0001xx translation, 0b0010xx access flag,
            // 0b0011xx permission, at any level.
            let fsc = iss & 0x3f;
            let exec = ec == EC_IABT_LOW;
            match fsc >> 2 {
                1..=3 => Exception::PageFault { write: !exec && iss & (1 << 6) != 0, exec },
                _ if fsc == 0x21 => Exception::Signal(SIGBUS, BUS_ADRALN),
                _ => Exception::Signal(SIGBUS, BUS_ADRERR),
            }
        }
        EC_PC_ALIGN | EC_SP_ALIGN => Exception::Signal(SIGBUS, BUS_ADRALN),
        EC_FP_EXC64 => Exception::Signal(SIGFPE, FPE_FLTINV),
        EC_BRK64 | EC_BREAKPOINT_LOW | EC_SOFTSTEP_LOW | EC_WATCHPOINT_LOW => Exception::Signal(SIGTRAP, TRAP_BRKPT),
        EC_SYSREG => Exception::SysReg(super::idregs::SysRegAccess::from_iss(iss)),
        EC_UNKNOWN | EC_FP_TRAPPED | EC_ILLEGAL_STATE | EC_SVE => Exception::Signal(SIGILL, ILL_ILLOPC),
        _ => Exception::Signal(SIGSEGV, SEGV_ACCERR),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esr(ec: u64, iss: u64) -> u64 {
        ec << 26 | 1 << 25 | iss
    }

    #[test]
    fn syscalls_and_faults() {
        assert_eq!(decode(esr(0x15, 0)), Exception::Svc);
        // Data abort, level-3 translation fault, write (WnR).
        assert_eq!(decode(esr(0x24, 0x47)), Exception::PageFault { write: true, exec: false });
        // Data abort, level-2 permission fault, read.
        assert_eq!(decode(esr(0x24, 0x0e)), Exception::PageFault { write: false, exec: false });
        // Instruction abort, level-3 translation fault.
        assert_eq!(decode(esr(0x20, 0x07)), Exception::PageFault { write: false, exec: true });
        // Alignment fault.
        assert_eq!(decode(esr(0x24, 0x21)), Exception::Signal(SIGBUS, BUS_ADRALN));
    }

    #[test]
    fn signals() {
        assert_eq!(decode(esr(0x00, 0)), Exception::Signal(SIGILL, ILL_ILLOPC));
        assert!(matches!(decode(esr(0x18, 0x30_0001)), Exception::SysReg(a) if a.op0 == 3 && a.read));
        assert_eq!(decode(esr(0x3c, 0)), Exception::Signal(SIGTRAP, TRAP_BRKPT));
        assert_eq!(decode(esr(0x22, 0)), Exception::Signal(SIGBUS, BUS_ADRALN));
    }
}

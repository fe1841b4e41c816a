//! What an arm64 program is told about its machine: the ELF machine it
//! must be built for, AT_HWCAP from the CPU's ID registers, and uname's
//! machine name.

use super::sysreg::read_sysreg;
use gometal_core::arch::aarch64 as facts;
use gometal_core::loader::elf::Target;

pub const ELF_TARGET: Target = Target { machine: facts::ELF_MACHINE, user_end: facts::USER_END };

/// uname(2)'s machine field.
pub const UNAME_MACHINE: &[u8] = b"aarch64";

/// AT_HWCAP from ID_AA64ISAR0_EL1 and ID_AA64PFR0_EL1 plus CPUID, and AT_HWCAP2
/// (none of its features is offered).
pub fn hwcaps() -> (u64, Option<u64>) {
    let isar0 = read_sysreg!("id_aa64isar0_el1");
    let pfr0 = read_sysreg!("id_aa64pfr0_el1");
    // HWCAP_CPUID: EL0 reads of the ID registers are emulated (trap.rs).
    (facts::hwcap::from_id_registers(isar0, pfr0) | facts::hwcap::CPUID, Some(0))
}

/// CPU `index`'s paragraph of /proc/cpuinfo (every CPU is taken to be
/// the one asking: QEMU's virt CPUs are all alike).
pub fn cpuinfo(index: usize, _hwid: usize) -> alloc::string::String {
    facts::hwcap::cpuinfo(index, hwcaps().0, read_sysreg!("midr_el1"), read_sysreg!("cntfrq_el0"))
}

/// The open(2) flags whose values arm64 does not share with asm-generic
/// (arch/arm64/include/uapi/asm/fcntl.h): O_DIRECTORY, O_NOFOLLOW,
/// O_DIRECT, O_LARGEFILE.
pub const O_DIRECTORY: u32 = 0o40000;
pub const O_NOFOLLOW: u32 = 0o100000;
pub const O_LARGEFILE: u32 = 0o400000;

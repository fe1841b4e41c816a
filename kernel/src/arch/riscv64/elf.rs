//! What a riscv64 program is told about its machine: the ELF machine it
//! must be built for, AT_HWCAP, and uname's machine name.

use gometal_core::arch::riscv64 as facts;
use gometal_core::loader::elf::Target;

pub const ELF_TARGET: Target = Target { machine: facts::ELF_MACHINE, user_end: facts::USER_END };

/// uname(2)'s machine field.
pub const UNAME_MACHINE: &[u8] = b"riscv64";

/// AT_HWCAP, and AT_HWCAP2 if the architecture has one (rv64imafdc;
/// RISC-V Linux sends no AT_HWCAP2).
pub fn hwcaps() -> (u64, Option<u64>) {
    (facts::HWCAP, None)
}

/// CPU `index`'s paragraph of /proc/cpuinfo (hart id `hwid`).
pub fn cpuinfo(index: usize, hwid: usize) -> alloc::string::String {
    facts::cpuinfo(index, hwid, facts::ISA)
}

/// The open(2) flags whose values differ between architectures: riscv64
/// has asm-generic's (include/uapi/asm-generic/fcntl.h).
pub const O_DIRECTORY: u32 = 0o200000;
pub const O_NOFOLLOW: u32 = 0o400000;
pub const O_LARGEFILE: u32 = 0o100000;

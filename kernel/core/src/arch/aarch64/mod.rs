//! aarch64's pure facts: the stage-1 descriptor format (4 KiB granule,
//! 39-bit address spaces), the signal frame, exception syndromes (ESR),
//! and AT_HWCAP from the CPU's ID registers.

pub mod esr;
pub mod hwcap;
pub mod idregs;
pub mod pte;
pub mod sigframe;

/// e_machine of AArch64 ELF files.
pub const ELF_MACHINE: u16 = 183;

/// One past the highest user address: 256 GiB, as on riscv64 (TTBR0's
/// 39-bit space could hold 512; both architectures share one user layout).
pub const USER_END: u64 = pte::USER_END;

//! Where things are in memory: the user address space every architecture
//! shares, laid out below the architecture's USER_END, and the kernel's
//! linear map of physical memory (arch::PHYS_OFFSET). The kernel half
//! differs per architecture (arch/*/mmu.rs, entry.S):
//!
//! ```text
//! virtual (riscv64, Sv39: one root)         what
//! 0xffff_ffff_ffff_ffff ┐ the kernel window (megapages, global): the kernel
//! 0xffff_ffff_8000_0000 ┘   image, linked here, wherever the loader put it
//! 0xffff_ffd0_0000_0000 ┐
//!                       │ linear map of physical 0..64 GiB (gigapages, global)
//! 0xffff_ffc0_0000_0000 ┘ PHYS_OFFSET
//!        (non-canonical hole)
//!
//! virtual (aarch64, 39-bit TTBR1 for the kernel, TTBR0 for the program)
//! 0xffff_ffff_ffff_ffff ┐ root entry 511: the high device window, one GiB of
//! 0xffff_ffff_c000_0000 ┘   device registers above the linear map (a PCI BAR
//!                           UEFI placed high), mapped by map_high_device
//! 0xffff_ffff_bfff_ffff ┐ root entry 510: the kernel window (2 MiB blocks, or
//! 0xffff_ffff_8000_0000 ┘   4 KiB pages when loaded off a 2 MiB boundary)
//! 0xffff_ffff_7fff_ffff ┐
//!                       │ linear map of physical 0..510 GiB (1 GiB blocks,
//! 0xffff_ff80_0000_0000 ┘   Normal if they hold RAM, else Device) PHYS_OFFSET
//!        (non-canonical hole)
//!
//! the program's half, the same on both (TTBR0's 512 GiB hold it on arm64)
//! 0x0000_0040_0000_0000   USER_END (256 GiB, the top of Sv39's lower half)
//! 0x0000_003f_ffff_f000   guard page
//! 0x0000_003f_ffff_e000   top of the main thread's stack (grows down, 8 MiB)
//! 0x0000_003f_ff7f_c000   the vDSO page (r-x: clock_gettime, rt_sigreturn), under a guard page
//! 0x0000_003f_0000_0000   MMAP_TOP (USER_END - 4 GiB): mmap places mappings top-down below this
//! 0x0000_0002_0000_0000   MMAP_BASE
//! 0x0000_0000_0001_0000   the program's ELF segments (Go links at 0x10000)
//! ```
//! Physical memory and devices come from the device tree (or, on arm64
//! under UEFI, the EFI memory map and ACPI tables). QEMU riscv64 virt: RAM
//! at 0x8000_0000, the firmware first, the kernel usually at 0x8020_0000
//! but anywhere 2 MiB aligned, the initrd and device tree near the top.
//! QEMU arm64 virt: RAM at 0x4000_0000, the kernel at 0x4020_0000 under
//! `-kernel` but anywhere 4 KiB aligned, devices below 1 GiB and PCIe's
//! high ECAM at 256 GiB.

pub use crate::arch::{phys_to_virt, virt_to_phys, LINEAR_MAP_END, USER_END};
pub use gometal_core::mm::pagetable::PAGE_SIZE;

pub const USER_STACK_TOP: u64 = USER_END - 2 * PAGE_SIZE as u64;
pub const USER_STACK_SIZE: u64 = 8 << 20;
/// The vDSO page, below the stack with a guard page between.
pub const VDSO_BASE: u64 = USER_STACK_TOP - USER_STACK_SIZE - 2 * PAGE_SIZE as u64;
pub const MMAP_TOP: u64 = USER_END - (4 << 30);
pub const MMAP_BASE: u64 = 0x2_0000_0000;

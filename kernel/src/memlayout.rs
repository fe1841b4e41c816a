//! Where things are in memory.
//!
//! ```text
//! virtual                                   what
//! 0xffff_ffff_ffff_ffff ┐
//!                       │ linear map of physical 0..64 GiB (gigapages, global):
//! 0xffff_ffc0_8020_0000 │   the kernel image lives here (linked at PHYS_OFFSET + pa)
//! 0xffff_ffc0_0000_0000 ┘ PHYS_OFFSET
//!        (non-canonical hole)
//! 0x0000_0040_0000_0000   USER_END (256 GiB, the top of Sv39's lower half)
//! 0x0000_003f_ffff_f000   signal return trampoline page (r-x)
//! 0x0000_003f_ffff_e000   top of the main thread's stack (grows down, 8 MiB)
//! 0x0000_003f_ff7f_c000   the vDSO page (r-x), under a guard page
//! 0x0000_003f_0000_0000   MMAP_TOP: mmap places mappings top-down below this
//! 0x0000_0002_0000_0000   MMAP_BASE
//! 0x0000_0000_0001_0000   the program's ELF segments (Go links at 0x10000)
//! ```
//! Physical (QEMU virt): 0x0010_0000 test/poweroff device, 0x0010_1000 RTC,
//! 0x0c00_0000 PLIC, 0x1000_0000 UART, 0x8000_0000 RAM (OpenSBI first, the
//! kernel at 0x8020_0000; the initrd and device tree near the top).

pub use gometal_core::pagetable::{PAGE_SIZE, USER_END};

pub const PHYS_OFFSET: u64 = 0xffff_ffc0_0000_0000;

pub const SIGRETURN_TRAMPOLINE: u64 = USER_END - PAGE_SIZE as u64;
pub const USER_STACK_TOP: u64 = SIGRETURN_TRAMPOLINE - PAGE_SIZE as u64;
pub const USER_STACK_SIZE: u64 = 8 << 20;
/// The vDSO page, below the stack with a guard page between.
pub const VDSO_BASE: u64 = USER_STACK_TOP - USER_STACK_SIZE - 2 * PAGE_SIZE as u64;
pub const MMAP_TOP: u64 = 0x3f_0000_0000;
pub const MMAP_BASE: u64 = 0x2_0000_0000;

/// The kernel-virtual address of physical address `pa` (through the linear map).
pub const fn phys_to_virt(pa: u64) -> u64 {
    pa + PHYS_OFFSET
}

/// The physical address of a kernel-virtual address inside the linear map.
pub const fn virt_to_phys(va: u64) -> u64 {
    va - PHYS_OFFSET
}

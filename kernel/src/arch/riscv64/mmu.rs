//! Sv39 on riscv64: the kernel's linear map of physical memory and its
//! own window in the upper half (the boot page table in entry.S makes
//! both; every user root shares those entries), installing a user root
//! in satp, and TLB maintenance. `sfence.vma` is local to a hart, so other harts' TLBs are
//! flushed by IPI (smp.rs's shootdown).

use super::csr;

pub use gometal_core::arch::riscv64::sv39::Sv39 as PageFormat;
pub use gometal_core::arch::riscv64::USER_END;

/// Where physical address 0 appears in the kernel's address space.
pub const PHYS_OFFSET: u64 = 0xffff_ffc0_0000_0000;

/// The end of the physical addresses the linear map reaches (entry.S maps 64 GiB (LINEAR_MAP_GIB)):
/// a device register above it (a BAR the firmware placed high) is out of reach.
pub const LINEAR_MAP_END: u64 = 64 << 30;

/// The kernel-virtual address of device registers at `pa`: the linear
/// map's 64 GiB hold every device of the machines this kernel knows.
pub fn device_virt(pa: u64) -> Option<u64> {
    (pa < LINEAR_MAP_END).then(|| phys_to_virt(pa))
}

/// No high device window on riscv64 (nothing lies above the linear map).
pub fn map_high_device(pa: u64) -> bool {
    device_virt(pa).is_some()
}

/// Where the kernel image is linked (kernel.ld): its own window, apart
/// from the linear map, wherever the loader put it in physical memory.
pub const KERNEL_BASE: u64 = 0xffff_ffff_8000_0000;

/// Root entries 256..512: the kernel half, the same in every root.
const KERNEL_ROOT_ENTRIES: core::ops::Range<usize> = 256..512;

extern "C" {
    static boot_page_table: u8;
    static kernel_phys_base: u64;
}

/// The physical address the loader put the image at (entry.S stores it
/// before paging is on; it never changes after).
pub fn kernel_load_address() -> u64 {
    // SAFETY: written once by entry.S on the boot hart before any Rust
    // runs, read-only afterwards.
    unsafe { core::ptr::read_volatile(core::ptr::addr_of!(kernel_phys_base)) }
}

/// The kernel-virtual address of physical address `pa` (through the linear map).
pub const fn phys_to_virt(pa: u64) -> u64 {
    pa + PHYS_OFFSET
}

/// The physical address of a kernel-virtual address: in the kernel's
/// window (a static, the boot stack) or in the linear map (everything else).
pub fn virt_to_phys(va: u64) -> u64 {
    if va >= KERNEL_BASE {
        va - KERNEL_BASE + kernel_load_address()
    } else {
        va - PHYS_OFFSET
    }
}

/// The physical address of the boot page table, the kernel's own root.
pub fn kernel_root() -> u64 {
    virt_to_phys(core::ptr::addr_of!(boot_page_table) as u64)
}

/// Makes a fresh, zeroed root usable for a program: the kernel half is
/// copied from the kernel root (the same gigapage entries everywhere).
pub fn init_user_root(root: u64) {
    let kernel = phys_to_virt(kernel_root()) as *const u64;
    let user = phys_to_virt(root) as *mut u64;
    for i in KERNEL_ROOT_ENTRIES {
        // SAFETY: both are 512-entry page-table frames reached through the
        // linear map; the new root is not yet in use by any hart.
        unsafe { core::ptr::write_volatile(user.add(i), core::ptr::read_volatile(kernel.add(i))) };
    }
}

/// No ASIDs are used on riscv64 (satp's ASID stays 0): every switch of
/// address space flushes.
pub fn asid_bits() -> u32 {
    0
}

/// Installs `root` (a root made by [`init_user_root`]) and flushes this
/// hart's TLB (`asid` is 0, `flush` true: no ASIDs here).
pub fn activate_user_root(root: u64, _asid: u64, _flush: bool) {
    csr::set_page_table(root);
}

/// No broadcast TLB maintenance on RISC-V: false, the caller flushes this
/// hart and smp.rs shoots the others down with IPIs.
pub fn flush_user_range_all_cpus(_start: u64, _end: u64) -> bool {
    false
}

/// Flushes this hart's TLB entry for the page at `va`.
pub fn flush_tlb_page(va: u64) {
    csr::flush_tlb_page(va);
}

/// Flushes this hart's whole TLB.
pub fn flush_tlb_all() {
    csr::flush_tlb_all();
}

/// Flushes every hart's TLB if the hardware can broadcast it; false here:
/// RISC-V has no broadcast TLB maintenance, so smp.rs IPIs each hart
/// (SBI's remote fence would be an IPI in firmware too).
pub fn flush_tlb_all_cpus() -> bool {
    false
}

/// Makes what the kernel wrote into the frame at `pa` visible to
/// instruction fetch before it is mapped executable. Nothing here: QEMU
/// keeps instruction fetch coherent, and gometal's riscv64 port has never
/// issued `fence.i` (hardware with an incoherent I-cache would need it on
/// every hart that runs the program).
pub fn sync_icache(_pa: u64) {}

/// The kernel's linear map gets the memory type of what it maps: nothing
/// to do here, where the platform's PMAs decide by physical address (no
/// Svpbmt on QEMU 7.2).
pub fn set_linear_map_memory(_ram: &[(u64, u64)]) {}

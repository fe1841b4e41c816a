//! The MMU on aarch64: two roots, TTBR1_EL1 for the kernel half (the linear
//! map of physical memory and the kernel's own window, built by entry.S
//! and never changed) and TTBR0_EL1 for the program, so a user root holds
//! user mappings only. A shootdown uses the inner-shareable TLBI form,
//! which the hardware broadcasts to every CPU; the per-CPU flushes the
//! local ones.

use super::sysreg::{read_sysreg, write_sysreg};

pub use gometal_core::arch::aarch64::pte::Aarch64 as PageFormat;
pub use gometal_core::arch::aarch64::USER_END;

/// Where physical address 0 appears in the kernel's address space: the
/// bottom of TTBR1's 39-bit half (entry.S maps 510 GiB of it).
pub const PHYS_OFFSET: u64 = 0xffff_ff80_0000_0000;

/// The end of the physical addresses the linear map reaches (entry.S maps 510 GiB (LINEAR_MAP_GIB)):
/// a device register above it (a BAR the firmware placed high) is out of reach.
pub const LINEAR_MAP_END: u64 = (LINEAR_MAP_GIB as u64) << 30;

/// The one root entry entry.S leaves free (after the linear map's 510 and
/// the kernel window): `map_high_device` puts one GiB of device registers
/// there, at HIGH_DEVICE_VA.
const HIGH_DEVICE_ROOT: usize = 511;
const HIGH_DEVICE_VA: u64 = 0xffff_ffff_c000_0000;

/// The GiB of physical addresses `map_high_device` mapped (its base + 1,
/// so that 0 means none).
static HIGH_DEVICE_GIB: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);

/// The kernel-virtual address of device registers at `pa`: through the
/// linear map, or through the high device window when `map_high_device`
/// mapped the GiB holding `pa`.
pub fn device_virt(pa: u64) -> Option<u64> {
    if pa < LINEAR_MAP_END {
        return Some(phys_to_virt(pa));
    }
    let base = HIGH_DEVICE_GIB.load(core::sync::atomic::Ordering::Acquire).checked_sub(1)?;
    (pa & !(GIB - 1) == base).then(|| HIGH_DEVICE_VA + (pa - base))
}

/// Maps the GiB holding `pa` as device memory in the high device window
/// (a BAR UEFI placed in PCIe's 64-bit window, at 512 GiB on QEMU's virt,
/// above the linear map). One GiB only: false when the window already
/// holds another. Boot only, before other CPUs run.
pub fn map_high_device(pa: u64) -> bool {
    let base = pa & !(GIB - 1);
    if device_virt(pa).is_some() {
        return true;
    }
    // 48 bits of physical address at most (the block descriptor's field).
    if base >> 48 != 0 || HIGH_DEVICE_GIB.load(core::sync::atomic::Ordering::Acquire) != 0 {
        return false;
    }
    // SAFETY: the root entry is unused (entry.S maps 0..=510 only); an
    // invalid entry is never cached in a TLB, so writing it and making the
    // write visible to the table walker (dsb, isb) is enough.
    unsafe {
        let root = core::ptr::addr_of_mut!(boot_page_table) as *mut u64;
        core::ptr::write_volatile(root.add(HIGH_DEVICE_ROOT), base | BLOCK_DEVICE);
        core::arch::asm!("dsb ishst", "isb", options(nostack));
    }
    HIGH_DEVICE_GIB.store(base + 1, core::sync::atomic::Ordering::Release);
    true
}

/// Where the kernel image is linked (kernel.ld): its own window, apart
/// from the linear map, wherever the loader put it in physical memory.
pub const KERNEL_BASE: u64 = 0xffff_ffff_8000_0000;

extern "C" {
    static kernel_phys_base: u64;
    static mut boot_page_table: [u64; 512];
}

/// The linear map's GiBs (entry.S's LINEAR_MAP_GIB) and its 1 GiB block
/// descriptors (entry.S's BLOCK_NORMAL and BLOCK_DEVICE): valid, AF;
/// Normal write-back inner shareable, not executable at EL0; or
/// Device-nGnRE, never executable.
const LINEAR_MAP_GIB: usize = 510;
const GIB: u64 = 1 << 30;
const BLOCK_NORMAL: u64 = 0x0040_0000_0000_0701;
const BLOCK_DEVICE: u64 = 0x0060_0000_0000_0405;

/// The physical address the loader put the image at (entry.S stores it
/// before the MMU is on; it never changes after).
pub fn kernel_load_address() -> u64 {
    // SAFETY: written once by entry.S on the boot CPU before any Rust
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

/// Gives each GiB of the kernel's linear map the memory type of what it
/// holds, now that the memory map is known (entry.S guessed from QEMU
/// virt's layout: devices below the kernel's GiB and from 256 GiB up):
/// Normal where the GiB holds RAM, Device-nGnRE elsewhere, so device
/// registers are never read speculatively or merged, and RAM a UEFI
/// firmware put below the kernel is cached. A GiB only partly RAM is
/// Normal (the rest may be empty, as QEMU virt's beyond a small RAM, or
/// a device's registers on some boards, which would need 2 MiB blocks).
/// Called on the boot CPU before the others start: a changed block goes
/// through break-before-make.
pub fn set_linear_map_memory(ram: &[(u64, u64)]) {
    use gometal_core::mm::pagetable::Memory;
    // SAFETY: entry.S's root table in the kernel image; only the boot CPU
    // runs, and it touches none of the linear map's GiBs while one is
    // invalid: its code, stack and `ram` (the early heap) are in the
    // kernel's window, entry 510.
    let root = unsafe { &mut *core::ptr::addr_of_mut!(boot_page_table) };
    for (i, entry) in root.iter_mut().enumerate().take(LINEAR_MAP_GIB) {
        let pa = i as u64 * GIB;
        let block = match Memory::of_range(pa, pa + GIB, ram) {
            Some(Memory::Device) => BLOCK_DEVICE,
            Some(Memory::Ram) | None => BLOCK_NORMAL,
        };
        let new = pa | block;
        // SAFETY: the entry is a 1 GiB block nobody is using (see above);
        // invalidate, flush every CPU's copy, then write the new one.
        unsafe {
            if core::ptr::read_volatile(entry) != new {
                core::ptr::write_volatile(entry, 0);
                let va = phys_to_virt(pa);
                core::arch::asm!("dsb ishst", "tlbi vaae1is, {}", "dsb ish", in(reg) (va >> 12) & ((1 << 44) - 1), options(nostack));
                core::ptr::write_volatile(entry, new);
                core::arch::asm!("dsb ishst", "isb", options(nostack));
            }
        }
    }
}

/// Nothing to copy: the kernel half lives in TTBR1, not in user roots.
pub fn init_user_root(_root: u64) {}

/// ID_AA64MMFR0_EL1.ASIDBits: 0b0010 for 16 bits, else 8.
fn has_16_bit_asids() -> bool {
    (read_sysreg!("id_aa64mmfr0_el1") >> 4) & 0xf == 2
}

/// How many ASID bits TTBR0 carries (mm/asid.rs allocates them).
pub fn asid_bits() -> u32 {
    if has_16_bit_asids() {
        16
    } else {
        8
    }
}

/// Per-CPU: use 16-bit ASIDs where the CPU has them (TCR_EL1.AS; A1 stays
/// 0: the ASID is TTBR0's). Runs before this CPU enters user mode.
pub fn init_asids() {
    if has_16_bit_asids() {
        let tcr = read_sysreg!("tcr_el1");
        // The TLB may cache TCR's ASID size: flush after changing it. TTBR0
        // holds ASID 0 (the boot tables), the kernel's entries are global.
        write_sysreg!("tcr_el1", tcr | 1 << 36);
        flush_tlb_all();
    }
}

/// Installs `root` in TTBR0_EL1 with `asid` (nG user entries are tagged
/// with it, so another address space's stay in the TLB unharmed); flushes
/// this CPU's TLB first when the ASIDs rolled over (`flush`).
pub fn activate_user_root(root: u64, asid: u64, flush: bool) {
    if flush {
        flush_tlb_all();
    }
    // SAFETY: the dsb makes the root's entries visible to the walker
    // first; the kernel's own mappings are in TTBR1 and unaffected.
    unsafe { core::arch::asm!("dsb ishst", options(nostack)) };
    write_sysreg!("ttbr0_el1", root | asid << 48);
}

/// Flushes this CPU's entry for the page at `va` (TLBI VAAE1, any ASID);
/// other CPUs are the shootdown's business, as on every architecture.
pub fn flush_tlb_page(va: u64) {
    // SAFETY: TLB maintenance only; the barriers order it after the
    // page-table write and before the next access.
    unsafe { core::arch::asm!("dsb ishst", "tlbi vaae1, {}", "dsb nsh", "isb", in(reg) (va >> 12) & ((1 << 44) - 1), options(nostack)) };
}

/// Flushes this CPU's whole TLB.
pub fn flush_tlb_all() {
    // SAFETY: TLB maintenance only.
    unsafe { core::arch::asm!("dsb nshst", "tlbi vmalle1", "dsb nsh", "isb", options(nostack)) };
}

/// Beyond this many pages one broadcast by ASID beats one per page.
const BROADCAST_PAGES: u64 = 64;

/// Flushes the user translations of [start, end) from every CPU's TLB
/// with broadcast TLBIs, completed (DSB ISH) before it returns: true, so
/// mm frees the frames with no shootdown. Per page (`TLBI VAAE1IS`, any
/// ASID) for small ranges, else everything of this address space's ASID
/// (TTBR0's: the caller runs on the program's behalf).
pub fn flush_user_range_all_cpus(start: u64, end: u64) -> bool {
    let pages = end.saturating_sub(start).div_ceil(4096);
    let asid = read_sysreg!("ttbr0_el1") >> 48;
    // SAFETY: TLB maintenance only; the first barrier orders it after the
    // page-table writes, the last waits until every CPU has done it.
    unsafe {
        core::arch::asm!("dsb ishst", options(nostack));
        if pages > BROADCAST_PAGES {
            core::arch::asm!("tlbi aside1is, {}", in(reg) asid << 48, options(nostack));
        } else {
            let mut va = start & !0xfff;
            while va < end {
                core::arch::asm!("tlbi vaae1is, {}", in(reg) (va >> 12) & ((1 << 44) - 1), options(nostack));
                va += 4096;
            }
        }
        core::arch::asm!("dsb ish", "isb", options(nostack));
    }
    true
}

/// Flushes every CPU's TLB with one broadcast TLBI: true, smp.rs need not
/// send IPIs.
pub fn flush_tlb_all_cpus() -> bool {
    // SAFETY: TLB maintenance only.
    unsafe { core::arch::asm!("dsb ishst", "tlbi vmalle1is", "dsb ish", "isb", options(nostack)) };
    true
}

/// Makes what the kernel wrote into the frame at `pa` (a program's code,
/// the vDSO) visible to instruction fetch before it is mapped executable:
/// clean the data cache to the point of unification, invalidate the
/// instruction cache, as Linux's `__sync_icache_dcache` — each step skipped
/// when CTR_EL0 says the CPU needs none (IDC, DIC). Both maintenance
/// operations by address are broadcast to every CPU.
pub fn sync_icache(pa: u64) {
    const PAGE: u64 = 4096;
    let ctr = read_sysreg!("ctr_el0");
    let va = phys_to_virt(pa);
    if ctr & (1 << 28) == 0 {
        let line = 4u64 << ((ctr >> 16) & 0xf); // DminLine, in words
        let mut a = va;
        while a < va + PAGE {
            // SAFETY: cache maintenance of the linear map's page; no data changes.
            unsafe { core::arch::asm!("dc cvau, {}", in(reg) a, options(nostack)) };
            a += line;
        }
    }
    // SAFETY: a barrier.
    unsafe { core::arch::asm!("dsb ish", options(nostack)) };
    if ctr & (1 << 29) == 0 {
        let line = 4u64 << (ctr & 0xf); // IminLine, in words
        let mut a = va;
        while a < va + PAGE {
            // SAFETY: invalidates instruction-cache lines only.
            unsafe { core::arch::asm!("ic ivau, {}", in(reg) a, options(nostack)) };
            a += line;
        }
        // SAFETY: barriers.
        unsafe { core::arch::asm!("dsb ish", "isb", options(nostack)) };
    }
}

//! The AArch64 stage-1 translation descriptors with a 4 KiB granule and a
//! 39-bit address space (T0SZ = T1SZ = 25): three levels (Arm's levels 1,
//! 2, 3 are the walker's 2, 1, 0). Bits 1:0 say what an entry is: 0b11 a
//! table (or, at the last level, a page), 0b01 a block. A leaf carries its
//! memory type (AttrIndx into MAIR_EL1), shareability, the access flag
//! (always set, so no access-flag fault ever happens), nG (user pages are
//! per address space), AP[2:1] (EL0 access, read-only) and the
//! execute-never bits UXN and PXN.

use crate::mm::pagetable::{Memory, PteFormat, Rights};

/// One past the highest user address (TTBR0 root entries 0..256).
pub const USER_END: u64 = 0x40_0000_0000;

pub const VALID: u64 = 1 << 0;
/// With VALID: a table (levels above the last) or a page (the last level).
pub const TABLE_OR_PAGE: u64 = 1 << 1;
/// AttrIndx 0: Normal memory, write-back (MAIR_EL1 attribute 0 = 0xff).
pub const ATTR_NORMAL: u64 = 0 << 2;
/// AttrIndx 1: Device-nGnRE (MAIR_EL1 attribute 1 = 0x04).
pub const ATTR_DEVICE: u64 = 1 << 2;
/// The AttrIndx field.
pub const ATTR_MASK: u64 = 7 << 2;
/// AP[1]: EL0 may access.
pub const AP_EL0: u64 = 1 << 6;
/// AP[2]: read-only (at every level that may access).
pub const AP_RO: u64 = 1 << 7;
/// Inner shareable.
pub const SH_INNER: u64 = 3 << 8;
/// Access flag.
pub const AF: u64 = 1 << 10;
/// Not global: tagged with the ASID.
pub const NG: u64 = 1 << 11;
pub const PXN: u64 = 1 << 53;
pub const UXN: u64 = 1 << 54;

const ADDR_MASK: u64 = 0x0000_ffff_ffff_f000;

/// The format.
pub struct Aarch64;

impl PteFormat for Aarch64 {
    const LEVELS: usize = 3;
    const USER_ROOT_ENTRIES: usize = 256;

    fn table(pa: u64) -> u64 {
        (pa & ADDR_MASK) | TABLE_OR_PAGE | VALID
    }

    fn page(pa: u64, r: Rights, memory: Memory) -> u64 {
        let user = r.user && (r.read || r.write || r.exec);
        // Device registers: Device-nGnRE (no gathering, no reordering, no
        // speculative reads) and never executable, as Linux's UIO and
        // ioremap mappings; RAM: Normal write-back, inner shareable.
        let (attr, r) = match memory {
            Memory::Ram => (ATTR_NORMAL | SH_INNER, r),
            Memory::Device => (ATTR_DEVICE, Rights { exec: false, ..r }),
        };
        let mut e = (pa & ADDR_MASK) | TABLE_OR_PAGE | VALID | attr | AF | PXN;
        if user {
            // EL0 readable whenever it has any right: AArch64 has no
            // execute-only or write-only pages for EL0 here.
            e |= AP_EL0 | NG;
            if !r.write {
                e |= AP_RO;
            }
            if !r.exec {
                e |= UXN;
            }
        } else {
            // PROT_NONE (or a kernel page): the frame stays mapped, EL0
            // cannot touch it, the kernel may only read it.
            e |= AP_RO | UXN | NG;
        }
        e
    }

    fn is_valid(pte: u64) -> bool {
        pte & VALID != 0
    }

    fn is_table(pte: u64, level: usize) -> bool {
        level > 0 && pte & (VALID | TABLE_OR_PAGE) == VALID | TABLE_OR_PAGE
    }

    fn address(pte: u64) -> u64 {
        pte & ADDR_MASK
    }

    fn memory(pte: u64) -> Memory {
        if pte & ATTR_MASK == ATTR_DEVICE {
            Memory::Device
        } else {
            Memory::Ram
        }
    }

    fn rights(pte: u64) -> Rights {
        let user = pte & AP_EL0 != 0;
        Rights { user, read: true, write: pte & AP_RO == 0, exec: user && pte & UXN == 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mm::pagetable::PteFormat;

    #[test]
    fn user_pages() {
        let rw = Aarch64::page(0x4012_3000, URW, Memory::Ram);
        assert_eq!(rw, 0x4012_3000 | 0b11 | SH_INNER | AF | NG | AP_EL0 | PXN | UXN);
        assert_eq!(Aarch64::rights(rw), Rights { user: true, read: true, write: true, exec: false });
        assert_eq!(Aarch64::address(rw), 0x4012_3000);
        let rx = Aarch64::page(0x5000, Rights { user: true, read: true, write: false, exec: true }, Memory::Ram);
        assert_eq!(rx & (AP_RO | AP_EL0 | UXN | PXN), AP_RO | AP_EL0 | PXN);
        assert_eq!(Aarch64::rights(rx), Rights { user: true, read: true, write: false, exec: true });
    }

    const URW: Rights = Rights { user: true, read: true, write: true, exec: false };

    #[test]
    fn device_pages() {
        let rwx = Rights { exec: true, ..URW };
        let dev = Aarch64::page(0x1000_0000, rwx, Memory::Device);
        assert_eq!(dev & ATTR_MASK, ATTR_DEVICE);
        assert_eq!(dev & SH_INNER, 0);
        assert_eq!(dev & (UXN | PXN), UXN | PXN, "device memory is never executable");
        assert_eq!(Aarch64::memory(dev), Memory::Device);
        assert_eq!(Aarch64::rights(dev), URW);
        let ram = Aarch64::page(0x4000_0000, URW, Memory::Ram);
        assert_eq!(ram & ATTR_MASK, ATTR_NORMAL);
        assert_eq!(Aarch64::memory(ram), Memory::Ram);
        // mprotect keeps the memory type (pagetable::set_rights).
        let none = Aarch64::page(0x1000_0000, Rights::NONE, Aarch64::memory(dev));
        assert_eq!(Aarch64::memory(none), Memory::Device);
    }

    #[test]
    fn prot_none_keeps_the_frame() {
        let none = Aarch64::page(0x6000, Rights { user: true, read: false, write: false, exec: false }, Memory::Ram);
        assert!(Aarch64::is_valid(none));
        assert_eq!(none & AP_EL0, 0);
        assert_eq!(Aarch64::address(none), 0x6000);
        assert!(!Aarch64::rights(none).user);
        assert!(!Aarch64::rights(none).write);
    }

    #[test]
    fn tables_and_blocks() {
        let t = Aarch64::table(0x8000_0000);
        assert!(Aarch64::is_table(t, 1) && Aarch64::is_table(t, 2));
        assert_eq!(Aarch64::address(t), 0x8000_0000);
        // A 1 GiB block of the kernel's linear map (entry.S) is a leaf.
        let block = 0x4000_0000 | VALID | AF | SH_INNER;
        assert!(Aarch64::is_valid(block) && !Aarch64::is_table(block, 2));
        assert!(!Aarch64::is_valid(0));
    }
}

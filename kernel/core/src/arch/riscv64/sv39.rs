//! The Sv39 page-table entry format (RISC-V privileged spec, 4.4): a
//! physical page number in bits 10..54 and the V R W X U G A D bits below
//! it. An entry with none of R/W/X points to the next table. The kernel
//! sets A and D on every leaf so no hardware ever has to (or faults
//! because it will not).

use crate::mm::pagetable::{Memory, PteFormat, Rights};

/// One past the highest user address: the lower half of Sv39 (root entries
/// 0..256). Root entries 256..512 hold the kernel mappings every table shares.
pub const USER_END: u64 = 0x40_0000_0000;

pub const V: u64 = 1 << 0;
pub const R: u64 = 1 << 1;
pub const W: u64 = 1 << 2;
pub const X: u64 = 1 << 3;
pub const U: u64 = 1 << 4;
pub const G: u64 = 1 << 5;
pub const A: u64 = 1 << 6;
pub const D: u64 = 1 << 7;

const PPN_MASK: u64 = (1 << 44) - 1;

/// The Sv39 format.
pub struct Sv39;

/// A raw entry for `pa` with `flags` (the low 8 bits).
pub const fn entry(pa: u64, flags: u64) -> u64 {
    ((pa >> 12) & PPN_MASK) << 10 | (flags & 0xff)
}

impl PteFormat for Sv39 {
    const LEVELS: usize = 3;
    const USER_ROOT_ENTRIES: usize = 256;

    fn table(pa: u64) -> u64 {
        // Non-leaf entries carry only V: U/A/D are reserved there.
        entry(pa, V)
    }

    fn page(pa: u64, r: Rights, _memory: Memory) -> u64 {
        // Without Svpbmt (QEMU 7.2) the platform's PMAs decide whether a
        // physical address is cacheable: a device's is not, whatever the entry says.
        // A user page with no rights at all is PROT_NONE too.
        let r = if r.user && !(r.read || r.write || r.exec) { Rights::NONE } else { r };
        let mut flags = V | A | D;
        if r.user {
            flags |= U;
        }
        // RISC-V has no write-only pages (W without R is reserved), and a
        // leaf needs one of R/W/X: a page with no user rights stays
        // readable by nobody but the kernel's page walk, which never uses it.
        if r.read || r.write || !r.user {
            flags |= R;
        }
        if r.write {
            flags |= W;
        }
        if r.exec {
            flags |= X;
        }
        entry(pa, flags)
    }

    fn is_valid(pte: u64) -> bool {
        pte & V != 0
    }

    fn is_table(pte: u64, _level: usize) -> bool {
        pte & V != 0 && pte & (R | W | X) == 0
    }

    fn address(pte: u64) -> u64 {
        ((pte >> 10) & PPN_MASK) << 12
    }

    fn memory(_pte: u64) -> Memory {
        Memory::Ram
    }

    fn rights(pte: u64) -> Rights {
        Rights { user: pte & U != 0, read: pte & R != 0, write: pte & W != 0, exec: pte & X != 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields() {
        let p = entry(0x8012_3000, R | W | V);
        assert!(Sv39::is_valid(p) && !Sv39::is_table(p, 1));
        assert_eq!(Sv39::address(p), 0x8012_3000);
        let r = Sv39::rights(p);
        assert!(r.read && r.write && !r.exec && !r.user);
        assert!(Sv39::is_table(Sv39::table(0x1000), 2));
        assert_eq!(Sv39::table(0x1000), entry(0x1000, V));
    }

    #[test]
    fn pages_get_a_d_and_writable_implies_readable() {
        let p = Sv39::page(0x9000_0000, Rights { user: true, read: false, write: true, exec: false }, Memory::Ram);
        assert_eq!(p & 0xff, V | R | W | U | A | D);
        // PROT_NONE: kernel-only and readable, so the leaf stays a leaf.
        let none = Sv39::page(0x9000_0000, Rights::NONE, Memory::Ram);
        assert_eq!(none & 0xff, V | R | A | D);
        assert!(!Sv39::rights(none).user);
        let x = Sv39::page(0x9000_0000, Rights { user: true, read: false, write: false, exec: true }, Memory::Ram);
        assert_eq!(x & 0xff, V | X | U | A | D);
    }
}

//! mmap of /dev/uioN: offset M·pagesize selects map M, as in Linux's
//! uio_mmap, with its errors: an offset that is not a page multiple, a map
//! that does not exist, or a length beyond the map is EINVAL; the sysfs
//! files cannot be mapped (ENODEV).
//!
//! "Uncached": RISC-V decides cacheability by physical address (the
//! platform's PMAs), not by page-table bits unless Svpbmt is used; QEMU
//! virt's MMIO ranges are I/O regions, so register maps are uncached
//! whatever the PTE says, and the DMA region is ordinary RAM, coherent with
//! devices on this platform (the host bridge node says `dma-coherent`).

use super::{UioFile, UioNode};
use crate::memlayout::PAGE_SIZE;
use crate::mm::addrspace::AddressSpace;
use gometal_core::linux::errno::{Errno, EINVAL, ENODEV, ENOMEM};
use gometal_core::mm::vma::Prot;

const PAGE: u64 = PAGE_SIZE as u64;

/// Maps `len` bytes of the map that `offset` selects; returns the address.
pub fn mmap(mm: &mut AddressSpace, f: &UioFile, hint: u64, len: u64, prot: Prot, fixed: bool, offset: u64) -> Result<u64, Errno> {
    if f.node != UioNode::Dev {
        return Err(ENODEV);
    }
    if !offset.is_multiple_of(PAGE) {
        return Err(EINVAL);
    }
    let map = usize::try_from(offset / PAGE).ok().and_then(|i| f.dev.maps.get(i)).ok_or(EINVAL)?;
    let len = len.checked_add(PAGE - 1).ok_or(ENOMEM)? & !(PAGE - 1);
    let map_pages = (map.pa % PAGE + map.size).div_ceil(PAGE);
    if len / PAGE > map_pages {
        return Err(EINVAL);
    }
    if fixed && (!hint.is_multiple_of(PAGE) || hint.checked_add(len).is_none_or(|e| e > crate::memlayout::USER_END)) {
        return Err(EINVAL);
    }
    let hint = if hint.is_multiple_of(PAGE) && hint.checked_add(len).is_some_and(|e| e <= crate::memlayout::USER_END) { hint } else { 0 };
    mm.map_device(hint, len, prot, fixed, map.pa & !(PAGE - 1)).ok_or(ENOMEM)
}

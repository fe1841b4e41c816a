//! mmap, munmap, mprotect, madvise, brk: the program's address space.
//! Anonymous mappings only; every page is demand-zero (mm/addrspace.rs).
//! Every change runs through `with_mm`, which shoots down other harts' TLB
//! entries (after releasing the lock) before unmapped frames are reused.

use super::{Args, SysResult};
use crate::memlayout::{PAGE_SIZE, USER_END};
use crate::mm::addrspace::AddressSpace;
use crate::mm::tlb;
use crate::param::MAX_MAP_COUNT;
use crate::process::process;
use gometal_core::errno::{EEXIST, EINVAL, ENODEV, ENOMEM};
use gometal_core::vma::Prot;

const MAP_SHARED: u64 = 0x01;
const MAP_PRIVATE: u64 = 0x02;
const MAP_FIXED: u64 = 0x10;
const MAP_ANONYMOUS: u64 = 0x20;
const MAP_FIXED_NOREPLACE: u64 = 0x100000;

const MADV_DONTNEED: u64 = 4;
const MADV_FREE: u64 = 8;

const PAGE: u64 = PAGE_SIZE as u64;

/// Runs `f` on the address space, then makes every hart forget what `f`
/// unmapped or weakened, then frees the frames it unmapped.
fn with_mm<R>(f: impl FnOnce(&mut AddressSpace) -> R) -> R {
    let mut mm = process().mm.lock();
    let result = f(&mut mm);
    let retired = mm.take_retired();
    drop(mm);
    if let Some(r) = retired {
        tlb::shootdown_and_free(r);
    }
    result
}

/// Checks [addr, addr+len) is page aligned and inside the user half;
/// returns the length rounded up to pages.
fn user_range(addr: u64, len: u64) -> Result<u64, isize> {
    let len = len.checked_add(PAGE - 1).ok_or(ENOMEM)? & !(PAGE - 1);
    if !addr.is_multiple_of(PAGE) || len == 0 {
        return Err(EINVAL);
    }
    match addr.checked_add(len) {
        Some(end) if end <= USER_END => Ok(len),
        _ => Err(ENOMEM),
    }
}

/// Splitting an area adds one: refuse it at the limit, as Linux does.
fn room_to_split(mm: &AddressSpace) -> Result<(), isize> {
    if mm.vmas.len() >= MAX_MAP_COUNT {
        return Err(ENOMEM);
    }
    Ok(())
}

pub fn mmap(a: &Args) -> SysResult {
    let (addr, len, prot, flags) = (a[0], a[1], a[2], a[3]);
    if flags & MAP_ANONYMOUS == 0 {
        return Err(ENODEV); // no file-backed mappings
    }
    if flags & (MAP_SHARED | MAP_PRIVATE) == 0 || len == 0 {
        return Err(EINVAL);
    }
    let prot = Prot::from_linux(prot as usize);
    with_mm(|mm| {
        room_to_split(mm)?;
        if flags & (MAP_FIXED | MAP_FIXED_NOREPLACE) != 0 {
            let len = user_range(addr, len)?;
            if flags & MAP_FIXED_NOREPLACE != 0 && mm.vmas.find_free(len, addr) != Some(addr) {
                return Err(EEXIST);
            }
            mm.map(addr, len, prot, true);
            return Ok(addr as isize);
        }
        // A hint outside the user half (Go's arena hints above Sv39's
        // 256 GiB) is ignored, as Linux ignores a hint it cannot honour.
        let usable = addr % PAGE == 0 && addr.checked_add(len).is_some_and(|e| e <= USER_END);
        let hint = if usable { addr } else { 0 };
        mm.map(hint, len, prot, false).map(|a| a as isize).ok_or(ENOMEM)
    })
}

pub fn munmap(a: &Args) -> SysResult {
    // Linux answers EINVAL (not ENOMEM) for ranges outside the user half.
    let len = user_range(a[0], a[1]).map_err(|_| EINVAL)?;
    with_mm(|mm| {
        room_to_split(mm)?;
        mm.unmap(a[0], len);
        Ok(0)
    })
}

pub fn mprotect(a: &Args) -> SysResult {
    let len = user_range(a[0], a[1])?;
    let prot = Prot::from_linux(a[2] as usize);
    with_mm(|mm| {
        room_to_split(mm)?;
        mm.protect(a[0], len, prot).map_err(|_| ENOMEM)?;
        Ok(0)
    })
}

pub fn madvise(a: &Args) -> SysResult {
    let (addr, advice) = (a[0], a[2]);
    if a[1] == 0 {
        return Ok(0);
    }
    let len = user_range(addr, a[1])?;
    match advice {
        // Go's scavenger returns memory with these; the pages must read back
        // as zero afterwards, which discarding the frames guarantees.
        MADV_DONTNEED | MADV_FREE => with_mm(|mm| {
            mm.discard(addr, addr + len);
            Ok(0)
        }),
        _ => Ok(0), // hints (NOHUGEPAGE, HUGEPAGE, ...) need nothing
    }
}

/// The program break, for C programs (glibc's static startup puts its TLS
/// block there). Go never calls it. The heap grows up from the end of the
/// ELF image, at most BRK_MAX bytes.
pub fn brk(a: &Args) -> SysResult {
    const BRK_MAX: u64 = 1 << 30;
    with_mm(|mm| {
        let (start, cur) = (mm.brk_start, mm.brk);
        let want = a[0];
        if want < start || want > start + BRK_MAX {
            return Ok(cur as isize);
        }
        let old_end = cur.div_ceil(PAGE) * PAGE;
        let new_end = want.div_ceil(PAGE) * PAGE;
        if new_end > old_end {
            if mm.vmas.find_free(new_end - old_end, old_end) != Some(old_end) {
                return Ok(cur as isize); // something is mapped in the way
            }
            mm.map(old_end, new_end - old_end, Prot::RW, true);
        } else if new_end < old_end {
            mm.unmap(new_end, old_end - new_end);
        }
        mm.brk = want;
        Ok(want as isize)
    })
}

//! mmap, munmap, mremap, mprotect, madvise, brk: the program's address space.
//! Every page is demand-paged (mm/addrspace.rs): zero for anonymous memory,
//! the file's bytes for file mappings (linux/mmapfile.rs, fs/filemap.rs).
//! Every change runs through `with_mm`, which shoots down other CPUs' TLB
//! entries (after releasing the lock) before unmapped frames are reused.

use super::args::MapFlags;
use super::SysResult;
use crate::memlayout::{PAGE_SIZE, USER_END};
use crate::mm::addrspace::AddressSpace;
use crate::mm::uaccess::UserSpace;
use crate::mm::tlb;
use crate::param::MAX_MAP_COUNT;
use crate::fs::fd::Fd;
use crate::fs::file::{DeviceMemory, Mapping};
use gometal_core::linux::errno::{Errno, EACCES, EEXIST, EFAULT, EINVAL, ENOMEM};
use gometal_core::mm::vma::{Backing, Prot};

const MADV_DONTNEED: u32 = 4;
const MADV_FREE: u32 = 8;

const PAGE: u64 = PAGE_SIZE as u64;

/// Runs `f` on the address space, then makes every CPU forget what `f`
/// unmapped or weakened, then frees the frames it unmapped.
fn with_mm<R>(user: &mut UserSpace, f: impl FnOnce(&mut AddressSpace) -> R) -> R {
    let mut mm = user.lock();
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
fn user_range(addr: u64, len: u64) -> Result<u64, Errno> {
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
fn room_to_split(mm: &AddressSpace) -> Result<(), Errno> {
    if mm.vmas.len() >= MAX_MAP_COUNT {
        return Err(ENOMEM);
    }
    Ok(())
}

/// mmap(addr, len, prot, flags, fd, offset): `fd` and `offset` only for a
/// file mapping (no MAP_ANONYMOUS); /dev/uioN maps device memory
/// (uio/mmap.rs).
pub fn mmap(user: &mut UserSpace, addr: u64, len: u64, prot: u32, flags: MapFlags, fd: Fd, offset: u64) -> SysResult {
    if !flags.intersects(MapFlags::SHARED | MapFlags::PRIVATE) || len == 0 {
        return Err(EINVAL);
    }
    if !flags.contains(MapFlags::ANONYMOUS) {
        if let Ok(file) = crate::fs::fd::file(fd) {
            if let Some(Mapping::Device(memory)) = file.mapping() {
                return map_device(user, addr, len, Prot::from_linux(prot as usize), flags, &file, memory, offset);
            }
        }
    }
    let (backing, file) = match flags.contains(MapFlags::ANONYMOUS) {
        true => (Backing::Anonymous, None),
        false => super::mmapfile::backing(fd, offset, prot, flags).map(|(b, f)| (b, Some(f)))?,
    };
    let prot = Prot::from_linux(prot as usize);
    with_mm(user, |mm| {
        room_to_split(mm)?;
        if let Some(node) = file {
            mm.mapped_files.entry(node.ino).or_insert(node as alloc::sync::Arc<dyn crate::mm::pager::Pager>);
        }
        if flags.intersects(MapFlags::FIXED | MapFlags::FIXED_NOREPLACE) {
            let len = user_range(addr, len)?;
            if flags.contains(MapFlags::FIXED_NOREPLACE) && mm.vmas.find_free(len, addr) != Some(addr) {
                return Err(EEXIST);
            }
            mm.map_backed(addr, len, prot, true, backing);
            return Ok(addr as usize);
        }
        // A hint outside the user half (Go's arena hints above Sv39's
        // 256 GiB) is ignored, as Linux ignores a hint it cannot honour.
        let usable = addr.is_multiple_of(PAGE) && addr.checked_add(len).is_some_and(|e| e <= USER_END);
        let hint = if usable { addr } else { 0 };
        mm.map_backed(hint, len, prot, false, backing).map(|a| a as usize).ok_or(ENOMEM)
    })
}

/// mmap of a file that maps memory of its own (/dev/uioN: one of the
/// device's maps, uio/mmap.rs).
#[allow(clippy::too_many_arguments)] // mmap's own six, and what they name
fn map_device(user: &mut UserSpace, addr: u64, len: u64, prot: Prot, flags: MapFlags, file: &crate::fs::fd::OpenFile, memory: &dyn DeviceMemory, offset: u64) -> SysResult {
    if flags.contains(MapFlags::SHARED) && prot.write && !file.writable() {
        return Err(EACCES);
    }
    let fixed = flags.intersects(MapFlags::FIXED | MapFlags::FIXED_NOREPLACE);
    with_mm(user, |mm| {
        room_to_split(mm)?;
        memory.map(mm, addr, len, prot, fixed, offset).map(|a| a as usize)
    })
}

pub fn munmap(user: &mut UserSpace, addr: u64, len: u64) -> SysResult {
    // Linux answers EINVAL (not ENOMEM) for ranges outside the user half.
    let len = user_range(addr, len).map_err(|_| EINVAL)?;
    let mut files = alloc::vec::Vec::new();
    let r = with_mm(user, |mm| {
        room_to_split(mm)?;
        files = super::mmapfile::shared_host_files(mm, addr, addr.saturating_add(len));
        mm.unmap(addr, len);
        Ok(0)
    });
    // A share's file mapped shared: its pages go back to the host.
    for node in files {
        let _ = node.write_back();
    }
    r
}

const MREMAP_MAYMOVE: u32 = 1;
const MREMAP_FIXED: u32 = 2;
const MREMAP_DONTUNMAP: u32 = 4;

/// mremap(old, old_len, new_len, flags, new_addr): shrinks, grows in place
/// when the pages after it are free, else (MREMAP_MAYMOVE) moves the
/// mapping with its frames (mm/remap.rs), or to exactly new_addr
/// (MREMAP_FIXED). MREMAP_DONTUNMAP and old_len 0 (a second mapping of
/// shared memory) are EINVAL.
pub fn mremap(user: &mut UserSpace, old: u64, old_len: u64, new_len: u64, flags: u32, new_addr: u64) -> SysResult {
    use crate::mm::remap::{Dest, RemapError};
    if flags & !(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP) != 0 || flags & MREMAP_DONTUNMAP != 0 {
        return Err(EINVAL);
    }
    if flags & MREMAP_FIXED != 0 && flags & MREMAP_MAYMOVE == 0 {
        return Err(EINVAL);
    }
    if !old.is_multiple_of(PAGE) || old_len == 0 {
        return Err(EINVAL);
    }
    let old_len = user_range(old, old_len).map_err(|_| EINVAL)?;
    let new_len = new_len.checked_add(PAGE - 1).ok_or(EINVAL)? & !(PAGE - 1);
    if new_len == 0 {
        return Err(EINVAL);
    }
    let dest = if flags & MREMAP_FIXED != 0 {
        user_range(new_addr, new_len).map_err(|_| EINVAL)?;
        Dest::Fixed(new_addr)
    } else if flags & MREMAP_MAYMOVE != 0 {
        Dest::MayMove
    } else {
        Dest::InPlace
    };
    with_mm(user, |mm| {
        room_to_split(mm)?;
        mm.remap(old, old_len, new_len, dest).map(|a| a as usize).map_err(|e| match e {
            RemapError::NotMapped => EFAULT,
            RemapError::Device | RemapError::Overlap => EINVAL,
            RemapError::NoRoom => ENOMEM,
        })
    })
}

/// PROT_READ, WRITE, EXEC, SEM, GROWSDOWN, GROWSUP: anything else in
/// mprotect's `prot` is EINVAL, as on Linux.
const PROT_KNOWN: u32 = 0x7 | 0x8 | 0x0100_0000 | 0x0200_0000;

pub fn mprotect(user: &mut UserSpace, addr: u64, len: u64, prot: u32) -> SysResult {
    if prot & !PROT_KNOWN != 0 {
        return Err(EINVAL);
    }
    if len == 0 && addr.is_multiple_of(PAGE) {
        return Ok(0); // Linux: nothing to change
    }
    let len = user_range(addr, len)?;
    let prot = Prot::from_linux(prot as usize);
    let mut files = alloc::vec::Vec::new();
    let r = with_mm(user, |mm| {
        room_to_split(mm)?;
        mm.protect(addr, len, prot).map_err(|_| ENOMEM)?;
        if prot.write {
            files = super::mmapfile::shared_host_files(mm, addr, addr.saturating_add(len));
        }
        Ok(0)
    });
    // A share's file mapped shared is now writable: its pages get written back.
    for node in files {
        node.note_writable();
    }
    r
}

pub fn madvise(user: &mut UserSpace, addr: u64, len: u64, advice: u32) -> SysResult {
    if len == 0 {
        return Ok(0);
    }
    let len = user_range(addr, len)?;
    match advice {
        // Go's scavenger returns memory with these; the pages must read back
        // as zero afterwards, which discarding the frames guarantees.
        MADV_DONTNEED | MADV_FREE => with_mm(user, |mm| {
            mm.discard(addr, addr + len);
            Ok(0)
        }),
        _ => Ok(0), // hints (NOHUGEPAGE, HUGEPAGE, ...) need nothing
    }
}

/// The program break, for C programs (glibc's static startup puts its TLS
/// block there). Go never calls it. The heap grows up from the end of the
/// ELF image, at most BRK_MAX bytes.
pub fn brk(user: &mut UserSpace, want: u64) -> SysResult {
    const BRK_MAX: u64 = 1 << 30;
    with_mm(user, |mm| {
        let (start, cur) = (mm.brk_start, mm.brk);
        if want < start || want > start + BRK_MAX {
            return Ok(cur as usize);
        }
        let old_end = cur.div_ceil(PAGE) * PAGE;
        let new_end = want.div_ceil(PAGE) * PAGE;
        if new_end > old_end {
            if mm.vmas.find_free(new_end - old_end, old_end) != Some(old_end) {
                return Ok(cur as usize); // something is mapped in the way
            }
            mm.map(old_end, new_end - old_end, Prot::RW, true);
        } else if new_end < old_end {
            mm.unmap(new_end, old_end - new_end);
        }
        mm.brk = want;
        Ok(want as usize)
    })
}

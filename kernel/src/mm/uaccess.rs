//! Copies between the kernel and the program's memory. User pointers are
//! allegations: every access is checked against the address space's areas
//! and goes through `AddressSpace::page_for`, so a bad pointer yields EFAULT
//! (never a kernel fault) and a not-yet-touched page is faulted in.

use super::addrspace::{Access, AddressSpace, Fault};
use super::frames::frame_bytes;
use crate::memlayout::{PAGE_SIZE, USER_END};
use crate::process::process;
use alloc::vec::Vec;
use gometal_core::errno::{EFAULT, ENAMETOOLONG, ENOMEM};

pub type UResult<T> = Result<T, isize>;

fn errno(f: Fault) -> isize {
    match f {
        Fault::OutOfMemory => ENOMEM,
        _ => EFAULT,
    }
}

fn check_range(va: u64, len: usize) -> UResult<()> {
    match va.checked_add(len as u64) {
        Some(end) if end <= USER_END => Ok(()),
        _ => Err(EFAULT),
    }
}

/// Visits [va, va+len) page by page: `f(bytes_of_the_page_part, offset)`.
fn for_each_chunk(
    mm: &mut AddressSpace,
    va: u64,
    len: usize,
    access: Access,
    mut f: impl FnMut(&mut [u8], usize),
) -> UResult<()> {
    check_range(va, len)?;
    let mut done = 0;
    while done < len {
        let addr = va + done as u64;
        let off = (addr % PAGE_SIZE as u64) as usize;
        let n = (PAGE_SIZE - off).min(len - done);
        let pa = mm.page_for(addr, access).map_err(errno)?;
        f(&mut frame_bytes(pa)[off..off + n], done);
        done += n;
    }
    Ok(())
}

pub fn copy_in(mm: &mut AddressSpace, va: u64, buf: &mut [u8]) -> UResult<()> {
    let len = buf.len();
    for_each_chunk(mm, va, len, Access::Read, |page, at| {
        buf[at..at + page.len()].copy_from_slice(page)
    })
}

pub fn copy_out(mm: &mut AddressSpace, va: u64, data: &[u8]) -> UResult<()> {
    for_each_chunk(mm, va, data.len(), Access::Write, |page, at| {
        let n = page.len();
        page.copy_from_slice(&data[at..at + n])
    })
}

// Shorthands on the current program's address space.

pub fn read_bytes(va: u64, len: usize) -> UResult<Vec<u8>> {
    let mut buf = alloc::vec![0u8; len];
    copy_in(&mut process().mm.lock(), va, &mut buf)?;
    Ok(buf)
}

pub fn write_bytes(va: u64, data: &[u8]) -> UResult<()> {
    copy_out(&mut process().mm.lock(), va, data)
}

pub fn read_u64(va: u64) -> UResult<u64> {
    let mut b = [0u8; 8];
    copy_in(&mut process().mm.lock(), va, &mut b)?;
    Ok(u64::from_le_bytes(b))
}

pub fn write_u64(va: u64, v: u64) -> UResult<()> {
    write_bytes(va, &v.to_le_bytes())
}

pub fn write_u32(va: u64, v: u32) -> UResult<()> {
    write_bytes(va, &v.to_le_bytes())
}

pub fn write_i64_pair(va: u64, a: i64, b: i64) -> UResult<()> {
    let mut buf = [0u8; 16];
    buf[..8].copy_from_slice(&a.to_le_bytes());
    buf[8..].copy_from_slice(&b.to_le_bytes());
    write_bytes(va, &buf)
}

pub fn read_i64_pair(va: u64) -> UResult<(i64, i64)> {
    let b = read_bytes(va, 16)?;
    let a = i64::from_le_bytes(b[..8].try_into().unwrap());
    let c = i64::from_le_bytes(b[8..].try_into().unwrap());
    Ok((a, c))
}

/// A NUL-terminated string of at most `max` bytes (without the NUL).
pub fn read_cstr(va: u64, max: usize) -> UResult<Vec<u8>> {
    let mut mm = process().mm.lock();
    let mut out = Vec::new();
    let mut addr = va;
    loop {
        check_range(addr, 1)?;
        let pa = mm.page_for(addr, Access::Read).map_err(errno)?;
        let off = (addr % PAGE_SIZE as u64) as usize;
        for &b in &frame_bytes(pa)[off..] {
            if b == 0 {
                return Ok(out);
            }
            if out.len() == max {
                return Err(ENAMETOOLONG);
            }
            out.push(b);
        }
        addr += (PAGE_SIZE - off) as u64;
    }
}

/// The aligned u32 at user address `va`, for futex word accesses (made
/// atomically by the caller while it holds the futex lock). The mm lock is
/// released before the access: a concurrent munmap of the word only frees
/// the frame after every hart has flushed its TLB (smp::shootdown), and
/// this hart acknowledges that only outside this system call, so the frame
/// cannot be reused under the access. A program racing munmap with its own
/// futex wait may read a stale value, as it could on Linux.
pub fn user_word(va: u64) -> UResult<&'static core::sync::atomic::AtomicU32> {
    if !va.is_multiple_of(4) {
        return Err(gometal_core::errno::EINVAL);
    }
    check_range(va, 4)?;
    let pa = process().mm.lock().page_for(va, Access::Read).map_err(errno)?;
    let kva = crate::memlayout::phys_to_virt(pa + va % PAGE_SIZE as u64);
    // SAFETY: kva is 4-byte aligned inside a frame owned by the program's
    // address space; user threads access it concurrently, which is exactly
    // what AtomicU32 is for.
    Ok(unsafe { &*(kva as *const core::sync::atomic::AtomicU32) })
}

//! mlock, mlock2, munlock, mlockall, munlockall. Memory is never swapped
//! or compressed here, so every page is as pinned as a locked page on
//! Linux: the calls check their arguments as Linux does (ENOMEM for a range
//! with an unmapped page, EINVAL for bad flags) and succeed. Pages are not
//! faulted in ahead of use (Linux populates a locked range).

use super::SysResult;
use crate::memlayout::{PAGE_SIZE, USER_END};
use crate::mm::uaccess::UserSpace;
use gometal_core::linux::errno::{Errno, EINVAL, ENOMEM};

const PAGE: u64 = PAGE_SIZE as u64;
const MLOCK_ONFAULT: u32 = 1;
const MCL_CURRENT: u32 = 1;
const MCL_FUTURE: u32 = 2;
const MCL_ONFAULT: u32 = 4;

/// [addr, addr+len) widened to pages must be wholly mapped.
fn check_mapped(user: &mut UserSpace, addr: u64, len: u64) -> Result<(), Errno> {
    let start = addr & !(PAGE - 1);
    let end = addr.checked_add(len).and_then(|e| e.checked_add(PAGE - 1)).ok_or(ENOMEM)? & !(PAGE - 1);
    if end > USER_END {
        return Err(ENOMEM);
    }
    let mm = user.lock();
    let mut at = start;
    while at < end {
        at = mm.vmas.find(at).ok_or(ENOMEM)?.end;
    }
    Ok(())
}

pub fn mlock(user: &mut UserSpace, addr: u64, len: u64) -> SysResult {
    check_mapped(user, addr, len)?;
    Ok(0)
}

pub fn mlock2(user: &mut UserSpace, addr: u64, len: u64, flags: u32) -> SysResult {
    if flags & !MLOCK_ONFAULT != 0 {
        return Err(EINVAL);
    }
    mlock(user, addr, len)
}

pub fn munlock(user: &mut UserSpace, addr: u64, len: u64) -> SysResult {
    check_mapped(user, addr, len)?;
    Ok(0)
}

pub fn mlockall(_: &mut UserSpace, flags: u32) -> SysResult {
    let known = MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT;
    // Linux: no flag, an unknown one, or ONFAULT alone is EINVAL.
    if flags == 0 || flags & !known != 0 || flags == MCL_ONFAULT {
        return Err(EINVAL);
    }
    Ok(0)
}

pub fn munlockall(_: &mut UserSpace) -> SysResult {
    Ok(0)
}

//! The program as a process among others: its scheduling priority
//! (getpriority, setpriority) and pidfds of itself (pidfd_open,
//! pidfd_send_signal). There is one process, pid 1; other pids are ESRCH.

use super::SysResult;
use crate::fs::fd::{self, Fd, OpenFile, O_NONBLOCK};
use crate::fs::pidfd::PidFd;
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::process::process;
use alloc::sync::Arc;
use core::sync::atomic::{AtomicI32, Ordering};
use gometal_core::linux::errno::{EINVAL, ESRCH};
use gometal_core::signal::sigframe::SigInfo;
use gometal_core::signal as sig;

const PRIO_PROCESS: i32 = 0;
const PRIO_PGRP: i32 = 1;
const PRIO_USER: i32 = 2;

/// The nice value, -20..=19: one for the whole program (Linux keeps one per
/// thread). It is reported, not acted on: the scheduler gives every thread
/// the same share.
static NICE: AtomicI32 = AtomicI32::new(0);

/// Whether `who` under `which` names this program (or one of its threads:
/// Linux's PRIO_PROCESS takes a tid).
fn names_us(which: i32, who: i32) -> Result<bool, gometal_core::linux::errno::Errno> {
    match which {
        PRIO_PROCESS => Ok(who == 0 || (who > 0 && process().thread(who as u32).is_some())),
        PRIO_PGRP => Ok(who == 0 || who == process().pid as i32),
        PRIO_USER => Ok(who == 0), // root's, and the program is root
        _ => Err(EINVAL),
    }
}

/// getpriority: the raw system call returns 20 - nice (1..=40), so that no
/// value looks like an error; the C library and Go's syscall undo it.
pub fn getpriority(_: &mut UserSpace, which: i32, who: i32) -> SysResult {
    if !names_us(which, who)? {
        return Err(ESRCH);
    }
    Ok((20 - NICE.load(Ordering::Relaxed)) as usize)
}

/// setpriority: any nice value (root may lower it), clamped to -20..=19.
pub fn setpriority(_: &mut UserSpace, which: i32, who: i32, nice: i32) -> SysResult {
    if !names_us(which, who)? {
        return Err(ESRCH);
    }
    NICE.store(nice.clamp(-20, 19), Ordering::Relaxed);
    Ok(0)
}

/// pidfd_open(pid, flags): a descriptor for the program itself; flags 0 or
/// PIDFD_NONBLOCK (O_NONBLOCK). It is close-on-exec, as Linux makes it.
pub fn pidfd_open(_: &mut UserSpace, pid: i32, flags: u32) -> SysResult {
    if flags & !O_NONBLOCK != 0 || pid <= 0 {
        return Err(EINVAL);
    }
    if pid as u32 != process().pid {
        return Err(ESRCH);
    }
    let file = OpenFile::new(Arc::new(PidFd::new(pid as u32)), flags & O_NONBLOCK);
    process().fs.files.lock().install(file, true, 0)
}

/// pidfd_send_signal(pidfd, sig, info, flags): as kill to the pidfd's
/// process; signal 0 checks it. A caller-made siginfo is not supported
/// (EINVAL), nor are flags.
pub fn pidfd_send_signal(_: &mut UserSpace, pidfd: Fd, signo: u64, info: UserPtr<u8>, flags: u32) -> SysResult {
    let file = fd::file(pidfd)?;
    let pf = file.downcast::<PidFd>().ok_or(EINVAL)?;
    if flags != 0 || info.non_null().is_some() || signo > sig::NSIG as u64 {
        return Err(EINVAL);
    }
    if pf.pid != process().pid {
        return Err(ESRCH);
    }
    if signo != 0 {
        let signo = signo as usize;
        let info = SigInfo { signo: signo as i32, code: sig::SI_USER, pid_or_addr: process().pid as u64, uid: 0, addr_is_fault: false, value: 0 };
        crate::signal::send_to_process(signo, info);
    }
    Ok(0)
}

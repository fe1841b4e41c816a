//! Signal system calls: actions, masks, alternate stacks and sending.
//! Delivery itself is in signal.rs.

use super::{Args, SysResult};
use crate::mm::uaccess;
use crate::process::process;
use crate::sched::current;
use crate::signal::{send_to_process, send_to_thread, AltStack};
use gometal_core::errno::{EINVAL, ENOMEM, EPERM, ESRCH};
use gometal_core::sigframe::SigInfo;
use gometal_core::signal::{self as sig, SigAction};

const SIGSET_SIZE: u64 = 8;
const MINSIGSTKSZ: u64 = 2048;

fn check_signal(signo: u64) -> Result<usize, isize> {
    if (1..=sig::NSIG as u64).contains(&signo) {
        Ok(signo as usize)
    } else {
        Err(EINVAL)
    }
}

pub fn rt_sigaction(a: &Args) -> SysResult {
    let signo = check_signal(a[0])?;
    if a[3] != SIGSET_SIZE {
        return Err(EINVAL);
    }
    let new = if a[1] != 0 {
        if !sig::can_catch(signo) {
            return Err(EINVAL);
        }
        let bytes: [u8; SigAction::SIZE] = uaccess::read_bytes(a[1], SigAction::SIZE)?.try_into().unwrap();
        Some(SigAction::from_bytes(&bytes))
    } else {
        None
    };
    let old = match new {
        Some(n) => process().set_action(signo, n),
        None => process().action(signo),
    };
    if a[2] != 0 {
        uaccess::write_bytes(a[2], &old.to_bytes())?;
    }
    Ok(0)
}

pub fn rt_sigprocmask(a: &Args) -> SysResult {
    let (how, set, oldset) = (a[0] as usize, a[1], a[2]);
    if a[3] != SIGSET_SIZE {
        return Err(EINVAL);
    }
    let new = if set != 0 { Some(uaccess::read_u64(set)?) } else { None };
    let t = current();
    let old = {
        let mut s = t.signals.lock();
        let old = s.blocked;
        if let Some(new) = new {
            s.blocked = match how {
                sig::SIG_BLOCK => old | new,
                sig::SIG_UNBLOCK => old & !new,
                sig::SIG_SETMASK => new,
                _ => return Err(EINVAL),
            } & !sig::UNBLOCKABLE;
        }
        old
    };
    if oldset != 0 {
        uaccess::write_u64(oldset, old)?;
    }
    Ok(0)
}

pub fn sigaltstack(a: &Args) -> SysResult {
    let t = current();
    let old = t.signals.lock().altstack;
    if a[0] != 0 {
        let raw = uaccess::read_bytes(a[0], 24)?;
        let sp = u64::from_le_bytes(raw[0..8].try_into().unwrap());
        let flags = i32::from_le_bytes(raw[8..12].try_into().unwrap());
        let size = u64::from_le_bytes(raw[16..24].try_into().unwrap());
        if old.flags & sig::SS_ONSTACK != 0 && old.size != 0 && t.frame().sp() > old.sp && t.frame().sp() <= old.sp + old.size {
            return Err(EPERM); // cannot change the stack we are running on
        }
        let new = if flags & sig::SS_DISABLE != 0 {
            AltStack { sp: 0, size: 0, flags: sig::SS_DISABLE }
        } else if flags != 0 {
            return Err(EINVAL);
        } else if size < MINSIGSTKSZ {
            return Err(ENOMEM);
        } else {
            AltStack { sp, size, flags: 0 }
        };
        t.signals.lock().altstack = new;
    }
    if a[1] != 0 {
        let mut raw = [0u8; 24];
        raw[0..8].copy_from_slice(&old.sp.to_le_bytes());
        raw[8..12].copy_from_slice(&old.flags.to_le_bytes());
        raw[16..24].copy_from_slice(&old.size.to_le_bytes());
        uaccess::write_bytes(a[1], &raw)?;
    }
    Ok(0)
}

fn user_info(signo: usize, code: i32) -> SigInfo {
    SigInfo { signo: signo as i32, code, pid_or_addr: process().pid as u64, uid: 0, addr_is_fault: false }
}

/// Sends to one thread; signal 0 only checks that it exists.
fn send_thread(tid: u64, signo: u64) -> SysResult {
    let t = process().thread(tid as u32).ok_or(ESRCH)?;
    if signo != 0 {
        let signo = check_signal(signo)?;
        send_to_thread(&t, signo, user_info(signo, sig::SI_TKILL));
    }
    Ok(0)
}

pub fn tgkill(a: &Args) -> SysResult {
    if a[0] as u32 != process().pid {
        return Err(ESRCH);
    }
    send_thread(a[1], a[2])
}

pub fn tkill(a: &Args) -> SysResult {
    send_thread(a[0], a[1])
}

pub fn kill(a: &Args) -> SysResult {
    let pid = a[0] as i64;
    if pid != process().pid as i64 && pid != 0 && pid != -1 {
        return Err(ESRCH);
    }
    if a[1] != 0 {
        let signo = check_signal(a[1])?;
        send_to_process(signo, user_info(signo, sig::SI_USER));
    }
    Ok(0)
}

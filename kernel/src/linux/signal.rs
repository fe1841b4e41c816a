//! Signal system calls: actions, masks, alternate stacks and sending.
//! Delivery itself is in signal.rs.

use super::SysResult;
use crate::mm::uaccess::{UserPtr, UserSpace, UserValue};
use crate::process::process;
use crate::sched::current;
use crate::signal::{send_to_process, send_to_thread, AltStack};
use gometal_core::linux::errno::{Errno, EINVAL, ENOMEM, EPERM, ESRCH};
use gometal_core::signal::sigframe::SigInfo;
use gometal_core::signal::{self as sig, SigAction};

const SIGSET_SIZE: usize = 8;
const MINSIGSTKSZ: u64 = 2048;

/// struct sigaction, in the layout gometal_core::signal reads and writes.
type RawSigAction = [u8; SigAction::SIZE];

/// A signal number argument: 1..=NSIG.
fn check_signal(signo: u64) -> Result<usize, Errno> {
    if (1..=sig::NSIG as u64).contains(&signo) {
        Ok(signo as usize)
    } else {
        Err(EINVAL)
    }
}

pub fn rt_sigaction(
    user: &mut UserSpace,
    signo: u64,
    act: UserPtr<RawSigAction>,
    oldact: UserPtr<RawSigAction>,
    sigsetsize: usize,
) -> SysResult {
    let signo = check_signal(signo)?;
    if sigsetsize != SIGSET_SIZE {
        return Err(EINVAL);
    }
    let new = if let Some(act) = act.non_null() {
        if !sig::can_catch(signo) {
            return Err(EINVAL);
        }
        Some(SigAction::from_bytes(&user.read(act)?))
    } else {
        None
    };
    let old = match new {
        Some(n) => process().set_action(signo, n),
        None => process().action(signo),
    };
    if let Some(oldact) = oldact.non_null() {
        user.write(oldact, &old.to_bytes())?;
    }
    Ok(0)
}

pub fn rt_sigprocmask(user: &mut UserSpace, how: usize, set: UserPtr<u64>, oldset: UserPtr<u64>, sigsetsize: usize) -> SysResult {
    if sigsetsize != SIGSET_SIZE {
        return Err(EINVAL);
    }
    let new = match set.non_null() {
        Some(set) => Some(user.read(set)?),
        None => None,
    };
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
    if let Some(oldset) = oldset.non_null() {
        user.write(oldset, &old)?;
    }
    Ok(0)
}

/// stack_t: ss_sp, ss_flags (an int, then padding), ss_size.
pub struct StackT {
    sp: u64,
    flags: i32,
    size: u64,
}

impl UserValue for StackT {
    const SIZE: usize = 24;
    fn decode(b: &[u8]) -> Self {
        StackT { sp: u64::decode(&b[0..8]), flags: i32::decode(&b[8..12]), size: u64::decode(&b[16..24]) }
    }
    fn encode(&self, out: &mut [u8]) {
        out.fill(0);
        self.sp.encode(&mut out[0..8]);
        self.flags.encode(&mut out[8..12]);
        self.size.encode(&mut out[16..24]);
    }
}

pub fn sigaltstack(user: &mut UserSpace, ss: UserPtr<StackT>, old_ss: UserPtr<StackT>) -> SysResult {
    let t = current();
    let old = t.signals.lock().altstack;
    if let Some(ss) = ss.non_null() {
        let StackT { sp, flags, size } = user.read(ss)?;
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
    if let Some(old_ss) = old_ss.non_null() {
        user.write(old_ss, &StackT { sp: old.sp, flags: old.flags, size: old.size })?;
    }
    Ok(0)
}

fn user_info(signo: usize, code: i32) -> SigInfo {
    SigInfo { signo: signo as i32, code, pid_or_addr: process().pid as u64, uid: 0, addr_is_fault: false, value: 0 }
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

pub fn tgkill(_: &mut UserSpace, tgid: u32, tid: u64, signo: u64) -> SysResult {
    if tgid != process().pid {
        return Err(ESRCH);
    }
    send_thread(tid, signo)
}

pub fn tkill(_: &mut UserSpace, tid: u64, signo: u64) -> SysResult {
    send_thread(tid, signo)
}

pub fn kill(_: &mut UserSpace, pid: i64, signo: u64) -> SysResult {
    if pid != process().pid as i64 && pid != 0 && pid != -1 {
        return Err(ESRCH);
    }
    if signo != 0 {
        let signo = check_signal(signo)?;
        send_to_process(signo, user_info(signo, sig::SI_USER));
    }
    Ok(0)
}

//! Threads: clone (kernel threads for Go's Ms), exit, exit_group, ids,
//! yield and CPU affinity.

use super::{Args, SysResult};
use crate::arch;
use crate::mm::uaccess;
use crate::process::{self, process};
use crate::sched::hart::{self, HartState};
use crate::sched::thread::Thread;
use crate::sched::{current, exit_current, place, yield_now};
use crate::signal::ThreadSignals;
use alloc::sync::Arc;
use core::sync::atomic::Ordering;
use gometal_core::errno::{EAGAIN, EINVAL, ENOSYS};

const CLONE_VM: u64 = 0x100;
const CLONE_THREAD: u64 = 0x10000;
const CLONE_SETTLS: u64 = 0x80000;
const CLONE_PARENT_SETTID: u64 = 0x100000;
const CLONE_CHILD_CLEARTID: u64 = 0x200000;
const CLONE_CHILD_SETTID: u64 = 0x1000000;

/// clone(flags, stack, parent_tid, tls, child_tid): only new threads of this
/// program; there are no other processes to fork.
pub fn clone(a: &Args) -> SysResult {
    let (flags, stack, parent_tid, tls, child_tid) = (a[0], a[1], a[2], a[3], a[4]);
    if flags & (CLONE_VM | CLONE_THREAD) != CLONE_VM | CLONE_THREAD {
        static WARNED: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);
        if !WARNED.swap(true, Ordering::Relaxed) {
            crate::println!("gometal: the program tried to start a process (fork/exec); gometal runs one program, returning ENOSYS");
        }
        return Err(ENOSYS);
    }
    let parent = current();
    let mut frame = parent.frame().clone();
    frame.regs[10] = 0; // the child sees 0
    if stack != 0 {
        frame.regs[2] = stack;
    }
    if flags & CLONE_SETTLS != 0 {
        frame.regs[4] = tls;
    }
    arch::save_fp(parent.fp());
    let blocked = parent.signals.lock().blocked;
    let tid = process().alloc_tid();
    let child = Thread::new(tid, frame, parent.fp().clone(), ThreadSignals::inherit(blocked)).ok_or(EAGAIN)?;
    let child = Arc::new(child);
    if flags & CLONE_CHILD_CLEARTID != 0 {
        child.clear_child_tid.store(child_tid, Ordering::Relaxed);
    }
    if flags & CLONE_PARENT_SETTID != 0 {
        uaccess::write_u32(parent_tid, tid)?;
    }
    if flags & CLONE_CHILD_SETTID != 0 {
        uaccess::write_u32(child_tid, tid)?;
    }
    process().add_thread(child.clone()).map_err(|_| EAGAIN)?;
    place::wake_up(child);
    Ok(tid as isize)
}

/// Ends the calling thread. Go calls this only when a locked goroutine
/// exits; the thread's stack may be reused at once, so nothing here touches
/// user memory except the clear-child-tid word the program asked for.
pub fn exit(a: &Args) -> SysResult {
    let t = current();
    let ctid = t.clear_child_tid.load(Ordering::Relaxed);
    if ctid != 0 && uaccess::write_u32(ctid, 0).is_ok() {
        super::futex::wake(ctid, 1);
    }
    if process().remove_thread(t.tid) == 0 {
        process::exit(a[0] as u32 & 0xff);
    }
    drop(t);
    exit_current()
}

pub fn exit_group(a: &Args) -> SysResult {
    process::exit(a[0] as u32 & 0xff)
}

pub fn gettid(_a: &Args) -> SysResult {
    Ok(current().tid as isize)
}

pub fn getpid(_a: &Args) -> SysResult {
    Ok(process().pid as isize)
}

pub fn set_tid_address(a: &Args) -> SysResult {
    let t = current();
    t.clear_child_tid.store(a[0], Ordering::Relaxed);
    Ok(t.tid as isize)
}

pub fn sched_yield(_a: &Args) -> SysResult {
    yield_now();
    Ok(0)
}

/// One bit per hart that runs the kernel (the CPUs the program may use).
pub fn sched_getaffinity(a: &Args) -> SysResult {
    let size = a[1] as usize;
    let online = hart::all().iter().filter(|h| h.state() == HartState::Online);
    let highest = online.clone().map(|h| h.index()).max().unwrap_or(0);
    let bytes = (highest / 64 + 1) * 8;
    if size < bytes || !size.is_multiple_of(8) {
        return Err(EINVAL);
    }
    let mut mask = alloc::vec![0u8; bytes];
    for h in online {
        mask[h.index() / 8] |= 1 << (h.index() % 8);
    }
    uaccess::write_bytes(a[2], &mask)?;
    Ok(bytes as isize)
}

/// Accepted and ignored: threads are not pinned in this version.
pub fn sched_setaffinity(_a: &Args) -> SysResult {
    Ok(0)
}

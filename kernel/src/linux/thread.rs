//! Threads: clone (kernel threads for Go's Ms), exit, exit_group, ids,
//! yield and CPU affinity.

use super::args::CloneFlags;
use super::SysResult;
use crate::arch;
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::process::{self, process};
use crate::sched::cpu::{self, CpuState};
use crate::sched::thread::Thread;
use crate::sched::{current, exit_current, place, yield_now};
use crate::signal::ThreadSignals;
use alloc::sync::Arc;
use core::sync::atomic::Ordering;
use gometal_core::linux::errno::{ECHILD, EINVAL, ENOSYS};

/// clone(flags, stack, parent_tid, tls, child_tid): only new threads of this
/// program; there are no other processes to fork.
pub fn clone(
    user: &mut UserSpace,
    flags: CloneFlags,
    stack: u64,
    parent_tid: UserPtr<u32>,
    tls: u64,
    child_tid: UserPtr<u32>,
) -> SysResult {
    if !flags.contains(CloneFlags::VM | CloneFlags::THREAD) {
        static WARNED: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);
        if !WARNED.swap(true, Ordering::Relaxed) {
            crate::println!("gometal: the program tried to start a process (fork/exec); gometal runs one program, returning ENOSYS");
        }
        return Err(ENOSYS);
    }
    let parent = current();
    let mut frame = parent.frame().clone();
    frame.set_ret(0); // the child sees 0
    if stack != 0 {
        frame.set_sp(stack);
    }
    if flags.contains(CloneFlags::SETTLS) {
        frame.set_tls(tls);
    }
    arch::save_fp(parent.fp());
    let blocked = parent.signals.lock().blocked;
    let threads = process().thread_count();
    if threads >= process::max_threads() {
        process::cannot_make_thread(threads);
    }
    let tid = process().alloc_tid();
    // No frames for the kernel stack: out of memory, ended as the page
    // fault path ends it (an EAGAIN would hang Go, see cannot_make_thread).
    let Some(child) = Thread::new(tid, frame, parent.fp().clone(), ThreadSignals::inherit(blocked)) else {
        process::out_of_memory()
    };
    let child = Arc::new(child);
    if flags.contains(CloneFlags::CHILD_CLEARTID) {
        child.clear_child_tid.store(child_tid.addr(), Ordering::Relaxed);
    }
    if flags.contains(CloneFlags::PARENT_SETTID) {
        user.write(parent_tid, &tid)?;
    }
    if flags.contains(CloneFlags::CHILD_SETTID) {
        user.write(child_tid, &tid)?;
    }
    if process().add_thread(child.clone()).is_err() {
        process::cannot_make_thread(threads); // another thread took the last place
    }
    place::wake_up(child);
    Ok(tid as usize)
}

/// Ends the calling thread. Go calls this only when a locked goroutine
/// exits; the thread's stack may be reused at once, so nothing here touches
/// user memory except the clear-child-tid word the program asked for.
pub fn exit(user: &mut UserSpace, status: u32) -> SysResult {
    let t = current();
    let ctid = UserPtr::<u32>::new(t.clear_child_tid.load(Ordering::Relaxed));
    if !ctid.is_null() && user.write(ctid, &0).is_ok() {
        super::futex::wake(ctid.addr(), 1);
    }
    if process().remove_thread(t.tid) == 0 {
        process::exit(status & 0xff);
    }
    drop(t);
    exit_current()
}

pub fn exit_group(_: &mut UserSpace, status: u32) -> SysResult {
    process::exit(status & 0xff)
}

pub fn gettid(_: &mut UserSpace) -> SysResult {
    Ok(current().tid as usize)
}

pub fn getpid(_: &mut UserSpace) -> SysResult {
    Ok(process().pid as usize)
}

/// The program is pid 1, started by nobody.
pub fn getppid(_: &mut UserSpace) -> SysResult {
    Ok(0)
}

pub fn set_tid_address(_: &mut UserSpace, tidptr: UserPtr<u32>) -> SysResult {
    let t = current();
    t.clear_child_tid.store(tidptr.addr(), Ordering::Relaxed);
    Ok(t.tid as usize)
}

/// Accepted, not used: the list matters only to other processes.
pub fn set_robust_list(_: &mut UserSpace) -> SysResult {
    Ok(0)
}

/// One process: it never has children to wait for.
pub fn wait4(_: &mut UserSpace) -> SysResult {
    Err(ECHILD)
}

pub fn waitid(_: &mut UserSpace) -> SysResult {
    Err(ECHILD)
}

pub fn sched_yield(_: &mut UserSpace) -> SysResult {
    yield_now();
    Ok(0)
}

/// One bit per CPU that runs the kernel (the CPUs the program may use).
pub fn sched_getaffinity(user: &mut UserSpace, _pid: u32, size: usize, mask_out: UserPtr<u8>) -> SysResult {
    let online = cpu::all().iter().filter(|h| h.state() == CpuState::Online);
    let highest = online.clone().map(|h| h.index()).max().unwrap_or(0);
    let bytes = (highest / 64 + 1) * 8;
    if size < bytes || !size.is_multiple_of(8) {
        return Err(EINVAL);
    }
    let mut mask = alloc::vec![0u8; bytes];
    for h in online {
        mask[h.index() / 8] |= 1 << (h.index() % 8);
    }
    user.write_bytes(mask_out.slice(bytes), &mask)?;
    Ok(bytes)
}

/// Accepted and ignored: threads are not pinned in this version.
pub fn sched_setaffinity(_: &mut UserSpace) -> SysResult {
    Ok(0)
}

//! futex: the one blocking primitive of Go's runtime (notesleep/notewakeup,
//! lock_futex). WAIT checks the user word and queues the thread under the
//! table lock, so a WAKE after the program changed the word finds it; the
//! blocking itself is sched::block's (the table lock is not held while the
//! thread blocks or arms its timer).

use super::args::Timespec;
use super::SysResult;
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::sched::clock;
use crate::sched::block::{begin_wait, block, wake as wake_thread, WaitError};
use crate::sync::{Lock, LockClass};
use crate::sched::Thread;
use alloc::sync::Arc;
use gometal_core::linux::errno::{Errno, EAGAIN, EFAULT, EINTR, EINVAL, ENOSYS, ETIMEDOUT};
use gometal_core::sched::futex::FutexTable;
use gometal_core::linux::timespec;

const FUTEX_WAIT: u32 = 0;
const FUTEX_WAKE: u32 = 1;
const FUTEX_WAIT_BITSET: u32 = 9;
const FUTEX_WAKE_BITSET: u32 = 10;
const FUTEX_PRIVATE_FLAG: u32 = 128;
const FUTEX_CLOCK_REALTIME: u32 = 256;

struct Waiter {
    tid: u32,
    thread: Arc<Thread>,
    /// The thread's wait this entry belongs to (sched::block).
    generation: u64,
}

impl PartialEq for Waiter {
    fn eq(&self, o: &Self) -> bool {
        self.tid == o.tid
    }
}

/// Waiters by user address (one address space, so the address is the key).
static FUTEXES: Lock<FutexTable<Waiter>> = Lock::new(LockClass::FutexTable, FutexTable::new());

/// futex(uaddr, op, val, timeout, uaddr2, val3): `val` is the expected
/// value for the waits and the count for the wakes.
pub fn futex(
    user: &mut UserSpace,
    uaddr: UserPtr<u32>,
    op: u32,
    val: u32,
    timeout: UserPtr<Timespec>,
    _uaddr2: u64,
    val3: u32,
) -> SysResult {
    let cmd = op & !(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
    check_args(uaddr, cmd, val3)?;
    match cmd {
        FUTEX_WAIT | FUTEX_WAIT_BITSET => {
            let deadline = if timeout.is_null() {
                None
            } else {
                let Timespec { sec, nsec } = user.read(timeout)?;
                let ns = timespec::timespec_to_ns(sec, nsec).ok_or(EINVAL)?;
                Some(if cmd == FUTEX_WAIT {
                    clock::monotonic_ns().saturating_add(ns)
                } else if op & FUTEX_CLOCK_REALTIME != 0 {
                    // Absolute realtime deadline → monotonic.
                    ns.saturating_sub(clock::realtime_ns()).saturating_add(clock::monotonic_ns())
                } else {
                    ns
                })
            };
            wait(user, uaddr, val, deadline)
        }
        FUTEX_WAKE | FUTEX_WAKE_BITSET => Ok(wake(uaddr.addr(), val as usize)),
        _ => Err(ENOSYS),
    }
}

/// Linux's argument checks, before anything else: a misaligned word is
/// EINVAL, an address outside user space EFAULT (for a wake too, which
/// never reads the word), and the bitset operations with an empty bitset
/// (which could never match) EINVAL.
fn check_args(uaddr: UserPtr<u32>, cmd: u32, val3: u32) -> Result<(), Errno> {
    if !uaddr.addr().is_multiple_of(4) {
        return Err(EINVAL);
    }
    if uaddr.addr().checked_add(4).is_none_or(|end| end > crate::memlayout::USER_END) {
        return Err(EFAULT);
    }
    if matches!(cmd, FUTEX_WAIT_BITSET | FUTEX_WAKE_BITSET) && val3 == 0 {
        return Err(EINVAL);
    }
    Ok(())
}

fn wait(user: &mut UserSpace, uaddr: UserPtr<u32>, val: u32, deadline: Option<u64>) -> SysResult {
    let word = user.futex_word(uaddr)?;
    let uaddr = uaddr.addr();
    let (t, generation) = begin_wait();
    {
        let mut table = FUTEXES.lock();
        if word.load() != val {
            return Err(EAGAIN);
        }
        table.wait(uaddr, Waiter { tid: t.tid, thread: t.clone(), generation });
    }
    loop {
        match block(&t, deadline) {
            // Woken: by FUTEX_WAKE if no longer queued, else by the timer or
            // a signal, which the next `block` reports.
            Ok(()) => {
                if !FUTEXES.lock().contains(uaddr, |w| w.tid == t.tid) {
                    return Ok(0);
                }
            }
            Err(e) => {
                // A FUTEX_WAKE that took us first wins over the timeout or signal.
                if !FUTEXES.lock().remove(uaddr, |w| w.tid == t.tid) {
                    return Ok(0);
                }
                return Err(if e == WaitError::TimedOut { ETIMEDOUT } else { EINTR });
            }
        }
    }
}

/// Wakes up to `n` waiters on `uaddr`; returns how many.
pub fn wake(uaddr: u64, n: usize) -> usize {
    let woken = FUTEXES.lock().wake(uaddr, n);
    for w in &woken {
        wake_thread(&w.thread, w.generation);
    }
    woken.len()
}

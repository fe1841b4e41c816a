//! The kernel's advisory lock tables: for every file that has locks, its
//! POSIX/OFD table and its flock table (the range logic is
//! gometal_core::fs::filelock). Files are keyed by inode number, so the tables
//! live here rather than in every inode, and a file without locks costs
//! nothing.
//!
//! A lock that must wait (F_SETLKW, flock without LOCK_NB) waits on one
//! queue for every file: any release wakes all lock waiters, each looks
//! again. Lock waits are rare and short, so one queue keeps this simple.
//! There is no deadlock detection (EDEADLK is never reported).

use crate::sched::wait::{WaitError, WaitQueue};
use alloc::collections::BTreeMap;
use gometal_core::linux::errno::{Errno, EAGAIN, EINTR, ENOLCK};
use gometal_core::fs::filelock::{Lock, LockKind, Owner, RangeLocks};
use crate::sync::LockClass;

/// Which of a file's two tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Table {
    /// fcntl's POSIX and OFD record locks.
    Record,
    /// flock's whole-file locks.
    Flock,
}

#[derive(Default)]
struct FileLocks {
    record: RangeLocks,
    flock: RangeLocks,
}

impl FileLocks {
    fn table(&mut self, which: Table) -> &mut RangeLocks {
        match which {
            Table::Record => &mut self.record,
            Table::Flock => &mut self.flock,
        }
    }
}

static LOCKS: crate::sync::Lock<BTreeMap<u64, FileLocks>> = crate::sync::Lock::new(LockClass::FileLocks, BTreeMap::new());
static WAITERS: WaitQueue = WaitQueue::new();

/// A request for [first, last] of file `ino` in `table`.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    pub ino: u64,
    pub table: Table,
    pub owner: Owner,
    pub first: u64,
    pub last: u64,
}

/// The lock that would keep `req` from taking `kind`, if any (F_GETLK).
pub fn conflict(req: Request, kind: LockKind) -> Option<Lock> {
    let mut all = LOCKS.lock();
    all.get_mut(&req.ino)?.table(req.table).conflict(req.owner, kind, req.first, req.last)
}

/// Takes `kind` for `req`: EAGAIN at once on a conflict, or with `wait`
/// blocks until there is none (EINTR if a signal comes first).
pub fn lock(req: Request, kind: LockKind, wait: bool) -> Result<(), Errno> {
    if !wait {
        return try_lock(req, kind).unwrap_or(Err(EAGAIN));
    }
    WAITERS.wait_until(None, || try_lock(req, kind)).map_err(|e| match e {
        WaitError::Interrupted | WaitError::TimedOut => EINTR,
    })?
}

/// None while another owner's lock is in the way.
fn try_lock(req: Request, kind: LockKind) -> Option<Result<(), Errno>> {
    let mut all = LOCKS.lock();
    let table = all.entry(req.ino).or_default().table(req.table);
    if table.conflict(req.owner, kind, req.first, req.last).is_some() {
        return None;
    }
    Some(table.set(req.owner, kind, req.first, req.last).map_err(|_| ENOLCK))
}

/// Releases what `req.owner` holds in its range (F_UNLCK, LOCK_UN).
pub fn unlock(req: Request) -> Result<(), Errno> {
    let result = {
        let mut all = LOCKS.lock();
        let Some(file) = all.get_mut(&req.ino) else { return Ok(()) };
        let r = file.table(req.table).unlock(req.owner, req.first, req.last).map_err(|_| ENOLCK);
        forget_if_unlocked(&mut all, req.ino);
        r
    };
    WAITERS.wake_all();
    result
}

/// Releases every lock `owner` holds on file `ino` in both tables: an open
/// file description's when its last descriptor closes, the process's POSIX
/// locks when any descriptor of the file closes (as POSIX says).
pub fn release(ino: u64, owner: Owner) {
    let released = {
        let mut all = LOCKS.lock();
        let Some(file) = all.get_mut(&ino) else { return };
        let a = file.record.remove_owner(owner);
        let b = file.flock.remove_owner(owner);
        forget_if_unlocked(&mut all, ino);
        a || b
    };
    if released {
        WAITERS.wake_all();
    }
}

fn forget_if_unlocked(all: &mut BTreeMap<u64, FileLocks>, ino: u64) {
    if all.get(&ino).is_some_and(|f| f.record.is_empty() && f.flock.is_empty()) {
        all.remove(&ino);
    }
}

//! Advisory locks: fcntl's F_GETLK/F_SETLK/F_SETLKW (POSIX record locks,
//! owned by the process), F_OFD_GETLK/F_OFD_SETLK/F_OFD_SETLKW (owned by the
//! open file description), and flock (whole file, owned by the open file
//! description, a table of its own). fs/locks.rs keeps the tables.

use super::SysResult;
use crate::fs::fd::{self, Fd, OpenFile};
use crate::fs::locks::{self, Request, Table};
use crate::mm::uaccess::{UserPtr, UserSpace, UserValue};
use crate::process::process;
use alloc::sync::Arc;
use gometal_core::linux::errno::*;
use gometal_core::fs::filelock::{range_of, LockKind, Owner};

const F_GETLK: u32 = 5;
const F_SETLK: u32 = 6;
const F_SETLKW: u32 = 7;
const F_OFD_GETLK: u32 = 36;
const F_OFD_SETLK: u32 = 37;
const F_OFD_SETLKW: u32 = 38;

const F_RDLCK: i16 = 0;
const F_WRLCK: i16 = 1;
const F_UNLCK: i16 = 2;

/// struct flock (asm-generic, 64-bit): l_type, l_whence, then l_start,
/// l_len, l_pid at 8, 16, 24; 32 bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Flock {
    kind: i16,
    whence: i16,
    start: i64,
    len: i64,
    pid: i32,
}

impl UserValue for Flock {
    const SIZE: usize = 32;
    fn decode(b: &[u8]) -> Self {
        Flock {
            kind: i16::from_le_bytes([b[0], b[1]]),
            whence: i16::from_le_bytes([b[2], b[3]]),
            start: i64::decode(&b[8..16]),
            len: i64::decode(&b[16..24]),
            pid: i32::from_le_bytes(b[24..28].try_into().unwrap()),
        }
    }
    fn encode(&self, out: &mut [u8]) {
        out.fill(0);
        out[0..2].copy_from_slice(&self.kind.to_le_bytes());
        out[2..4].copy_from_slice(&self.whence.to_le_bytes());
        self.start.encode(&mut out[8..16]);
        self.len.encode(&mut out[16..24]);
        out[24..28].copy_from_slice(&self.pid.to_le_bytes());
    }
}

/// The inode number locks are keyed by; None for descriptors that are not
/// files (pipes, devices), which have no lock table.
fn lockable(file: &OpenFile) -> Option<u64> {
    file.inode().map(|node| node.ino)
}

/// An open file description as a lock owner.
pub fn ofd_owner(file: &OpenFile) -> Owner {
    Owner::OpenFile(file as *const OpenFile as u64)
}

fn process_owner() -> Owner {
    Owner::Process(process().pid as u64)
}

/// fcntl's lock commands; None for every other command.
pub fn fcntl(user: &mut UserSpace, fd: Fd, cmd: u32, arg: u64) -> Option<SysResult> {
    let ofd = match cmd {
        F_GETLK | F_SETLK | F_SETLKW => false,
        F_OFD_GETLK | F_OFD_SETLK | F_OFD_SETLKW => true,
        _ => return None,
    };
    Some(fcntl_lock(user, fd, cmd, UserPtr::new(arg), ofd))
}

fn fcntl_lock(user: &mut UserSpace, fd: Fd, cmd: u32, arg: UserPtr<Flock>, ofd: bool) -> SysResult {
    let file = fd::file(fd)?;
    let mut fl = user.read(arg)?;
    if ofd && fl.pid != 0 {
        return Err(EINVAL);
    }
    let Some(ino) = lockable(&file) else { return Err(EINVAL) };
    let base = match fl.whence {
        0 => 0,
        1 => *file.offset.lock() as i64,
        2 => file.inode().map_or(0, |node| node.size() as i64),
        _ => return Err(EINVAL),
    };
    let start = base.checked_add(fl.start).ok_or(EINVAL)?;
    let (first, last) = range_of(start, fl.len).ok_or(EINVAL)?;
    let owner = if ofd { ofd_owner(&file) } else { process_owner() };
    let req = Request { ino, table: Table::Record, owner, first, last };
    let kind = match fl.kind {
        F_RDLCK => LockKind::Shared,
        F_WRLCK => LockKind::Exclusive,
        F_UNLCK if cmd != F_GETLK && cmd != F_OFD_GETLK => return locks::unlock(req).map(|_| 0),
        _ => return Err(EINVAL),
    };
    match cmd {
        F_GETLK | F_OFD_GETLK => {
            report_conflict(&mut fl, locks::conflict(req, kind));
            user.write(arg, &fl).map(|_| 0)
        }
        _ => {
            // A read lock needs a descriptor open for reading, a write lock
            // one open for writing.
            let allowed = if kind == LockKind::Shared { file.readable() } else { file.writable() };
            if !allowed {
                return Err(EBADF);
            }
            let wait = cmd == F_SETLKW || cmd == F_OFD_SETLKW;
            locks::lock(req, kind, wait).map(|_| 0)
        }
    }
}

/// Fills in F_GETLK's answer: the blocking lock, or F_UNLCK if none.
fn report_conflict(fl: &mut Flock, found: Option<gometal_core::fs::filelock::Lock>) {
    let Some(l) = found else {
        fl.kind = F_UNLCK;
        return;
    };
    fl.kind = if l.kind == LockKind::Shared { F_RDLCK } else { F_WRLCK };
    fl.whence = 0;
    fl.start = l.first as i64;
    fl.len = if l.last == u64::MAX { 0 } else { (l.last - l.first + 1) as i64 };
    // Linux reports -1 for a lock held through an open file description.
    fl.pid = match l.owner {
        Owner::Process(pid) => pid as i32,
        Owner::OpenFile(_) => -1,
    };
}

const LOCK_SH: u32 = 1;
const LOCK_EX: u32 = 2;
const LOCK_NB: u32 = 4;
const LOCK_UN: u32 = 8;

/// flock(fd, operation). Descriptors with no lock table (pipes, devices)
/// accept every operation and lock nothing.
pub fn flock(_: &mut UserSpace, fd: Fd, operation: u32) -> SysResult {
    let file = fd::file(fd)?;
    let kind = match operation & !LOCK_NB {
        LOCK_SH => Some(LockKind::Shared),
        LOCK_EX => Some(LockKind::Exclusive),
        LOCK_UN => None,
        _ => return Err(EINVAL),
    };
    let Some(ino) = lockable(&file) else { return Ok(0) };
    let req = Request { ino, table: Table::Flock, owner: ofd_owner(&file), first: 0, last: u64::MAX };
    match kind {
        None => locks::unlock(req).map(|_| 0),
        Some(kind) => locks::lock(req, kind, operation & LOCK_NB == 0).map(|_| 0),
    }
}

/// Closing a descriptor drops the process's POSIX locks on that file, even
/// when another descriptor of it stays open (POSIX's rule, SQLite knows it).
pub fn closed(file: &Arc<OpenFile>) {
    if let Some(ino) = lockable(file) {
        locks::release(ino, process_owner());
    }
}

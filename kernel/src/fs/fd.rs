//! Open files and the file-descriptor table.

use super::file::File;
use super::inode::Inode;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::any::Any;
use core::sync::atomic::{AtomicU32, Ordering};
use gometal_core::linux::errno::{Errno, EBADF, EMFILE};
use gometal_core::linux::rlimit::{check_nofile, Limit, NOFILE_START, NR_OPEN};
use crate::sync::{Lock, LockClass};

pub const O_NONBLOCK: u32 = 0o4000;
pub const O_APPEND: u32 = 0o2000;

/// An open file description: the file (of whatever kind, file.rs) and
/// what belongs to this open of it. Descriptors (dup, fork) share one.
pub struct OpenFile {
    pub file: Arc<dyn File>,
    pub offset: Lock<u64>,
    /// O_NONBLOCK, O_APPEND and the access mode, as F_GETFL reports them.
    pub status: AtomicU32,
    /// The path it was opened by (openat), for /proc/<pid>/fd's links.
    pub path: spin::Once<Vec<u8>>,
}

pub const O_ACCMODE: u32 = 3;
/// A descriptor that names a file without opening it for I/O.
pub const O_PATH: u32 = 0o10000000;
pub const O_RDONLY: u32 = 0;
pub const O_WRONLY: u32 = 1;

impl OpenFile {
    pub fn readable(&self) -> bool {
        let s = self.status.load(Ordering::Relaxed);
        s & O_PATH == 0 && s & O_ACCMODE != O_WRONLY
    }
    pub fn writable(&self) -> bool {
        let s = self.status.load(Ordering::Relaxed);
        s & O_PATH == 0 && s & O_ACCMODE != O_RDONLY
    }
    pub fn appending(&self) -> bool {
        self.status.load(Ordering::Relaxed) & O_APPEND != 0
    }
    pub fn new(file: Arc<dyn File>, status: u32) -> Arc<Self> {
        Arc::new(OpenFile { file, offset: Lock::new(LockClass::FileOffset, 0), status: AtomicU32::new(status), path: spin::Once::new() })
    }
    pub fn nonblocking(&self) -> bool {
        self.status.load(Ordering::Relaxed) & O_NONBLOCK != 0
    }

    /// The file as the type it is, if it is a `T` (the calls that work on
    /// one kind only: a socket's, epoll_ctl, splice's pipe).
    pub fn downcast<T: File>(&self) -> Option<&T> {
        (&*self.file as &dyn Any).downcast_ref()
    }

    /// The same, as a reference of its own.
    pub fn downcast_arc<T: File>(&self) -> Option<Arc<T>> {
        super::file::downcast_arc(self.file.clone())
    }

    /// The directory this is, for the calls that take one (fchdir,
    /// getdents, a dirfd).
    pub fn directory(&self) -> Option<&Arc<Inode>> {
        self.file.inode().filter(|n| n.is_dir())
    }
}

/// An open file description is used as its file: `file.read(&file, ..)`
/// is the kind's read through this description.
impl core::ops::Deref for OpenFile {
    type Target = dyn File;
    fn deref(&self) -> &dyn File {
        &*self.file
    }
}

impl Drop for OpenFile {
    fn drop(&mut self) {
        // The last descriptor of an open file description: its OFD and
        // flock locks go (the owner is its address, as linux/locks.rs uses).
        if let Some(node) = self.file.inode() {
            let owner = gometal_core::fs::filelock::Owner::OpenFile(self as *const OpenFile as u64);
            super::locks::release(node.ino, owner);
        }
        self.file.closed(self);
    }
}

#[derive(Clone)]
struct Slot {
    file: Arc<OpenFile>,
    cloexec: bool,
}

pub struct FdTable {
    slots: Vec<Option<Slot>>,
}

/// RLIMIT_NOFILE (one program runs, so one limit): descriptors are
/// allocated below the soft limit.
static NOFILE: Lock<Limit> = Lock::new(LockClass::FileLimit, NOFILE_START);

/// The current RLIMIT_NOFILE.
pub fn nofile_limit() -> Limit {
    *NOFILE.lock()
}

/// Sets RLIMIT_NOFILE after checking it as Linux does for root.
pub fn set_nofile_limit(new: Limit) -> Result<(), Errno> {
    *NOFILE.lock() = check_nofile(new)?;
    Ok(())
}

/// The lowest descriptor number that may not be allocated.
fn fd_limit() -> usize {
    nofile_limit().soft.min(NR_OPEN) as usize
}

impl FdTable {
    /// A table with `stdio` as fds 0, 1 and 2 (stdio/: the program's
    /// stdin, stdout and stderr).
    pub fn with_stdio(stdio: [Arc<OpenFile>; 3]) -> Self {
        FdTable { slots: stdio.into_iter().map(|file| Some(Slot { file, cloexec: false })).collect() }
    }

    /// Installs `file` at the lowest free descriptor ≥ `min`.
    pub fn install(&mut self, file: Arc<OpenFile>, cloexec: bool, min: usize) -> Result<usize, Errno> {
        let fd = (min..fd_limit()).find(|&i| self.slots.get(i).is_none_or(|s| s.is_none())).ok_or(EMFILE)?;
        if fd >= self.slots.len() {
            self.slots.resize(fd + 1, None);
        }
        self.slots[fd] = Some(Slot { file, cloexec });
        Ok(fd)
    }

    /// Puts `file` at exactly `fd`; returns what was there (dup3), for the
    /// caller to drop after releasing the table lock.
    pub fn install_at(&mut self, fd: usize, file: Arc<OpenFile>, cloexec: bool) -> Result<Option<Arc<OpenFile>>, Errno> {
        if fd >= fd_limit() {
            return Err(EBADF);
        }
        if fd >= self.slots.len() {
            self.slots.resize(fd + 1, None);
        }
        let old = self.slots[fd].replace(Slot { file, cloexec });
        Ok(old.map(|s| s.file))
    }

    pub fn get(&self, fd: usize) -> Result<Arc<OpenFile>, Errno> {
        self.slots.get(fd).and_then(|s| s.as_ref()).map(|s| s.file.clone()).ok_or(EBADF)
    }

    pub fn close(&mut self, fd: usize) -> Result<Arc<OpenFile>, Errno> {
        self.slots.get_mut(fd).and_then(|s| s.take()).map(|s| s.file).ok_or(EBADF)
    }

    /// The open descriptors: number, open file, close-on-exec (/proc).
    pub fn open_fds(&self) -> impl Iterator<Item = (usize, &Arc<OpenFile>, bool)> {
        self.slots.iter().enumerate().filter_map(|(fd, s)| s.as_ref().map(|s| (fd, &s.file, s.cloexec)))
    }

    /// The table's size as Linux's FDSize reports it: slots in use or
    /// freed, rounded up to 64.
    pub fn capacity(&self) -> usize {
        self.slots.len().div_ceil(64).max(1) * 64
    }

    pub fn cloexec(&self, fd: usize) -> Result<bool, Errno> {
        self.slots.get(fd).and_then(|s| s.as_ref()).map(|s| s.cloexec).ok_or(EBADF)
    }

    pub fn set_cloexec(&mut self, fd: usize, on: bool) -> Result<(), Errno> {
        let slot = self.slots.get_mut(fd).and_then(|s| s.as_mut()).ok_or(EBADF)?;
        slot.cloexec = on;
        Ok(())
    }
}

/// A file-descriptor argument (a C int). Negative ones name no slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fd(pub i32);

impl Fd {
    /// The *at calls' "relative to the working directory".
    pub const CWD: Fd = Fd(-100);

    /// The table slot; out of range (EBADF) for a negative descriptor.
    pub fn index(self) -> usize {
        usize::try_from(self.0).unwrap_or(usize::MAX)
    }
}

/// The current program's open file `fd`.
pub fn file(fd: Fd) -> Result<Arc<OpenFile>, Errno> {
    super::context::current().files.lock().get(fd.index())
}

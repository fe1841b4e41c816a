//! Open files and the file-descriptor table.

use super::epoll::Epoll;
use super::eventfd::EventFd;
use super::inode::{Device, Inode};
use super::pipe::Pipe;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};
use gometal_core::errno::{Errno, EBADF, EMFILE};
use gometal_core::rlimit::{check_nofile, Limit, NOFILE_START, NR_OPEN};
use spin::Mutex;

pub enum FileKind {
    /// /dev/null, /dev/zero, /dev/urandom, and the console (fds 0-2).
    Device(Device),
    File(Arc<Inode>),
    Directory(Arc<Inode>),
    EventFd(Arc<EventFd>),
    Epoll(Arc<Epoll>),
    /// An end of a pipe or FIFO; which end(s) is the access mode.
    Pipe(Arc<Pipe>),
    Socket(Arc<crate::net::Socket>),
    /// /dev/uioN or one of its sysfs files (uio/file.rs).
    Uio(Arc<crate::uio::UioFile>),
}

pub const O_NONBLOCK: u32 = 0o4000;
pub const O_APPEND: u32 = 0o2000;

pub struct OpenFile {
    pub kind: FileKind,
    pub offset: Mutex<u64>,
    /// O_NONBLOCK, O_APPEND and the access mode, as F_GETFL reports them.
    pub status: AtomicU32,
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
    pub fn new(kind: FileKind, status: u32) -> Arc<Self> {
        Arc::new(OpenFile { kind, offset: Mutex::new(0), status: AtomicU32::new(status) })
    }
    pub fn nonblocking(&self) -> bool {
        self.status.load(Ordering::Relaxed) & O_NONBLOCK != 0
    }
}

impl Drop for OpenFile {
    fn drop(&mut self) {
        // The last descriptor of an open file description: its OFD and
        // flock locks go (the owner is its address, as linux/locks.rs uses).
        if let FileKind::File(node) | FileKind::Directory(node) = &self.kind {
            let owner = gometal_core::filelock::Owner::OpenFile(self as *const OpenFile as u64);
            super::locks::release(node.ino, owner);
        }
        // Watches on the file see it gone at the next epoll_wait (a pipe
        // end's close_end below notifies its hub itself).
        match &self.kind {
            FileKind::Socket(s) => s.hub.notify(),
            FileKind::EventFd(e) => e.hub.notify(),
            FileKind::Device(_) | FileKind::Uio(_) | FileKind::Epoll(_) => super::pollhub::GLOBAL.notify(),
            FileKind::File(_) | FileKind::Directory(_) | FileKind::Pipe(_) => {}
        }
        // The last descriptor (and dup) of a pipe end is gone.
        if let FileKind::Pipe(p) = &self.kind {
            if self.readable() {
                p.close_end(false);
            }
            if self.writable() {
                p.close_end(true);
            }
        }
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
static NOFILE: Mutex<Limit> = Mutex::new(NOFILE_START);

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
    /// fds 0, 1 and 2: the program's stdin, stdout and stderr (stdio.rs).
    pub fn with_stdio() -> Self {
        let slot = |n: u8, mode| Some(Slot { file: OpenFile::new(FileKind::Device(Device::Stdio(n)), mode), cloexec: false });
        FdTable { slots: alloc::vec![slot(0, O_RDONLY), slot(1, O_WRONLY), slot(2, O_WRONLY)] }
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
    crate::process::process().files.lock().get(fd.index())
}

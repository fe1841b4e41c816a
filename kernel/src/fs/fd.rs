//! Open files and the file-descriptor table.

use super::epoll::Epoll;
use super::eventfd::EventFd;
use super::initramfs::Node;
use crate::param::MAX_FDS;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};
use gometal_core::errno::{EBADF, EMFILE};
use spin::Mutex;

/// Device files the kernel provides itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    Null,
    Zero,
    /// /dev/random and /dev/urandom.
    Random,
}

pub enum FileKind {
    /// The serial console: stdin, stdout and stderr.
    Console,
    Device(Device),
    Regular(&'static Node),
    Directory { path: Vec<u8>, node: &'static Node },
    EventFd(Arc<EventFd>),
    Epoll(Arc<Epoll>),
}

pub const O_NONBLOCK: u32 = 0o4000;
pub const O_APPEND: u32 = 0o2000;

pub struct OpenFile {
    pub kind: FileKind,
    pub offset: Mutex<u64>,
    /// O_NONBLOCK, O_APPEND and the access mode, as F_GETFL reports them.
    pub status: AtomicU32,
}

impl OpenFile {
    pub fn new(kind: FileKind, status: u32) -> Arc<Self> {
        Arc::new(OpenFile { kind, offset: Mutex::new(0), status: AtomicU32::new(status) })
    }
    pub fn nonblocking(&self) -> bool {
        self.status.load(Ordering::Relaxed) & O_NONBLOCK != 0
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

const O_RDWR: u32 = 2;

impl FdTable {
    /// fds 0, 1 and 2 on the console.
    pub fn with_console() -> Self {
        let console = OpenFile::new(FileKind::Console, O_RDWR);
        let slot = Some(Slot { file: console, cloexec: false });
        FdTable { slots: alloc::vec![slot.clone(), slot.clone(), slot] }
    }

    /// Installs `file` at the lowest free descriptor ≥ `min`.
    pub fn install(&mut self, file: Arc<OpenFile>, cloexec: bool, min: usize) -> Result<usize, isize> {
        let fd = (min..MAX_FDS).find(|&i| self.slots.get(i).is_none_or(|s| s.is_none())).ok_or(EMFILE)?;
        if fd >= self.slots.len() {
            self.slots.resize(fd + 1, None);
        }
        self.slots[fd] = Some(Slot { file, cloexec });
        Ok(fd)
    }

    /// Puts `file` at exactly `fd`, closing what was there (dup3).
    pub fn install_at(&mut self, fd: usize, file: Arc<OpenFile>, cloexec: bool) -> Result<(), isize> {
        if fd >= MAX_FDS {
            return Err(EBADF);
        }
        if fd >= self.slots.len() {
            self.slots.resize(fd + 1, None);
        }
        self.slots[fd] = Some(Slot { file, cloexec });
        Ok(())
    }

    pub fn get(&self, fd: usize) -> Result<Arc<OpenFile>, isize> {
        self.slots.get(fd).and_then(|s| s.as_ref()).map(|s| s.file.clone()).ok_or(EBADF)
    }

    pub fn close(&mut self, fd: usize) -> Result<Arc<OpenFile>, isize> {
        self.slots.get_mut(fd).and_then(|s| s.take()).map(|s| s.file).ok_or(EBADF)
    }

    pub fn cloexec(&self, fd: usize) -> Result<bool, isize> {
        self.slots.get(fd).and_then(|s| s.as_ref()).map(|s| s.cloexec).ok_or(EBADF)
    }

    pub fn set_cloexec(&mut self, fd: usize, on: bool) -> Result<(), isize> {
        let slot = self.slots.get_mut(fd).and_then(|s| s.as_mut()).ok_or(EBADF)?;
        slot.cloexec = on;
        Ok(())
    }
}

/// The current program's open file `fd`.
pub fn file(fd: u64) -> Result<Arc<OpenFile>, isize> {
    crate::process::process().files.lock().get(fd as usize)
}

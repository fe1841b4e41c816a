//! The one file abstraction. Every kind of open file (a regular file or a
//! directory of the in-memory tree or of a `-mount` share, a pipe or FIFO,
//! an eventfd, an epoll instance, a socket, a UIO node, the console, the
//! standard streams, /dev/null and friends) is an object implementing
//! `File`, and the system calls ask it, never which kind it is. Each kind
//! lives in its own module (fs/, net/, uio/, console.rs, stdio/); adding
//! one is a new `impl File` plus the code that makes it (an `Opener` on a
//! node of the tree, or a system call such as pipe2 or socket).
//!
//! The defaults are what Linux answers for an operation a file does not
//! have (read and write EINVAL, seek ESPIPE, ioctl ENOTTY, mmap ENODEV,
//! fsync EINVAL, epoll EPERM), so a kind implements only what it does;
//! for a file that is a node of the tree (`inode`), stat, truncate, fsync,
//! mmap and sendfile default to what every node has, as Linux's generic
//! file operations do.
//!
//! Per-open state (the offset, O_NONBLOCK, the access mode) is the open
//! file description's (fd.rs: `OpenFile`), passed in as `of` where needed.
//!
//! A few calls need the object itself: the socket calls their socket,
//! epoll_ctl its epoll instance, splice its pipe. They downcast
//! (`OpenFile::downcast`), which names the one type they work on.

use super::fd::OpenFile;
use super::inode::{Inode, Kind};
use super::pollhub::PollHub;
use super::stat::Stat;
use crate::mm::addrspace::AddressSpace;
use crate::mm::uaccess::{UserSlice, UserSpace};
use alloc::sync::Arc;
use core::any::Any;
use gometal_core::linux::errno::{Errno, EINVAL, ENODEV, ENOTTY, ESPIPE};
use gometal_core::mm::vma::Prot;

/// Bytes copied through the kernel at once by read and write (a file may
/// ask for more: `File::io_chunk`).
pub const IO_CHUNK: usize = 16 * 1024;

/// An open file of some kind. `of` is the open file description the call
/// came through (its offset and status flags).
pub trait File: Any + Send + Sync {
    /// read(2) into `buf` (already checked against the program's buffer),
    /// at the description's offset, or at `at` for pread (the offset stays).
    fn read(&self, of: &OpenFile, buf: &mut [u8], at: Option<u64>) -> Result<usize, Errno> {
        let _ = (of, buf, at);
        Err(EINVAL)
    }

    /// read(2) straight into the program's buffer `buf` (not yet checked),
    /// for a file that can fill it without a kernel buffer in between (a
    /// TCP connection through the NIC, net/nic/rx.rs); None: use `read`.
    fn read_user(&self, of: &OpenFile, user: &mut UserSpace, buf: UserSlice) -> Option<Result<usize, Errno>> {
        let _ = (of, user, buf);
        None
    }

    /// write(2) straight from the program's buffer `buf` (not yet
    /// checked), for a file that can take it without a kernel buffer in
    /// between (a TCP connection through the NIC); None: use `write`.
    fn write_user(&self, of: &OpenFile, user: &mut UserSpace, buf: UserSlice) -> Option<Result<usize, Errno>> {
        let _ = (of, user, buf);
        None
    }

    /// write(2) of `data` at the offset (the end with O_APPEND), or at
    /// `at` for pwrite; a short count when only part fit.
    fn write(&self, of: &OpenFile, data: &[u8], at: Option<u64>) -> Result<usize, Errno> {
        let _ = (of, data, at);
        Err(EINVAL)
    }

    /// The shortest buffer a read can fill (eventfd: 8); shorter is EINVAL.
    fn min_read(&self) -> usize {
        0
    }

    /// Bytes moved per step of a read or write.
    fn io_chunk(&self) -> usize {
        IO_CHUNK
    }

    /// A write of any length succeeds without the buffer being read
    /// (/dev/null: Linux never looks at it, a bad pointer included).
    fn discards_writes(&self) -> bool {
        false
    }

    /// Whether pread and pwrite work (else ESPIPE, as for a pipe).
    fn positional(&self) -> bool {
        false
    }

    /// lseek(2): the new offset.
    fn seek(&self, of: &OpenFile, offset: i64, whence: u32) -> Result<u64, Errno> {
        let _ = (of, offset, whence);
        Err(ESPIPE)
    }

    /// The ioctl requests of the kind (FIONBIO and FIOCLEX are the
    /// descriptor's, answered before this).
    fn ioctl(&self, user: &mut UserSpace, request: u32, arg: u64) -> Result<usize, Errno> {
        let _ = (user, request, arg);
        Err(ENOTTY)
    }

    /// fstat: the node's, or an anonymous inode's (eventfd, epoll).
    fn stat(&self) -> Stat {
        match self.inode() {
            Some(node) => Stat::of_inode(node, false),
            None => Stat::anonymous(),
        }
    }

    /// ftruncate(2): a node's size, through a description open for writing.
    fn truncate(&self, of: &OpenFile, len: i64) -> Result<(), Errno> {
        match self.inode() {
            Some(node) if of.writable() => super::regular::truncate_node(node, len),
            _ => Err(EINVAL),
        }
    }

    /// fallocate(2) making [offset, offset+len) part of the file (the
    /// caller checked the arguments and that `of` is writable).
    fn allocate(&self, offset: u64, len: u64, keep_size: bool) -> Result<(), Errno> {
        let _ = (offset, len, keep_size);
        Err(ENODEV)
    }

    /// fsync(2) and fdatasync(2): a node of a share is written back to
    /// the host (the in-memory tree has nowhere to write).
    fn fsync(&self) -> Result<(), Errno> {
        match self.inode() {
            Some(node) => super::hostfile::fsync(node),
            None => Err(EINVAL),
        }
    }

    /// What mmap of the file maps (a regular file's pages); None is ENODEV.
    fn mapping(&self) -> Option<Mapping<'_>> {
        self.inode().filter(|n| matches!(n.kind, Kind::File(_))).map(Mapping::Pages)
    }

    /// Where the file announces readiness changes to epoll; None for a
    /// file epoll refuses (EPERM: regular files and directories, which
    /// are always ready).
    fn poll_hub(&self) -> Option<PollHub> {
        None
    }

    /// Readiness as epoll event bits, and a counter that moves whenever it
    /// may have changed (edge-triggered interest reports a ready file
    /// again only after the counter moved).
    fn poll(&self, of: &OpenFile) -> (u32, u64) {
        let _ = of;
        (super::epoll::EPOLLIN | super::epoll::EPOLLOUT, super::epoll::global_generation())
    }

    /// The last descriptor of `of` is gone. By default epoll watches on
    /// the file are told, so the next wait drops them.
    fn closed(&self, of: &OpenFile) {
        let _ = of;
        if let Some(hub) = self.poll_hub() {
            hub.notify();
        }
    }

    /// The node in the file tree the file is (regular files, directories,
    /// O_PATH descriptors): stat by path, locks, chmod, statfs go there.
    fn inode(&self) -> Option<&Arc<Inode>> {
        None
    }

    /// splice may read from it into a pipe (sockets).
    fn splice_source(&self) -> bool {
        false
    }

    /// splice may write a pipe's bytes to it (a regular file, a socket).
    fn splice_target(&self) -> bool {
        self.inode().is_some_and(|n| matches!(n.kind, Kind::File(_)))
    }

    /// sendfile may read from it (a regular file).
    fn sendfile_source(&self) -> bool {
        self.inode().is_some_and(|n| matches!(n.kind, Kind::File(_)))
    }
}

/// What an mmap of a file maps.
pub enum Mapping<'a> {
    /// The file's own pages, brought in at a fault by fs/filemap.rs and
    /// placed like anonymous memory (regular files).
    Pages(&'a Arc<Inode>),
    /// Memory the file maps itself (UIO: device registers, DMA memory).
    Device(&'a dyn DeviceMemory),
}

/// A file that maps memory of its own into an address space.
pub trait DeviceMemory {
    /// Maps `len` bytes selected by `offset` at `hint` (exactly there if
    /// `fixed`); returns the address.
    fn map(&self, mm: &mut AddressSpace, hint: u64, len: u64, prot: Prot, fixed: bool, offset: u64) -> Result<u64, Errno>;
}

/// A node of the tree the kernel serves itself (a character device, a
/// sysfs or /proc file): opening it asks the opener for the file.
pub trait Opener: Send + Sync {
    /// The file an open of the node makes; `status` is the access mode and
    /// O_NONBLOCK, as F_GETFL will report them.
    fn open(&self, status: u32) -> Result<Arc<dyn File>, Errno>;

    /// The same, for an open by the program (openat), whose memory a
    /// generated /proc file may read (fs/synth.rs).
    fn open_in(&self, user: &mut UserSpace, status: u32) -> Result<Arc<dyn File>, Errno> {
        let _ = user;
        self.open(status)
    }

    /// (major, minor) for stat's st_rdev.
    fn rdev(&self) -> (u32, u32) {
        (0, 0)
    }
}

/// The usual lseek on a file of `size` bytes (SEEK_SET, SEEK_CUR,
/// SEEK_END); a negative result is EINVAL.
pub fn seek_in(of: &OpenFile, offset: i64, whence: u32, size: i64) -> Result<u64, Errno> {
    let mut position = of.offset.lock();
    let base = match whence {
        0 => 0,
        1 => *position as i64,
        2 => size,
        _ => return Err(EINVAL),
    };
    let new = base.checked_add(offset).filter(|&n| n >= 0).ok_or(EINVAL)?;
    *position = new as u64;
    Ok(new as u64)
}

/// `file` as the type it is, if it is a `T` (net/ finds the socket bound
/// to a path this way).
pub fn downcast_arc<T: File>(file: Arc<dyn File>) -> Option<Arc<T>> {
    let any: Arc<dyn Any + Send + Sync> = file;
    any.downcast().ok()
}

/// lseek on a node of the tree: SEEK_END is from its size, for a share's
/// file the host's size now.
pub fn seek_node(of: &OpenFile, node: &Inode, offset: i64, whence: u32) -> Result<u64, Errno> {
    if whence == 2 {
        super::hostops::refresh_attrs(node)?;
    }
    seek_in(of, offset, whence, node.size() as i64)
}

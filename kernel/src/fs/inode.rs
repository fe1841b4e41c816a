//! Inodes of the in-memory file system: files, directories, symlinks and
//! device nodes. File contents live in page frames (not the kernel heap), so
//! a program filling /tmp runs out of space with ENOSPC, never panics the
//! kernel. Files unpacked from the initramfs start out borrowing the archive
//! bytes and copy a page into a frame only when it is written.

use crate::mm::frames;
use crate::sched::clock;
use alloc::collections::BTreeMap;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use gometal_core::boot::cpio::{S_IFDIR, S_IFLNK, S_IFMT, S_IFREG};
use gometal_core::linux::errno::{Errno, EFBIG, ENOSPC};
use crate::sync::{Lock, LockClass};

pub const S_IFCHR: u32 = 0o020000;
pub const S_IFIFO: u32 = 0o010000;
const PAGE: u64 = crate::memlayout::PAGE_SIZE as u64;
/// Largest file (keeps offsets far from overflow).
pub const MAX_FILE_SIZE: u64 = 1 << 40;

pub struct Meta {
    pub mode: u32,
    pub nlink: u32,
    pub uid: u32,
    pub gid: u32,
    pub atime_ns: u64,
    pub mtime_ns: u64,
    pub ctime_ns: u64,
}

pub enum Kind {
    File(Lock<FileData>),
    Dir(Lock<BTreeMap<Vec<u8>, Arc<Inode>>>),
    Symlink(Vec<u8>),
    /// A node the kernel serves (/dev/null, /dev/uio0, a sysfs file):
    /// opening it makes the file its opener gives.
    Device(Arc<dyn super::file::Opener>),
    /// A named pipe (mknod S_IFIFO): the pipe exists while the node does.
    Fifo(Arc<super::pipe::Pipe>),
    /// An AF_UNIX socket's name (bind): connect finds the socket through it.
    /// (net/ keeps the socket; the tree knows it only as a file.)
    Socket(Weak<dyn super::file::File>),
}

pub struct Inode {
    pub ino: u64,
    pub kind: Kind,
    pub meta: Lock<Meta>,
    /// For a directory: its parent and its name there (None for the root
    /// and for a removed directory). Lets a directory descriptor or the
    /// working directory follow the directory through renames.
    pub place: Lock<Option<(Weak<Inode>, Vec<u8>)>>,
    /// Set for the inodes of a `-mount` share: where the node is on the
    /// host (fs/share.rs). Such a file's bytes are the host's (its
    /// FileData stays empty), and such a directory's entries are a cache
    /// of the host's.
    pub host: spin::Once<super::share::HostLink>,
    /// Set for a directory the kernel makes up (/proc/<pid>/fd): where its
    /// entries come from (fs/synth.rs).
    pub synth: spin::Once<Arc<dyn super::synth::DirSource>>,
}

static NEXT_INO: AtomicU64 = AtomicU64::new(1);
/// Page frames holding file contents. Like Linux's tmpfs, files may use at
/// most half of memory, so filling /tmp ends in ENOSPC while the program
/// itself still has room to run.
static FILE_PAGES: AtomicUsize = AtomicUsize::new(0);

/// Page frames holding file contents now (/proc/meminfo's Cached).
pub fn file_pages() -> usize {
    FILE_PAGES.load(Ordering::Relaxed)
}

fn file_page_limit() -> usize {
    frames::stats().total / 2
}

impl Inode {
    fn new(kind: Kind, mode: u32, mtime_ns: u64) -> Arc<Inode> {
        let meta = Meta { mode, nlink: 1, uid: 0, gid: 0, atime_ns: mtime_ns, mtime_ns, ctime_ns: mtime_ns };
        Arc::new(Inode {
            ino: NEXT_INO.fetch_add(1, Ordering::Relaxed),
            kind,
            meta: Lock::new(LockClass::InodeMeta, meta),
            place: Lock::new(LockClass::InodePlace, None),
            host: spin::Once::new(),
            synth: spin::Once::new(),
        })
    }

    pub fn new_file(perm: u32, initial: &'static [u8], mtime_ns: u64) -> Arc<Inode> {
        let data = FileData { size: initial.len() as u64, base: initial, pages: BTreeMap::new(), mapped_shared: false };
        Inode::new(Kind::File(Lock::new(LockClass::FileData, data)), S_IFREG | (perm & 0o7777), mtime_ns)
    }

    pub fn new_dir(perm: u32, mtime_ns: u64) -> Arc<Inode> {
        let d = Inode::new(Kind::Dir(Lock::new(LockClass::DirEntries, BTreeMap::new())), S_IFDIR | (perm & 0o7777), mtime_ns);
        d.meta.lock().nlink = 2;
        d
    }

    pub fn new_symlink(target: Vec<u8>, mtime_ns: u64) -> Arc<Inode> {
        Inode::new(Kind::Symlink(target), S_IFLNK | 0o777, mtime_ns)
    }

    pub fn new_fifo(perm: u32, pipe: Arc<super::pipe::Pipe>, mtime_ns: u64) -> Arc<Inode> {
        Inode::new(Kind::Fifo(pipe), S_IFIFO | (perm & 0o7777), mtime_ns)
    }

    pub fn new_socket(perm: u32, sock: Weak<dyn super::file::File>, mtime_ns: u64) -> Arc<Inode> {
        Inode::new(Kind::Socket(sock), 0o140000 | (perm & 0o7777), mtime_ns)
    }

    pub fn new_device(opener: Arc<dyn super::file::Opener>) -> Arc<Inode> {
        Inode::new(Kind::Device(opener), S_IFCHR | 0o666, 0)
    }

    /// A node served by `opener` that stat shows with `mode` (a /proc
    /// file is a regular file: fs/synth.rs).
    pub fn new_served(opener: Arc<dyn super::file::Opener>, mode: u32) -> Arc<Inode> {
        Inode::new(Kind::Device(opener), mode, 0)
    }

    pub fn is_dir(&self) -> bool {
        matches!(self.kind, Kind::Dir(_))
    }

    pub fn file_type(&self) -> u32 {
        self.meta.lock().mode & S_IFMT
    }

    /// The host side of a node in a share, if it is in one.
    pub fn host(&self) -> Option<&super::share::HostLink> {
        self.host.get()
    }

    pub fn size(&self) -> u64 {
        if let Some(h) = self.host() {
            if matches!(self.kind, Kind::File(_)) {
                return h.data.lock().size;
            }
        }
        match &self.kind {
            Kind::File(f) => f.lock().size,
            Kind::Symlink(t) => t.len() as u64,
            _ => 0,
        }
    }

    /// Records a change of contents (mtime and ctime).
    pub fn touch(&self) {
        let now = clock::realtime_ns();
        let mut m = self.meta.lock();
        m.mtime_ns = now;
        m.ctime_ns = now;
    }
}

/// A file's bytes: pages written since boot live in frames; the rest come
/// from the initramfs (`base`) or read as zero.
pub struct FileData {
    pub size: u64,
    base: &'static [u8],
    pages: BTreeMap<u64, u64>,
    /// Set once the file is mapped MAP_SHARED: its frames may sit in page
    /// tables, so a shrink zeroes them instead of freeing them (they go
    /// with the file). fs/filemap.rs sets it.
    pub mapped_shared: bool,
}

impl FileData {
    /// Copies file bytes at `offset` into `buf`; returns how many (0 at end).
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> usize {
        if offset >= self.size {
            return 0;
        }
        let n = (buf.len() as u64).min(self.size - offset) as usize;
        let mut done = 0;
        while done < n {
            let pos = offset + done as u64;
            let (index, within) = (pos / PAGE, (pos % PAGE) as usize);
            let chunk = (PAGE as usize - within).min(n - done);
            let out = &mut buf[done..done + chunk];
            match self.pages.get(&index) {
                Some(&pa) => frames::read_frame(pa, within, out),
                None => {
                    out.fill(0);
                    let p = pos as usize;
                    if p < self.base.len() {
                        let m = chunk.min(self.base.len() - p);
                        out[..m].copy_from_slice(&self.base[p..p + m]);
                    }
                }
            }
            done += chunk;
        }
        n
    }

    /// The frame holding page `index`, made private (copied from the
    /// initramfs, or zeroed) on first write.
    fn page_mut(&mut self, index: u64) -> Result<u64, Errno> {
        if let Some(&pa) = self.pages.get(&index) {
            return Ok(pa);
        }
        if FILE_PAGES.fetch_add(1, Ordering::AcqRel) >= file_page_limit() {
            FILE_PAGES.fetch_sub(1, Ordering::AcqRel);
            return Err(ENOSPC);
        }
        let Some(pa) = frames::alloc_zeroed() else {
            FILE_PAGES.fetch_sub(1, Ordering::AcqRel);
            return Err(ENOSPC);
        };
        let start = (index * PAGE) as usize;
        if start < self.base.len() {
            let end = (start + PAGE as usize).min(self.base.len());
            frames::write_frame(pa, 0, &self.base[start..end]);
        }
        self.pages.insert(index, pa);
        Ok(pa)
    }

    /// The frame holding page `index` for a MAP_SHARED mapping (the file's
    /// own page, so writes through either side are seen by the other).
    pub fn frame_for_mapping(&mut self, index: u64) -> Result<u64, Errno> {
        self.page_mut(index)
    }

    /// Writes `data` at `offset`, growing the file; returns bytes written
    /// (short only when space ran out part way).
    pub fn write(&mut self, offset: u64, data: &[u8]) -> Result<usize, Errno> {
        let end = offset.checked_add(data.len() as u64).filter(|&e| e <= MAX_FILE_SIZE).ok_or(EFBIG)?;
        let mut done = 0;
        while done < data.len() {
            let pos = offset + done as u64;
            let (index, within) = (pos / PAGE, (pos % PAGE) as usize);
            let chunk = (PAGE as usize - within).min(data.len() - done);
            let pa = match self.page_mut(index) {
                Ok(pa) => pa,
                Err(e) if done == 0 => return Err(e),
                Err(_) => break,
            };
            frames::write_frame(pa, within, &data[done..done + chunk]);
            done += chunk;
            self.size = self.size.max(pos + chunk as u64);
        }
        debug_assert!(self.size >= end.min(offset + done as u64));
        Ok(done)
    }

    /// Sets the size; bytes past a shrink read as zero if the file grows again.
    pub fn truncate(&mut self, len: u64) -> Result<(), Errno> {
        if len > MAX_FILE_SIZE {
            return Err(EFBIG);
        }
        if len < self.size {
            let first_gone = len.div_ceil(PAGE);
            let gone: Vec<u64> = self.pages.range(first_gone..).map(|(&i, _)| i).collect();
            for i in gone {
                if self.mapped_shared {
                    frames::zero_frame(self.pages[&i], 0);
                    continue;
                }
                if let Some(pa) = self.pages.remove(&i) {
                    frames::free(pa);
                    FILE_PAGES.fetch_sub(1, Ordering::AcqRel);
                }
            }
            if !len.is_multiple_of(PAGE) {
                if let Some(&pa) = self.pages.get(&(len / PAGE)) {
                    frames::zero_frame(pa, (len % PAGE) as usize);
                }
            }
            self.base = &self.base[..self.base.len().min(len as usize)];
        }
        self.size = len;
        Ok(())
    }

    /// The contents as one slice of the initramfs, if no page was written
    /// since boot (so the loader need not copy a program image).
    pub fn unmodified(&self) -> Option<&'static [u8]> {
        (self.pages.is_empty() && self.size == self.base.len() as u64).then_some(self.base)
    }

    /// 512-byte blocks in use, for stat.
    pub fn blocks(&self) -> u64 {
        (self.pages.len() as u64 * PAGE + self.base.len() as u64).div_ceil(512)
    }
}

impl Drop for FileData {
    fn drop(&mut self) {
        for (_, pa) in core::mem::take(&mut self.pages) {
            frames::free(pa);
            FILE_PAGES.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

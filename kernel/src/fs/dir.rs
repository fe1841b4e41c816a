//! A directory, open (of the in-memory tree or of a share: the tree
//! holds both, and a share's entries are read again from the host when a
//! listing starts). getdents (linux/dirs.rs) lists it; it has no bytes to
//! read or write, and its offset counts the entries listed so far.

use super::fd::OpenFile;
use super::file::{seek_in, File};
use super::inode::Inode;
use alloc::sync::Arc;
use gometal_core::linux::errno::{Errno, EISDIR};

pub struct DirFile {
    node: Arc<Inode>,
}

impl DirFile {
    pub fn new(node: Arc<Inode>) -> Arc<DirFile> {
        Arc::new(DirFile { node })
    }
}

impl File for DirFile {
    fn read(&self, _: &OpenFile, _: &mut [u8], _: Option<u64>) -> Result<usize, Errno> {
        Err(EISDIR)
    }

    fn write(&self, _: &OpenFile, _: &[u8], _: Option<u64>) -> Result<usize, Errno> {
        Err(EISDIR)
    }

    /// SEEK_SET 0 rewinds a listing; SEEK_END is the end of nothing.
    fn seek(&self, of: &OpenFile, offset: i64, whence: u32) -> Result<u64, Errno> {
        seek_in(of, offset, whence, 0)
    }

    fn allocate(&self, _: u64, _: u64, _: bool) -> Result<(), Errno> {
        Err(EISDIR)
    }

    fn inode(&self) -> Option<&Arc<Inode>> {
        Some(&self.node)
    }
}

//! An O_PATH descriptor of a node that is neither a regular file nor a
//! directory (a symlink opened with O_NOFOLLOW, a device, a FIFO, a
//! socket): it names the node without opening it. Reading and writing
//! are EBADF (fd.rs: an O_PATH description is neither readable nor
//! writable); stat, the *at calls and lseek work on the node.

use super::fd::OpenFile;
use super::file::{seek_node, File};
use super::inode::Inode;
use alloc::sync::Arc;
use gometal_core::linux::errno::Errno;

pub struct PathFile {
    node: Arc<Inode>,
}

impl PathFile {
    pub fn new(node: Arc<Inode>) -> Arc<PathFile> {
        Arc::new(PathFile { node })
    }
}

impl File for PathFile {
    /// So pread is EBADF (not readable) rather than ESPIPE.
    fn positional(&self) -> bool {
        true
    }

    fn seek(&self, of: &OpenFile, offset: i64, whence: u32) -> Result<u64, Errno> {
        seek_node(of, &self.node, offset, whence)
    }

    fn inode(&self) -> Option<&Arc<Inode>> {
        Some(&self.node)
    }
}

//! From a node of the tree to an open file: which kind of file an open
//! makes (openat, linux/fs.rs), with Linux's answers for the nodes that
//! cannot be opened as asked. Nodes the kernel serves itself bring their
//! own `Opener` (file.rs).

use super::dir::DirFile;
use super::fd::{O_RDONLY, O_WRONLY};
use super::file::File;
use super::inode::{Inode, Kind};
use super::pathfile::PathFile;
use super::regular::{truncate_node, MemFile};
use super::sharefile::HostFile;
use crate::mm::uaccess::UserSpace;
use alloc::sync::Arc;
use gometal_core::linux::errno::{Errno, EISDIR, ELOOP, ENOTDIR, ENXIO};

/// openat's flags, decoded.
pub struct OpenHow {
    /// O_RDONLY, O_WRONLY or O_RDWR.
    pub access: u32,
    /// The access mode and O_NONBLOCK, O_APPEND, O_PATH: F_GETFL's word.
    pub status: u32,
    pub create: bool,
    pub truncate: bool,
    /// O_DIRECTORY: anything else is ENOTDIR.
    pub directory: bool,
    /// O_PATH: name the node without opening it.
    pub path_only: bool,
    pub nonblock: bool,
}

/// The file an open of `node` makes.
pub fn open_node(user: &mut UserSpace, node: &Arc<Inode>, how: &OpenHow) -> Result<Arc<dyn File>, Errno> {
    if how.path_only {
        return Ok(node_file(node));
    }
    let writing = how.access != O_RDONLY;
    match &node.kind {
        Kind::Symlink(_) => Err(ELOOP), // O_NOFOLLOW on a symlink
        Kind::Dir(_) if writing || how.create => Err(EISDIR),
        Kind::Dir(_) => Ok(DirFile::new(node.clone())),
        _ if how.directory => Err(ENOTDIR),
        Kind::Device(opener) => opener.open_in(user, how.status),
        Kind::Socket(_) => Err(ENXIO), // as Linux: sockets are not opened
        Kind::Fifo(pipe) => {
            pipe.open_end(how.access != O_WRONLY, writing, how.nonblock)?;
            Ok(pipe.clone())
        }
        Kind::File(_) => {
            if writing || how.truncate {
                super::readonly::check(node)?;
            }
            if how.truncate && writing {
                truncate_node(node, 0)?;
            }
            // For a share's file the walk checked the name against the
            // host: `node` is the file the host has under it now.
            Ok(node_file(node))
        }
    }
}

/// The file that stands for `node` itself: its bytes for a regular file
/// (the host's for a share's), a directory, or an O_PATH name.
fn node_file(node: &Arc<Inode>) -> Arc<dyn File> {
    match &node.kind {
        Kind::Dir(_) => DirFile::new(node.clone()),
        Kind::File(_) if node.host().is_some() => HostFile::new(node.clone()),
        Kind::File(_) => MemFile::new(node.clone()),
        _ => PathFile::new(node.clone()),
    }
}

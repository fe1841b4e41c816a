//! Read-only mounts (`-mount HOST:GUEST:ro`) and the borders of shares:
//! every call that would change a node of a read-only share fails with
//! EROFS as on Linux (open for writing or truncating, O_CREAT, mkdir,
//! mknod, unlink, rmdir, rename, link, symlink, chmod, chown, utimensat,
//! truncate). A node knows its share (fs/share.rs), so nodes the host adds
//! while the program runs are covered too. Moving a name between a share
//! and the rest of the tree, or between two shares, is EXDEV, as Linux
//! answers any rename or link across mounts.

use super::inode::Inode;
use gometal_core::linux::errno::{Errno, EROFS, EXDEV};

pub fn is_read_only(node: &Inode) -> bool {
    node.host().is_some_and(|h| h.share.spec.read_only)
}

/// EROFS if `node` (a file to change, or a directory to change entries
/// of) is on a read-only mount.
pub fn check(node: &Inode) -> Result<(), Errno> {
    if is_read_only(node) { Err(EROFS) } else { Ok(()) }
}

/// For a rename or link from directory `from` to directory `to`: EXDEV if
/// they are on different mounts, EROFS if both are on the same read-only
/// one.
pub fn check_move(from: &Inode, to: &Inode) -> Result<(), Errno> {
    if !super::share::same_share(from, to) {
        return Err(EXDEV);
    }
    check(from)
}

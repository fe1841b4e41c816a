//! Changes to a share's names and attributes, made on the host at the
//! call (fs/tree.rs and linux/dirs.rs call these before they change their
//! cache): creating files, directories, symlinks and hard links, removing,
//! renaming, and setting mode, owner, times and size. The host file system
//! decides, so its errors (EEXIST, ENOTEMPTY, EACCES, ...) are the
//! program's, as on Linux's v9fs.

use super::inode::{Inode, Kind};
use super::p9client::{SetAttr, O_RDWR};
use super::share::{self, HostLink};
use alloc::sync::Arc;
use gometal_core::linux::errno::{Errno, EPERM, EXDEV};
use gometal_core::fs::p9;

const O_CREAT: u32 = 0o100;
const O_EXCL: u32 = 0o200;

/// Makes `node` (new, in memory) exist as `name` in shared directory
/// `dir`, and links it to the host; or, for a node already in the share,
/// adds a hard link. EPERM for FIFOs and sockets (not made on the host).
pub fn create(dir: &Inode, name: &[u8], node: &Arc<Inode>) -> Result<(), Errno> {
    let Some(h) = dir.host() else { return Ok(()) };
    if let Some(nh) = node.host() {
        if !Arc::ptr_eq(&nh.share, &h.share) {
            return Err(EXDEV);
        }
        h.share.with(|c| c.link(h.fid, nh.fid, name))?;
        return refresh_attrs(node);
    }
    let mode = node.meta.lock().mode & 0o7777;
    let share = h.share.clone();
    let (fid, io_fid, attr) = share.with(|c| -> Result<_, Errno> {
        let mut io_fid = None;
        match &node.kind {
            Kind::File(_) => {
                // Tlcreate turns a fid of the directory into the new file's,
                // open for reading and writing.
                let fid = c.walk(h.fid, &[])?;
                if let Err(e) = c.lcreate(fid, name, O_RDWR | O_CREAT | O_EXCL, mode) {
                    c.clunk(fid);
                    return Err(e);
                }
                io_fid = Some(fid);
            }
            Kind::Dir(_) => c.mkdir(h.fid, name, mode)?,
            Kind::Symlink(target) => c.symlink(h.fid, name, target)?,
            _ => return Err(EPERM),
        }
        let fid = c.walk(h.fid, &[name])?;
        match c.getattr(fid) {
            Ok(attr) => Ok((fid, io_fid, attr)),
            Err(e) => {
                c.clunk(fid);
                if let Some(f) = io_fid {
                    c.clunk(f);
                }
                Err(e)
            }
        }
    })?;
    share::set_meta(node, &attr);
    let data = super::hostfile::HostData::opened(io_fid, attr.ino);
    node.host.call_once(|| HostLink::new(share, fid, false, data));
    Ok(())
}

/// Removes `name` from shared directory `dir` on the host.
pub fn remove(dir: &Inode, name: &[u8], is_dir: bool) -> Result<(), Errno> {
    let Some(h) = dir.host() else { return Ok(()) };
    h.share.with(|c| c.unlinkat(h.fid, name, is_dir))
}

/// Renames on the host; both directories are in the same share (the
/// caller checked: EXDEV otherwise).
pub fn rename(from: (&Inode, &[u8]), to: (&Inode, &[u8])) -> Result<(), Errno> {
    let (Some(a), Some(b)) = (from.0.host(), to.0.host()) else { return Err(EXDEV) };
    if !Arc::ptr_eq(&a.share, &b.share) {
        return Err(EXDEV);
    }
    a.share.with(|c| c.renameat(a.fid, from.1, b.fid, to.1))
}

/// Sets what `valid` names on the host, then reads the attributes back.
/// Ok(false) for a node not in a share (the caller changes its own copy).
pub fn setattr(node: &Inode, valid: u32, set: &SetAttr) -> Result<bool, Errno> {
    let Some(h) = node.host() else { return Ok(false) };
    h.share.with(|c| c.setattr(h.fid, valid, set))?;
    refresh_attrs(node)?;
    Ok(true)
}

/// Reads `node`'s attributes from the host into its metadata (and a
/// file's size): stat, lseek to the end. A file is asked through its open
/// fid when it has one (it answers for the very file this node opened,
/// even once the name is gone or stands for another file), else by name.
pub fn refresh_attrs(node: &Inode) -> Result<(), Errno> {
    let Some(h) = node.host() else { return Ok(()) };
    if h.share.cached() {
        return Ok(()); // cache=loose: the attributes the lookup saw
    }
    let is_file = matches!(node.kind, Kind::File(_));
    // A write finishing meanwhile must not be undone by an older size.
    let _writes = is_file.then(|| h.writing.lock());
    let fid = if is_file { h.data.lock().io_fid.unwrap_or(h.fid) } else { h.fid };
    let attr = h.share.with(|c| c.getattr(fid))?;
    if is_file {
        h.data.lock().host_size(attr.size);
    }
    share::set_meta(node, &attr);
    Ok(())
}

/// Tsetattr's bits for a mode, an owner, times.
pub const MODE: u32 = p9::SETATTR_MODE;
pub const UID: u32 = p9::SETATTR_UID;
pub const GID: u32 = p9::SETATTR_GID;
pub const ATIME: u32 = p9::SETATTR_ATIME;
pub const MTIME: u32 = p9::SETATTR_MTIME;
pub const ATIME_SET: u32 = p9::SETATTR_ATIME_SET;
pub const MTIME_SET: u32 = p9::SETATTR_MTIME_SET;

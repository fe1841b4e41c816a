//! /proc/<pid>/fd and fdinfo: one entry per open descriptor, made when
//! looked up or listed. fd/N is a symlink to what the descriptor is, as
//! Linux names it: the path it was opened by, `pipe:[N]`, `socket:[N]`,
//! `anon_inode:[eventfd]`, `anon_inode:[eventpoll]`. (Linux's links are
//! "magic": opening one reopens the file; here they are plain symlinks,
//! so opening one works for files by path only.)

use crate::fs::epoll::Epoll;
use crate::fs::eventfd::EventFd;
use crate::fs::fd::OpenFile;
use crate::fs::inode::{Inode, Kind, S_IFIFO};
use crate::fs::synth::DirSource;
use crate::mm::uaccess::UserSpace;
use crate::net::socket::Socket;
use crate::process::process;
use alloc::format;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;
use gometal_core::linux::errno::{Errno, ENOENT};

/// O_CLOEXEC as fdinfo's flags show it.
const O_CLOEXEC: u32 = 0o2000000;
/// O_LARGEFILE (the architecture's value): Linux sets it on every open of
/// a 64-bit program.
const O_LARGEFILE: u32 = crate::arch::O_LARGEFILE;

/// The inode number /proc shows for a file: the node's, or for a pipe,
/// socket or other kernel object a number made from its address (the
/// same one /proc/net/tcp shows for the socket).
pub fn object_ino(of: &OpenFile) -> u64 {
    match of.file.inode() {
        Some(node) => node.ino,
        None => (Arc::as_ptr(&of.file) as *const () as u64 >> 4) & 0xffff_ffff,
    }
}

/// What fd/N points to.
fn link_target(of: &OpenFile) -> Vec<u8> {
    if let Some(path) = of.path.get() {
        return path.clone();
    }
    if let Some(node) = of.file.inode() {
        if node.is_dir() {
            if let Ok(p) = crate::fs::tree::path_of(node) {
                return p;
            }
        }
    }
    let ino = object_ino(of);
    if of.downcast::<Socket>().is_some() {
        format!("socket:[{ino}]").into_bytes()
    } else if of.downcast::<EventFd>().is_some() {
        b"anon_inode:[eventfd]".to_vec()
    } else if of.downcast::<Epoll>().is_some() {
        b"anon_inode:[eventpoll]".to_vec()
    } else if of.stat().mode & 0o170000 == S_IFIFO {
        format!("pipe:[{ino}]").into_bytes()
    } else if of.stat().mode & 0o170000 == crate::fs::inode::S_IFCHR {
        b"/dev/console".to_vec()
    } else {
        format!("anon_inode:[{ino}]").into_bytes()
    }
}

/// (inode number, path) of every descriptor opened by a path (maps names
/// file mappings with them).
pub fn paths_by_inode() -> Vec<(u64, Vec<u8>)> {
    let files = process().fs.files.lock();
    files.open_fds().filter_map(|(_, of, _)| Some((of.file.inode()?.ino, of.path.get()?.clone()))).collect()
}

fn open_fd(name: &[u8]) -> Option<(Arc<OpenFile>, bool)> {
    let fd: usize = core::str::from_utf8(name).ok()?.parse().ok()?;
    let files = process().fs.files.lock();
    Some((files.get(fd).ok()?, files.cloexec(fd).ok()?))
}

fn fd_names() -> Vec<Vec<u8>> {
    process().fs.files.lock().open_fds().map(|(fd, _, _)| format!("{fd}").into_bytes()).collect()
}

/// fd/: the descriptors as symlinks.
pub struct Fds;

impl DirSource for Fds {
    fn names(&self) -> Vec<Vec<u8>> {
        fd_names()
    }

    fn make(&self, name: &[u8]) -> Option<Arc<Inode>> {
        let (of, _) = open_fd(name)?;
        Some(Inode::new_symlink(link_target(&of), 0))
    }

    fn current(&self, name: &[u8], node: &Inode) -> bool {
        match (open_fd(name), &node.kind) {
            (Some((of, _)), Kind::Symlink(target)) => *target == link_target(&of),
            _ => false,
        }
    }
}

/// fdinfo/: offset, flags, mount and inode of each descriptor.
pub struct FdInfos;

impl DirSource for FdInfos {
    fn names(&self) -> Vec<Vec<u8>> {
        fd_names()
    }

    fn make(&self, name: &[u8]) -> Option<Arc<Inode>> {
        open_fd(name)?;
        let fd: u32 = core::str::from_utf8(name).ok()?.parse().ok()?;
        Some(super::text::numbered(fd, fdinfo))
    }
}

fn fdinfo(fd: u32, _: &mut UserSpace) -> Result<Vec<u8>, Errno> {
    let (of, cloexec) = open_fd(format!("{fd}").as_bytes()).ok_or(ENOENT)?;
    let mut flags = of.status.load(Ordering::Relaxed) | O_LARGEFILE;
    if cloexec {
        flags |= O_CLOEXEC;
    }
    let pos = *of.offset.lock();
    Ok(gometal_core::procfs::task::fdinfo(pos, flags, super::ROOT_MOUNT_ID, object_ino(&of)).into_bytes())
}

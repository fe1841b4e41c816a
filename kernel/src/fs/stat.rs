//! What stat reports about a file, filled in by each kind (`File::stat`)
//! or from a node of the tree (`Stat::of_inode`); linux/stat.rs lays it
//! out as `struct stat` and `struct statx`.

use super::inode::{Inode, Kind, S_IFCHR, S_IFIFO};

#[derive(Default)]
pub struct Stat {
    pub ino: u64,
    pub mode: u32,
    pub nlink: u32,
    pub uid: u32,
    pub gid: u32,
    pub size: u64,
    pub blocks: u64,
    /// (major, minor) of a device.
    pub rdev: (u32, u32),
    pub atime_ns: u64,
    pub mtime_ns: u64,
    pub ctime_ns: u64,
}

impl Stat {
    /// A file with no node of its own (eventfd, epoll): Linux's anonymous
    /// inode, mode 0600.
    pub fn anonymous() -> Stat {
        Stat { mode: 0o600, nlink: 1, ..Stat::default() }
    }

    /// A pipe end (and a standard stream that is no terminal).
    pub fn pipe() -> Stat {
        Stat { mode: S_IFIFO | 0o600, nlink: 1, ..Stat::default() }
    }

    /// A character device with permissions `perm`.
    pub fn char_device(perm: u32, rdev: (u32, u32)) -> Stat {
        Stat { mode: S_IFCHR | perm, nlink: 1, rdev, ..Stat::default() }
    }

    /// `n`'s metadata; for a share's node, the host's attributes as they
    /// are now, read again unless `fresh` (a path walk just read them); if
    /// the host does not answer, the last ones seen.
    pub fn of_inode(n: &Inode, fresh: bool) -> Stat {
        if !fresh {
            let _ = super::hostops::refresh_attrs(n);
        }
        let host_file = n.host().filter(|_| matches!(n.kind, Kind::File(_))).map(|h| h.data.lock().size);
        let m = n.meta.lock();
        let (size, blocks) = match &n.kind {
            Kind::File(_) if host_file.is_some() => {
                let size = host_file.unwrap_or(0);
                (size, size.div_ceil(512))
            }
            Kind::File(d) => {
                let d = d.lock();
                (d.size, d.blocks())
            }
            Kind::Symlink(t) => (t.len() as u64, 0),
            Kind::Dir(_) => (4096, 8),
            Kind::Device(_) | Kind::Fifo(_) | Kind::Socket(_) => (0, 0),
        };
        let rdev = if let Kind::Device(d) = &n.kind { d.rdev() } else { (0, 0) };
        Stat {
            ino: n.ino,
            mode: m.mode,
            nlink: m.nlink,
            uid: m.uid,
            gid: m.gid,
            size,
            blocks,
            rdev,
            atime_ns: m.atime_ns,
            mtime_ns: m.mtime_ns,
            ctime_ns: m.ctime_ns,
        }
    }
}

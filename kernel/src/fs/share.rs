//! Host directories mounted in (`gometal run -mount HOST:GUEST[:ro]`), live
//! as Linux's v9fs with cache=none: nothing is copied at boot. A name not
//! yet known under a shared directory is looked up on the host (Twalk,
//! Tgetattr) and kept in the directory's entries, which are a cache of the
//! host's; a name found there is checked again at each use (Tgetattr on
//! its fid: gone, or now another host file, and it is looked up afresh,
//! while descriptors already open keep the file they opened); a listing
//! (getdents at offset 0) reads the host directory again and brings the
//! cache up to date (fs/sharedir.rs). So what the host adds, removes or replaces while the
//! program runs is seen at the next use. Every inode of a share carries a
//! `HostLink`: its share and a fid walked to it. File data goes to the host
//! at each read and write (fs/hostfile.rs); creating, removing, renaming
//! and changing attributes go to the host at the call (fs/hostops.rs).
//!
//! Nothing escapes the share: the client never follows a host symlink (it
//! reads the link and makes a guest symlink, which resolves inside the
//! guest's tree), walks one name at a time from a fid of the share, and
//! QEMU's local backend refuses paths outside the shared directory.
//!
//! A share mounted `ro,cache=loose` (`gometal exec`'s module share) is not
//! live: what the host said is kept, as Linux's 9p `cache=loose` keeps it,
//! for a directory nobody changes during the run (fs/sharecache.rs).

use super::inode::Inode;
use super::p9client::Client;
use super::tree;
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::boot::cpio::{S_IFDIR, S_IFLNK, S_IFMT, S_IFREG};
use gometal_core::linux::errno::{Errno, ENODEV, ENOTDIR};
use gometal_core::fs::p9::{parse_mount, Attr, MountSpec};
use crate::sched::sleeplock::SleepLock;
use crate::sync::{Lock, LockClass};

pub struct Share {
    pub spec: MountSpec,
    /// Shared by every thread without a lock: requests of several threads
    /// are in flight at once (fs/p9client.rs).
    client: Client,
    root_fid: u32,
    /// Fids of inodes that were dropped, clunked at the next request (an
    /// inode is dropped where a round trip cannot be made: under locks).
    dead_fids: Lock<Vec<u32>>,
}

impl Share {
    /// Mounted `cache=loose` (read-only): entries, attributes, listings
    /// and file pages are kept once read (fs/sharecache.rs).
    pub fn cached(&self) -> bool {
        self.spec.cached
    }

    /// 9P requests sent to the host so far (the `stats` report).
    pub fn requests(&self) -> u64 {
        self.client.requests()
    }
}

impl Share {
    /// Runs `f` with the client, after clunking the fids of dropped inodes.
    /// The caller holds no spin lock: the requests sleep until answered.
    pub fn with<R>(&self, f: impl FnOnce(&Client) -> R) -> R {
        let dead = core::mem::take(&mut *self.dead_fids.lock());
        for fid in dead {
            self.client.clunk(fid);
        }
        f(&self.client)
    }

    /// `with` for a caller holding a spin lock (a page fault holds the
    /// address-space lock): its requests poll for their replies.
    pub fn with_polling<R>(&self, f: impl FnOnce(&Client) -> R) -> R {
        f(&self.client.polling())
    }
}

/// Where a node of a share is on the host.
pub struct HostLink {
    pub share: Arc<Share>,
    /// Walked to the node and never opened: for walks, attributes, links.
    pub fid: u32,
    /// The share's mount point (it cannot be removed or renamed).
    pub is_root: bool,
    /// A regular file's I/O state (fs/hostfile.rs); unused for the rest.
    /// A spin lock, never held across a round trip.
    pub data: Lock<super::hostfile::HostData>,
    /// Held by a write, truncate or write-back for its whole course, so one
    /// file's changes reach the host in the program's order (and an append
    /// finds the size the previous one left).
    pub writing: SleepLock<()>,
}

impl HostLink {
    pub fn new(share: Arc<Share>, fid: u32, is_root: bool, data: super::hostfile::HostData) -> HostLink {
        HostLink { share, fid, is_root, data: Lock::new(LockClass::HostData, data), writing: SleepLock::new(()) }
    }
}

impl Drop for HostLink {
    fn drop(&mut self) {
        let mut dead = self.share.dead_fids.lock();
        dead.push(self.fid);
        let data = self.data.get_mut();
        if let Some(fid) = data.io_fid.take() {
            dead.push(fid);
        }
        drop(dead);
        data.free_pages();
    }
}

/// Mounts every `mount=` option; a failure is reported and the mount
/// skipped (the program then finds an empty directory, or none).
pub fn mount_all(options: &[Vec<u8>]) {
    for opt in options {
        let Some(spec) = parse_mount(opt) else {
            crate::println!("gometal: bad mount option {:?}", alloc::string::String::from_utf8_lossy(opt));
            continue;
        };
        let guest = alloc::string::String::from_utf8_lossy(&spec.guest).into_owned();
        if let Err(e) = mount(spec) {
            crate::println!("gometal: cannot mount the host directory at {guest}: {e:?}");
        }
    }
}

/// The shares mounted, for /proc/mounts and the `stats` report.
static MOUNTED: Lock<Vec<Arc<Share>>> = Lock::new(LockClass::Mounts, Vec::new());

pub fn mounted() -> Vec<MountSpec> {
    MOUNTED.lock().iter().map(|s| s.spec.clone()).collect()
}

/// Each share's requests to the host, and the cache's figures (`stats`).
pub fn report() {
    let shares: Vec<Arc<Share>> = MOUNTED.lock().clone();
    for s in &shares {
        let guest = alloc::string::String::from_utf8_lossy(&s.spec.guest);
        let tag = alloc::string::String::from_utf8_lossy(&s.spec.tag);
        let how = match (s.spec.read_only, s.spec.cached) {
            (_, true) => "ro, cache=loose",
            (true, false) => "ro",
            (false, false) => "rw",
        };
        crate::println!("gometal: share {tag} at {guest} ({how}): {} requests to the host", s.requests());
    }
    if shares.iter().any(|s| s.spec.cached) {
        super::sharecache::report();
    }
}

fn mount(spec: MountSpec) -> Result<(), Errno> {
    let dev = crate::drivers::virtio::p9::take(&spec.tag).ok_or(ENODEV)?;
    let (client, root_fid) = Client::start(dev)?;
    let fid = client.walk(root_fid, &[])?;
    let attr = client.getattr(fid)?;
    let dir = make_dirs(&spec.guest)?;
    if spec.cached {
        super::sharecache::start();
    }
    let share = Arc::new(Share { spec, client: client.sleeping(), root_fid, dead_fids: Lock::new(LockClass::DeadFids, Vec::new()) });
    MOUNTED.lock().push(share.clone());
    set_meta(&dir, &attr);
    dir.host.call_once(|| HostLink::new(share.clone(), fid, true, Default::default()));
    Ok(())
}

/// mkdir -p in the in-memory tree, for the mount point.
fn make_dirs(path: &[u8]) -> Result<Arc<Inode>, Errno> {
    let mut dir = tree::root();
    for name in path.split(|&b| b == b'/').filter(|n| !n.is_empty()) {
        dir = match tree::child(&dir, name) {
            Some(d) if d.is_dir() && d.host().is_none() => d,
            Some(_) => return Err(ENOTDIR),
            None => {
                let d = Inode::new_dir(0o755, crate::sched::clock::realtime_ns());
                tree::link(&dir, name, d.clone())?;
                d
            }
        };
    }
    Ok(dir)
}

/// Copies the host's attributes into `node`'s metadata.
pub fn set_meta(node: &Inode, a: &Attr) {
    let mut m = node.meta.lock();
    m.mode = (m.mode & S_IFMT) | (a.mode & 0o7777);
    m.nlink = a.nlink.min(u32::MAX as u64) as u32;
    (m.uid, m.gid) = (a.uid, a.gid);
    (m.atime_ns, m.mtime_ns, m.ctime_ns) = (a.atime_ns, a.mtime_ns, a.ctime_ns);
}

/// A node for the host entry `fid` (owned: it becomes the node's) with
/// attributes `attr`; None for what gometal does not show (devices,
/// sockets, FIFOs), whose fid is then clunked.
pub fn make_node(share: &Arc<Share>, c: &Client, fid: u32, attr: &Attr) -> Option<Arc<Inode>> {
    let perm = attr.mode & 0o7777;
    let node = match attr.mode & S_IFMT {
        S_IFDIR => Inode::new_dir(perm, attr.mtime_ns),
        S_IFLNK => match c.readlink(fid) {
            Ok(target) => Inode::new_symlink(target, attr.mtime_ns),
            Err(_) => return clunk(c, fid),
        },
        S_IFREG => Inode::new_file(perm, &[], attr.mtime_ns),
        _ => return clunk(c, fid),
    };
    set_meta(&node, attr);
    let mut data = super::hostfile::HostData::with_size(attr.size, attr.ino);
    if share.cached() && attr.mode & S_IFMT == S_IFREG {
        data.cache_as(node.ino, Arc::downgrade(&node));
    }
    node.host.call_once(|| HostLink::new(share.clone(), fid, false, data));
    Some(node)
}

pub(super) fn clunk(c: &Client, fid: u32) -> Option<Arc<Inode>> {
    c.clunk(fid);
    None
}

/// Whether `a` and `b` are nodes of the same share (or both of none).
pub fn same_share(a: &Inode, b: &Inode) -> bool {
    match (a.host(), b.host()) {
        (None, None) => true,
        (Some(x), Some(y)) => Arc::ptr_eq(&x.share, &y.share),
        _ => false,
    }
}

/// The host file system's numbers for a node of a share (None: not in
/// one), and whether the share is read-only.
pub fn statfs_of(node: &Inode) -> Option<Result<(gometal_core::fs::p9::FsStat, bool), Errno>> {
    let h = node.host()?;
    let root = h.share.root_fid;
    Some(h.share.with(|c| c.statfs(root)).map(|s| (s, h.share.spec.read_only)))
}

/// Writes back what shared mappings changed, in every share (sync).
pub fn sync_all() -> Result<(), Errno> {
    super::hostfile::writeback_all(false)
}

/// `sync_all` at exit, with the other CPUs stopped: polls for replies.
pub fn sync_at_exit() -> Result<(), Errno> {
    super::hostfile::writeback_all(true)
}

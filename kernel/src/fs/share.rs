//! Host directories mounted in (`gometal run -mount HOST:GUEST[:ro]`), live
//! as Linux's v9fs with cache=none: nothing is copied at boot. A name not
//! yet known under a shared directory is looked up on the host (Twalk,
//! Tgetattr) and kept in the directory's entries, which are a cache of the
//! host's; a name found there is checked again at each use (Tgetattr on
//! its fid: gone, or now another host file, and it is looked up afresh,
//! while descriptors already open keep the file they opened); a listing
//! (getdents at offset 0) reads the host directory again and brings the
//! cache up to date. So what the host adds, removes or replaces while the
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
use super::p9client::{self as c, Client};
use super::tree;
use alloc::collections::BTreeSet;
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::cpio::{S_IFDIR, S_IFLNK, S_IFMT, S_IFREG};
use gometal_core::errno::{Errno, ENODEV, ENOENT, ENOTDIR};
use gometal_core::p9::{parse_mount, Attr, MountSpec};
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
        let how = match (s.spec.read_only, s.cached()) {
            (_, true) => "ro, cache=loose",
            (true, false) => "ro",
            (false, false) => "rw",
        };
        crate::println!("gometal: share {tag} at {guest} ({how}): {} requests to the host", s.requests());
    }
    if shares.iter().any(|s| s.cached()) {
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

fn clunk(c: &Client, fid: u32) -> Option<Arc<Inode>> {
    c.clunk(fid);
    None
}

/// Looks `name` up on the host under the shared directory `dir` (a name
/// its cache lacks): the new node, already in `dir`'s entries.
pub fn lookup(dir: &Arc<Inode>, name: &[u8]) -> Option<Arc<Inode>> {
    lookup_host(dir, name).ok().flatten()
}

/// `lookup`, telling a name the host lacks (or gometal does not show:
/// Ok(None)) from a host that failed (Err). In a cached share a missing
/// name is remembered, and not asked for again.
fn lookup_host(dir: &Arc<Inode>, name: &[u8]) -> Result<Option<Arc<Inode>>, Errno> {
    let Some(h) = dir.host() else { return Ok(None) };
    if name == b"." || name == b".." || name.contains(&b'/') || name.len() > 255 {
        return Ok(None);
    }
    let share = h.share.clone();
    if share.cached() && super::sharecache::known_absent(h, name) {
        return Ok(None);
    }
    let node = share.with(|c| {
        let fid = match c.walk(h.fid, &[name]) {
            Ok(fid) => fid,
            Err(ENOENT) => {
                if share.cached() {
                    super::sharecache::note_absent(h, name);
                }
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        match c.getattr(fid) {
            Ok(attr) => Ok(make_node(&share, c, fid, &attr)),
            Err(e) => {
                clunk(c, fid);
                Err(e)
            }
        }
    })?;
    let Some(node) = node else { return Ok(None) };
    // Another CPU may have cached it meanwhile: keep the first.
    match super::sharedir::cache_entry(dir, name, node.clone()) {
        Ok(()) => Ok(Some(node)),
        Err(_) => Ok(tree::cached_child(dir, name)),
    }
}

/// The cached entry `node` of shared directory `dir`, checked against the
/// host: the same node with fresh attributes, or if the host no longer has
/// that file under `name` (removed, or replaced by a rename), a node for
/// what it has now (None if nothing). A host that fails otherwise leaves
/// the entry as it was.
pub fn revalidate(dir: &Arc<Inode>, name: &[u8], node: Arc<Inode>) -> Option<Arc<Inode>> {
    let Some(h) = node.host() else { return Some(node) };
    if h.share.cached() {
        return Some(node); // cache=loose: the host does not change it
    }
    let is_file = matches!(node.kind, super::inode::Kind::File(_));
    let same = {
        // A write finishing meanwhile must not be undone by an older size.
        let _writes = is_file.then(|| h.writing.lock());
        match h.share.with(|c| c.getattr(h.fid)) {
            Ok(attr) if attr.ino == h.data.lock().host_ino => {
                set_meta(&node, &attr);
                if is_file {
                    h.data.lock().host_size(attr.size);
                }
                true
            }
            Ok(_) | Err(ENOENT) => false,
            Err(_) => true,
        }
    };
    if same {
        return Some(node);
    }
    super::sharedir::forget_entry(dir, name);
    drop(node);
    lookup(dir, name)
}

/// Brings the entries of shared directory `dir` up to date with the host
/// (before a listing): names the host lacks are dropped from the cache,
/// names it has and the cache lacks are looked up. A directory of a
/// cached share is listed once: then its entries are the host's.
pub fn refresh(dir: &Arc<Inode>) -> Result<(), Errno> {
    let Some(h) = dir.host() else { return Ok(()) };
    if h.share.cached() && super::sharecache::listed(h) {
        return Ok(());
    }
    let names: Vec<Vec<u8>> = h.share.with(|c| {
        let fid = c.walk(h.fid, &[])?;
        let r = c.lopen(fid, c::O_RDONLY | c::O_DIRECTORY).and_then(|_| c.readdir(fid));
        c.clunk(fid);
        r.map(|entries| entries.into_iter().map(|(n, _)| n).collect())
    })?;
    let host: BTreeSet<&[u8]> = names.iter().map(|n| n.as_slice()).collect();
    let mut cached: BTreeSet<Vec<u8>> = BTreeSet::new();
    // Only the host's names: an entry the initramfs had at the mount
    // point stays.
    tree::visit_from(dir, 0, |name, node| {
        if node.host().is_some() {
            cached.insert(name.to_vec());
        }
        true
    });
    for name in cached.iter().filter(|n| !host.contains(n.as_slice())) {
        super::sharedir::forget_entry(dir, name);
    }
    let mut complete = true;
    for name in names.iter().filter(|n| !cached.contains(*n)) {
        complete &= lookup_host(dir, name).is_ok();
    }
    if h.share.cached() && complete {
        super::sharecache::note_listed(h);
    }
    Ok(())
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
pub fn statfs_of(node: &Inode) -> Option<Result<(gometal_core::p9::FsStat, bool), Errno>> {
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

//! AF_UNIX names. A path name is a socket node in the file system, as on
//! Linux: bind creates it (EADDRINUSE if the path exists), connect and
//! sendto find the socket through it, stat sees it, and it stays after the
//! socket closes until someone removes it (Go's listeners unlink theirs).
//! Abstract names live in a table here and are freed when their socket
//! closes.

use super::socket::{Bound, Socket};
use crate::fs::inode::{Inode, Kind};
use crate::fs::tree;
use alloc::collections::BTreeMap;
use alloc::sync::{Arc, Weak};
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};
use gometal_core::linux::errno::*;
use gometal_core::linux::sockaddr::{SockAddr, UnixAddr};
use crate::sync::{Lock, LockClass};

static ABSTRACT: Lock<BTreeMap<Vec<u8>, Weak<Socket>>> = Lock::new(LockClass::AbstractNames, BTreeMap::new());
static NEXT_AUTO: AtomicU32 = AtomicU32::new(1);

/// The mode of a new socket node: 0777 less the umask (022).
const SOCKET_PERM: u32 = 0o755;

/// A held abstract name; dropping it frees the name.
pub struct Name(Vec<u8>);

impl Drop for Name {
    fn drop(&mut self) {
        let mut names = ABSTRACT.lock();
        if names.get(&self.0).is_some_and(|w| w.strong_count() == 0) {
            names.remove(&self.0);
        }
    }
}

/// Where a relative path starts: the working directory.
fn cwd() -> Arc<Inode> {
    crate::fs::context::current().cwd.lock().clone()
}

/// bind(2) for an AF_UNIX socket; an empty name autobinds to an abstract
/// five-hex-digit name, as Linux does.
pub fn bind(sock: &Arc<Socket>, addr: UnixAddr) -> Result<(), Errno> {
    let mut bound = sock.bound.lock();
    if bound.is_some() {
        return Err(EINVAL);
    }
    let shown = match addr {
        UnixAddr::Unnamed => UnixAddr::Abstract(alloc::format!("{:05x}", NEXT_AUTO.fetch_add(1, Ordering::Relaxed) & 0xfffff).into_bytes()),
        a => a,
    };
    match &shown {
        UnixAddr::Path(p) => {
            let (dir, name, trailing) = tree::parent_of(&cwd(), p)?;
            if trailing || name == b"." || name == b".." {
                return Err(EINVAL);
            }
            if tree::child(&dir.node, &name).is_some() {
                return Err(EADDRINUSE);
            }
            let weak: Weak<Socket> = Arc::downgrade(sock);
            let node = Inode::new_socket(SOCKET_PERM, weak, crate::sched::clock::realtime_ns());
            tree::link(&dir.node, &name, node).map_err(|e| if e == EEXIST { EADDRINUSE } else { e })?;
        }
        UnixAddr::Abstract(n) => {
            let mut names = ABSTRACT.lock();
            if names.get(n).is_some_and(|w| w.strong_count() > 0) {
                return Err(EADDRINUSE);
            }
            names.insert(n.clone(), Arc::downgrade(sock));
            *bound = Some(Bound::Unix(Name(n.clone())));
        }
        UnixAddr::Unnamed => return Err(EINVAL),
    }
    if bound.is_none() {
        *bound = Some(Bound::Path);
    }
    *sock.local.lock() = Some(SockAddr::Unix(shown));
    Ok(())
}

/// The socket bound to `addr`: for a path, what walking it finds (ENOENT
/// and the like from the walk; ECONNREFUSED for a node that is not a live
/// socket); for an abstract name, ECONNREFUSED if nobody holds it.
pub fn find(addr: &UnixAddr) -> Result<Arc<Socket>, Errno> {
    match addr {
        UnixAddr::Path(p) => {
            let found = tree::walk(&cwd(), p, true)?;
            match &found.node.kind {
                Kind::Socket(w) => w.upgrade().and_then(crate::fs::file::downcast_arc::<Socket>).ok_or(ECONNREFUSED),
                _ => Err(ECONNREFUSED),
            }
        }
        UnixAddr::Abstract(n) => {
            let found = ABSTRACT.lock().get(n).map(Weak::clone);
            found.and_then(|w| w.upgrade()).ok_or(ECONNREFUSED)
        }
        UnixAddr::Unnamed => Err(EINVAL),
    }
}

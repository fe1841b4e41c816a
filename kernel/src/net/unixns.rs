//! AF_UNIX names: the socket bound to each path or abstract name. A bound
//! path is also reserved in this table rather than made a file in the
//! in-memory file system, so stat(2) does not see it (a gap: Linux shows a
//! socket file); binding a name twice is EADDRINUSE until the first socket
//! closes.

use super::socket::{Bound, Socket};
use alloc::collections::BTreeMap;
use alloc::sync::{Arc, Weak};
use core::sync::atomic::{AtomicU32, Ordering};
use gometal_core::errno::*;
use gometal_core::sockaddr::{SockAddr, UnixAddr};
use spin::Mutex;

static NAMES: Mutex<BTreeMap<UnixAddr, Weak<Socket>>> = Mutex::new(BTreeMap::new());
static NEXT_AUTO: AtomicU32 = AtomicU32::new(1);

/// A held name; dropping it frees the name.
pub struct Name(UnixAddr);

impl Drop for Name {
    fn drop(&mut self) {
        let mut names = NAMES.lock();
        if names.get(&self.0).is_some_and(|w| w.strong_count() == 0) {
            names.remove(&self.0);
        }
    }
}

/// A path relative to the working directory made absolute, so two
/// spellings of one path are one name.
fn canonical(addr: UnixAddr) -> Result<UnixAddr, Errno> {
    match addr {
        UnixAddr::Path(p) if p.first() != Some(&b'/') => {
            let cwd = crate::process::process().cwd.lock().clone();
            let mut abs = crate::fs::tree::path_of(&cwd)?;
            if abs.last() != Some(&b'/') {
                abs.push(b'/');
            }
            abs.extend_from_slice(&p);
            Ok(UnixAddr::Path(abs))
        }
        a => Ok(a),
    }
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
    let key = canonical(shown.clone())?;
    {
        let mut names = NAMES.lock();
        if names.get(&key).is_some_and(|w| w.strong_count() > 0) {
            return Err(EADDRINUSE);
        }
        names.insert(key.clone(), Arc::downgrade(sock));
    }
    *bound = Some(Bound::Unix(Name(key)));
    *sock.local.lock() = Some(SockAddr::Unix(shown));
    Ok(())
}

/// The socket bound to `addr`: ENOENT for a path nobody bound,
/// ECONNREFUSED for an abstract name.
pub fn find(addr: &UnixAddr) -> Result<Arc<Socket>, Errno> {
    let missing = if matches!(addr, UnixAddr::Path(_)) { ENOENT } else { ECONNREFUSED };
    let key = canonical(addr.clone())?;
    let found = NAMES.lock().get(&key).map(Weak::clone);
    found.and_then(|w| w.upgrade()).ok_or(missing)
}

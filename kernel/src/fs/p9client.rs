//! A 9P2000.L client over one virtio-9p device: fids, walks, attributes,
//! reading and writing, directory changes. Messages are encoded and decoded
//! by gometal_core::fs::p9; this file only numbers fids and moves bytes. An
//! error the server reports reaches the caller as the host's errno (EEXIST,
//! ENOTEMPTY, ... as the host file system said), a reply that makes no
//! sense as EIO. The share's files (fs/share.rs, hostfile.rs, hostops.rs)
//! call it at every system call that touches them.
//!
//! The client is shared by every thread using the share, without a lock:
//! fids are numbered atomically, and each call is one or more requests
//! that the driver (drivers/virtio/p9.rs) puts in flight next to other
//! threads' (each with its own tag), sleeping until its reply is there.

use crate::drivers::virtio::p9::{Device, Wait};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, Ordering};
use gometal_core::linux::errno::{Errno, EIO};
use gometal_core::fs::p9::{self, Attr, Reply, ReplyError, Request};

/// Largest message: 64 KiB of data per read or write, plus the header.
const MSIZE: u32 = 64 * 1024 + p9::IO_OVERHEAD as u32;

/// What a Tsetattr sets (the fields its `valid` bits name).
#[derive(Default)]
pub struct SetAttr {
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub size: u64,
    pub atime_ns: u64,
    pub mtime_ns: u64,
}

#[derive(Clone)]
pub struct Client {
    dev: Arc<Device>,
    msize: usize,
    next_fid: Arc<AtomicU32>,
    /// How requests wait: Sleep, or Poll for a caller holding a spin lock
    /// (`polling`).
    wait: Wait,
}

fn eio(_: ReplyError) -> Errno {
    EIO
}

/// Linux open flags for Tlopen and Tlcreate.
pub const O_RDONLY: u32 = 0;
pub const O_RDWR: u32 = 2;
pub const O_DIRECTORY: u32 = 0o200000;

impl Client {
    /// Negotiates the version and attaches fid 0 to the share's root. The
    /// client polls (the boot mounts shares before there is a thread to
    /// put to sleep); `sleeping` gives the one the program's calls use.
    pub fn start(dev: Arc<Device>) -> Result<(Client, u32), Errno> {
        let mut c = Client { dev, msize: MSIZE as usize, next_fid: Arc::new(AtomicU32::new(1)), wait: Wait::Poll };
        let r = c.rpc(p9::version(MSIZE), p9::TVERSION + 1)?;
        let mut rr = Reply::parse(&r, p9::TVERSION + 1).map_err(eio)?;
        let msize = rr.u32().map_err(eio)?;
        if rr.str().map_err(eio)? != p9::VERSION || (msize as usize) < p9::IO_OVERHEAD + 512 {
            return Err(EIO);
        }
        c.msize = c.msize.min(msize as usize);
        c.rpc(p9::attach(0, b""), p9::TATTACH + 1)?;
        Ok((c, 0))
    }

    /// This client, its requests sleeping until answered.
    pub fn sleeping(&self) -> Client {
        Client { wait: Wait::Sleep, ..self.clone() }
    }

    /// This client, its requests polled instead of slept on: for a caller
    /// that holds a spin lock (a page fault, under the address-space lock).
    pub fn polling(&self) -> Client {
        Client { wait: Wait::Poll, ..self.clone() }
    }

    /// Sends `req`, runs `f` on the reply if it is of type `want`.
    fn call<R>(&self, req: Vec<u8>, want: u8, f: impl FnOnce(&[u8]) -> Result<R, Errno>) -> Result<R, Errno> {
        self.dev
            .request(req, self.msize, self.wait, |reply| match Reply::parse(reply, want) {
                Ok(_) => f(reply),
                Err(ReplyError::Errno(n)) => Err(Errno::from_host(n)),
                Err(_) => Err(EIO),
            })
            .map_err(|_| EIO)?
    }

    /// Sends `req`, returns the reply if it is of type `want`.
    fn rpc(&self, req: Vec<u8>, want: u8) -> Result<Vec<u8>, Errno> {
        self.call(req, want, |reply| Ok(reply.to_vec()))
    }

    /// Sends `req` for a reply of type `want` whose contents do not matter.
    fn rpc0(&self, req: Vec<u8>, want: u8) -> Result<(), Errno> {
        self.call(req, want, |_| Ok(()))
    }

    fn new_fid(&self) -> u32 {
        self.next_fid.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// A new fid for the file `names` lead to from `fid` (none: a clone).
    pub fn walk(&self, fid: u32, names: &[&[u8]]) -> Result<u32, Errno> {
        let newfid = self.new_fid();
        let mut from = fid;
        let mut chunks: Vec<&[&[u8]]> = names.chunks(p9::MAXWELEM).collect();
        if chunks.is_empty() {
            chunks.push(&[]);
        }
        for chunk in chunks {
            let r = self.rpc(p9::walk(from, newfid, chunk), p9::TWALK + 1);
            let r = match r {
                Ok(r) => r,
                Err(e) => {
                    if from == newfid {
                        self.clunk(newfid);
                    }
                    return Err(e);
                }
            };
            let walked = Reply::parse(&r, p9::TWALK + 1).and_then(|mut rr| rr.u16()).map_err(eio)?;
            if walked as usize != chunk.len() {
                // A partial walk leaves newfid unset (or as it was).
                if from == newfid {
                    self.clunk(newfid);
                }
                return Err(gometal_core::linux::errno::ENOENT);
            }
            from = newfid;
        }
        Ok(newfid)
    }

    pub fn clunk(&self, fid: u32) {
        let _ = self.rpc0(Request::new(p9::TCLUNK).u32(fid).finish(), p9::TCLUNK + 1);
    }

    pub fn getattr(&self, fid: u32) -> Result<Attr, Errno> {
        let req = Request::new(p9::TGETATTR).u32(fid).u64(p9::GETATTR_BASIC).finish();
        self.call(req, p9::TGETATTR + 1, |r| p9::parse_getattr(r).map_err(eio))
    }

    pub fn lopen(&self, fid: u32, flags: u32) -> Result<(), Errno> {
        self.rpc0(Request::new(p9::TLOPEN).u32(fid).u32(flags).finish(), p9::TLOPEN + 1)
    }

    /// Creates `name` in directory `fid`, which then stands for the new,
    /// open file.
    pub fn lcreate(&self, fid: u32, name: &[u8], flags: u32, mode: u32) -> Result<(), Errno> {
        let req = Request::new(p9::TLCREATE).u32(fid).str(name).u32(flags).u32(mode).u32(0).finish();
        self.rpc0(req, p9::TLCREATE + 1)
    }

    /// Requests this client's device has sent.
    pub fn requests(&self) -> u64 {
        self.dev.requests()
    }

    /// The most data one read or write moves.
    pub fn io_size(&self) -> usize {
        self.msize - p9::IO_OVERHEAD
    }

    /// Reads up to `buf.len()` (at most `io_size`) bytes at `offset` into
    /// `buf`; returns how many (0 at the end).
    pub fn read_into(&self, fid: u32, offset: u64, buf: &mut [u8]) -> Result<usize, Errno> {
        let want = buf.len().min(self.io_size());
        let req = Request::new(p9::TREAD).u32(fid).u64(offset).u32(want as u32).finish();
        self.call(req, p9::TREAD + 1, |reply| {
            let data = p9::parse_read(reply).map_err(eio)?;
            let n = data.len().min(want);
            buf[..n].copy_from_slice(&data[..n]);
            Ok(n)
        })
    }

    /// Writes all of `data` at `offset`.
    pub fn write_all(&self, fid: u32, mut offset: u64, data: &[u8]) -> Result<(), Errno> {
        for chunk in data.chunks(self.io_size()) {
            let req = Request::new(p9::TWRITE).u32(fid).u64(offset).u32(chunk.len() as u32).bytes(chunk).finish();
            let n = self.call(req, p9::TWRITE + 1, |r| Reply::parse(r, p9::TWRITE + 1).and_then(|mut rr| rr.u32()).map_err(eio))?;
            if n as usize != chunk.len() {
                return Err(EIO);
            }
            offset += chunk.len() as u64;
        }
        Ok(())
    }

    /// Every entry of the open directory `fid` but . and ..: name and qid type.
    pub fn readdir(&self, fid: u32) -> Result<Vec<(Vec<u8>, u8)>, Errno> {
        let mut out = Vec::new();
        let mut offset = 0;
        loop {
            let req = Request::new(p9::TREADDIR).u32(fid).u64(offset).u32(self.io_size() as u32).finish();
            let r = self.rpc(req, p9::TREADDIR + 1)?;
            let entries = p9::parse_readdir(&r).map_err(eio)?;
            let Some(last) = entries.last() else { return Ok(out) };
            if last.offset == offset {
                return Err(EIO); // a server that does not move on would loop us forever
            }
            offset = last.offset;
            for e in entries {
                if e.name != b"." && e.name != b".." {
                    out.push((e.name.to_vec(), e.qid.kind));
                }
            }
        }
    }

    pub fn readlink(&self, fid: u32) -> Result<Vec<u8>, Errno> {
        let r = self.rpc(Request::new(p9::TREADLINK).u32(fid).finish(), p9::TREADLINK + 1)?;
        Reply::parse(&r, p9::TREADLINK + 1).and_then(|mut rr| rr.str().map(|s| s.to_vec())).map_err(eio)
    }

    pub fn mkdir(&self, dfid: u32, name: &[u8], mode: u32) -> Result<(), Errno> {
        let req = Request::new(p9::TMKDIR).u32(dfid).str(name).u32(mode).u32(0).finish();
        self.rpc0(req, p9::TMKDIR + 1)
    }

    pub fn symlink(&self, dfid: u32, name: &[u8], target: &[u8]) -> Result<(), Errno> {
        let req = Request::new(p9::TSYMLINK).u32(dfid).str(name).str(target).u32(0).finish();
        self.rpc0(req, p9::TSYMLINK + 1)
    }

    pub fn unlinkat(&self, dfid: u32, name: &[u8], dir: bool) -> Result<(), Errno> {
        let flags = if dir { p9::AT_REMOVEDIR } else { 0 };
        let req = Request::new(p9::TUNLINKAT).u32(dfid).str(name).u32(flags).finish();
        self.rpc0(req, p9::TUNLINKAT + 1)
    }

    /// Tsetattr: changes what `valid` names (p9::SETATTR_*) of `fid`.
    pub fn setattr(&self, fid: u32, valid: u32, set: &SetAttr) -> Result<(), Errno> {
        let split = |ns: u64| (ns / 1_000_000_000, ns % 1_000_000_000);
        let ((asec, ansec), (msec, mnsec)) = (split(set.atime_ns), split(set.mtime_ns));
        let req = Request::new(p9::TSETATTR)
            .u32(fid)
            .u32(valid)
            .u32(set.mode & 0o7777)
            .u32(set.uid)
            .u32(set.gid)
            .u64(set.size)
            .u64(asec)
            .u64(ansec)
            .u64(msec)
            .u64(mnsec)
            .finish();
        self.rpc0(req, p9::TSETATTR + 1)
    }

    /// Trenameat: `old` in directory `olddir` becomes `new` in `newdir`
    /// (replacing what was there, as rename(2) does on the host).
    pub fn renameat(&self, olddir: u32, old: &[u8], newdir: u32, new: &[u8]) -> Result<(), Errno> {
        let req = Request::new(p9::TRENAMEAT).u32(olddir).str(old).u32(newdir).str(new).finish();
        self.rpc0(req, p9::TRENAMEAT + 1)
    }

    /// Tlink: a new name `name` in directory `dfid` for the file `fid`.
    pub fn link(&self, dfid: u32, fid: u32, name: &[u8]) -> Result<(), Errno> {
        let req = Request::new(p9::TLINK).u32(dfid).u32(fid).str(name).finish();
        self.rpc0(req, p9::TLINK + 1)
    }

    /// The numbers of the host file system `fid` is on.
    pub fn statfs(&self, fid: u32) -> Result<p9::FsStat, Errno> {
        let r = self.rpc(Request::new(p9::TSTATFS).u32(fid).finish(), p9::TSTATFS + 1)?;
        p9::parse_statfs(&r).map_err(eio)
    }

    /// Asks the host to put `fid`'s data on its disk.
    pub fn fsync(&self, fid: u32) -> Result<(), Errno> {
        self.rpc0(Request::new(p9::TFSYNC).u32(fid).u32(0).finish(), p9::TFSYNC + 1)
    }
}

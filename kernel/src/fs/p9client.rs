//! A 9P2000.L client over one virtio-9p device: fids, walks, attributes,
//! reading and writing, directory changes. Messages are encoded and decoded
//! by gometal_core::p9; this file only numbers fids and moves bytes. An
//! error the server reports reaches the caller as the host's errno (EEXIST,
//! ENOTEMPTY, ... as the host file system said), a reply that makes no
//! sense as EIO. The share's files (fs/share.rs, hostfile.rs, hostops.rs)
//! call it at every system call that touches them.

use crate::drivers::virtio::p9::Device;
use alloc::vec;
use alloc::vec::Vec;
use gometal_core::errno::{Errno, EIO};
use gometal_core::p9::{self, Attr, Reply, ReplyError, Request};

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

pub struct Client {
    dev: Device,
    msize: usize,
    next_fid: u32,
    reply: Vec<u8>,
}

fn eio(_: ReplyError) -> Errno {
    EIO
}

/// Linux open flags for Tlopen and Tlcreate.
pub const O_RDONLY: u32 = 0;
pub const O_RDWR: u32 = 2;
pub const O_DIRECTORY: u32 = 0o200000;

impl Client {
    /// Negotiates the version and attaches fid 0 to the share's root.
    pub fn start(dev: Device) -> Result<(Client, u32), Errno> {
        let mut c = Client { dev, msize: MSIZE as usize, next_fid: 1, reply: vec![0; MSIZE as usize] };
        let r = c.rpc(&p9::version(MSIZE), p9::TVERSION + 1)?;
        let mut rr = Reply::parse(&r, p9::TVERSION + 1).map_err(eio)?;
        let msize = rr.u32().map_err(eio)?;
        if rr.str().map_err(eio)? != p9::VERSION || (msize as usize) < p9::IO_OVERHEAD + 512 {
            return Err(EIO);
        }
        c.msize = c.msize.min(msize as usize);
        c.rpc(&p9::attach(0, b""), p9::TATTACH + 1)?;
        Ok((c, 0))
    }

    /// Sends `req`, returns the reply if it is of type `want`.
    fn rpc(&mut self, req: &[u8], want: u8) -> Result<Vec<u8>, Errno> {
        let n = self.dev.request(req, &mut self.reply).map_err(|_| EIO)? as usize;
        let reply = &self.reply[..n.min(self.reply.len())];
        match Reply::parse(reply, want) {
            Ok(_) => Ok(reply.to_vec()),
            Err(ReplyError::Errno(n)) => Err(Errno::from_host(n)),
            Err(_) => Err(EIO),
        }
    }

    fn new_fid(&mut self) -> u32 {
        self.next_fid += 1;
        self.next_fid
    }

    /// A new fid for the file `names` lead to from `fid` (none: a clone).
    pub fn walk(&mut self, fid: u32, names: &[&[u8]]) -> Result<u32, Errno> {
        let newfid = self.new_fid();
        let mut from = fid;
        let mut chunks: Vec<&[&[u8]]> = names.chunks(p9::MAXWELEM).collect();
        if chunks.is_empty() {
            chunks.push(&[]);
        }
        for chunk in chunks {
            let r = self.rpc(&p9::walk(from, newfid, chunk), p9::TWALK + 1);
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
                return Err(gometal_core::errno::ENOENT);
            }
            from = newfid;
        }
        Ok(newfid)
    }

    pub fn clunk(&mut self, fid: u32) {
        let _ = self.rpc(&Request::new(p9::TCLUNK).u32(fid).finish(), p9::TCLUNK + 1);
    }

    pub fn getattr(&mut self, fid: u32) -> Result<Attr, Errno> {
        let r = self.rpc(&Request::new(p9::TGETATTR).u32(fid).u64(p9::GETATTR_BASIC).finish(), p9::TGETATTR + 1)?;
        p9::parse_getattr(&r).map_err(eio)
    }

    pub fn lopen(&mut self, fid: u32, flags: u32) -> Result<(), Errno> {
        self.rpc(&Request::new(p9::TLOPEN).u32(fid).u32(flags).finish(), p9::TLOPEN + 1).map(|_| ())
    }

    /// Creates `name` in directory `fid`, which then stands for the new,
    /// open file.
    pub fn lcreate(&mut self, fid: u32, name: &[u8], flags: u32, mode: u32) -> Result<(), Errno> {
        let req = Request::new(p9::TLCREATE).u32(fid).str(name).u32(flags).u32(mode).u32(0).finish();
        self.rpc(&req, p9::TLCREATE + 1).map(|_| ())
    }

    /// The most data one read or write moves.
    pub fn io_size(&self) -> usize {
        self.msize - p9::IO_OVERHEAD
    }

    /// Reads up to `buf.len()` (at most `io_size`) bytes at `offset` into
    /// `buf`; returns how many (0 at the end).
    pub fn read_into(&mut self, fid: u32, offset: u64, buf: &mut [u8]) -> Result<usize, Errno> {
        let want = buf.len().min(self.io_size());
        let req = Request::new(p9::TREAD).u32(fid).u64(offset).u32(want as u32).finish();
        let n = self.dev.request(&req, &mut self.reply).map_err(|_| EIO)? as usize;
        let reply = &self.reply[..n.min(self.reply.len())];
        let data = match p9::parse_read(reply) {
            Ok(d) => d,
            Err(ReplyError::Errno(n)) => return Err(Errno::from_host(n)),
            Err(_) => return Err(EIO),
        };
        let n = data.len().min(want);
        buf[..n].copy_from_slice(&data[..n]);
        Ok(n)
    }

    /// Writes all of `data` at `offset`.
    pub fn write_all(&mut self, fid: u32, mut offset: u64, data: &[u8]) -> Result<(), Errno> {
        for chunk in data.chunks(self.io_size()) {
            let req = Request::new(p9::TWRITE).u32(fid).u64(offset).u32(chunk.len() as u32).bytes(chunk).finish();
            let r = self.rpc(&req, p9::TWRITE + 1)?;
            let n = Reply::parse(&r, p9::TWRITE + 1).and_then(|mut rr| rr.u32()).map_err(eio)?;
            if n as usize != chunk.len() {
                return Err(EIO);
            }
            offset += chunk.len() as u64;
        }
        Ok(())
    }

    /// Every entry of the open directory `fid` but . and ..: name and qid type.
    pub fn readdir(&mut self, fid: u32) -> Result<Vec<(Vec<u8>, u8)>, Errno> {
        let mut out = Vec::new();
        let mut offset = 0;
        loop {
            let req = Request::new(p9::TREADDIR).u32(fid).u64(offset).u32(self.io_size() as u32).finish();
            let r = self.rpc(&req, p9::TREADDIR + 1)?;
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

    pub fn readlink(&mut self, fid: u32) -> Result<Vec<u8>, Errno> {
        let r = self.rpc(&Request::new(p9::TREADLINK).u32(fid).finish(), p9::TREADLINK + 1)?;
        Reply::parse(&r, p9::TREADLINK + 1).and_then(|mut rr| rr.str().map(|s| s.to_vec())).map_err(eio)
    }

    pub fn mkdir(&mut self, dfid: u32, name: &[u8], mode: u32) -> Result<(), Errno> {
        let req = Request::new(p9::TMKDIR).u32(dfid).str(name).u32(mode).u32(0).finish();
        self.rpc(&req, p9::TMKDIR + 1).map(|_| ())
    }

    pub fn symlink(&mut self, dfid: u32, name: &[u8], target: &[u8]) -> Result<(), Errno> {
        let req = Request::new(p9::TSYMLINK).u32(dfid).str(name).str(target).u32(0).finish();
        self.rpc(&req, p9::TSYMLINK + 1).map(|_| ())
    }

    pub fn unlinkat(&mut self, dfid: u32, name: &[u8], dir: bool) -> Result<(), Errno> {
        let flags = if dir { p9::AT_REMOVEDIR } else { 0 };
        let req = Request::new(p9::TUNLINKAT).u32(dfid).str(name).u32(flags).finish();
        self.rpc(&req, p9::TUNLINKAT + 1).map(|_| ())
    }

    /// Tsetattr: changes what `valid` names (p9::SETATTR_*) of `fid`.
    pub fn setattr(&mut self, fid: u32, valid: u32, set: &SetAttr) -> Result<(), Errno> {
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
        self.rpc(&req, p9::TSETATTR + 1).map(|_| ())
    }

    /// Trenameat: `old` in directory `olddir` becomes `new` in `newdir`
    /// (replacing what was there, as rename(2) does on the host).
    pub fn renameat(&mut self, olddir: u32, old: &[u8], newdir: u32, new: &[u8]) -> Result<(), Errno> {
        let req = Request::new(p9::TRENAMEAT).u32(olddir).str(old).u32(newdir).str(new).finish();
        self.rpc(&req, p9::TRENAMEAT + 1).map(|_| ())
    }

    /// Tlink: a new name `name` in directory `dfid` for the file `fid`.
    pub fn link(&mut self, dfid: u32, fid: u32, name: &[u8]) -> Result<(), Errno> {
        let req = Request::new(p9::TLINK).u32(dfid).u32(fid).str(name).finish();
        self.rpc(&req, p9::TLINK + 1).map(|_| ())
    }

    /// The numbers of the host file system `fid` is on.
    pub fn statfs(&mut self, fid: u32) -> Result<p9::FsStat, Errno> {
        let r = self.rpc(&Request::new(p9::TSTATFS).u32(fid).finish(), p9::TSTATFS + 1)?;
        p9::parse_statfs(&r).map_err(eio)
    }

    /// Asks the host to put `fid`'s data on its disk.
    pub fn fsync(&mut self, fid: u32) -> Result<(), Errno> {
        self.rpc(&Request::new(p9::TFSYNC).u32(fid).u32(0).finish(), p9::TFSYNC + 1).map(|_| ())
    }
}

//! 9P2000.L messages: encoding the requests gometal's host-directory client
//! sends (kernel/src/fs/p9client.rs) and decoding the replies. There is no
//! maintained no_std 9P client crate to reuse (the Rust 9P crates found are
//! servers or need std and async), so this is a small one: only the
//! messages the client uses, every field little-endian as the protocol
//! says, strings as a u16 length and bytes.
//!
//! Also the `mount=TAG:/GUEST[:ro[,cache=loose]]` kernel option's parsing.

use alloc::vec::Vec;

pub const NOFID: u32 = !0;
/// The tag a request carries until its transport stamps the one it gets
/// from its device's tag table (p9tags.rs) with `set_tag`.
pub const TAG: u16 = 0;
pub const VERSION: &[u8] = b"9P2000.L";

// Message types (T = request; the reply is T + 1).
pub const TLERROR: u8 = 6;
pub const RLERROR: u8 = 7;
pub const TSTATFS: u8 = 8;
pub const TLOPEN: u8 = 12;
pub const TLCREATE: u8 = 14;
pub const TSYMLINK: u8 = 16;
pub const TREADLINK: u8 = 22;
pub const TGETATTR: u8 = 24;
pub const TSETATTR: u8 = 26;
pub const TREADDIR: u8 = 40;
pub const TFSYNC: u8 = 50;
pub const TLINK: u8 = 70;
pub const TMKDIR: u8 = 72;
pub const TRENAMEAT: u8 = 74;
pub const TUNLINKAT: u8 = 76;
pub const TVERSION: u8 = 100;
pub const TATTACH: u8 = 104;
pub const TWALK: u8 = 110;
pub const TREAD: u8 = 116;
pub const TWRITE: u8 = 118;
pub const TCLUNK: u8 = 120;

/// Twalk carries at most this many names.
pub const MAXWELEM: usize = 16;
/// Header of a message: size[4] type[1] tag[2].
pub const HEADER: usize = 7;
/// Bytes of a Tread/Rread or Twrite besides the data.
pub const IO_OVERHEAD: usize = 24;

/// Tgetattr's request mask: everything basic (mode through blocks).
pub const GETATTR_BASIC: u64 = 0x7ff;
/// Tsetattr's valid bits.
pub const SETATTR_MODE: u32 = 0x1;
pub const SETATTR_UID: u32 = 0x2;
pub const SETATTR_GID: u32 = 0x4;
pub const SETATTR_SIZE: u32 = 0x8;
pub const SETATTR_ATIME: u32 = 0x10;
pub const SETATTR_MTIME: u32 = 0x20;
pub const SETATTR_ATIME_SET: u32 = 0x80;
pub const SETATTR_MTIME_SET: u32 = 0x100;
/// Tunlinkat's flag for a directory.
pub const AT_REMOVEDIR: u32 = 0x200;

/// A request being built: the header is filled in by `finish`.
pub struct Request(Vec<u8>);

impl Request {
    pub fn new(kind: u8) -> Request {
        let mut b = Vec::with_capacity(64);
        b.extend_from_slice(&[0, 0, 0, 0, kind]);
        b.extend_from_slice(&TAG.to_le_bytes());
        Request(b)
    }
    pub fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn u64(mut self, v: u64) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn u16(mut self, v: u16) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// A string: u16 length, then the bytes (names are short; longer is cut).
    pub fn str(mut self, s: &[u8]) -> Self {
        let n = s.len().min(u16::MAX as usize);
        self.0.extend_from_slice(&(n as u16).to_le_bytes());
        self.0.extend_from_slice(&s[..n]);
        self
    }
    pub fn bytes(mut self, data: &[u8]) -> Self {
        self.0.extend_from_slice(data);
        self
    }
    /// The finished message, its size in the header.
    pub fn finish(mut self) -> Vec<u8> {
        let n = self.0.len() as u32;
        self.0[..4].copy_from_slice(&n.to_le_bytes());
        self.0
    }
}

/// Stamps `tag` into the header of the finished message `msg`.
pub fn set_tag(msg: &mut [u8], tag: u16) {
    if msg.len() >= HEADER {
        msg[5..7].copy_from_slice(&tag.to_le_bytes());
    }
}

/// The tag in the header of `msg` (None: too short to have one).
pub fn tag_of(msg: &[u8]) -> Option<u16> {
    (msg.len() >= HEADER).then(|| u16::from_le_bytes([msg[5], msg[6]]))
}

pub fn version(msize: u32) -> Vec<u8> {
    Request::new(TVERSION).u32(msize).str(VERSION).finish()
}

pub fn attach(fid: u32, aname: &[u8]) -> Vec<u8> {
    Request::new(TATTACH).u32(fid).u32(NOFID).str(b"root").str(aname).u32(0).finish()
}

/// Twalk from `fid` to `newfid` through `names` (at most MAXWELEM).
pub fn walk(fid: u32, newfid: u32, names: &[&[u8]]) -> Vec<u8> {
    let mut r = Request::new(TWALK).u32(fid).u32(newfid).u16(names.len() as u16);
    for n in names {
        r = r.str(n);
    }
    r.finish()
}

/// Why a reply could not be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplyError {
    /// Rlerror: the server's Linux errno.
    Errno(u32),
    /// Too short, wrong type or tag: the device is not speaking 9P to us.
    Malformed,
}

/// Reads a reply's fields in order; every read checks the length.
pub struct Reply<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Reply<'a> {
    /// Checks the header of `msg` says reply `want` (or decodes Rlerror).
    /// The tag was checked by the transport (it matched the reply to its
    /// request by it).
    pub fn parse(msg: &'a [u8], want: u8) -> Result<Reply<'a>, ReplyError> {
        if msg.len() < HEADER {
            return Err(ReplyError::Malformed);
        }
        let size = u32::from_le_bytes(msg[..4].try_into().unwrap()) as usize;
        if size < HEADER || size > msg.len() {
            return Err(ReplyError::Malformed);
        }
        let mut r = Reply { data: &msg[..size], at: HEADER };
        match msg[4] {
            t if t == want => Ok(r),
            RLERROR => Err(ReplyError::Errno(r.u32()?)),
            _ => Err(ReplyError::Malformed),
        }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], ReplyError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.data.len()).ok_or(ReplyError::Malformed)?;
        let s = &self.data[self.at..end];
        self.at = end;
        Ok(s)
    }
    pub fn u8(&mut self) -> Result<u8, ReplyError> {
        Ok(self.take(1)?[0])
    }
    pub fn u16(&mut self) -> Result<u16, ReplyError> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().unwrap()))
    }
    pub fn u32(&mut self) -> Result<u32, ReplyError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    pub fn u64(&mut self) -> Result<u64, ReplyError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    pub fn str(&mut self) -> Result<&'a [u8], ReplyError> {
        let n = self.u16()? as usize;
        self.take(n)
    }
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], ReplyError> {
        self.take(n)
    }
    /// A qid: type[1] version[4] path[8].
    pub fn qid(&mut self) -> Result<Qid, ReplyError> {
        Ok(Qid { kind: self.u8()?, version: self.u32()?, path: self.u64()? })
    }
    pub fn at_end(&self) -> bool {
        self.at == self.data.len()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Qid {
    pub kind: u8,
    pub version: u32,
    pub path: u64,
}

/// The parts of Rgetattr the client uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attr {
    /// The qid's path: the host's inode number.
    pub ino: u64,
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub nlink: u64,
    pub size: u64,
    pub blocks: u64,
    pub atime_ns: u64,
    pub mtime_ns: u64,
    pub ctime_ns: u64,
}

/// Rgetattr: valid[8] qid[13] mode[4] uid[4] gid[4] nlink[8] rdev[8]
/// size[8] blksize[8] blocks[8] atime[16] mtime[16] ctime[16] ...
pub fn parse_getattr(msg: &[u8]) -> Result<Attr, ReplyError> {
    let mut r = Reply::parse(msg, TGETATTR + 1)?;
    r.u64()?;
    let ino = r.qid()?.path;
    let (mode, uid, gid, nlink) = (r.u32()?, r.u32()?, r.u32()?, r.u64()?);
    r.bytes(8)?; // rdev
    let size = r.u64()?;
    r.bytes(8)?; // blksize
    let blocks = r.u64()?;
    let mut time = || -> Result<u64, ReplyError> {
        let (sec, nsec) = (r.u64()?, r.u64()?);
        Ok(sec.saturating_mul(1_000_000_000).saturating_add(nsec))
    };
    let (atime_ns, mtime_ns, ctime_ns) = (time()?, time()?, time()?);
    Ok(Attr { ino, mode, uid, gid, nlink, size, blocks, atime_ns, mtime_ns, ctime_ns })
}

/// One entry of Rreaddir's data: qid[13] offset[8] type[1] name[s].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DirEntry<'a> {
    pub qid: Qid,
    pub offset: u64,
    pub name: &'a [u8],
}

/// The entries of an Rreaddir, in order.
pub fn parse_readdir(msg: &[u8]) -> Result<Vec<DirEntry<'_>>, ReplyError> {
    let mut r = Reply::parse(msg, TREADDIR + 1)?;
    let count = r.u32()? as usize;
    let mut d = Reply { data: r.bytes(count)?, at: 0 };
    let mut out = Vec::new();
    while !d.at_end() {
        let qid = d.qid()?;
        let offset = d.u64()?;
        d.u8()?;
        out.push(DirEntry { qid, offset, name: d.str()? });
    }
    Ok(out)
}

/// Rstatfs: the host file system's numbers, as its statfs(2) gave them
/// (QEMU scales bsize up to near the message size and the block counts
/// down by the same factor).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FsStat {
    pub kind: u32,
    pub bsize: u32,
    pub blocks: u64,
    pub bfree: u64,
    pub bavail: u64,
    pub files: u64,
    pub ffree: u64,
    pub fsid: u64,
    pub namelen: u32,
}

/// Rstatfs: type[4] bsize[4] blocks[8] bfree[8] bavail[8] files[8]
/// ffree[8] fsid[8] namelen[4].
pub fn parse_statfs(msg: &[u8]) -> Result<FsStat, ReplyError> {
    let mut r = Reply::parse(msg, TSTATFS + 1)?;
    Ok(FsStat {
        kind: r.u32()?,
        bsize: r.u32()?,
        blocks: r.u64()?,
        bfree: r.u64()?,
        bavail: r.u64()?,
        files: r.u64()?,
        ffree: r.u64()?,
        fsid: r.u64()?,
        namelen: r.u32()?,
    })
}

/// Rread's data.
pub fn parse_read(msg: &[u8]) -> Result<&[u8], ReplyError> {
    let mut r = Reply::parse(msg, TREAD + 1)?;
    let n = r.u32()? as usize;
    r.bytes(n)
}

/// One `mount=TAG:/GUEST[:OPTIONS]` kernel option. OPTIONS is a comma
/// list: `ro` (refuse changes) and `cache=loose` (keep what the host said,
/// as Linux's 9p option of that name: only with `ro`, for a directory that
/// does not change during the run, such as `gometal exec`'s module).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MountSpec {
    pub tag: Vec<u8>,
    pub guest: Vec<u8>,
    pub read_only: bool,
    /// `cache=loose`: names, attributes, listings and file pages are kept
    /// once read (kernel/src/fs/sharecache.rs); implies `read_only`.
    pub cached: bool,
}

/// None if the option is malformed (no tag, a relative guest path, an
/// unknown option, `cache=loose` without `ro`: a cache of a share the
/// program may change is not offered).
pub fn parse_mount(v: &[u8]) -> Option<MountSpec> {
    let colon = v.iter().position(|&b| b == b':')?;
    let (tag, rest) = (&v[..colon], &v[colon + 1..]);
    let (guest, options) = match rest.iter().position(|&b| b == b':') {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    if tag.is_empty() || !guest.starts_with(b"/") {
        return None;
    }
    let (mut read_only, mut cached) = (false, false);
    for opt in options.map(|o| o.split(|&b| b == b',')).into_iter().flatten() {
        match opt {
            b"ro" => read_only = true,
            b"cache=loose" => cached = true,
            _ => return None,
        }
    }
    if cached && !read_only {
        return None;
    }
    Some(MountSpec { tag: tag.to_vec(), guest: guest.to_vec(), read_only, cached })
}

#[cfg(test)]
#[path = "p9_tests.rs"]
mod tests;

//! statfs and fstatfs: the numbers of the file system a path or descriptor
//! is on, in riscv64's `struct statfs` (asm-generic, 120 bytes). A
//! `-mount`ed share answers with the host directory's own numbers, asked
//! over 9P (Tstatfs), and f_type is the host file system's, as Linux's 9p
//! client reports it; the rest of the tree is memory, like tmpfs: its
//! blocks are the kernel's page frames, the free ones what is left, and
//! no inode limit (0 files, as tmpfs mounted with nr_inodes=0).

use super::SysResult;
use crate::fs::fd::{self, Fd};
use crate::fs::inode::Inode;
use crate::fs::path;
use crate::mm::frames;
use crate::mm::uaccess::{UserPtr, UserSpace};
use alloc::sync::Arc;
use gometal_core::linux::errno::*;

const TMPFS_MAGIC: u64 = 0x0102_1994;
const PAGE: u64 = crate::memlayout::PAGE_SIZE as u64;
const NAME_MAX: u64 = 255;
const ST_RDONLY: u64 = 1;
/// f_flags is meaningful (Linux sets it since 2.6.36).
const ST_VALID: u64 = 0x20;

/// `struct statfs` as its words: type, bsize, blocks, bfree, bavail, files,
/// ffree, fsid (two u32), namelen, frsize, flags, spare[4].
type Raw = [u8; 120];

struct Numbers {
    kind: u64,
    bsize: u64,
    blocks: u64,
    bfree: u64,
    bavail: u64,
    files: u64,
    ffree: u64,
    fsid: u64,
    namelen: u64,
    flags: u64,
}

impl Numbers {
    fn encode(&self) -> Raw {
        let words = [
            self.kind, self.bsize, self.blocks, self.bfree, self.bavail, self.files, self.ffree, self.fsid,
            self.namelen, self.bsize, self.flags,
        ];
        let mut b = [0u8; 120];
        for (i, w) in words.iter().enumerate() {
            b[i * 8..i * 8 + 8].copy_from_slice(&w.to_le_bytes());
        }
        b
    }
}

fn numbers_of(node: &Arc<Inode>) -> Result<Numbers, Errno> {
    if let Some(host) = crate::fs::share::statfs_of(node) {
        let (s, read_only) = host?;
        return Ok(Numbers {
            kind: s.kind as u64,
            bsize: s.bsize as u64,
            blocks: s.blocks,
            bfree: s.bfree,
            bavail: s.bavail,
            files: s.files,
            ffree: s.ffree,
            // Linux's u64_to_fsid: the low half first, as the two ints.
            fsid: s.fsid,
            namelen: s.namelen as u64,
            flags: ST_VALID | if read_only { ST_RDONLY } else { 0 },
        });
    }
    let f = frames::stats();
    let free = (f.total - f.in_use) as u64;
    Ok(Numbers {
        kind: TMPFS_MAGIC,
        bsize: PAGE,
        blocks: f.total as u64,
        bfree: free,
        bavail: free,
        files: 0,
        ffree: 0,
        fsid: 0,
        namelen: NAME_MAX,
        flags: ST_VALID,
    })
}

pub fn statfs(user: &mut UserSpace, pathname: UserPtr<u8>, out: UserPtr<Raw>) -> SysResult {
    let found = path::lookup(user, Fd::CWD, pathname, true)?;
    let raw = numbers_of(&found.node)?.encode();
    user.write(out, &raw)?;
    Ok(0)
}

/// Pipes, devices and the rest have no file system of their own here;
/// Linux answers with pipefs's or devtmpfs's numbers, gometal with the
/// memory's.
pub fn fstatfs(user: &mut UserSpace, fd: Fd, out: UserPtr<Raw>) -> SysResult {
    let file = fd::file(fd)?;
    let numbers = match file.inode() {
        Some(n) => numbers_of(n)?,
        None => numbers_of(&crate::fs::tree::root())?,
    };
    user.write(out, &numbers.encode())?;
    Ok(0)
}

//! A regular file of a `-mount` share (the 9P file), open: read and write
//! go to the host at the call (hostfile.rs), a message's worth at a time;
//! the size is the host's, asked again for SEEK_END and stat.

use super::fd::OpenFile;
use super::file::{seek_node, File};
use super::hostfile;
use super::inode::{Inode, MAX_FILE_SIZE};
use crate::sched::sleeplock::SleepLock;
use alloc::sync::Arc;
use gometal_core::linux::errno::{Errno, EFBIG};

/// Bytes per read or write step: one 9P message's worth (each step is a
/// round trip to the host, the costly part).
const HOST_CHUNK: usize = 64 * 1024;

pub struct HostFile {
    node: Arc<Inode>,
    /// Held by a read or write at the file offset for its whole course
    /// (as Linux's f_pos_lock): the offset itself is a spin lock, which
    /// cannot be held across the round trip.
    position: SleepLock<()>,
}

impl HostFile {
    pub fn new(node: Arc<Inode>) -> Arc<HostFile> {
        Arc::new(HostFile { node, position: SleepLock::new(()) })
    }
}

impl File for HostFile {
    fn read(&self, of: &OpenFile, buf: &mut [u8], at: Option<u64>) -> Result<usize, Errno> {
        if let Some(pos) = at {
            return hostfile::read(&self.node, pos, buf);
        }
        let _position = self.position.lock();
        let offset = *of.offset.lock();
        let n = hostfile::read(&self.node, offset, buf)?;
        *of.offset.lock() = offset + n as u64;
        Ok(n)
    }

    /// Written on the host before this returns.
    fn write(&self, of: &OpenFile, bytes: &[u8], at: Option<u64>) -> Result<usize, Errno> {
        if at.is_some() {
            return Ok(hostfile::write(&self.node, at, bytes)?.1);
        }
        let _position = self.position.lock();
        let want = (!of.appending()).then_some(*of.offset.lock());
        let (pos, n) = hostfile::write(&self.node, want, bytes)?;
        *of.offset.lock() = pos + n as u64;
        Ok(n)
    }

    fn io_chunk(&self) -> usize {
        HOST_CHUNK
    }

    fn positional(&self) -> bool {
        true
    }

    fn seek(&self, of: &OpenFile, offset: i64, whence: u32) -> Result<u64, Errno> {
        seek_node(of, &self.node, offset, whence)
    }

    /// Grown on the host (no blocks are reserved there).
    fn allocate(&self, offset: u64, len: u64, keep_size: bool) -> Result<(), Errno> {
        let end = offset.checked_add(len).filter(|&e| e <= MAX_FILE_SIZE).ok_or(EFBIG)?;
        if !keep_size && end > self.node.size() {
            hostfile::truncate(&self.node, end)?;
        }
        Ok(())
    }

    fn inode(&self) -> Option<&Arc<Inode>> {
        Some(&self.node)
    }
}

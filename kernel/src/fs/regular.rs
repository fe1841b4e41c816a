//! A regular file of the in-memory tree, open: its bytes are the node's
//! `FileData` (inode.rs), in page frames. read() and write() move the
//! description's offset under its lock, so two threads sharing it never
//! read or write the same bytes twice; pread and pwrite leave it alone.

use super::fd::OpenFile;
use super::file::{seek_node, File};
use super::inode::{FileData, Inode, Kind, MAX_FILE_SIZE};
use alloc::sync::Arc;
use gometal_core::linux::errno::{Errno, EFBIG, EINVAL, EISDIR};
use crate::sync::Lock;

pub struct MemFile {
    node: Arc<Inode>,
}

impl MemFile {
    pub fn new(node: Arc<Inode>) -> Arc<MemFile> {
        Arc::new(MemFile { node })
    }

    fn data(&self) -> Result<&Lock<FileData>, Errno> {
        match &self.node.kind {
            Kind::File(data) => Ok(data),
            _ => Err(EINVAL),
        }
    }
}

impl File for MemFile {
    fn read(&self, of: &OpenFile, buf: &mut [u8], at: Option<u64>) -> Result<usize, Errno> {
        let data = self.data()?;
        if let Some(pos) = at {
            return Ok(data.lock().read(pos, buf));
        }
        let mut offset = of.offset.lock();
        let n = data.lock().read(*offset, buf);
        *offset += n as u64;
        Ok(n)
    }

    fn write(&self, of: &OpenFile, bytes: &[u8], at: Option<u64>) -> Result<usize, Errno> {
        let data = self.data()?;
        let n = match at {
            Some(pos) => data.lock().write(pos, bytes)?,
            None => {
                let mut offset = of.offset.lock();
                let mut d = data.lock();
                let pos = if of.appending() { d.size } else { *offset };
                let n = d.write(pos, bytes)?;
                drop(d);
                *offset = pos + n as u64;
                n
            }
        };
        self.node.touch();
        Ok(n)
    }

    fn positional(&self) -> bool {
        true
    }

    fn seek(&self, of: &OpenFile, offset: i64, whence: u32) -> Result<u64, Errno> {
        seek_node(of, &self.node, offset, whence)
    }

    fn allocate(&self, offset: u64, len: u64, keep_size: bool) -> Result<(), Errno> {
        let data = self.data()?;
        let end = offset.checked_add(len).filter(|&e| e <= MAX_FILE_SIZE).ok_or(EFBIG)?;
        if !keep_size {
            let mut d = data.lock();
            if end > d.size {
                d.truncate(end)?;
                drop(d);
                self.node.touch();
            }
        }
        Ok(())
    }

    fn inode(&self) -> Option<&Arc<Inode>> {
        Some(&self.node)
    }
}

/// truncate(2) and ftruncate(2) of a node, in whichever file system it is.
pub fn truncate_node(node: &Inode, len: i64) -> Result<(), Errno> {
    if len < 0 {
        return Err(EINVAL);
    }
    match &node.kind {
        Kind::File(_) if node.host().is_some() => super::hostfile::truncate(node, len as u64),
        Kind::File(data) => {
            data.lock().truncate(len as u64)?;
            node.touch();
            Ok(())
        }
        Kind::Dir(_) => Err(EISDIR),
        _ => Err(EINVAL),
    }
}

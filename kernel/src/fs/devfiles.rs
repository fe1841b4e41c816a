//! The kernel's own character devices in /dev: null, zero, random and
//! urandom. They keep no state, read and write never block (but
//! /dev/random's first read, until the generator is keyed), and lseek
//! succeeds without moving anything, as on Linux.

use super::fd::OpenFile;
use super::file::{File, Opener};
use super::inode::Inode;
use super::pollhub::PollHub;
use super::stat::Stat;
use alloc::sync::Arc;
use gometal_core::linux::errno::Errno;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum MemDevice {
    Null,
    Zero,
    /// Blocks until the generator is keyed from entropy.
    Random,
    /// Never blocks (Linux's behaviour before the pool is ready).
    Urandom,
}

impl MemDevice {
    /// (major, minor) as on Linux.
    fn numbers(self) -> (u32, u32) {
        match self {
            MemDevice::Null => (1, 3),
            MemDevice::Zero => (1, 5),
            MemDevice::Random => (1, 8),
            MemDevice::Urandom => (1, 9),
        }
    }
}

impl File for MemDevice {
    fn read(&self, of: &OpenFile, buf: &mut [u8], _: Option<u64>) -> Result<usize, Errno> {
        match self {
            MemDevice::Null => return Ok(0),
            MemDevice::Zero => buf.fill(0),
            MemDevice::Urandom => crate::random::fill(buf),
            MemDevice::Random => crate::random::fill_secure(buf, of.nonblocking()).map_err(crate::random::NotReady::errno)?,
        }
        Ok(buf.len())
    }

    /// Whatever is written is taken (and dropped).
    fn write(&self, _: &OpenFile, data: &[u8], _: Option<u64>) -> Result<usize, Errno> {
        Ok(data.len())
    }

    fn seek(&self, _: &OpenFile, _: i64, _: u32) -> Result<u64, Errno> {
        Ok(0)
    }

    fn discards_writes(&self) -> bool {
        *self == MemDevice::Null
    }

    fn stat(&self) -> Stat {
        Stat::char_device(0o666, self.numbers())
    }

    fn poll_hub(&self) -> Option<PollHub> {
        Some(PollHub::Global)
    }
}

impl Opener for MemDevice {
    fn open(&self, _: u32) -> Result<Arc<dyn File>, Errno> {
        Ok(Arc::new(*self))
    }

    fn rdev(&self) -> (u32, u32) {
        self.numbers()
    }
}

/// Puts the devices in /dev (boot: after the initramfs, so they win over
/// anything it has there).
pub fn publish(dev: &Arc<Inode>) {
    for (name, d) in [(&b"null"[..], MemDevice::Null), (b"zero", MemDevice::Zero), (b"random", MemDevice::Random), (b"urandom", MemDevice::Urandom)] {
        super::tree::replace(dev, name, Inode::new_device(Arc::new(d)));
    }
}

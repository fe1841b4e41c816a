//! An open UIO node. /dev/uioN: read(4 bytes) blocks (through the one wait
//! primitive, sched/block.rs via WaitQueue) until the device's interrupt
//! count differs from what this descriptor last saw and returns the count;
//! write(4 bytes) is irqcontrol; epoll reports EPOLLIN while an unseen
//! interrupt is pending, with the count as the edge-trigger generation.
//! The sysfs `event` file reads the count as text; `config` reads and
//! writes PCI config space at the file offset. Each node is a `Device`
//! node of the tree whose opener (`UioOpener`) makes a `UioFile`.

use super::{Source, UioDevice};
use crate::fs::epoll::in_out;
use crate::fs::fd::OpenFile;
use crate::fs::file::{DeviceMemory, File, Mapping, Opener};
use crate::fs::inode::Inode;
use crate::fs::pollhub::PollHub;
use crate::fs::stat::Stat;
use crate::mm::addrspace::AddressSpace;
use alloc::format;
use alloc::sync::Arc;
use core::sync::atomic::{AtomicU32, Ordering};
use gometal_core::linux::errno::{Errno, EAGAIN, EINTR, EINVAL, EIO, ENODEV};
use gometal_core::mm::vma::Prot;

/// Which node of a UIO device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UioNode {
    /// /dev/uioN.
    Dev,
    /// /sys/class/uio/uioN/event: the interrupt count.
    Event,
    /// /sys/class/uio/uioN/device/config: the PCI config space.
    Config,
    /// /proc/irq/L/smp_affinity and smp_affinity_list of the device's line.
    Affinity,
    AffinityList,
    /// /proc/interrupts (the UIO lines only).
    Interrupts,
}

/// What opens node `node` of device `n` (the tree holds one per node).
struct UioOpener {
    n: u8,
    node: UioNode,
}

impl Opener for UioOpener {
    fn open(&self, _: u32) -> Result<Arc<dyn File>, Errno> {
        Ok(open(self.n, self.node)?)
    }

    /// Linux gives UIO a dynamic major; 243 is a common one. The sysfs
    /// and /proc files have no numbers.
    fn rdev(&self) -> (u32, u32) {
        if self.node == UioNode::Dev { (243, self.n as u32) } else { (0, 0) }
    }
}

/// The tree node for node `node` of device `n`.
pub fn tree_node(n: u8, node: UioNode) -> Arc<Inode> {
    Inode::new_device(Arc::new(UioOpener { n, node }))
}

/// Conventional PCI config space, what Linux's `config` file shows for a
/// function without PCIe extended space.
const CONFIG_SIZE: u64 = 256;

pub struct UioFile {
    pub dev: Arc<UioDevice>,
    pub node: UioNode,
    /// The interrupt count this descriptor has seen (Linux: at open, then
    /// at each read).
    seen: AtomicU32,
}

/// Opens node `node` of device `n`.
fn open(n: u8, node: UioNode) -> Result<Arc<UioFile>, Errno> {
    let dev = super::device(n as usize).ok_or(ENODEV)?;
    let seen = AtomicU32::new(dev.events.load(Ordering::Acquire));
    Ok(Arc::new(UioFile { dev, node, seen }))
}

impl UioFile {
    /// epoll readiness (EPOLLIN bit) and the edge-trigger generation, from
    /// one load of the count: loading it twice let an interrupt fall
    /// between the two, so epoll saw "not readable" at the new generation,
    /// recorded that generation as reported, and never reported the
    /// interrupt (a goroutine in uio.Wait then slept forever).
    pub fn readiness(&self) -> (bool, u64) {
        match self.node {
            UioNode::Dev => {
                let now = self.dev.events.load(Ordering::Acquire);
                (now != self.seen.load(Ordering::Acquire), now as u64)
            }
            _ => (true, 0),
        }
    }

    /// read(2) and pread64(2) (`at`): /dev/uioN waits for an interrupt
    /// (without holding the offset lock); the sysfs files read at the offset.
    pub fn read_file(&self, file: &OpenFile, at: Option<u64>, out: &mut [u8]) -> Result<usize, Errno> {
        if self.node == UioNode::Dev {
            return self.read_event(out, file.nonblocking());
        }
        let mut offset = file.offset.lock();
        let n = self.read_at(at.unwrap_or(*offset), out)?;
        if at.is_none() {
            *offset += n as u64;
        }
        Ok(n)
    }

    /// write(2) and pwrite64(2).
    pub fn write_file(&self, file: &OpenFile, at: Option<u64>, data: &[u8]) -> Result<usize, Errno> {
        let mut offset = file.offset.lock();
        let n = self.write(at.unwrap_or(*offset), data)?;
        if at.is_none() && self.node != UioNode::Dev {
            *offset += n as u64;
        }
        Ok(n)
    }

    fn read_at(&self, pos: u64, out: &mut [u8]) -> Result<usize, Errno> {
        match self.node {
            UioNode::Dev => Err(EINVAL),
            UioNode::Event => {
                let text = format!("{}\n", self.dev.events.load(Ordering::Acquire));
                Ok(copy_at(text.as_bytes(), pos, out))
            }
            UioNode::Config => self.config(pos, out.len(), |ecam, addr, off, i| out[i] = ecam.read8(addr, off)),
            UioNode::Affinity | UioNode::AffinityList => Ok(copy_at(super::affinity::show(&self.dev, self.node).as_bytes(), pos, out)),
            UioNode::Interrupts => Ok(copy_at(super::affinity::interrupts().as_bytes(), pos, out)),
        }
    }

    fn write(&self, pos: u64, data: &[u8]) -> Result<usize, Errno> {
        match self.node {
            UioNode::Dev => {
                // Linux: exactly an s32; 0 masks, anything else unmasks.
                let word: [u8; 4] = data.try_into().map_err(|_| EINVAL)?;
                self.dev.irq_control(u32::from_ne_bytes(word) != 0);
                Ok(4)
            }
            UioNode::Event => Err(EIO),
            UioNode::Config => self.write_config(pos, data),
            UioNode::Affinity | UioNode::AffinityList => super::affinity::store(&self.dev, self.node, data),
            UioNode::Interrupts => Err(EIO),
        }
    }

    fn read_event(&self, out: &mut [u8], nonblock: bool) -> Result<usize, Errno> {
        if out.len() != 4 {
            return Err(EINVAL);
        }
        let take = || {
            let now = self.dev.events.load(Ordering::Acquire);
            (now != self.seen.swap(now, Ordering::AcqRel)).then_some(now)
        };
        let count = if nonblock { take().ok_or(EAGAIN)? } else { self.dev.waiters.wait_until(None, take).map_err(|_| EINTR)? };
        out.copy_from_slice(&count.to_ne_bytes());
        Ok(4)
    }

    /// Runs `each(ecam, function, offset, index)` for the config bytes
    /// [pos, pos+len) inside the config space; returns how many.
    fn config(&self, pos: u64, len: usize, mut each: impl FnMut(&crate::drivers::pci::Ecam, pci_types::PciAddress, u16, usize)) -> Result<usize, Errno> {
        let Source::Pci { ecam, addr } = &self.dev.source else { return Err(EIO) };
        let n = (CONFIG_SIZE.saturating_sub(pos) as usize).min(len);
        for i in 0..n {
            each(ecam, *addr, (pos as usize + i) as u16, i);
        }
        Ok(n)
    }

    /// Config writes go out as aligned 16-bit writes where they can (the
    /// command register is one: a driver's 2-byte write of it must not
    /// become two byte writes with a half-updated register between).
    fn write_config(&self, pos: u64, data: &[u8]) -> Result<usize, Errno> {
        let Source::Pci { ecam, addr } = &self.dev.source else { return Err(EIO) };
        let n = (CONFIG_SIZE.saturating_sub(pos) as usize).min(data.len());
        let mut i = 0;
        while i < n {
            let off = (pos as usize + i) as u16;
            if off.is_multiple_of(2) && i + 1 < n {
                ecam.write16(*addr, off, u16::from_le_bytes([data[i], data[i + 1]]));
                i += 2;
            } else {
                ecam.write8(*addr, off, data[i]);
                i += 1;
            }
        }
        Ok(n)
    }
}

/// The part of `src` at `pos` copied to `out`; 0 at or past the end.
fn copy_at(src: &[u8], pos: u64, out: &mut [u8]) -> usize {
    let Some(rest) = usize::try_from(pos).ok().and_then(|p| src.get(p..)) else { return 0 };
    let n = rest.len().min(out.len());
    out[..n].copy_from_slice(&rest[..n]);
    n
}

impl File for UioFile {
    fn read(&self, of: &OpenFile, buf: &mut [u8], at: Option<u64>) -> Result<usize, Errno> {
        self.read_file(of, at, buf)
    }

    fn write(&self, of: &OpenFile, data: &[u8], at: Option<u64>) -> Result<usize, Errno> {
        self.write_file(of, at, data)
    }

    fn positional(&self) -> bool {
        true
    }

    /// /dev/uioN a character device; its sysfs files regular, as on Linux.
    fn stat(&self) -> Stat {
        match self.node {
            UioNode::Dev => Stat::char_device(0o600, (243, self.dev.index as u32)),
            _ => Stat { mode: gometal_core::boot::cpio::S_IFREG | 0o644, nlink: 1, size: 4096, ..Stat::default() },
        }
    }

    /// Every node maps through uio/mmap.rs, which refuses all but /dev/uioN.
    fn mapping(&self) -> Option<Mapping<'_>> {
        Some(Mapping::Device(self))
    }

    fn poll_hub(&self) -> Option<PollHub> {
        Some(PollHub::Global)
    }

    fn poll(&self, _: &OpenFile) -> (u32, u64) {
        let (readable, generation) = self.readiness();
        (in_out(readable, true), generation)
    }
}

impl DeviceMemory for UioFile {
    fn map(&self, mm: &mut AddressSpace, hint: u64, len: u64, prot: Prot, fixed: bool, offset: u64) -> Result<u64, Errno> {
        super::mmap(mm, self, hint, len, prot, fixed, offset)
    }
}

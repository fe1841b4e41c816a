//! UIO: devices handed to the program, Linux's way (drivers/uio). The
//! program asked for them on the kernel command line (`uio=`, see
//! kernel/core/src/uio/uiospec.rs); each becomes /dev/uioN with
//! /sys/class/uio/uioN describing its memory maps (sysfs.rs), mmap of
//! offset M·pagesize maps region M (mmap.rs), read blocks until the next
//! interrupt and write is irqcontrol (file.rs).
//!
//! The top half (`on_irq`, in interrupt context) never waits for the
//! program: it silences the device (PCI: sets INTx Disable in the command
//! register, as uio_pci_generic does; platform: masks the line at the PLIC,
//! as uio_pdrv_genirq does), counts, wakes readers and pollers, and the trap
//! handler completes the interrupt at the PLIC. The program re-enables with
//! irqcontrol, or for PCI by clearing INTx Disable through
//! /sys/class/uio/uioN/device/config (the only way on Linux, whose
//! uio_pci_generic has no irqcontrol).

mod affinity;
mod file;
mod mmap;
mod setup;
mod sysfs;

pub use file::{UioFile, UioNode};
pub use mmap::mmap;
pub use setup::init;

use crate::drivers::pci::{self, Ecam};
use crate::param::MAX_CPUS;
use crate::sched::wait::WaitQueue;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use pci_types::PciAddress;
use spin::Once;

/// One memory region of a device, as /sys/class/uio/uioN/maps/mapM shows it.
#[derive(Clone, Debug)]
pub struct Map {
    pub name: String,
    pub pa: u64,
    pub size: u64,
}

pub enum Source {
    Pci { ecam: Ecam, addr: PciAddress },
    Platform,
}

pub struct UioDevice {
    pub index: usize,
    pub name: String,
    pub source: Source,
    /// Register blocks first (BARs in slot order), the DMA region last.
    pub maps: Vec<Map>,
    pub irq: Option<u32>,
    /// The CPU id the interrupt is routed to (changed by smp_affinity).
    pub hwid: AtomicUsize,
    /// The line's affinity as /proc/irq/N/smp_affinity shows it (a mask of
    /// CPU indexes; the line goes to the first online one).
    pub affinity: AtomicU64,
    /// Interrupts so far (Linux's event counter).
    pub events: AtomicU32,
    /// The same, per CPU index that ran the top half (/proc/interrupts).
    pub per_cpu: [AtomicU32; MAX_CPUS],
    pub waiters: WaitQueue,
}

static DEVICES: Once<Vec<Arc<UioDevice>>> = Once::new();

/// Every exposed device (empty before UIO setup).
fn all_devices() -> &'static [Arc<UioDevice>] {
    DEVICES.get().map_or(&[], |d| d.as_slice())
}

pub fn device(index: usize) -> Option<Arc<UioDevice>> {
    DEVICES.get()?.get(index).cloned()
}

impl UioDevice {
    /// irqcontrol: 1 lets the device interrupt again, 0 silences it.
    pub fn irq_control(&self, enable: bool) {
        match &self.source {
            Source::Pci { ecam, addr } => {
                let cmd = ecam.command(*addr);
                let cmd = if enable { cmd & !pci::CMD_INTX_DISABLE } else { cmd | pci::CMD_INTX_DISABLE };
                ecam.set_command(*addr, cmd);
            }
            Source::Platform => {
                if let Some(irq) = self.irq {
                    crate::drivers::irqchip::set_irq_enabled(irq, self.hwid.load(Ordering::Acquire), enable);
                }
            }
        }
    }

    /// The top half for one device on line `irq`; false if the interrupt
    /// is not this device's (a PCI function sharing the line that does not
    /// assert INTx).
    fn top_half(&self) -> bool {
        if let Source::Pci { ecam, addr } = &self.source {
            if ecam.status(*addr) & pci::STATUS_INTERRUPT == 0 {
                return false;
            }
        }
        self.irq_control(false);
        self.events.fetch_add(1, Ordering::AcqRel);
        if let Some(c) = self.per_cpu.get(crate::sched::cpu::this_cpu().index()) {
            c.fetch_add(1, Ordering::Relaxed);
        }
        self.waiters.wake_all();
        true
    }
}

/// Handles interrupt line `irq` if UIO devices use it; true if one did.
/// The caller completes the interrupt at the controller.
pub fn on_irq(irq: u32) -> bool {
    let Some(devs) = DEVICES.get() else { return false };
    let mut handled = false;
    for d in devs.iter().filter(|d| d.irq == Some(irq)) {
        handled |= d.top_half();
    }
    if handled {
        crate::fs::epoll::notify();
    }
    handled
}

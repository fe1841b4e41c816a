//! The Arm Generic Interrupt Controller, version 2 or 3. Its distributor
//! routes device lines (SPIs: the UART's, virtio's, UIO devices') to one
//! CPU each; each CPU's interface (GICv2: memory-mapped; GICv3: system
//! registers, with a redistributor per CPU for its private lines)
//! acknowledges them. The CPU's timer is a private line (which one, the
//! architecture says: arch::timer_line); IPIs are software-generated
//! interrupt 0, sent through the GIC.
//!
//! Enables are set/clear registers and routing is one byte (GICv2) or one
//! register (GICv3) per line, so no change needs a read-modify-write and
//! no lock: every line is put in the right group once, at probe.

use super::IrqChip;
use crate::arch::aarch64::sysreg::{read_sysreg, write_sysreg};
use crate::arch::mmio::Mmio;
use crate::arch::InterruptSink;
use gometal_core::drivers::irqchip::ControllerNode;
use alloc::boxed::Box;
use core::sync::atomic::{AtomicU64, Ordering};
use gometal_core::drivers::irqchip::{Family, GIC_SPECIAL};

/// The software-generated interrupt used as IPI.
const IPI_SGI: u32 = 0;
const PRIORITY: u8 = 0xa0;
/// GICv3's redistributor frames: RD_base and SGI_base, 64 KiB each.
const DEFAULT_REDIST_STRIDE: u64 = 0x20000;
/// Redistributor regions a GICv3 node may list (0 ends the list).
const MAX_REDIST_REGIONS: usize = 4;

// Distributor registers (both versions).
const GICD_CTLR: usize = 0x0;
const GICD_TYPER: usize = 0x4;
const GICD_IGROUPR: usize = 0x80;
const GICD_ISENABLER: usize = 0x100;
const GICD_ICENABLER: usize = 0x180;
const GICD_IPRIORITYR: usize = 0x400;
/// The trigger configuration of INTIDs 16..32 (2 bits each; the upper
/// one set: edge).
const GICD_ICFGR1: usize = 0xc04;
const GICD_ITARGETSR: usize = 0x800;
const GICD_SGIR: usize = 0xf00;
const GICD_IROUTER: usize = 0x6000;
// GICv2 CPU interface.
const GICC_CTLR: usize = 0x0;
const GICC_PMR: usize = 0x4;
const GICC_BPR: usize = 0x8;
const GICC_IAR: usize = 0xc;
const GICC_EOIR: usize = 0x10;
// GICv3 redistributor: RD frame, then the SGI frame 64 KiB on.
const GICR_TYPER: usize = 0x8;
const GICR_WAKER: usize = 0x14;
const GICR_SGI: usize = 0x10000;

#[derive(Clone, Copy)]
enum Version {
    V2 { cpu: Mmio },
    /// Redistributor regions (QEMU's virt has a second one past 123 CPUs).
    V3 { redist: [u64; MAX_REDIST_REGIONS], stride: u64 },
}

struct Gic {
    dist: Mmio,
    version: Version,
    /// GICv2: each CPU's interface number as a target mask, by hardware
    /// id: (hwid + 1) << 8 | mask, filled as CPUs come up.
    v2_targets: [AtomicU64; crate::param::MAX_CPUS],
}

/// Starts the GICv3 `node` describes: distributor, then redistributors.
pub fn probe_v3(node: &ControllerNode) -> Result<&'static dyn IrqChip, &'static str> {
    let [(dist, _), ..] = node.regs[..] else { return Err("needs a distributor and redistributors") };
    // `#redistributor-regions` (default 1) register blocks follow the distributor.
    let count = node.prop_u64("#redistributor-regions").unwrap_or(1) as usize;
    let mut redist = [0; MAX_REDIST_REGIONS];
    for (slot, &(base, _)) in redist.iter_mut().zip(node.regs.iter().skip(1).take(count)) {
        *slot = base;
    }
    if redist[0] == 0 {
        return Err("needs a distributor and redistributors");
    }
    let stride = node.prop_u64("redistributor-stride").filter(|&s| s != 0).unwrap_or(DEFAULT_REDIST_STRIDE);
    // SAFETY: the distributor of a node whose compatible names a GICv3.
    Ok(start(unsafe { Mmio::new(dist) }, Version::V3 { redist, stride }))
}

/// Starts the GICv2 `node` describes: distributor, then CPU interface.
pub fn probe_v2(node: &ControllerNode) -> Result<&'static dyn IrqChip, &'static str> {
    let [(dist, _), (cpu, _), ..] = node.regs[..] else { return Err("needs a distributor and a CPU interface") };
    // SAFETY: the distributor and CPU interface of a node whose compatible
    // names a GICv2.
    let (dist, cpu) = unsafe { (Mmio::new(dist), Mmio::new(cpu)) };
    Ok(start(dist, Version::V2 { cpu }))
}

/// Every shared line disabled, in the right group and at one priority;
/// then the distributor on and the boot CPU's side set up.
fn start(d: Mmio, version: Version) -> &'static dyn IrqChip {
    let lines = 32 * ((d.read32(GICD_TYPER) & 0x1f) + 1);
    d.write32(GICD_CTLR, 0);
    let v3 = matches!(version, Version::V3 { .. });
    let group = if v3 { u32::MAX } else { 0 };
    for word in 1..lines as usize / 32 {
        d.write32(GICD_ICENABLER + 4 * word, u32::MAX);
        d.write32(GICD_IGROUPR + 4 * word, group);
    }
    for line in 32..lines as usize {
        d.write8(GICD_IPRIORITYR + line, PRIORITY);
    }
    // GICv3: affinity routing, group 1 (one security state, as QEMU's
    // virt without EL3 has); GICv2: group 0 delivered as IRQ.
    d.write32(GICD_CTLR, if v3 { (1 << 4) | (1 << 1) | 1 } else { 1 });
    let gic: &'static Gic =
        Box::leak(Box::new(Gic { dist: d, version, v2_targets: [const { AtomicU64::new(0) }; crate::param::MAX_CPUS] }));
    gic.init_this_cpu();
    gic
}

fn this_hwid() -> u64 {
    read_sysreg!("mpidr_el1") & 0xff_00ff_ffff
}

/// MPIDR affinity as GICv3 writes it: Aff3.Aff2.Aff1.Aff0 in 32 bits.
fn affinity32(hwid: u64) -> u32 {
    (((hwid >> 32) & 0xff) << 24 | (hwid & 0xff_ffff)) as u32
}

/// This CPU's redistributor's physical address: the frame, in one of the
/// regions, whose GICR_TYPER names its affinity.
fn my_redistributor(regions: &[u64], stride: u64) -> Option<u64> {
    let want = affinity32(this_hwid());
    regions.iter().take_while(|&&base| base != 0).find_map(|&base| find_in_region(base, stride, want))
}

fn find_in_region(base: u64, stride: u64, want: u32) -> Option<u64> {
    for i in 0..crate::param::MAX_CPUS as u64 * 4 {
        // SAFETY: redistributor frames follow each other from `base` until
        // one says it is the last (GICR_TYPER.Last).
        let rd = unsafe { Mmio::new(base + i * stride) };
        let typer_lo = rd.read32(GICR_TYPER);
        if rd.read32(GICR_TYPER + 4) == want {
            return Some(base + i * stride);
        }
        if typer_lo & (1 << 4) != 0 {
            break;
        }
    }
    None
}

/// Enables the IPI and the CPU's timer among the private lines of `regs`
/// (the GICv2 distributor's banked registers, or a GICv3 SGI frame).
fn private_setup(regs: &Mmio) {
    regs.write32(GICD_ICENABLER, u32::MAX);
    regs.write8(GICD_IPRIORITYR + IPI_SGI as usize, PRIORITY);
    let mut enable = 1 << IPI_SGI;
    if let Some((timer, edge)) = crate::arch::timer_line().filter(|&(l, _)| (16..32).contains(&l)) {
        regs.write8(GICD_IPRIORITYR + timer as usize, PRIORITY);
        // The firmware's trigger mode (a GIC may keep PPIs' fixed: then
        // the write changes nothing).
        let bit = 1 << (2 * (timer - 16) + 1);
        let cfg = regs.read32(GICD_ICFGR1);
        regs.write32(GICD_ICFGR1, if edge { cfg | bit } else { cfg & !bit });
        enable |= 1 << timer;
    }
    regs.write32(GICD_ISENABLER, enable);
}

impl Gic {
    fn target(&self, irq: u32, hwid: usize) {
        match self.version {
            Version::V2 { .. } => self.dist.write8(GICD_ITARGETSR + irq as usize, self.v2_mask(hwid)),
            Version::V3 { .. } => {
                let h = hwid as u64;
                let route = (h & 0xff_ffff) | ((h >> 32) & 0xff) << 32;
                self.dist.write32(GICD_IROUTER + 8 * irq as usize, route as u32);
                self.dist.write32(GICD_IROUTER + 8 * irq as usize + 4, (route >> 32) as u32);
            }
        }
    }

    fn enable(&self, irq: u32, on: bool) {
        let reg = if on { GICD_ISENABLER } else { GICD_ICENABLER };
        self.dist.write32(reg + 4 * (irq as usize / 32), 1 << (irq % 32));
    }

    /// A GICv2 CPU interface's target mask for `hwid` (CPU interface
    /// number = hardware id on QEMU virt, for a CPU not yet up).
    fn v2_mask(&self, hwid: usize) -> u8 {
        for slot in &self.v2_targets {
            let v = slot.load(Ordering::Acquire);
            if v >> 8 == hwid as u64 + 1 {
                return v as u8;
            }
        }
        1 << (hwid & 7)
    }

    fn acknowledge(&self) -> u32 {
        match self.version {
            Version::V2 { cpu } => cpu.read32(GICC_IAR),
            Version::V3 { .. } => read_sysreg!("S3_0_C12_C12_0") as u32, // ICC_IAR1_EL1
        }
    }

    fn end_of_interrupt(&self, iar: u32) {
        match self.version {
            Version::V2 { cpu } => cpu.write32(GICC_EOIR, iar),
            Version::V3 { .. } => write_sysreg!("S3_0_C12_C12_1", iar as u64), // ICC_EOIR1_EL1
        }
    }
}

/// Shared peripheral interrupts: the lines a device can have.
fn is_spi(irq: u32) -> bool {
    (32..GIC_SPECIAL).contains(&irq)
}

impl IrqChip for Gic {
    fn name(&self) -> &'static str {
        "GIC"
    }

    fn family(&self) -> Family {
        Family::Gic
    }

    /// This CPU's redistributor (GICv3) or interface (GICv2), its private
    /// lines (the IPI and the timer) enabled, everything unmasked.
    fn init_this_cpu(&self) {
        match self.version {
            Version::V2 { cpu } => {
                private_setup(&self.dist);
                let mask = self.dist.read32(GICD_ITARGETSR) as u8;
                let slot = &self.v2_targets[(this_hwid() as usize) % crate::param::MAX_CPUS];
                slot.store(((this_hwid() + 1) << 8) | mask as u64, Ordering::Release);
                cpu.write32(GICC_PMR, 0xff);
                cpu.write32(GICC_BPR, 0);
                cpu.write32(GICC_CTLR, 1);
            }
            Version::V3 { redist, stride } => {
                let Some(rd_pa) = my_redistributor(&redist, stride) else { return };
                // SAFETY: this CPU's redistributor RD frame (GICR_TYPER said so).
                let rd = unsafe { Mmio::new(rd_pa) };
                rd.write32(GICR_WAKER, rd.read32(GICR_WAKER) & !(1 << 1));
                while rd.read32(GICR_WAKER) & (1 << 2) != 0 {
                    core::hint::spin_loop();
                }
                // SAFETY: the SGI frame is the 64 KiB after the RD frame.
                let sgi = unsafe { Mmio::new(rd_pa + GICR_SGI as u64) };
                sgi.write32(GICD_IGROUPR, u32::MAX);
                private_setup(&sgi);
                // ICC_SRE_EL1.SRE, then PMR, BPR1, CTLR (EOI also deactivates), IGRPEN1.
                write_sysreg!("S3_0_C12_C12_5", 0x7);
                write_sysreg!("S3_0_C4_C6_0", 0xff);
                write_sysreg!("S3_0_C12_C12_3", 0);
                write_sysreg!("S3_0_C12_C12_4", 0);
                write_sysreg!("S3_0_C12_C12_7", 1);
            }
        }
    }

    fn route(&self, irq: u32, hwid: usize) {
        if is_spi(irq) {
            self.target(irq, hwid);
            self.enable(irq, true);
        }
    }

    /// One routing register, so no interrupt is lost in between.
    fn reroute(&self, irq: u32, _from: usize, to: usize) {
        if is_spi(irq) {
            self.target(irq, to);
        }
    }

    /// One distributor bit, whichever CPU the line is routed to.
    fn set_enabled(&self, irq: u32, _hwid: usize, on: bool) {
        if is_spi(irq) {
            self.enable(irq, on);
        }
    }

    fn take_pending(&self, _hwid: usize, sink: &mut dyn InterruptSink) {
        let timer = crate::arch::timer_line().map(|(line, _)| line);
        loop {
            let iar = self.acknowledge();
            let intid = iar & 0x3ff;
            if intid >= GIC_SPECIAL {
                return;
            }
            if Some(intid) == timer {
                crate::arch::timer_fired();
                self.end_of_interrupt(iar);
                sink.timer();
            } else if intid < 16 {
                self.end_of_interrupt(iar);
                sink.ipi();
            } else {
                sink.device(intid);
                self.end_of_interrupt(iar);
            }
        }
    }

    fn send_ipi(&self, hwid: usize) -> bool {
        // SAFETY: the dsb makes this CPU's earlier writes visible before the IPI.
        unsafe { core::arch::asm!("dsb ishst", options(nostack)) };
        match self.version {
            Version::V2 { .. } => self.dist.write32(GICD_SGIR, (self.v2_mask(hwid) as u32) << 16 | IPI_SGI),
            Version::V3 { .. } => {
                let h = hwid as u64;
                let aff1 = (h >> 8) & 0xff;
                let aff2 = (h >> 16) & 0xff;
                let aff3 = (h >> 32) & 0xff;
                let value = aff3 << 48 | aff2 << 32 | (IPI_SGI as u64) << 24 | aff1 << 16 | 1 << (h & 0xf);
                write_sysreg!("S3_0_C12_C11_5", value); // ICC_SGI1R_EL1
            }
        }
        true
    }
}


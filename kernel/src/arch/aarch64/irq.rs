//! Interrupts on aarch64: the Arm Generic Interrupt Controller, version 2
//! or 3 as the device tree says. Its distributor routes device lines
//! (SPIs: the UART's, virtio's, UIO devices') to one CPU each; each CPU's
//! interface (GICv2: memory-mapped; GICv3: system registers, with a
//! redistributor per CPU for its private lines) acknowledges them. The
//! per-CPU timer is private line 27; IPIs are software-generated
//! interrupt 0.
//!
//! Enables are set/clear registers and routing is one byte (GICv2) or one
//! register (GICv3) per line, so no change needs a read-modify-write and
//! no lock: every line is put in the right group once, at init.

use super::sysreg::write_sysreg;
use super::timer;
use crate::arch::mmio::Mmio;
use crate::arch::InterruptSink;
use core::sync::atomic::{AtomicU64, Ordering};
use spin::Once;

/// The controller's name in /proc/interrupts.
pub const IRQ_CHIP: &str = "GIC";

/// The interrupt controller the device tree describes.
#[derive(Clone, Copy, Debug)]
pub enum GicInfo {
    V2 { dist: u64, cpu: u64 },
    V3 { dist: u64, redist: u64, redist_stride: u64 },
}

#[derive(Clone, Copy)]
enum Gic {
    V2 { dist: Mmio, cpu: Mmio },
    V3 { dist: Mmio, redist: u64, stride: u64 },
}

static GIC: Once<Gic> = Once::new();

/// The software-generated interrupt used as IPI.
const IPI_SGI: u32 = 0;
/// INTIDs 1020..1023 are special (1023: nothing pending).
const SPECIAL: u32 = 1020;
const PRIORITY: u8 = 0xa0;

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

/// GICv2: each CPU's interface number as a target mask, by hardware id:
/// (hwid + 1) << 8 | mask, filled as CPUs come up.
static V2_TARGETS: [AtomicU64; crate::param::MAX_CPUS] = [const { AtomicU64::new(0) }; crate::param::MAX_CPUS];

/// # Safety
/// `info` must describe the machine's GIC (from the device tree).
pub unsafe fn init(info: GicInfo) {
    let gic = match info {
        // SAFETY: the device tree's distributor and CPU interface.
        GicInfo::V2 { dist, cpu } => unsafe { Gic::V2 { dist: Mmio::new(dist), cpu: Mmio::new(cpu) } },
        // SAFETY: the device tree's distributor.
        GicInfo::V3 { dist, redist, redist_stride } => Gic::V3 { dist: unsafe { Mmio::new(dist) }, redist, stride: redist_stride },
    };
    let d = match gic {
        Gic::V2 { dist, .. } | Gic::V3 { dist, .. } => dist,
    };
    let lines = 32 * ((d.read32(GICD_TYPER) & 0x1f) + 1);
    d.write32(GICD_CTLR, 0);
    let group = if matches!(gic, Gic::V3 { .. }) { u32::MAX } else { 0 };
    for word in 1..lines as usize / 32 {
        d.write32(GICD_ICENABLER + 4 * word, u32::MAX);
        d.write32(GICD_IGROUPR + 4 * word, group);
    }
    for line in 32..lines as usize {
        d.write8(GICD_IPRIORITYR + line, PRIORITY);
    }
    // GICv3: affinity routing, group 1 (one security state, as QEMU's
    // virt without EL3 has); GICv2: group 0 delivered as IRQ.
    d.write32(GICD_CTLR, if matches!(gic, Gic::V3 { .. }) { (1 << 4) | (1 << 1) | 1 } else { 1 });
    GIC.call_once(|| gic);
    init_this_cpu();
}

/// This CPU's side: its redistributor (GICv3) or interface (GICv2), its
/// private lines (the IPI and the timer) enabled, everything unmasked.
pub fn init_this_cpu() {
    let Some(gic) = GIC.get() else { return };
    match *gic {
        Gic::V2 { dist, cpu } => {
            private_setup(&dist);
            let mask = dist.read32(GICD_ITARGETSR) as u8;
            let slot = &V2_TARGETS[(this_hwid() as usize) % crate::param::MAX_CPUS];
            slot.store(((this_hwid() + 1) << 8) | mask as u64, Ordering::Release);
            cpu.write32(GICC_PMR, 0xff);
            cpu.write32(GICC_BPR, 0);
            cpu.write32(GICC_CTLR, 1);
        }
        Gic::V3 { redist, stride, .. } => {
            let Some(rd_pa) = my_redistributor(redist, stride) else { return };
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

/// Enables the IPI and the timer among the private lines of `regs` (the
/// GICv2 distributor's banked registers, or a GICv3 SGI frame).
fn private_setup(regs: &Mmio) {
    regs.write32(GICD_ICENABLER, u32::MAX);
    let timer = timer::intid();
    for line in [IPI_SGI, timer] {
        regs.write8(GICD_IPRIORITYR + line as usize, PRIORITY);
    }
    // The firmware's trigger mode (a GIC may keep PPIs' fixed: then the
    // write changes nothing).
    let bit = 1 << (2 * (timer - 16) + 1);
    let cfg = regs.read32(GICD_ICFGR1);
    regs.write32(GICD_ICFGR1, if timer::edge_triggered() { cfg | bit } else { cfg & !bit });
    regs.write32(GICD_ISENABLER, (1 << IPI_SGI) | (1 << timer));
}

fn this_hwid() -> u64 {
    super::sysreg::read_sysreg!("mpidr_el1") & 0xff_00ff_ffff
}

/// MPIDR affinity as GICv3 writes it: Aff3.Aff2.Aff1.Aff0 in 32 bits.
fn affinity32(hwid: u64) -> u32 {
    (((hwid >> 32) & 0xff) << 24 | (hwid & 0xff_ffff)) as u32
}

/// This CPU's redistributor's physical address: the frame whose
/// GICR_TYPER names its affinity.
fn my_redistributor(base: u64, stride: u64) -> Option<u64> {
    let want = affinity32(this_hwid());
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

/// Routes `irq` (an SPI) to CPU `hwid` and enables it.
pub fn route_irq(irq: u32, hwid: usize) {
    let Some(gic) = GIC.get() else { return };
    if !(32..SPECIAL).contains(&irq) {
        return;
    }
    target(gic, irq, hwid);
    set_enabled(gic, irq, true);
}

fn target(gic: &Gic, irq: u32, hwid: usize) {
    match *gic {
        Gic::V2 { dist, .. } => dist.write8(GICD_ITARGETSR + irq as usize, v2_mask(hwid)),
        Gic::V3 { dist, .. } => {
            let h = hwid as u64;
            let route = (h & 0xff_ffff) | ((h >> 32) & 0xff) << 32;
            dist.write32(GICD_IROUTER + 8 * irq as usize, route as u32);
            dist.write32(GICD_IROUTER + 8 * irq as usize + 4, (route >> 32) as u32);
        }
    }
}

fn set_enabled(gic: &Gic, irq: u32, on: bool) {
    let d = match *gic {
        Gic::V2 { dist, .. } | Gic::V3 { dist, .. } => dist,
    };
    let reg = if on { GICD_ISENABLER } else { GICD_ICENABLER };
    d.write32(reg + 4 * (irq as usize / 32), 1 << (irq % 32));
}

/// A GICv2 CPU interface's target mask for `hwid` (CPU interface number
/// = hardware id on QEMU virt, for a CPU that has not come up yet).
fn v2_mask(hwid: usize) -> u8 {
    for slot in &V2_TARGETS {
        let v = slot.load(Ordering::Acquire);
        if v >> 8 == hwid as u64 + 1 {
            return v as u8;
        }
    }
    1 << (hwid & 7)
}

/// Moves `irq` from `from` to `to` (`/proc/irq/N/smp_affinity`): one
/// routing register, so no interrupt is lost in between.
pub fn reroute_irq(irq: u32, _from: usize, to: usize) {
    let Some(gic) = GIC.get() else { return };
    if (32..SPECIAL).contains(&irq) {
        target(gic, irq, to);
    }
}

/// Masks (false) or unmasks (true) `irq`: how UIO silences a device whose
/// interrupt the program has not yet acknowledged. One distributor bit,
/// whichever CPU it is routed to.
pub fn set_irq_enabled(irq: u32, _hwid: usize, on: bool) {
    let Some(gic) = GIC.get() else { return };
    if (32..SPECIAL).contains(&irq) {
        set_enabled(gic, irq, on);
    }
}

/// Sends the IPI to CPU `hwid`.
pub fn send_ipi(hwid: usize) {
    let Some(gic) = GIC.get() else { return };
    // SAFETY: the dsb makes this CPU's earlier writes visible before the IPI.
    unsafe { core::arch::asm!("dsb ishst", options(nostack)) };
    match *gic {
        Gic::V2 { dist, .. } => dist.write32(GICD_SGIR, (v2_mask(hwid) as u32) << 16 | IPI_SGI),
        Gic::V3 { .. } => {
            let h = hwid as u64;
            let aff1 = (h >> 8) & 0xff;
            let aff2 = (h >> 16) & 0xff;
            let aff3 = (h >> 32) & 0xff;
            let value = aff3 << 48 | aff2 << 32 | (IPI_SGI as u64) << 24 | aff1 << 16 | 1 << (h & 0xf);
            write_sysreg!("S3_0_C12_C11_5", value); // ICC_SGI1R_EL1
        }
    }
}

fn acknowledge(gic: &Gic) -> u32 {
    match *gic {
        Gic::V2 { cpu, .. } => cpu.read32(GICC_IAR),
        Gic::V3 { .. } => super::sysreg::read_sysreg!("S3_0_C12_C12_0") as u32, // ICC_IAR1_EL1
    }
}

fn end_of_interrupt(gic: &Gic, iar: u32) {
    match *gic {
        Gic::V2 { cpu, .. } => cpu.write32(GICC_EOIR, iar),
        Gic::V3 { .. } => write_sysreg!("S3_0_C12_C12_1", iar as u64), // ICC_EOIR1_EL1
    }
}

/// Acknowledges and reports every interrupt pending for this CPU.
pub fn take_pending(_hwid: usize, sink: &mut dyn InterruptSink) {
    let Some(gic) = GIC.get() else { return };
    loop {
        let iar = acknowledge(gic);
        let intid = iar & 0x3ff;
        if intid >= SPECIAL {
            return;
        }
        match intid {
            _ if intid == timer::intid() => {
                timer::disarm();
                end_of_interrupt(gic, iar);
                sink.timer();
            }
            0..16 => {
                end_of_interrupt(gic, iar);
                sink.ipi();
            }
            _ => {
                sink.device(intid);
                end_of_interrupt(gic, iar);
            }
        }
    }
}

/// The GIC line a device-tree `interrupts` specifier names (three cells:
/// 0 for an SPI, 1 for a PPI; the number; the trigger flags).
pub fn decode_dt_interrupt(cells: &[u32]) -> Option<u32> {
    let line = match cells {
        [0, n, ..] => 32 + n,
        [1, n, ..] => 16 + n,
        _ => return None,
    };
    (line < SPECIAL).then_some(line)
}

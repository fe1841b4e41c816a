//! The boot's middle part: the machine from the loader's device tree (and
//! what the kernel's own image carries in place of the loader's command
//! line and initrd), the devices the kernel drives itself (console UART,
//! interrupt controller, RTC, virtio), and the random generator keyed from
//! every entropy source there is. start/mod.rs calls these in order.

use super::{fail, STATUS_CANNOT_BOOT};
use crate::boot::{dtb, image, machine};
use crate::drivers::{rtc, uart};
use crate::sched::clock;
use alloc::vec::Vec;
use gometal_core::boot::bootargs::BootArgs;

/// The machine from the device tree the loader passed.
pub fn read_machine(dtb_pa: u64) -> machine::Machine {
    if let (0, Some(rsdp)) = (dtb_pa, crate::arch::firmware_rsdp()) {
        return crate::boot::acpi::read(rsdp)
            .unwrap_or_else(|e| fail(STATUS_CANNOT_BOOT, format_args!("cannot read the machine from the ACPI tables: {e}")));
    }
    let blob = dtb::locate(dtb_pa).unwrap_or_else(|e| {
        fail(STATUS_CANNOT_BOOT, format_args!("{e} ({dtb_pa:#x}): the loader must pass one, as it does for Linux"))
    });
    machine::read(dtb_pa, blob)
        .unwrap_or_else(|e| fail(STATUS_CANNOT_BOOT, format_args!("cannot read the device tree at {dtb_pa:#x}: {e}")))
}

/// What a one-file image carries (its command line and initramfs) takes
/// the place of the loader's — except the loader's `semihosting`, which
/// says how the exit status reaches the host (`gometal run app.img`
/// passes it on arm64) and is kept.
pub fn take_payload(m: &mut machine::Machine, image: &image::Image) {
    let Some(p) = &image.payload else { return };
    const SEMIHOSTING: &[u8] = b"semihosting";
    let loader: Vec<&[u8]> = m.bootargs.split(|b| b.is_ascii_whitespace()).filter(|t| !t.is_empty()).collect();
    let semihosting = loader.contains(&SEMIHOSTING);
    if loader.iter().any(|t| *t != SEMIHOSTING) && m.bootargs != p.cmdline {
        crate::println!(
            "gometal: the image carries its own command line; ignoring the loader's ({:?})",
            alloc::string::String::from_utf8_lossy(&m.bootargs)
        );
    }
    let mut args = Vec::new();
    if semihosting {
        args.extend_from_slice(SEMIHOSTING);
        args.push(b' ');
    }
    args.extend_from_slice(p.cmdline);
    m.bootargs = args;
    m.initrd = Some(p.initramfs);
}

/// Where the image was loaded and what memory the firmware keeps (`-v`).
pub fn report_image(m: &machine::Machine, image: &image::Image) {
    let e = image.extent;
    let what = if image.payload.is_some() { "kernel and program" } else { "kernel" };
    crate::println!("gometal: {what} image at {:#x}..{:#x}", e.start, e.end);
    if let Some(ranges) = crate::arch::firmware_memory() {
        crate::println!("gometal: started by UEFI firmware: RAM from its memory map ({} ranges)", ranges.len());
    }
    if m.fdt.end == 0 {
        crate::println!("gometal: no device tree: the machine from ACPI tables ({} CPUs in the MADT, console from the SPCR)", m.hwids.len());
        if let Some(timer) = m.arch.timer_note() {
            crate::println!("gometal: {timer}");
        }
        for (base, first, last) in &m.ecam {
            crate::println!("gometal: PCIe ECAM at {base:#x} (buses {first}..={last}) from the MCFG: BARs as the firmware placed them, INTx from the DSDT's _PRT");
        }
    }
    for r in &m.reserved {
        crate::println!("gometal: firmware reserves {:#x}..{:#x}", r.start, r.end);
    }
}

pub fn init_devices(m: &machine::Machine) -> Option<u64> {
    let console = uart::init(m.stdout.as_ref(), &m.serials);
    crate::arch::init_platform(&m.arch);
    start_irqchip(m);
    match console {
        Some(port) => {
            if let Some(irq) = port.irq {
                crate::drivers::irq::attach(irq, |_| crate::stdio::console::receive());
            }
        }
        None => {
            let named = match &m.stdout {
                Some(n) => alloc::format!("{} ({})", n.name, n.compatible.join(", ")),
                None => "none named".into(),
            };
            crate::println!("gometal: no UART driver for the console, {named}: output through the firmware, no input");
        }
    }
    let rtc_now = rtc::read_ns(&m.platform).map(|(ns, _)| ns);
    clock::init(m.arch.timebase_hz, rtc_now);
    rtc_now
}

/// The interrupt controller's driver, chosen by its `compatible`. Without
/// one no device can interrupt (and on arm64 not even the CPU's timer), so
/// the boot stops with one line naming the controller, the console being
/// the one device that works without interrupts.
fn start_irqchip(m: &machine::Machine) {
    use crate::drivers::irqchip::{probe, ProbeError};
    let node = m.irq_controller.as_ref();
    let named = || node.map(|n| alloc::format!("{} ({})", n.name, n.compatible.join(", "))).unwrap_or_default();
    let why = match probe(node) {
        Ok(_) => return,
        Err(ProbeError::None) => alloc::string::String::from("the machine names no interrupt controller"),
        Err(ProbeError::NoDriver) => alloc::format!("no driver for the interrupt controller {}", named()),
        Err(ProbeError::Bad(why)) => alloc::format!("the interrupt controller {}: {why}", named()),
    };
    fail(STATUS_CANNOT_BOOT, format_args!("{why}: devices and timers cannot interrupt; cannot boot"));
}

/// The virtio devices (they need the frame allocator for their queues):
/// entropy for the random generator, the console for stdin/out/err.
pub fn start_virtio(m: &machine::Machine, rtc_now: Option<u64>, args: &BootArgs) {
    let mut key = [0u8; crate::random::KEY_LEN];
    let mut devices = crate::drivers::virtio::mmio_devices(&m.virtio);
    devices.extend(virtio_pci(m, args));
    let found = crate::drivers::virtio::probe(devices, &mut key);
    match found.nic {
        Some((transport, irq)) => {
            let cpus = m.hwids.len().min(args.cores.unwrap_or(usize::MAX)).max(1);
            crate::net::nic::add(transport, irq, cpus)
        }
        None => report_undriven_nics(m),
    }
    if let (Some(note), true) = (m.arch.entropy_note(), args.verbose) {
        crate::println!("gometal: {note}");
    }
    start_random(m, &key[..found.entropy], rtc_now, args);
    if let Some(irq) = crate::drivers::virtio::console::irq() {
        crate::drivers::irq::attach_shared(irq, |_| {
            crate::drivers::virtio::console::on_interrupt();
            crate::stdio::hostsig::deliver();
        });
    }
    if let Some(irq) = crate::net::nic::irq() {
        crate::drivers::irq::attach_shared(irq, |_| crate::net::nic::on_interrupt());
    }
}

/// The virtio-pci functions (`gometal run -virtio pci`; UEFI's ACPI
/// machines): on the device tree's PCIe bridge, BARs placed by the kernel
/// and INTx routed through its `interrupt-map`; or on the MCFG's ECAM
/// under ACPI, BARs as the firmware placed them and INTx routed through the
/// DSDT's `_PRT`. Functions a `uio=` option names are the program's.
fn virtio_pci(m: &machine::Machine, args: &BootArgs) -> Vec<crate::drivers::virtio::Device> {
    use crate::drivers::{pci, virtio::pci::{devices, Bus}};
    use gometal_core::uio::uiospec::{self, Match};
    let (specs, _) = uiospec::parse_all(&args.uio);
    let reserved = |vendor, device| specs.iter().any(|s| s.what == Match::Pci { vendor, device });
    if let Some(h) = &m.pci_host {
        let Some(windows) = pci::windows(&h.windows) else { return Vec::new() };
        // SAFETY: the ECAM window of the device tree's host bridge node.
        let ecam = unsafe { pci::Ecam::new(h.ecam, h.ecam_size) };
        let route = |dev, pin| {
            gometal_core::drivers::pcihost::route_intx(&h.interrupt_map, &h.interrupt_map_mask, 0, dev, pin, h.parent_addr_cells, h.parent_int_cells)
                .and_then(crate::drivers::irqchip::decode)
        };
        return devices(Bus { ecam, windows: Some(windows), route: &route, reserved: &reserved, verbose: args.verbose });
    }
    let Some(&(base, 0, last)) = m.ecam.first() else { return Vec::new() };
    // SAFETY: the MCFG's ECAM window for buses 0..=last (1 MiB each).
    let ecam = unsafe { pci::Ecam::new(base, (last as u64 + 1) << 20) };
    let aml: &[u8] = match m.dsdt {
        // SAFETY: the DSDT's AML, in memory the firmware keeps for ACPI
        // (not in the usable ranges), reached through the linear map.
        Some(r) => unsafe { core::slice::from_raw_parts(crate::memlayout::phys_to_virt(r.start) as *const u8, (r.end - r.start) as usize) },
        None => &[],
    };
    let prt = gometal_core::boot::acpiprt::parse_prt(aml);
    if prt.is_none() {
        crate::println!("gometal: no static _PRT in the DSDT: PCI interrupts cannot be routed without an AML interpreter");
    }
    // ACPI's GSIs on arm64 are the GIC's interrupt ids (as the SPCR's).
    let route = |dev, pin| prt.as_ref().and_then(|p| gometal_core::boot::acpiprt::route(p, aml, dev, pin));
    devices(Bus { ecam, windows: None, route: &route, reserved: &reserved, verbose: args.verbose })
}

/// Keys the random generator from every entropy source there is, and
/// says so when they are not enough (never silently weak).
fn start_random(m: &machine::Machine, virtio: &[u8], rtc_now: Option<u64>, args: &BootArgs) {
    let mut pool = crate::random::Pool::new();
    let mut names: Vec<&str> = Vec::new();
    if !virtio.is_empty() {
        pool.add(virtio);
        names.push("virtio-rng");
    }
    for (name, bytes) in &m.seeds {
        if args.distrust_bootloader {
            pool.mix(bytes); // random.trust_bootloader=off, as on Linux
        } else {
            pool.add(bytes);
            names.push(name);
        }
    }
    let (enough, bits) = (pool.is_enough(), pool.bits());
    crate::random::init(pool, rtc_now.unwrap_or(0), crate::arch::ticks());
    let sources = names.join(", ");
    if enough && args.verbose {
        crate::println!("gometal: random generator (ChaCha20) keyed from {sources}");
    }
    if !enough {
        let found = if names.is_empty() {
            alloc::string::String::from("no entropy source (virtio-rng, /chosen/rng-seed)")
        } else {
            alloc::format!("only {bits} bits of entropy ({sources})")
        };
        crate::println!(
            "gometal: {found}: getrandom blocks (EAGAIN with GRND_NONBLOCK) and /dev/random blocks; /dev/urandom is not secure"
        );
    }
}

/// One line for network controllers the device tree has and no driver
/// here handles: the program has loopback networking only.
fn report_undriven_nics(m: &machine::Machine) {
    if m.nics.is_empty() {
        return;
    }
    let list: Vec<alloc::string::String> = m.nics.iter().map(|(n, c)| alloc::format!("{n} ({c})")).collect();
    crate::println!("gometal: no driver for the network device {}: loopback networking only", list.join(", "));
}


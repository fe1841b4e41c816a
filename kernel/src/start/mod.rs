//! The boot sequence: from the first Rust instruction on the boot CPU to
//! the program's first instruction, and the entry of the other CPUs
//! (devices.rs: the machine, the kernel's own devices, the random
//! generator).

mod devices;

use crate::boot::{image, machine};
use crate::sched::bringup as cpus;
use crate::fs::{fd::FdTable, tree};
use crate::sched::{clock, cpu, place, scheduler, timer};
use devices::{init_devices, read_machine, report_image, start_virtio, take_payload};
use crate::{loader, mm, process};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, Ordering};
use gometal_core::boot::bootargs::{self, BootArgs};
use gometal_core::sched::placement::Policy;

/// `time` at the first Rust instruction (the machine started at 0).
static KERNEL_ENTRY_TICKS: AtomicU64 = AtomicU64::new(0);

/// Exit statuses for a program that cannot be started (the shell's).
const STATUS_NOT_FOUND: u32 = 127;
const STATUS_CANNOT_EXECUTE: u32 = 126;
/// The image or the loader is at fault: nothing the program did.
const STATUS_CANNOT_BOOT: u32 = 125;

fn fail(status: u32, msg: core::fmt::Arguments) -> ! {
    crate::println!("gometal: {msg}");
    process::exit(status)
}

extern "C" {
    static bss_start: u8;
    static bss_end: u8;
}

fn clear_bss() {
    // SAFETY: only the addresses of the linker symbols are taken; the range
    // between them is the kernel's .bss (the boot stack lies before it),
    // which nothing has used yet.
    unsafe {
        let start = core::ptr::addr_of!(bss_start) as *mut u8;
        let end = core::ptr::addr_of!(bss_end) as usize;
        core::ptr::write_bytes(start, 0, end - start as usize);
    }
}

#[no_mangle]
extern "C" fn rust_boot(hwid: usize, dtb_pa: usize) -> ! {
    KERNEL_ENTRY_TICKS.store(crate::arch::ticks(), Ordering::Relaxed);
    clear_bss();
    cpu::enter(0, hwid);
    wire_layers();
    mm::heap::init_early();
    // Until init_devices finds the UART, lines go to the firmware's console.
    let mut m = read_machine(dtb_pa as u64);
    let rtc_now = init_devices(&m);
    if crate::arch::image_code_damaged() {
        fail(STATUS_CANNOT_BOOT, format_args!("the image is damaged (its code does not match its checksum): a truncated or corrupt file?"));
    }
    let image = image::read().unwrap_or_else(|e| fail(STATUS_CANNOT_BOOT, format_args!("the image is damaged: {e}")));
    take_payload(&mut m, &image);
    let args = bootargs::parse(&m.bootargs);
    crate::onexit::configure(args.on_exit);
    if args.semihosting {
        crate::arch::enable_semihosting();
    }
    if let Err(e) = mm::init(&m, image.extent) {
        fail(STATUS_CANNOT_BOOT, format_args!("{e}"));
    }
    if args.verbose {
        report_image(&m, &image);
    }
    start_virtio(&m, rtc_now, &args);
    crate::net::nic::configure(args.net.as_deref());
    crate::stdio::configure(args.tty, args.stderr_to_stdout);
    if args.stats || args.verbose {
        crate::stats::request();
    }
    if args.verbose {
        mm::strayaccess::request();
    }
    report_args(&args);
    if args.trace {
        crate::linux::enable_trace();
    }
    let boot = cpu::cpu(0);
    boot.set_state(cpu::CpuState::Online);
    let limit = args.cores.unwrap_or(usize::MAX).max(1);
    if args.verbose {
        for (id, why) in &m.unusable {
            crate::println!("gometal: cpu {id}: parked ({why}: cannot run the kernel or Go programs)");
        }
    }
    let online = cpus::start_all(&m.hwids, hwid, limit, args.verbose);
    crate::sched::cpu::set_cache_groups(&m.hwids, &m.cpu_caches);
    if args.verbose {
        crate::println!("gometal: {online} of {} CPUs online, {} MiB RAM", m.hwids.len(), ram_mib(&m));
    }
    start_program(&m, &args);
    timer::start(boot);
    scheduler::run(boot)
}

/// The registrations through which a lower layer reaches a higher one
/// (docs/architecture.md, "Layers"): each is a function the lower layer
/// cannot name.
fn wire_layers() {
    crate::console::set_sink(crate::console::Sink { put_byte: crate::drivers::uart::put_byte, drain: crate::drivers::uart::drain });
    crate::sched::idle::set_interrupt_poller(crate::trap::poll_interrupts);
    crate::sched::smp::set_ipi_sender(crate::drivers::irqchip::send_ipi);
    crate::sched::idle::set_idle_work(crate::net::nic::idle_kick);
    mm::tlb::register_shootdown(crate::sched::smp::shootdown);
    process::set_exit_report(crate::stats::report_if_requested);
}

fn ram_mib(m: &machine::Machine) -> u64 {
    m.memory.iter().map(|r| r.end - r.start).sum::<u64>() >> 20
}

fn report_args(args: &BootArgs) {
    for u in &args.unknown {
        crate::println!("gometal: ignoring unknown kernel argument {:?}", alloc::string::String::from_utf8_lossy(u));
    }
    let policy = match args.sched.as_deref() {
        None => place::DEFAULT_POLICY,
        Some(name) => Policy::parse(name).unwrap_or_else(|| {
            let names: Vec<&str> = Policy::ALL.iter().map(|p| p.name()).collect();
            crate::println!(
                "gometal: unknown sched={name} (choose one of {}); using {}",
                names.join(", "),
                place::DEFAULT_POLICY.name()
            );
            place::DEFAULT_POLICY
        }),
    };
    place::set_policy(policy, crate::arch::ticks());
    if let Some(us) = args.idle_poll_us {
        crate::sched::idle::configure(us as u64);
    }
    if let Some(w) = args.wake_steal {
        place::configure_handoff(w);
    }
    if args.verbose {
        crate::println!("gometal: placement policy {}", policy.name());
    }
}

/// Loads /init (or rdinit=) from the initramfs and queues its main thread.
fn start_program(m: &machine::Machine, args: &BootArgs) {
    let Some(initrd) = m.initrd else {
        fail(STATUS_NOT_FOUND, format_args!("no initramfs: boot with -initrd (gometal run does this)"))
    };
    let len = (initrd.end - initrd.start) as usize;
    // SAFETY: the initrd range was reserved in mm::init and is never freed
    // or written, so it can be borrowed for the rest of the boot.
    let archive: &'static [u8] =
        unsafe { core::slice::from_raw_parts(crate::memlayout::phys_to_virt(initrd.start) as *const u8, len) };
    if let Err(e) = tree::init(archive, &args.init) {
        fail(STATUS_NOT_FOUND, format_args!("the initramfs is not a valid cpio archive: {e:?}"));
    }
    crate::stdio::console::publish_files();
    crate::uio::init(m, &args.uio);
    crate::net::nic::publish_files();
    crate::fs::share::mount_all(&args.mounts);
    let init_path = alloc::string::String::from_utf8_lossy(&args.init).into_owned();
    let node = match tree::resolve(&args.init, true) {
        Ok(f) if !f.node.is_dir() && f.node.host().is_none() => f.node,
        _ => fail(STATUS_NOT_FOUND, format_args!("{init_path}: not found in the initramfs")),
    };
    // At boot the file is still the archive's bytes: load straight from them
    // (a copy on the kernel heap would need as much heap as the program).
    let image: &'static [u8] = match &node.kind {
        crate::fs::inode::Kind::File(data) => match data.lock().unmodified() {
            Some(bytes) => bytes,
            None => fail(STATUS_CANNOT_EXECUTE, format_args!("{init_path}: changed before it ran")),
        },
        _ => fail(STATUS_CANNOT_EXECUTE, format_args!("{init_path}: not a regular file")),
    };
    let mut argv: Vec<&[u8]> = alloc::vec![args.init.as_slice()];
    argv.extend(args.args.iter().map(|a| a.as_slice()));
    let mut envp: Vec<&[u8]> = args.env.iter().map(|e| e.as_slice()).collect();
    // As a login shell (and a container runtime) sets them for root,
    // unless the command line gave them.
    for var in LOGIN_ENV {
        let name = &var[..var.iter().position(|&b| b == b'=').unwrap_or(0) + 1];
        if !envp.iter().any(|e| e.starts_with(name)) {
            envp.push(var);
        }
    }
    let loaded = match loader::load(image, &argv, &envp) {
        Ok(l) => l,
        Err(e) => fail(STATUS_CANNOT_EXECUTE, format_args!("{init_path}: cannot run: {e}")),
    };
    crate::procfs::record_exec(&argv, &envp, loaded.sp);
    crate::procfs::publish(&args.init);
    let Some(p) = process::create_with(loaded, FdTable::with_stdio(crate::stdio::open_files())) else {
        fail(STATUS_CANNOT_EXECUTE, format_args!("{init_path}: out of memory"))
    };
    if args.verbose {
        let ms = clock::ns_to_ms_since_boot(KERNEL_ENTRY_TICKS.load(Ordering::Relaxed));
        crate::println!("gometal: starting {init_path} ({} KiB), kernel entered at {ms} ms", image.len() / 1024);
    }
    if let Some(cwd) = &args.cwd {
        match tree::resolve(cwd, true) {
            Ok(f) if f.node.is_dir() => *p.0.fs.cwd.lock() = f.node,
            _ => fail(STATUS_NOT_FOUND, format_args!("cwd={}: no such directory in the initramfs", alloc::string::String::from_utf8_lossy(cwd))),
        }
    }
    let main = Arc::new(p.1);
    p.0.add_thread(main.clone()).expect("first thread");
    crate::stdio::hostsig::deliver(); // a signal the host sent during boot
    place::wake_up(main);
}

/// The environment a login shell gives root, where the command line is
/// silent.
const LOGIN_ENV: [&[u8]; 4] = [
    b"HOME=/root",
    b"USER=root",
    b"LOGNAME=root",
    b"PATH=/usr/local/bin:/usr/bin:/bin",
];

#[no_mangle]
extern "C" fn rust_secondary(hwid: usize) -> ! {
    let Some(index) = cpus::index_of(hwid) else {
        // Not ours (started twice?): stay out of the way.
        loop {
            crate::arch::wait_for_interrupt();
        }
    };
    let h = cpu::cpu(index);
    if !h.transition(cpu::CpuState::Bootstrap, cpu::CpuState::Online) {
        // The boot CPU gave up on us: stay out of the way.
        loop {
            crate::arch::wait_for_interrupt();
        }
    }
    cpu::enter(index, hwid);
    crate::drivers::irqchip::init_this_cpu();
    timer::start(h);
    scheduler::run(h)
}

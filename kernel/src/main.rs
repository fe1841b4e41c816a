//! gometal: a small kernel that runs one unmodified, statically linked
//! Linux/riscv64 Go program on bare metal (QEMU virt, S-mode under OpenSBI).
//!
//! Principles: implement exactly the Linux ABI the Go runtime uses, with the
//! semantics it relies on; keep S-mode interrupts off (the kernel is never
//! preempted, so locks need no interrupt masking); keep pure logic in
//! `gometal_core`, tested on the host; `unsafe` only at the hardware edge.

#![no_std]
#![no_main]

extern crate alloc;

mod arch;
mod boot;
mod console;
mod devices;
mod drivers;
mod fs;
mod linux;
mod loader;
mod memlayout;
mod mm;
mod param;
mod process;
mod random;
mod sched;
mod signal;
mod smp;
mod start;
mod stats;
mod trap;
mod vdso;
mod version;

use core::panic::PanicInfo;

static PANICKING: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

#[panic_handler]
fn panic(info: &PanicInfo) -> ! {
    // One report: a second hart panicking meanwhile just stops.
    if PANICKING.swap(true, core::sync::atomic::Ordering::AcqRel) {
        loop {
            arch::wait_for_interrupt();
        }
    }
    let hart = arch::csr::tp();
    console::print_fmt_unlocked(format_args!("\ngometal: kernel panic (hart struct {hart:#x}): {info}\n"));
    drivers::uart::drain();
    drivers::poweroff::power_off(param::KERNEL_PANIC_STATUS)
}

//! gometal: a small kernel that runs one unmodified, statically linked
//! Linux Go program on bare metal: riscv64 in S-mode (under OpenSBI, from
//! QEMU `-kernel` or U-Boot's `booti`) and arm64 at EL1 (from QEMU
//! `-kernel`, U-Boot's `booti` or UEFI, entered at EL1 or EL2); QEMU virt
//! and the boards the device tree describes. Everything
//! architecture-specific is under arch/.
//!
//! Principles: implement exactly the Linux ABI the Go runtime uses, with the
//! semantics it relies on; keep interrupts masked in the kernel (it is never
//! preempted, so locks need no interrupt masking); keep pure logic in
//! `gometal_core`, tested on the host; `unsafe` only at the hardware edge.

#![no_std]
#![no_main]
// Where `unsafe` may appear is the compiler's business, not a convention:
// every module that does not touch hardware or raw memory is
// `#[deny(unsafe_code)]` at its `mod` line (here and in the directories'
// mod.rs files); in the others, every unsafe operation sits in an explicit
// block, even inside an unsafe fn, and every block says why it is sound.
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

extern crate alloc;

mod arch;
mod boot;
#[deny(unsafe_code)]
mod console;
mod drivers;
#[deny(unsafe_code)]
mod fs;
#[deny(unsafe_code)]
mod itimer;
#[deny(unsafe_code)]
mod linux;
#[deny(unsafe_code)]
mod loader;
#[deny(unsafe_code)]
mod memlayout;
mod mm;
mod net;
#[deny(unsafe_code)]
mod onexit;
#[deny(unsafe_code)]
mod param;
#[deny(unsafe_code)]
mod process;
#[deny(unsafe_code)]
mod procfs;
#[deny(unsafe_code)]
mod random;
mod sched;
#[deny(unsafe_code)]
mod signal;
mod start;
#[deny(unsafe_code)]
mod stats;
#[deny(unsafe_code)]
mod stdio;
mod sync;
mod trap;
mod uio;
#[deny(unsafe_code)]
mod vdso;
mod version;

use core::panic::PanicInfo;

static PANICKING: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

#[panic_handler]
fn panic(info: &PanicInfo) -> ! {
    // One report: a second CPU panicking meanwhile just stops.
    if PANICKING.swap(true, core::sync::atomic::Ordering::AcqRel) {
        loop {
            arch::wait_for_interrupt();
        }
    }
    let cpu = arch::cpu_local();
    console::print_fmt_unlocked(format_args!("\ngometal: kernel panic (cpu struct {cpu:#x}): {info}\n"));
    onexit::finish(param::KERNEL_PANIC_STATUS)
}

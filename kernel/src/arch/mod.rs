//! The architecture interface: everything that differs between CPUs, behind
//! one neutral API that the rest of the kernel (mm, sched, fs, net, uio,
//! linux/, process, signal, loader, trap, start) calls. Each architecture
//! is a folder with the same files (docs/porting.md lists them and what
//! each must provide), selected here by `cfg(target_arch)`:
//!
//! ```text
//! entry.S   boot entry (boot CPU and the others), early page table
//! trap.S    trap vector, user entry and exit
//! switch.S  kernel context switch, a new thread's first instructions
//! fp.S      FP/SIMD state save and restore
//! vdso.S    the vDSO image (clock_gettime, rt_sigreturn); arch/vdso.rs
//!           reads its four symbols for both
//! context   the saved user registers (TrapFrame), kernel Context, FpState
//! cpu       the per-CPU pointer register, per-CPU setup, waiting, counter
//! trap      decoding a trap's cause; taking pending interrupts
//! ipi       IPIs, where the CPU defines them (else the controller's)
//! timer     the per-CPU timer deadline, and its line at the controller
//! cpus      starting a CPU through the firmware, its status
//! power     power off with an exit status, reboot, halt; the firmware console
//! mmu       the kernel's linear map, user roots, TLB maintenance
//! signal    the signal frame's registers, the handler's entry, sigreturn
//! machine   what this architecture reads from the device tree
//! elf       the ELF machine, HWCAP, uname's machine name
//! userguard what stops the kernel touching user memory directly (SUM
//!           clear, PAN), and the self-check's probe of it
//! efi       the image as a UEFI application (its entry, the memory map
//!           and RSDP it hands over), or why there is none
//! acpi      the MADT's CPUs and interrupt controller, the timer's table,
//!           the SPCR's UART, for boot/acpi.rs (or why none is read)
//! imagecheck entry.S's code-checksum verdict
//! ```
//!
//! contract.rs lists every item with its type, re-exports each as
//! `arch::item` and fails to compile for a folder that lacks one: an
//! architecture with no answer (riscv64 has no UEFI entry) says so in its
//! own file, as nothing stands in for it.
//!
//! The kernel runs with interrupts masked. An interrupt is taken only from
//! user mode (the trap vector) or polled by an idle CPU; either way the
//! architecture reports what the CPU itself raised (its timer, its IPIs)
//! to an [`InterruptSink`] the generic trap code passes in, and tells the
//! sink when the interrupt controller has something (`external`): the
//! controller is a chip with a driver of its own (drivers/irqchip), which
//! no architecture code names — so no architecture code calls upward.
//!
//! Written for riscv64 and aarch64, x86-64 later: nothing here
//! assumes three levels of page table (the entry format says), an SBI or a
//! device-tree-only machine (`machine` may come from ACPI), or a
//! particular register for the syscall number.

pub mod mmio;

#[cfg(target_arch = "riscv64")]
pub mod riscv64;
#[cfg(target_arch = "riscv64")]
use riscv64 as this;
#[cfg(target_arch = "aarch64")]
pub mod aarch64;
#[cfg(target_arch = "aarch64")]
use aarch64 as this;

pub mod acpimap;
mod contract;
pub use contract::*;

/// The vDSO image, its data words and the signal-return entry (vdso.rs).
pub mod vdso;

/// The signal frame as this architecture lays it out (signal.rs).
pub mod signal {
    pub use super::contract::{enter_handler, read_frame, write_frame, FRAME_SIZE};
}

/// Why a thread entered the kernel from user mode, as the architecture
/// decoded it. A system call's number and arguments are in the TrapFrame,
/// whose pc already points past the instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrapCause {
    Syscall,
    /// A page fault on a user access (demand paging or a signal).
    PageFault { addr: u64, access: FaultAccess },
    /// One or more interrupts are pending: call [`take_interrupts`].
    Interrupt,
    /// Any other synchronous exception: the signal Linux sends for it.
    Fault { signo: usize, code: i32, addr: u64 },
    /// An undefined instruction at `addr` (the pc): the generic code reads
    /// it and offers it to [`emulate_instruction`] (arm64: an MRS of an ID
    /// register, as Linux's HWCAP_CPUID promises), else SIGILL. riscv64
    /// reports its illegal instructions as `Fault` (it emulates none).
    #[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
    Undefined { addr: u64 },
}

/// The kind of access that faulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultAccess {
    Read,
    Write,
    Execute,
}

/// What the generic kernel does with each interrupt the architecture takes.
pub trait InterruptSink {
    /// This CPU's timer deadline passed (the timer is already disarmed).
    fn timer(&mut self);
    /// Another CPU sent this one an IPI (already acknowledged).
    fn ipi(&mut self);
    /// Device interrupt line `irq` (completed at the controller after this returns).
    fn device(&mut self, irq: u32);
    /// The interrupt controller signals something: ask its driver, which
    /// reports each interrupt back through `timer`, `ipi` or `device`.
    fn external(&mut self);
}

/// Why a CPU could not be started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartError {
    /// The firmware says it is already running (or starting).
    AlreadyRunning,
    /// The firmware refused, with its error code.
    Refused(isize),
}

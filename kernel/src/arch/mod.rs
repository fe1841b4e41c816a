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
//! irq       the interrupt controller; IPIs
//! timer     the per-CPU timer deadline
//! cpus      starting a CPU through the firmware, its status
//! power     power off with an exit status, reboot, halt; the firmware console
//! mmu       the kernel's linear map, user roots, TLB maintenance
//! signal    the signal frame's registers, the handler's entry, sigreturn
//! machine   what this architecture reads from the device tree
//! elf       the ELF machine, HWCAP, uname's machine name
//! userguard what stops the kernel touching user memory directly (SUM
//!           clear, PAN), and the self-check's probe of it
//! ```
//!
//! aarch64 also has efi (the image as a UEFI application: its entry,
//! the memory map it hands over), acpi (the MADT's CPUs and GIC, the
//! GTDT's timer interrupt, the SPCR's UART, for boot/acpi.rs) and imagecheck (entry.S's code-checksum
//! verdict); the other architectures answer those with the stubs below.
//!
//! The kernel runs with interrupts masked. An interrupt is taken only from
//! user mode (the trap vector) or polled by an idle CPU; either way the
//! architecture finds out which sources are pending, acknowledges them at
//! its controller, and reports each to an [`InterruptSink`] the generic
//! trap code passes in — so no architecture code calls upward.
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

pub use this::context::{Context, FpState, TrapFrame};
pub use this::cpu::{cpu_local, init_cpu, set_cpu_local, ticks, wait_for_interrupt};
pub use this::cpus::{describe_cpu_status, start_cpu};
pub use this::elf::{cpuinfo, hwcaps, ELF_TARGET, O_DIRECTORY, O_LARGEFILE, O_NOFOLLOW, UNAME_MACHINE};
pub use this::irq::{decode_dt_interrupt, reroute_irq, route_irq, send_ipi, set_irq_enabled, IRQ_CHIP};
pub use this::machine::{cpu_unusable, read_machine, MachineInfo};
pub use this::trap::{emulate_instruction, trap_cause};
pub use this::userguard::{probe_user_load, user_access_guard};
pub use this::mmu::{
    activate_user_root, asid_bits, device_virt, flush_tlb_all, flush_tlb_all_cpus, flush_tlb_page, flush_user_range_all_cpus,
    init_user_root, kernel_load_address, map_high_device, phys_to_virt, set_linear_map_memory, sync_icache, virt_to_phys,
    PageFormat, LINEAR_MAP_END, USER_END,
};
pub use this::power::{exit_status_reaches_host, firmware_console_put, halt, power_off, reboot};
pub use this::timer::set_timer;
#[cfg(target_arch = "aarch64")]
pub use aarch64::efi::{firmware_memory, firmware_rsdp};
#[cfg(target_arch = "aarch64")]
pub use aarch64::imagecheck::image_code_damaged;
#[cfg(target_arch = "aarch64")]
pub use aarch64::acpi::{read_acpi_timer, read_madt, spcr_uart};

/// The CPUs and interrupt controller from ACPI's MADT: not read on this
/// architecture (RISC-V's RINTC entries), so ACPI-only firmware fails.
#[cfg(not(target_arch = "aarch64"))]
pub fn read_madt(
    _madt: core::pin::Pin<&acpi::madt::Madt>,
    _fadt: Option<core::pin::Pin<&acpi::fadt::Fadt>>,
) -> Option<(MachineInfo, alloc::vec::Vec<usize>)> {
    None
}

/// The timer's interrupt from ACPI's tables: nothing to read here.
#[cfg(not(target_arch = "aarch64"))]
pub fn read_acpi_timer<H: acpi::AcpiHandler>(_tables: &acpi::AcpiTables<H>, _info: &mut MachineInfo) {}

/// The console driver and register width for an SPCR interface type.
#[cfg(not(target_arch = "aarch64"))]
pub fn spcr_uart(kind: acpi::spcr::SpcrInterfaceType) -> Option<(&'static str, u32)> {
    use acpi::spcr::SpcrInterfaceType::{Full16450, Full16550};
    matches!(kind, Full16550 | Full16450).then_some(("ns16550a", 1))
}

/// Whether the boot code found the image's code damaged and booted on to
/// say so; riscv64's entry says it itself, through the SBI.
#[cfg(not(target_arch = "aarch64"))]
pub fn image_code_damaged() -> bool {
    false
}

/// Usable RAM from a UEFI memory map (arm64's EFI entry); none here.
#[cfg(not(target_arch = "aarch64"))]
pub fn firmware_memory() -> Option<&'static [[u64; 2]]> {
    None
}

/// The ACPI RSDP a UEFI firmware named; none here.
#[cfg(not(target_arch = "aarch64"))]
pub fn firmware_rsdp() -> Option<u64> {
    None
}
pub use this::trap::{poll_interrupts, take_interrupts};
pub use this::{enable_semihosting, enter_user, init_platform, restore_fp, save_fp, switch};

/// The vDSO image, its data words and the signal-return entry (vdso.rs).
pub mod vdso;

/// The signal frame as this architecture lays it out (signal.rs).
pub mod signal {
    pub use super::this::signal::{enter_handler, read_frame, write_frame, FRAME_SIZE};
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
}

/// Why a CPU could not be started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartError {
    /// The firmware says it is already running (or starting).
    AlreadyRunning,
    /// The firmware refused, with its error code.
    Refused(isize),
}

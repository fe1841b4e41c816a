//! The architecture contract: every item an architecture folder must
//! provide, with its type, in one list the compiler checks. Each entry
//! both re-exports the item under `arch::` (where the rest of the kernel
//! finds it) and requires it to have exactly the type written here, so a
//! new architecture that lacks an item, or gives it another signature,
//! does not compile — no default stands in for a missing piece. What each
//! item must do is its doc comment here; docs/porting.md walks through
//! them in the order a port writes them.
//!
//! Items an architecture answers "none" to (riscv64 has no UEFI entry and
//! reads no ACPI table) are still written in its own folder, saying why.

use super::this;
use super::{InterruptSink, StartError, TrapCause};
use alloc::string::String;
use alloc::vec::Vec;
use core::pin::Pin;
use gometal_core::drivers::irqchip::ControllerNode;
use gometal_core::signal::sigframe::{SigInfo, StackT};

/// `path::item: type;` (a path inside the architecture's folder) —
/// re-exported as `arch::item`, and checked to have that type.
macro_rules! contract {
    ($( $(#[$doc:meta])* $($seg:ident)::+ : $ty:ty ; )*) => {
        $(
            $(#[$doc])*
            // An item may serve only a chip driver of another architecture
            // (timer_line is the GIC's): unused here is not a mistake.
            #[allow(unused_imports)]
            pub use this::$($seg)::+;
            const _: $ty = this::$($seg)::+;
        )*
    };
}

/// What an architecture reads from the MADT: its description, the CPUs'
/// hardware ids, the interrupt controller.
pub type MadtReading = Option<(MachineInfo, Vec<usize>, ControllerNode)>;

/// The types every architecture defines, re-exported.
pub use this::context::{Context, FpState, TrapFrame};
pub use this::machine::MachineInfo;
pub use this::mmu::PageFormat;
use this::signal::FRAME_SIZE as SIGNAL_FRAME_SIZE;

contract! {
    // cpu: the running CPU.
    /// Per-CPU setup: trap vector, counter access, timer stopped.
    cpu::init_cpu: fn();
    /// The running CPU's per-CPU pointer (0 before `set_cpu_local`).
    cpu::cpu_local: fn() -> usize;
    /// Sets it; unsafe: it must point at this CPU's structure for good.
    cpu::set_cpu_local: unsafe fn(usize);
    /// Waits for an interrupt to become pending (it is polled, not taken).
    cpu::wait_for_interrupt: fn();
    /// The counter every CPU shares, in ticks of the machine's timebase.
    cpu::ticks: fn() -> u64;

    // cpus: starting the other CPUs.
    /// Starts CPU `hwid` at the kernel's secondary entry on `stack_top`.
    cpus::start_cpu: fn(usize, u64) -> Result<(), StartError>;
    /// The firmware's view of a CPU that did not come up, for the boot log.
    cpus::describe_cpu_status: fn(usize) -> String;

    // elf: what a program and /proc see of the CPU.
    /// The ELF machine and user address limit the loader accepts.
    elf::ELF_TARGET: gometal_core::loader::elf::Target;
    /// uname's machine field.
    elf::UNAME_MACHINE: &[u8];
    /// AT_HWCAP and AT_HWCAP2 (None: not given).
    elf::hwcaps: fn() -> (u64, Option<u64>);
    /// One CPU's /proc/cpuinfo paragraph (index, hardware id).
    elf::cpuinfo: fn(usize, usize) -> String;
    /// The open flags whose values differ between Linux architectures.
    elf::O_DIRECTORY: u32;
    elf::O_NOFOLLOW: u32;
    elf::O_LARGEFILE: u32;

    // ipi
    /// Sends an IPI to CPU `hwid` if the CPU has its own way to (true);
    /// false leaves it to the interrupt controller (drivers/irqchip).
    ipi::send_ipi: fn(usize) -> bool;

    // machine: what the architecture reads from the device tree itself.
    /// Why a CPU node cannot run the kernel, if it cannot.
    machine::cpu_unusable: fn(&fdt::standard_nodes::Cpu<'_, '_>) -> Option<&'static str>;
    /// The architecture's part of the machine description.
    machine::read_machine: fn(&fdt::Fdt<'_>) -> MachineInfo;

    // acpi: what the architecture reads from ACPI's tables itself.
    /// CPUs (their hardware ids), the interrupt controller as a device
    /// tree would describe it, and the architecture's description, from
    /// the MADT (and the FADT); None: ACPI cannot describe this machine.
    acpi::read_madt: fn(Pin<&acpi::madt::Madt>, Option<Pin<&acpi::fadt::Fadt>>) -> MadtReading;
    /// The CPU timer's interrupt from its ACPI table, if there is one.
    acpi::read_acpi_timer: fn(&acpi::AcpiTables<super::acpimap::LinearMap>, &mut MachineInfo);
    /// The console driver (a `compatible`) and register width for an
    /// SPCR interface type.
    acpi::spcr_uart: fn(acpi::spcr::SpcrInterfaceType) -> Option<(&'static str, u32)>;

    // efi: started as a UEFI application.
    /// Usable RAM from the UEFI memory map, if UEFI started the kernel.
    efi::firmware_memory: fn() -> Option<&'static [[u64; 2]]>;
    /// The ACPI RSDP UEFI named, if it did.
    efi::firmware_rsdp: fn() -> Option<u64>;
    /// The entry found the image's code damaged and booted on to say so.
    imagecheck::image_code_damaged: fn() -> bool;

    // trap: decoding traps from user mode.
    /// Why the current trap happened (a syscall's pc moved past it).
    trap::trap_cause: fn(&mut TrapFrame) -> TrapCause;
    /// Takes the interrupts the current trap is for.
    trap::take_interrupts: fn(usize, &mut dyn InterruptSink);
    /// Takes whatever is pending on an idle CPU that polls.
    trap::poll_interrupts: fn(usize, &mut dyn InterruptSink);
    /// Emulates an undefined user instruction if the CPU's ABI promises it.
    trap::emulate_instruction: fn(&mut TrapFrame, u32) -> bool;

    // mmu: the kernel's map, user roots, TLBs.
    /// The first physical address the linear map does not reach.
    mmu::LINEAR_MAP_END: u64;
    /// The end of the user half (exclusive).
    mmu::USER_END: u64;
    /// Physical to kernel-virtual through the linear map.
    mmu::phys_to_virt: fn(u64) -> u64;
    /// Kernel-virtual (linear map or image) to physical.
    mmu::virt_to_phys: fn(u64) -> u64;
    /// The kernel-virtual address of a device's registers, if mapped.
    mmu::device_virt: fn(u64) -> Option<u64>;
    /// Maps device registers beyond the linear map; false if it cannot.
    mmu::map_high_device: fn(u64) -> bool;
    /// Where the loader put the kernel image (physical).
    mmu::kernel_load_address: fn() -> u64;
    /// Tells the linear map which ranges are RAM (cacheable).
    mmu::set_linear_map_memory: fn(&[(u64, u64)]);
    /// A new user root's kernel half.
    mmu::init_user_root: fn(u64);
    /// Address-space id bits the CPU has (0: none).
    mmu::asid_bits: fn() -> u32;
    /// Switches to a user root (with its ASID; flush when it was reused).
    mmu::activate_user_root: fn(u64, u64, bool);
    /// Flushes a user range on every CPU if the CPU can broadcast (true).
    mmu::flush_user_range_all_cpus: fn(u64, u64) -> bool;
    /// Flushes one page on this CPU.
    mmu::flush_tlb_page: fn(u64);
    /// Flushes this CPU's whole TLB.
    mmu::flush_tlb_all: fn();
    /// Flushes every CPU's TLB if the CPU can broadcast (true).
    mmu::flush_tlb_all_cpus: fn() -> bool;
    /// Makes instruction fetch see a page just written.
    mmu::sync_icache: fn(u64);

    // power
    /// Whether an exit status reaches the host through `power_off`.
    power::exit_status_reaches_host: fn() -> bool;
    /// Powers off with a status; returns only on failure (its error).
    power::power_off: fn(u32) -> isize;
    /// Resets the machine; returns only on failure.
    power::reboot: fn() -> isize;
    /// Stops this CPU for good.
    power::halt: fn() -> !;
    /// One byte to the firmware's console (before a UART is found).
    power::firmware_console_put: fn(u8);

    // timer: the CPU's own timer.
    /// Arms this CPU's timer for a counter value (u64::MAX: never).
    timer::set_timer: fn(u64);
    /// The line the timer raises at the interrupt controller and whether it
    /// is edge triggered; None: the CPU delivers it itself.
    timer::timer_line: fn() -> Option<(u32, bool)>;
    /// The controller took the timer's interrupt: quiet the timer.
    timer::timer_fired: fn();

    // signal: the signal frame as this architecture's Linux lays it out.
    /// Writes the frame (registers, FP state, siginfo, mask, stack).
    signal::write_frame: fn(&mut [u8; SIGNAL_FRAME_SIZE], &TrapFrame, &FpState, &SigInfo, u64, StackT);
    /// Points the registers at the handler (signo, frame, restorer).
    signal::enter_handler: fn(&mut TrapFrame, u64, u64, usize, u64);
    /// Restores registers and FP state from a frame; the signal mask.
    signal::read_frame: fn(&[u8; SIGNAL_FRAME_SIZE], &mut TrapFrame, &mut FpState) -> u64;

    // userguard: what stops the kernel touching user memory directly.
    /// What keeps kernel code from reaching user memory directly (PAN, or
    /// SUM left clear), or why nothing does (a CPU without PAN).
    userguard::user_access_guard: fn() -> Result<&'static str, &'static str>;
    /// One direct load from a user address, which the guard must stop:
    /// Err names the fault it took (the `-v` self-check, mm/strayaccess.rs).
    userguard::probe_user_load: fn(u64) -> Result<(), &'static str>;

    // The folder's mod.rs: entry points around the assembly.
    /// Saves the running kernel context and resumes another.
    switch: unsafe fn(*mut Context, *const Context);
    /// Returns to user mode with a frame, kernel stack and per-CPU pointer.
    enter_user: unsafe fn(*mut TrapFrame, u64, usize) -> !;
    /// Saves this CPU's FP/SIMD registers.
    save_fp: fn(&mut FpState);
    /// Loads this CPU's FP/SIMD registers.
    restore_fp: fn(&FpState);
    /// What the boot CPU needs before devices (power-off device, timer line).
    init_platform: fn(&MachineInfo);
    /// The exit status leaves through semihosting (kernel option).
    enable_semihosting: fn();
}

/// The signal frame's size, for callers' buffers.
pub use this::signal::FRAME_SIZE;

/// The saved user registers: what generic code reads and sets.
const _: () = {
    let _: fn() -> TrapFrame = TrapFrame::zeroed;
    let _: fn(&TrapFrame) -> u64 = TrapFrame::pc;
    let _: fn(&mut TrapFrame, u64) = TrapFrame::set_pc;
    let _: fn(&TrapFrame) -> u64 = TrapFrame::sp;
    let _: fn(&mut TrapFrame, u64) = TrapFrame::set_sp;
    let _: fn(&mut TrapFrame, u64) = TrapFrame::set_tls;
    let _: fn(&mut TrapFrame, u64) = TrapFrame::set_return_address;
    let _: fn(&TrapFrame) -> usize = TrapFrame::syscall_number;
    let _: fn(&TrapFrame, usize) -> u64 = TrapFrame::arg;
    let _: fn(&mut TrapFrame, usize, u64) = TrapFrame::set_arg;
    let _: fn(&mut TrapFrame, u64) = TrapFrame::set_ret;
    let _: fn(u64, u64) -> Context = Context::new_thread;
};

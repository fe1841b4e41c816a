//! What riscv64 reads from the device tree for itself: the timebase
//! frequency of the `time` counter, the test/poweroff device, whether the
//! CPU has Zkr, which harts can run the kernel and Go (an MMU and RV64GC:
//! the HiFive Unleashed's E51 monitor core has neither), and each of those
//! harts' extensions for riscv_hwprobe (hartinfo.rs). The generic machine
//! description (boot/) keeps this beside what every architecture reads
//! (memory, CPUs, devices).

use fdt::standard_nodes::Cpu;
use fdt::Fdt;

#[derive(Debug, Default)]
pub struct MachineInfo {
    /// Ticks per second of the `time` counter (/cpus/timebase-frequency).
    pub timebase_hz: u64,
    /// QEMU's sifive,test0 finisher (power off with an exit status).
    pub test_device: Option<u64>,
    /// The boot CPU's riscv,isa names Zkr: the `seed` CSR exists.
    pub has_zkr: bool,
}

impl MachineInfo {
    /// A line for `-v` about the CPU's own entropy source, if it has one
    /// the kernel does not use.
    pub fn entropy_note(&self) -> Option<&'static str> {
        // The seed CSR is the firmware's to grant (mseccfg.SSEED); QEMU
        // 7.2's OpenSBI 1.1 does not, and a read then traps. Not used.
        self.has_zkr.then_some("the CPU has Zkr, but S-mode use of its seed CSR depends on the firmware; not used")
    }

    /// A line for `-v` about the timer's interrupt: none (the SBI's or
    /// Sstc's timer has a fixed one).
    pub fn timer_note(&self) -> Option<&'static str> {
        None
    }
}

fn first_reg(fdt: &Fdt, compatible: &[&str]) -> Option<u64> {
    let node = fdt.find_compatible(compatible)?;
    node.reg()?.next().map(|r| r.starting_address as u64)
}

/// Why a hart cannot run the kernel and Go programs, if it cannot
/// (gometal_core::arch::riscv64::hart: no MMU, not RV64GC).
pub fn cpu_unusable(cpu: &Cpu) -> Option<&'static str> {
    let prop = |name| cpu.property(name).and_then(|p| p.as_str());
    gometal_core::arch::riscv64::hart::unusable(prop("riscv,isa"), prop("mmu-type"))
}

/// Reads riscv64's part of the machine description.
pub fn read_machine(fdt: &Fdt) -> MachineInfo {
    let mut m = MachineInfo {
        test_device: first_reg(fdt, &["sifive,test0", "sifive,test1"]),
        ..MachineInfo::default()
    };
    let okay = |cpu: &Cpu| cpu.property("status").and_then(|p| p.as_str()).is_none_or(|s| s == "okay");
    super::hartinfo::record_isas(fdt.cpus().filter(|c| okay(c) && cpu_unusable(c).is_none()));
    for cpu in fdt.cpus() {
        if m.timebase_hz == 0 {
            m.timebase_hz = cpu.timebase_frequency() as u64;
        }
        if okay(&cpu) {
            let isa = cpu.property("riscv,isa").and_then(|p| p.as_str()).unwrap_or("");
            m.has_zkr = isa.split('_').any(|ext| ext == "zkr");
            break;
        }
    }
    m
}

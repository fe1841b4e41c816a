//! What riscv64 reads from the device tree for itself: the PLIC, the
//! timebase frequency of the `time` counter, the test/poweroff device, and
//! whether the CPU has Zkr. The generic machine description (boot/) keeps
//! this beside what every architecture reads (memory, CPUs, devices).

use fdt::Fdt;

#[derive(Debug, Default)]
pub struct MachineInfo {
    pub plic: Option<u64>,
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
}

fn first_reg(fdt: &Fdt, compatible: &[&str]) -> Option<u64> {
    let node = fdt.find_compatible(compatible)?;
    node.reg()?.next().map(|r| r.starting_address as u64)
}

/// Reads riscv64's part of the machine description.
pub fn read_machine(fdt: &Fdt) -> MachineInfo {
    let mut m = MachineInfo {
        plic: first_reg(fdt, &["riscv,plic0", "sifive,plic-1.0.0"]),
        test_device: first_reg(fdt, &["sifive,test0", "sifive,test1"]),
        ..MachineInfo::default()
    };
    for cpu in fdt.cpus() {
        if m.timebase_hz == 0 {
            m.timebase_hz = cpu.timebase_frequency() as u64;
        }
        let okay = cpu.property("status").and_then(|p| p.as_str()).is_none_or(|s| s == "okay");
        if okay {
            let isa = cpu.property("riscv,isa").and_then(|p| p.as_str()).unwrap_or("");
            m.has_zkr = isa.split('_').any(|ext| ext == "zkr");
            break;
        }
    }
    m
}

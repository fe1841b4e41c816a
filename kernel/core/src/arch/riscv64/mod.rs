//! riscv64's pure facts: the Sv39 entry format, the signal frame, what
//! the auxiliary vector says about the CPU, which harts can run us, and
//! what riscv_hwprobe answers about them.

pub mod hart;
pub mod hwprobe;
pub mod sigframe;
pub mod sv39;

/// e_machine of RISC-V ELF files.
pub const ELF_MACHINE: u16 = 243;

/// One past the highest user address (the lower half of Sv39).
pub const USER_END: u64 = sv39::USER_END;

/// AT_HWCAP for rv64imafdc: one bit per single-letter extension, as Linux
/// reports it (bit n = letter 'a' + n).
pub const HWCAP: u64 = hwcap(b"imafdc");

const fn hwcap(letters: &[u8]) -> u64 {
    let mut bits = 0;
    let mut i = 0;
    while i < letters.len() {
        bits |= 1 << (letters[i] - b'a');
        i += 1;
    }
    bits
}

#[cfg(test)]
mod tests {
    #[test]
    fn hwcap_letters() {
        // i=8 m=12 a=0 f=5 d=3 c=2
        assert_eq!(super::HWCAP, (1 << 8) | (1 << 12) | 1 | (1 << 5) | (1 << 3) | (1 << 2));
    }
}

/// One CPU's paragraph of /proc/cpuinfo as Linux 6.6 writes it on riscv64
/// (arch/riscv/kernel/cpu.c): `index` is Linux's CPU number, `hart` the
/// hart id, `isa` the ISA string. The machine ids read as 0 (QEMU's).
pub fn cpuinfo(index: usize, hart: usize, isa: &str) -> alloc::string::String {
    alloc::format!(
        "processor\t: {index}\nhart\t\t: {hart}\nisa\t\t: {isa}\nmmu\t\t: sv39\nmvendorid\t: 0x0\nmarchid\t\t: 0x0\nmimpid\t\t: 0x0\n\n"
    )
}

/// The ISA string of the extensions gometal's programs are told about
/// (HWCAP's letters, and the Zicsr/Zifencei every Linux-capable hart has).
pub const ISA: &str = "rv64imafdc_zicsr_zifencei";

#[cfg(test)]
mod cpuinfo_tests {
    #[test]
    fn cpuinfo_matches_linux() {
        assert_eq!(
            super::cpuinfo(1, 3, "rv64imafdc_zicsr_zifencei"),
            "processor\t: 1\nhart\t\t: 3\nisa\t\t: rv64imafdc_zicsr_zifencei\nmmu\t\t: sv39\nmvendorid\t: 0x0\nmarchid\t\t: 0x0\nmimpid\t\t: 0x0\n\n"
        );
    }
}

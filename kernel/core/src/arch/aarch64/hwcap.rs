//! AT_HWCAP for arm64 from the CPU's ID registers, as Linux computes it:
//! one bit per feature EL0 may use. Go's internal/cpu (cpu_arm64_hwcap.go)
//! reads AES, PMULL, SHA1, SHA2, SHA3, SHA512, CRC32, ATOMICS (LSE), DIT
//! and CPUID from it. HWCAP_CPUID (added by the kernel, not computed
//! here) promises that EL0 reads of the ID registers are emulated
//! (idregs.rs); with it Go reads MIDR_EL1 (getMIDR) to spot Neoverse cores.

pub const FP: u64 = 1 << 0;
pub const ASIMD: u64 = 1 << 1;
pub const AES: u64 = 1 << 3;
pub const PMULL: u64 = 1 << 4;
pub const SHA1: u64 = 1 << 5;
pub const SHA2: u64 = 1 << 6;
pub const CRC32: u64 = 1 << 7;
pub const ATOMICS: u64 = 1 << 8;
pub const FPHP: u64 = 1 << 9;
pub const ASIMDHP: u64 = 1 << 10;
pub const CPUID: u64 = 1 << 11;
pub const ASIMDRDM: u64 = 1 << 12;
pub const SHA3: u64 = 1 << 17;
pub const SM3: u64 = 1 << 18;
pub const SM4: u64 = 1 << 19;
pub const ASIMDDP: u64 = 1 << 20;
pub const SHA512: u64 = 1 << 21;
pub const DIT: u64 = 1 << 24;

fn field(reg: u64, shift: u32) -> u64 {
    (reg >> shift) & 0xf
}

/// AT_HWCAP from ID_AA64ISAR0_EL1 and ID_AA64PFR0_EL1.
pub fn from_id_registers(isar0: u64, pfr0: u64) -> u64 {
    let mut h = 0;
    let fp = field(pfr0, 16);
    let simd = field(pfr0, 20);
    if fp != 0xf {
        h |= FP;
        if fp >= 1 {
            h |= FPHP;
        }
    }
    if simd != 0xf {
        h |= ASIMD;
        if simd >= 1 {
            h |= ASIMDHP;
        }
    }
    let aes = field(isar0, 4);
    if aes >= 1 {
        h |= AES;
    }
    if aes >= 2 {
        h |= PMULL;
    }
    if field(isar0, 8) >= 1 {
        h |= SHA1;
    }
    let sha2 = field(isar0, 12);
    if sha2 >= 1 {
        h |= SHA2;
    }
    if sha2 >= 2 {
        h |= SHA512;
    }
    if field(isar0, 16) >= 1 {
        h |= CRC32;
    }
    if field(isar0, 20) >= 2 {
        h |= ATOMICS;
    }
    if field(isar0, 28) >= 1 {
        h |= ASIMDRDM;
    }
    if field(isar0, 32) >= 1 {
        h |= SHA3;
    }
    if field(isar0, 36) >= 1 {
        h |= SM3;
    }
    if field(isar0, 40) >= 1 {
        h |= SM4;
    }
    if field(isar0, 44) >= 1 {
        h |= ASIMDDP;
    }
    if field(pfr0, 48) >= 1 {
        h |= DIT;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cortex_a72() {
        // QEMU's cortex-a72: ID_AA64ISAR0 0x11120, ID_AA64PFR0 0x11 (EL0/EL1 AArch64, FP and SIMD present).
        let h = from_id_registers(0x11120, 0x11);
        assert_eq!(h, FP | ASIMD | AES | PMULL | SHA1 | SHA2 | CRC32);
        assert_eq!(h & CPUID, 0);
    }

    #[test]
    fn lse_and_no_fp() {
        let h = from_id_registers(2 << 20, 0xff << 16);
        assert_eq!(h, ATOMICS);
        assert_eq!(from_id_registers(0, 0xff << 16 | 1 << 48), DIT);
    }
}

/// Linux's names for the AT_HWCAP bits above, in bit order, as
/// /proc/cpuinfo's "Features" line lists them.
const NAMES: [(u64, &str); 18] = [
    (FP, "fp"), (ASIMD, "asimd"), (AES, "aes"), (PMULL, "pmull"), (SHA1, "sha1"), (SHA2, "sha2"),
    (CRC32, "crc32"), (ATOMICS, "atomics"), (FPHP, "fphp"), (ASIMDHP, "asimdhp"), (CPUID, "cpuid"),
    (ASIMDRDM, "asimdrdm"), (SHA3, "sha3"), (SM3, "sm3"), (SM4, "sm4"), (ASIMDDP, "asimddp"),
    (SHA512, "sha512"), (DIT, "dit"),
];

/// One CPU's paragraph of /proc/cpuinfo as Linux's arm64 kernel writes it:
/// the features offered (`hwcap`), the fields of the CPU's MIDR_EL1, and
/// BogoMIPS, which arm64 Linux derives from the generic timer's frequency
/// (twice it, in MHz).
pub fn cpuinfo(index: usize, hwcap: u64, midr: u64, timer_hz: u64) -> alloc::string::String {
    let centi_mips = timer_hz / 5_000;
    let features: alloc::vec::Vec<&str> = NAMES.iter().filter(|(bit, _)| hwcap & bit != 0).map(|(_, n)| *n).collect();
    alloc::format!(
        "processor\t: {index}\nBogoMIPS\t: {}.{:02}\nFeatures\t: {}\nCPU implementer\t: {:#04x}\nCPU architecture: 8\nCPU variant\t: {:#x}\nCPU part\t: {:#05x}\nCPU revision\t: {}\n\n",
        centi_mips / 100,
        centi_mips % 100,
        features.join(" "),
        (midr >> 24) & 0xff,
        (midr >> 20) & 0xf,
        (midr >> 4) & 0xfff,
        midr & 0xf,
    )
}

#[cfg(test)]
mod cpuinfo_tests {
    #[test]
    fn cpuinfo_matches_linux_on_a_cortex_a72() {
        // Linux 6.1 under QEMU -cpu cortex-a72 (MIDR 0x410fd083).
        assert_eq!(
            super::cpuinfo(2, super::FP | super::ASIMD | super::CRC32 | super::CPUID, 0x410f_d083, 62_500_000),
            "processor\t: 2\nBogoMIPS\t: 125.00\nFeatures\t: fp asimd crc32 cpuid\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n\n"
        );
    }
}

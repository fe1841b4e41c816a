//! Whether a hart the device tree lists can run gometal: the kernel needs
//! an MMU (`mmu-type` other than "riscv,none", as Linux requires) and Go
//! needs RV64GC (I, M, A, F, D and C; G is IMAFD). SoCs pair application
//! cores with a monitor core that has neither: the HiFive Unleashed's E51,
//! the JH7110's S7 (VisionFive 2, Milk-V Mars).

/// Why a hart with these device-tree properties cannot run the kernel
/// and Go programs, or None if it can. `isa` is `riscv,isa` (absent on
/// trees that use `riscv,isa-base`/`-extensions` only: then not checked).
pub fn unusable(isa: Option<&str>, mmu_type: Option<&str>) -> Option<&'static str> {
    if mmu_type.is_none_or(|m| m == "riscv,none") {
        return Some("no MMU");
    }
    let isa = isa?; // not given: not checked
    let base = isa.split('_').next().unwrap_or("").to_ascii_lowercase();
    let Some(letters) = base.strip_prefix("rv64") else { return Some("not RV64") };
    let has = |c: char| letters.contains(c) || (c != 'c' && letters.contains('g'));
    if !"imafdc".chars().all(has) {
        return Some("not RV64GC, which Go needs");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::unusable;

    #[test]
    fn application_cores_run() {
        assert_eq!(unusable(Some("rv64imafdc_zicsr_zifencei"), Some("riscv,sv39")), None);
        assert_eq!(unusable(Some("rv64gc"), Some("riscv,sv48")), None);
        assert_eq!(unusable(Some("rv64imafdch_zicsr_zba_sstc"), Some("riscv,sv57")), None);
        assert_eq!(unusable(None, Some("riscv,sv39")), None, "isa-base trees are not second-guessed");
    }

    #[test]
    fn monitor_cores_are_parked() {
        // The HiFive Unleashed's E51 and the JH7110's S7: no mmu-type.
        assert_eq!(unusable(Some("rv64imac_zicsr_zifencei"), None), Some("no MMU"));
        assert_eq!(unusable(Some("rv64imafdc"), Some("riscv,none")), Some("no MMU"));
        assert_eq!(unusable(Some("rv64imac"), Some("riscv,sv39")), Some("not RV64GC, which Go needs"));
        assert_eq!(unusable(Some("rv32imafdc"), Some("riscv,sv32")), Some("not RV64"));
        assert_eq!(unusable(Some("rv64g"), Some("riscv,sv39")), Some("not RV64GC, which Go needs"));
    }
}

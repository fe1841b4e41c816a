//! Emulated EL0 reads of the ID registers, as Linux does when it offers
//! HWCAP_CPUID (arch/arm64/kernel/cpufeature.c, emulate_mrs; the fields
//! in Documentation/arch/arm64/cpu-feature-registers.rst): an `MRS` of a
//! register in the ID space (Op0 3, Op1 0, CRn 0) is undefined at EL0
//! (ESR class 0, so the kernel reads the instruction, as Linux's undef
//! hook does; a register trapped by a control bit comes as class 0x18
//! with the same fields in the ISS), and the kernel writes a sanitized
//! value to the target register and skips the instruction. MIDR_EL1 reads as the CPU's, MPIDR_EL1 as
//! bit 31 alone, REVIDR_EL1 as 0; the feature registers show only the
//! fields of features EL0 may use under this kernel (no SVE, SME, MTE,
//! pointer authentication or MOPS: it keeps none of their state), the
//! others read as zero. Any other trapped MRS or MSR is SIGILL.

/// A trapped MRS/MSR, from the ISS of an ESR with class 0x18.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SysRegAccess {
    pub op0: u8,
    pub op1: u8,
    pub crn: u8,
    pub crm: u8,
    pub op2: u8,
    /// The general-purpose register (31: xzr).
    pub rt: u8,
    /// MRS (a read) rather than MSR.
    pub read: bool,
}

impl SysRegAccess {
    /// The access an `MRS Xt, <sysreg>` instruction makes (bits 31:20
    /// 0xd53: a read with Op0 3); None for any other instruction.
    pub fn from_mrs(insn: u32) -> Option<Self> {
        if insn & 0xfff0_0000 != 0xd530_0000 {
            return None;
        }
        let bits = |shift: u32, width: u32| ((insn >> shift) & ((1 << width) - 1)) as u8;
        Some(SysRegAccess { op0: 3, op1: bits(16, 3), crn: bits(12, 4), crm: bits(8, 4), op2: bits(5, 3), rt: bits(0, 5), read: true })
    }

    pub fn from_iss(iss: u64) -> Self {
        let bits = |shift: u32, width: u32| ((iss >> shift) & ((1 << width) - 1)) as u8;
        SysRegAccess {
            op0: bits(20, 2),
            op2: bits(17, 3),
            op1: bits(14, 3),
            crn: bits(10, 4),
            rt: bits(5, 5),
            crm: bits(1, 4),
            read: iss & 1 == 1,
        }
    }
}

/// An ID register, by its CRm and Op2 in the ID space.
pub type IdReg = (u8, u8);
pub const MIDR: IdReg = (0, 0);
pub const ID_AA64PFR0: IdReg = (4, 0);
pub const ID_AA64DFR0: IdReg = (5, 0);
pub const ID_AA64ISAR0: IdReg = (6, 0);
pub const ID_AA64ISAR1: IdReg = (6, 1);
pub const ID_AA64ISAR2: IdReg = (6, 2);

/// The 4-bit fields (by shift) shown as the CPU has them.
const ISAR0_VISIBLE: &[u32] = &[4, 8, 12, 16, 20, 28, 32, 36, 40, 44, 48, 52, 60]; // AES SHA1 SHA2 CRC32 ATOMIC RDM SHA3 SM3 SM4 DP FHM TS RNDR
const ISAR1_VISIBLE: &[u32] = &[0, 12, 16, 20, 32, 36, 44, 48, 52]; // DPB JSCVT FCMA LRCPC FRINTTS SB BF16 DGH I8MM
const ISAR2_VISIBLE: &[u32] = &[4, 20, 28]; // RPRES BC CLRBHB
const PFR0_VISIBLE: &[u32] = &[16, 20, 48]; // FP AdvSIMD DIT

fn visible(raw: u64, fields: &[u32]) -> u64 {
    fields.iter().fold(0, |v, &s| v | (raw & (0xf << s)))
}

/// What an emulated MRS reads, or None for SIGILL (not a read, not the
/// ID space, or one of the CRm 0 registers Linux does not emulate).
/// `raw` reads the CPU's own value of an ID register.
pub fn emulate(a: SysRegAccess, raw: impl Fn(IdReg) -> u64) -> Option<u64> {
    if !a.read || a.op0 != 3 || a.op1 != 0 || a.crn != 0 {
        return None;
    }
    let reg = (a.crm, a.op2);
    Some(match reg {
        MIDR => raw(MIDR),
        (0, 5) => 1 << 31, // MPIDR_EL1: RES1 only, as Linux
        (0, 6) => 0,       // REVIDR_EL1: implementation defined
        (0, _) => return None,
        // EL0 and EL1 AArch64 only (their safe values), with the CPU's
        // FP, AdvSIMD and DIT.
        ID_AA64PFR0 => visible(raw(reg), PFR0_VISIBLE) | 0x11,
        ID_AA64DFR0 => 0x6, // DebugVer: ARMv8 debug (the safe value Linux shows)
        ID_AA64ISAR0 => visible(raw(reg), ISAR0_VISIBLE),
        ID_AA64ISAR1 => visible(raw(reg), ISAR1_VISIBLE),
        ID_AA64ISAR2 => visible(raw(reg), ISAR2_VISIBLE),
        _ => 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ISS of `mrs x<rt>, S<op0>_<op1>_C<crn>_C<crm>_<op2>`.
    fn iss(op0: u64, op1: u64, crn: u64, crm: u64, op2: u64, rt: u64, read: bool) -> u64 {
        op0 << 20 | op2 << 17 | op1 << 14 | crn << 10 | rt << 5 | crm << 1 | read as u64
    }

    /// QEMU's cortex-a72 with SVE and pointer authentication made up.
    fn cpu(reg: IdReg) -> u64 {
        match reg {
            MIDR => 0x410f_d083,
            ID_AA64PFR0 => 0x1_0000_0011 | 0x1 << 48 | 0x1 << 24, // SVE, DIT, GIC
            ID_AA64ISAR0 => 0x11120,
            ID_AA64ISAR1 => 0x1 << 4 | 0x1 << 20 | 0x1 << 12, // APA, LRCPC, JSCVT
            _ => 0xffff,
        }
    }

    #[test]
    fn decodes_the_iss() {
        // mrs x3, midr_el1
        let a = SysRegAccess::from_iss(iss(3, 0, 0, 0, 0, 3, true));
        assert_eq!(a, SysRegAccess { op0: 3, op1: 0, crn: 0, crm: 0, op2: 0, rt: 3, read: true });
        // msr id_aa64isar0_el1, x30 (a write)
        let a = SysRegAccess::from_iss(iss(3, 0, 0, 6, 0, 30, false));
        assert_eq!((a.crm, a.op2, a.rt, a.read), (6, 0, 30, false));
    }

    #[test]
    fn decodes_mrs_instructions() {
        // mrs x0, midr_el1 (as Go's internal/cpu getMIDR assembles it).
        assert_eq!(SysRegAccess::from_mrs(0xd538_0000), Some(SysRegAccess { op0: 3, op1: 0, crn: 0, crm: 0, op2: 0, rt: 0, read: true }));
        // mrs x5, id_aa64isar0_el1
        let a = SysRegAccess::from_mrs(0xd538_0605).unwrap();
        assert_eq!((a.crm, a.op2, a.rt), (6, 0, 5));
        // msr (bit 21 clear) and other instructions are not.
        assert_eq!(SysRegAccess::from_mrs(0xd518_0000), None);
        assert_eq!(SysRegAccess::from_mrs(0xd503_201f), None); // nop
    }

    #[test]
    fn id_registers_read_as_linux_shows_them() {
        let read = |crm, op2| emulate(SysRegAccess::from_iss(iss(3, 0, 0, crm, op2, 0, true)), cpu);
        assert_eq!(read(0, 0), Some(0x410f_d083));
        assert_eq!(read(0, 5), Some(0x8000_0000));
        assert_eq!(read(0, 6), Some(0));
        assert_eq!(read(0, 1), None, "CRm 0's other registers are not emulated");
        // SVE and the GIC field hidden; FP, AdvSIMD, DIT shown; EL0/EL1 AArch64.
        assert_eq!(read(4, 0), Some(0x1 << 48 | 0x11));
        assert_eq!(read(6, 0), Some(0x11120));
        // Pointer authentication hidden, LRCPC and JSCVT shown.
        assert_eq!(read(6, 1), Some(0x1 << 20 | 0x1 << 12));
        // Registers with nothing for EL0, and unallocated ones: zero.
        assert_eq!(read(4, 4), Some(0));
        assert_eq!(read(7, 0), Some(0));
        assert_eq!(read(1, 0), Some(0));
    }

    #[test]
    fn everything_else_is_sigill() {
        // A write to the ID space.
        assert_eq!(emulate(SysRegAccess::from_iss(iss(3, 0, 0, 0, 0, 0, false)), cpu), None);
        // mrs x0, cntp_ctl_el0 (Op1 3, CRn 14), trapped by CNTKCTL_EL1.
        assert_eq!(emulate(SysRegAccess::from_iss(iss(3, 3, 14, 2, 1, 0, true)), cpu), None);
        // mrs x0, ctr_el0's neighbours in Op1 3 are not the ID space either.
        assert_eq!(emulate(SysRegAccess::from_iss(iss(3, 3, 0, 0, 7, 0, true)), cpu), None);
    }
}

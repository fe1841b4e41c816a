//! Tests for `elf`, kept in their own file so elf.rs stays readable.

use super::*;

const EM_RISCV: u16 = 243;
const USER_END: u64 = crate::arch::riscv64::sv39::USER_END;
/// The tests check a riscv64 kernel's view (any host runs them).
const RV64: Target = Target { machine: EM_RISCV, user_end: USER_END };

fn parse_exec(b: &[u8]) -> Result<ExecImage, ElfError> {
    super::parse_exec(b, RV64)
}

/// (p_type, p_flags, offset, vaddr, filesz, memsz)
type Ph = (u32, u32, u64, u64, u64, u64);

/// Builds an ELF header + program headers (at offset 64) padded to `len`.
fn build(e_type: u16, machine: u16, phs: &[Ph], len: usize) -> Vec<u8> {
    let mut b = vec![0u8; len.max(64 + 56 * phs.len())];
    b[..4].copy_from_slice(b"\x7fELF");
    b[4] = 2;
    b[5] = 1;
    b[6] = 1;
    b[16..18].copy_from_slice(&e_type.to_le_bytes());
    b[18..20].copy_from_slice(&machine.to_le_bytes());
    b[20..24].copy_from_slice(&1u32.to_le_bytes());
    b[24..32].copy_from_slice(&0x11000u64.to_le_bytes());
    b[32..40].copy_from_slice(&64u64.to_le_bytes());
    b[52..54].copy_from_slice(&64u16.to_le_bytes());
    b[54..56].copy_from_slice(&56u16.to_le_bytes());
    b[56..58].copy_from_slice(&(phs.len() as u16).to_le_bytes());
    for (i, &(t, f, off, va, fsz, msz)) in phs.iter().enumerate() {
        let p = &mut b[64 + 56 * i..64 + 56 * (i + 1)];
        p[0..4].copy_from_slice(&t.to_le_bytes());
        p[4..8].copy_from_slice(&f.to_le_bytes());
        for (at, v) in [
            (8, off),
            (16, va),
            (24, va),
            (32, fsz),
            (40, msz),
            (48, 0x1000),
        ] {
            p[at..at + 8].copy_from_slice(&v.to_le_bytes());
        }
    }
    b
}

/// The shape of a Go binary: text R+X from 0x10000 (covering the
/// headers), rodata R, data RW with bss.
fn go_like() -> Vec<Ph> {
    vec![
        (PT_PHDR, PF_R, 64, 0x10040, 56 * 4, 56 * 4),
        (PT_LOAD, PF_R | PF_X, 0, 0x10000, 0x2000, 0x2000),
        (PT_LOAD, PF_R, 0x2000, 0x12000, 0x1000, 0x1000),
        (PT_LOAD, PF_R | PF_W, 0x3000, 0x13000, 0x800, 0x5000),
    ]
}

#[test]
fn accepts_go_like_binary() {
    let img = parse_exec(&build(ET_EXEC, EM_RISCV, &go_like(), 0x3800)).unwrap();
    assert_eq!(img.entry, 0x11000);
    assert_eq!((img.phnum, img.phentsize, img.phdr_vaddr), (4, 56, 0x10040));
    assert_eq!(img.segments.len(), 3);
    let s = img.segments[0];
    assert!(s.read && s.exec && !s.write);
    let d = img.segments[2];
    assert_eq!(
        (d.vaddr, d.offset, d.filesz, d.memsz),
        (0x13000, 0x3000, 0x800, 0x5000)
    );
    assert!(d.read && d.write && !d.exec);
}

#[test]
fn phdr_found_through_load_segment_without_pt_phdr() {
    let phs = &go_like()[1..];
    let img = parse_exec(&build(ET_EXEC, EM_RISCV, phs, 0x3800)).unwrap();
    assert_eq!(img.phdr_vaddr, 0x10040);
    // Headers not covered by any PT_LOAD: no address to report.
    let phs = [(PT_LOAD, PF_R, 0x1000, 0x20000, 0x100, 0x100)];
    assert_eq!(
        parse_exec(&build(ET_EXEC, EM_RISCV, &phs, 0x2000))
            .unwrap()
            .phdr_vaddr,
        0
    );
}

#[test]
fn rejects_wrong_kinds_of_file() {
    let ok = build(ET_EXEC, EM_RISCV, &go_like(), 0x3800);
    assert_eq!(parse_exec(b"#!/bin/sh\n"), Err(ElfError::NotElf));
    assert_eq!(parse_exec(b"\x7fEL"), Err(ElfError::NotElf));
    assert_eq!(parse_exec(&ok[..40]), Err(ElfError::Truncated));
    let mut b = ok.clone();
    b[4] = 1;
    assert_eq!(parse_exec(&b), Err(ElfError::Not64Bit));
    let mut b = ok.clone();
    b[5] = 2;
    assert_eq!(parse_exec(&b), Err(ElfError::NotLittleEndian));
    let b = build(ET_EXEC, 62, &go_like(), 0x3800);
    assert_eq!(parse_exec(&b), Err(ElfError::WrongMachine(62)));
    let b = build(1, EM_RISCV, &go_like(), 0x3800);
    assert_eq!(parse_exec(&b), Err(ElfError::NotExecutable(1)));
    let b = build(ET_DYN, EM_RISCV, &go_like(), 0x3800);
    assert_eq!(parse_exec(&b), Err(ElfError::Dynamic));
    let mut phs = go_like();
    phs.push((PT_INTERP, PF_R, 0x100, 0x10100, 10, 10));
    assert_eq!(
        parse_exec(&build(ET_EXEC, EM_RISCV, &phs, 0x3800)),
        Err(ElfError::Dynamic)
    );
    assert!(!ElfError::Dynamic.describe().is_empty());
}

#[test]
fn rejects_bad_segments() {
    let check = |seg: Ph, want| {
        let b = build(ET_EXEC, EM_RISCV, &[seg], 0x2000);
        assert_eq!(parse_exec(&b), Err(want), "{seg:?}");
    };
    check(
        (PT_LOAD, PF_R, 0x1800, 0x10000, 0x1000, 0x1000),
        ElfError::Truncated,
    );
    check(
        (PT_LOAD, PF_R, u64::MAX, 0x10000, 2, 2),
        ElfError::Truncated,
    );
    check(
        (PT_LOAD, PF_R, 0, 0x10000, 0x100, 0x80),
        ElfError::BadSegment,
    );
    check((PT_LOAD, PF_R, 0, 0x0, 0x100, 0x100), ElfError::BadSegment);
    check(
        (PT_LOAD, PF_R, 0, USER_END - 0x1000, 0x100, 0x1001),
        ElfError::BadSegment,
    );
    check(
        (PT_LOAD, PF_R, 0, u64::MAX - 10, 0, 0x100),
        ElfError::BadSegment,
    );
    check((PT_DYNAMIC, PF_R, 0, 0x10000, 0, 0), ElfError::Dynamic);
    // No PT_LOAD at all.
    check((PT_PHDR, PF_R, 64, 0x10040, 56, 56), ElfError::BadSegment);
    // Program header table beyond the end of the file.
    let mut b = build(ET_EXEC, EM_RISCV, &go_like(), 0x3800);
    b[32..40].copy_from_slice(&0x3780u64.to_le_bytes());
    assert_eq!(parse_exec(&b), Err(ElfError::Truncated));
    let mut b = build(ET_EXEC, EM_RISCV, &go_like(), 0x3800);
    b[54..56].copy_from_slice(&32u16.to_le_bytes());
    assert_eq!(parse_exec(&b), Err(ElfError::BadSegment));
    // Segment ending exactly at the top of user memory is fine.
    let top = (PT_LOAD, PF_R, 0, USER_END - 0x1000, 0x100, 0x1000);
    assert!(parse_exec(&build(ET_EXEC, EM_RISCV, &[top], 0x2000)).is_ok());
}

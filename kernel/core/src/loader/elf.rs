//! Validation of the programs gometal runs: static little-endian 64-bit ELF
//! executables (ET_EXEC, no interpreter) for the machine's architecture,
//! which is what `CGO_ENABLED=0 GOOS=linux GOARCH=riscv64 go build` (or
//! arm64) produces. The result
//! lists the PT_LOAD segments the kernel must map and the facts it puts in
//! the auxiliary vector. Every offset and size is checked here, so the loader
//! can slice the file without further checks.

use alloc::vec::Vec;

/// What the running kernel accepts: the architecture's ELF machine number
/// (e_machine) and one past its highest user address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub machine: u16,
    pub user_end: u64,
}
/// The lowest address a segment may use; page 0 stays unmapped so that nil
/// dereferences fault.
const USER_MIN: u64 = 0x1000;

const EHDR_LEN: usize = 64;
const PHDR_LEN: usize = 56;
const ET_EXEC: u16 = 2;
const ET_DYN: u16 = 3;
const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;
const PT_INTERP: u32 = 3;
const PT_PHDR: u32 = 6;
const PF_X: u32 = 1;
const PF_W: u32 = 2;
const PF_R: u32 = 4;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecImage {
    pub entry: u64,
    pub segments: Vec<Segment>,
    /// Where the program headers are in memory (for AT_PHDR); 0 if unmapped.
    pub phdr_vaddr: u64,
    pub phnum: u16,
    pub phentsize: u16,
}

/// A PT_LOAD segment: file bytes [offset, offset+filesz) go to vaddr, and the
/// rest up to memsz is zero (bss).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub vaddr: u64,
    pub memsz: u64,
    pub offset: u64,
    pub filesz: u64,
    pub read: bool,
    pub write: bool,
    pub exec: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElfError {
    NotElf,
    Not64Bit,
    NotLittleEndian,
    WrongMachine(u16),
    /// e_type is not ET_EXEC (and not ET_DYN, which is `Dynamic`).
    NotExecutable(u16),
    /// PT_INTERP or PT_DYNAMIC present, or ET_DYN: needs a dynamic loader.
    Dynamic,
    Truncated,
    BadSegment,
}

impl ElfError {
    pub fn describe(&self) -> &'static str {
        match self {
            ElfError::NotElf => "not an ELF file",
            ElfError::Not64Bit => "not a 64-bit ELF file",
            ElfError::NotLittleEndian => "not a little-endian ELF file",
            ElfError::WrongMachine(_) => "built for another architecture",
            ElfError::NotExecutable(_) => "not an executable (ET_EXEC) ELF file",
            ElfError::Dynamic => "dynamically linked; build with CGO_ENABLED=0",
            ElfError::Truncated => "ELF file is truncated",
            ElfError::BadSegment => "ELF program header is invalid or outside user memory",
        }
    }
}

fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}

fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(b[off..off + 4].try_into().unwrap_or([0; 4]))
}

fn u64_at(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap_or([0; 8]))
}

/// Checks that `bytes` is a static executable for `target` and describes it.
pub fn parse_exec(bytes: &[u8], target: Target) -> Result<ExecImage, ElfError> {
    if bytes.len() < 4 || &bytes[..4] != b"\x7fELF" {
        return Err(ElfError::NotElf);
    }
    if bytes.len() < EHDR_LEN {
        return Err(ElfError::Truncated);
    }
    if bytes[4] != 2 {
        return Err(ElfError::Not64Bit);
    }
    if bytes[5] != 1 {
        return Err(ElfError::NotLittleEndian);
    }
    let machine = u16_at(bytes, 18);
    if machine != target.machine {
        return Err(ElfError::WrongMachine(machine));
    }
    match u16_at(bytes, 16) {
        ET_EXEC => {}
        ET_DYN => return Err(ElfError::Dynamic),
        t => return Err(ElfError::NotExecutable(t)),
    }
    let entry = u64_at(bytes, 24);
    let phoff = u64_at(bytes, 32);
    let phentsize = u16_at(bytes, 54);
    let phnum = u16_at(bytes, 56);
    if (phentsize as usize) < PHDR_LEN {
        return Err(ElfError::BadSegment);
    }
    let table_len = phentsize as u64 * phnum as u64;
    match phoff.checked_add(table_len) {
        Some(end) if end <= bytes.len() as u64 => {}
        _ => return Err(ElfError::Truncated),
    }

    let mut segments = Vec::new();
    let mut pt_phdr = None;
    for i in 0..phnum as usize {
        let ph = &bytes[phoff as usize + i * phentsize as usize..][..PHDR_LEN];
        match u32_at(ph, 0) {
            PT_LOAD => segments.push(load_segment(ph, bytes.len() as u64, target.user_end)?),
            PT_INTERP | PT_DYNAMIC => return Err(ElfError::Dynamic),
            PT_PHDR => pt_phdr = Some(u64_at(ph, 16)),
            _ => {}
        }
    }
    if segments.is_empty() {
        return Err(ElfError::BadSegment);
    }
    let phdr_vaddr = pt_phdr.unwrap_or_else(|| {
        segments
            .iter()
            .find(|s| s.offset <= phoff && phoff - s.offset < s.filesz)
            .map_or(0, |s| s.vaddr + (phoff - s.offset))
    });
    Ok(ExecImage {
        entry,
        segments,
        phdr_vaddr,
        phnum,
        phentsize,
    })
}

fn load_segment(ph: &[u8], file_len: u64, user_end: u64) -> Result<Segment, ElfError> {
    let flags = u32_at(ph, 4);
    let seg = Segment {
        offset: u64_at(ph, 8),
        vaddr: u64_at(ph, 16),
        filesz: u64_at(ph, 32),
        memsz: u64_at(ph, 40),
        read: flags & PF_R != 0,
        write: flags & PF_W != 0,
        exec: flags & PF_X != 0,
    };
    let in_file = seg
        .offset
        .checked_add(seg.filesz)
        .is_some_and(|end| end <= file_len);
    let in_user = seg.vaddr >= USER_MIN
        && seg
            .vaddr
            .checked_add(seg.memsz)
            .is_some_and(|end| end <= user_end);
    if !in_file {
        return Err(ElfError::Truncated);
    }
    if seg.filesz > seg.memsz || !in_user {
        return Err(ElfError::BadSegment);
    }
    Ok(seg)
}

#[cfg(test)]
#[path = "elf_tests.rs"]
mod tests;

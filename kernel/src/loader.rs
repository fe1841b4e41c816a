//! Loading the program: map a static ELF for this architecture from the
//! initramfs into a new address space, build the Linux initial stack (argv,
//! envp, auxv), map the vDSO (clock_gettime without a system call, and
//! where signal handlers return), and make the main thread.

use crate::arch::{FpState, TrapFrame};
use crate::memlayout::{PAGE_SIZE, USER_STACK_SIZE, USER_STACK_TOP, VDSO_BASE};

/// Where the vDSO's ELF header is (man 7 vdso).
const AT_SYSINFO_EHDR: u64 = 33;
use crate::mm::addrspace::{Access, AddressSpace};
use crate::mm::{frames, uaccess};
use crate::sched::Thread;
use crate::sched::sigstate::ThreadSignals;
use alloc::string::String;
use gometal_core::loader::elf::{self, ExecImage};
use gometal_core::loader::initstack::{self, *};
use gometal_core::mm::vma::Prot;

const PAGE: u64 = PAGE_SIZE as u64;

pub struct Loaded {
    pub mm: AddressSpace,
    pub entry: u64,
    pub sp: u64,
}

/// Why the program could not be loaded, for the boot message.
pub fn describe(e: elf::ElfError) -> String {
    String::from(e.describe())
}

/// Copies `data` to user address `va` in `mm`, whatever the area's
/// protection (the kernel is filling in the program's own image).
fn fill(mm: &mut AddressSpace, va: u64, data: &[u8]) -> Result<(), &'static str> {
    let mut done = 0;
    while done < data.len() {
        let addr = va + done as u64;
        let off = (addr % PAGE) as usize;
        let n = (PAGE_SIZE - off).min(data.len() - done);
        let pa = mm.page_for(addr, Access::Populate).map_err(|_| "out of memory while loading")?;
        frames::write_frame(pa, off, &data[done..done + n]);
        done += n;
    }
    Ok(())
}

fn map_segments(mm: &mut AddressSpace, exe: &ExecImage, bytes: &[u8]) -> Result<u64, &'static str> {
    let mut image_end = 0;
    for seg in &exe.segments {
        let start = seg.vaddr & !(PAGE - 1);
        let end = (seg.vaddr + seg.memsz).div_ceil(PAGE) * PAGE;
        let prot = Prot { read: seg.read, write: seg.write, exec: seg.exec };
        mm.map(start, end - start, prot, true);
        image_end = image_end.max(end);
    }
    // Contents after all areas exist, so a page two segments share keeps both.
    for seg in &exe.segments {
        let file = &bytes[seg.offset as usize..(seg.offset + seg.filesz) as usize];
        fill(mm, seg.vaddr, file)?;
    }
    Ok(image_end)
}

/// Builds the program's address space from the ELF `bytes`.
pub fn load(bytes: &[u8], argv: &[&[u8]], envp: &[&[u8]]) -> Result<Loaded, String> {
    let exe = elf::parse_exec(bytes, crate::arch::ELF_TARGET).map_err(describe)?;
    let mut mm = AddressSpace::new().ok_or("out of memory")?;
    let image_end = map_segments(&mut mm, &exe, bytes)?;
    mm.brk_start = image_end;
    mm.brk = image_end;

    mm.map(VDSO_BASE, PAGE, Prot { read: true, write: false, exec: true }, true);
    let vdso_page = mm.page_for(VDSO_BASE, Access::Populate).map_err(|_| "out of memory")?;
    crate::vdso::fill_page(vdso_page);

    mm.map(USER_STACK_TOP - USER_STACK_SIZE, USER_STACK_SIZE, Prot::RW, true);
    let (hwcap, hwcap2) = crate::arch::hwcaps();
    let mut auxv = alloc::vec![
        (AT_PAGESZ, PAGE),
        (AT_PHDR, exe.phdr_vaddr),
        (AT_PHENT, exe.phentsize as u64),
        (AT_PHNUM, exe.phnum as u64),
        (AT_ENTRY, exe.entry),
        (AT_HWCAP, hwcap),
        (AT_CLKTCK, 100),
        (AT_UID, 0),
        (AT_EUID, 0),
        (AT_GID, 0),
        (AT_EGID, 0),
        (AT_SECURE, 0),
        (AT_SYSINFO_EHDR, VDSO_BASE),
    ];
    if let Some(bits) = hwcap2 {
        auxv.push((AT_HWCAP2, bits));
    }
    let mut random = [0u8; 16];
    crate::random::fill(&mut random);
    let stack = initstack::build(USER_STACK_TOP, argv, envp, &auxv, random);
    if stack.image.len() as u64 > USER_STACK_SIZE / 2 {
        return Err(String::from("arguments and environment too large"));
    }
    uaccess::copy_out(&mut mm, stack.sp, &stack.image).map_err(|_| "out of memory")?;
    // Nothing else has seen this address space: frames it retired (none,
    // normally) can be freed at once.
    if let Some(r) = mm.take_retired() {
        r.frames.into_iter().for_each(frames::free);
    }
    Ok(Loaded { mm, entry: exe.entry, sp: stack.sp })
}

/// The main thread of the program (tid = pid).
pub fn main_thread(tid: u32, loaded: &Loaded) -> Option<Thread> {
    let mut frame = TrapFrame::zeroed();
    frame.set_pc(loaded.entry);
    frame.set_sp(loaded.sp);
    Thread::new(tid, frame, FpState::default(), ThreadSignals::inherit(0))
}

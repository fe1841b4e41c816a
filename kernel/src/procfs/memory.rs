//! A process's memory as /proc reports it: the figures of status, statm
//! and stat, the maps and smaps_rollup lines, and the machine's meminfo.
//! Everything is read from the address space under its lock (through the
//! opening thread's `UserSpace`).

use crate::memlayout::{PAGE_SIZE, USER_STACK_SIZE, USER_STACK_TOP, VDSO_BASE};
use crate::mm::addrspace::AddressSpace;
use crate::mm::pagetable;
use crate::mm::uaccess::UserSpace;
use alloc::string::String;
use alloc::vec::Vec;
use gometal_core::linux::errno::Errno;
use gometal_core::procfs::memory::{self as fmt, MapArea, MemInfo, Rollup};
use gometal_core::mm::vma::{Backing, Vma};

const PAGE: u64 = PAGE_SIZE as u64;

/// What an area is, for its name in maps and the status figures.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The program's ELF segments (everything below the break).
    Image,
    Heap,
    Stack,
    Vdso,
    Other,
}

fn role(mm: &AddressSpace, v: &Vma) -> Role {
    if v.start == VDSO_BASE {
        Role::Vdso
    } else if v.start >= USER_STACK_TOP - USER_STACK_SIZE && v.end <= USER_STACK_TOP {
        Role::Stack
    } else if v.end <= mm.brk_start {
        Role::Image
    } else if v.start >= mm.brk_start && v.end <= mm.brk.next_multiple_of(PAGE) && mm.brk > mm.brk_start {
        Role::Heap
    } else {
        Role::Other
    }
}

/// Pages of [start, end) that have a frame.
fn resident_in(mm: &AddressSpace, v: &Vma) -> u64 {
    (v.start..v.end).step_by(PAGE_SIZE).filter(|&va| pagetable::translate(mm.root, va).is_some()).count() as u64
}

/// The figures status, statm and stat need, in bytes or pages as named.
#[derive(Default)]
pub struct Figures {
    pub size: u64,
    pub resident_pages: u64,
    pub resident_peak_pages: u64,
    /// Resident pages of file mappings (shared ones: `shared_pages`).
    pub file_pages: u64,
    pub shared_pages: u64,
    pub data: u64,
    pub stack: u64,
    pub exe: u64,
    pub code: (u64, u64),
    pub data_range: (u64, u64),
    pub start_brk: u64,
}

pub fn figures(user: &mut UserSpace) -> Figures {
    let mm = user.lock();
    let mut f = Figures { resident_pages: mm.resident as u64, resident_peak_pages: mm.resident_peak as u64, start_brk: mm.brk_start, ..Figures::default() };
    f.code.0 = u64::MAX;
    f.data_range.0 = u64::MAX;
    for v in mm.vmas.iter() {
        let len = v.end - v.start;
        f.size += len;
        let r = role(&mm, v);
        match r {
            Role::Stack => f.stack += len,
            Role::Image if v.prot.exec => {
                f.exe += len;
                f.code = (f.code.0.min(v.start), f.code.1.max(v.end));
            }
            Role::Image if v.prot.write => f.data_range = (f.data_range.0.min(v.start), f.data_range.1.max(v.end)),
            _ => {}
        }
        if let Backing::File { shared, .. } = v.backing {
            let pages = resident_in(&mm, v);
            f.file_pages += pages;
            if shared {
                f.shared_pages += pages;
            }
        } else if v.prot.write && r != Role::Stack {
            f.data += len;
        }
    }
    if f.code.0 == u64::MAX {
        f.code = (0, 0);
    }
    if f.data_range.0 == u64::MAX {
        f.data_range = (0, 0);
    }
    f
}

/// /proc/<pid>/maps. `exe` names the image's areas; a file mapping is
/// named by the path of a descriptor open on the file, if any.
pub fn maps(user: &mut UserSpace) -> Result<Vec<u8>, Errno> {
    let exe = String::from_utf8_lossy(&super::exec().path).into_owned();
    let paths = super::fds::paths_by_inode();
    let mm = user.lock();
    let image_start = mm.vmas.iter().next().map_or(0, |v| v.start);
    let mut out = String::new();
    for v in mm.vmas.iter() {
        let mut area = MapArea { start: v.start, end: v.end, read: v.prot.read, write: v.prot.write, exec: v.prot.exec, ..MapArea::default() };
        let path;
        match (role(&mm, v), v.backing) {
            (_, Backing::File { id, offset, shared }) => {
                area.shared = shared;
                area.offset = offset;
                area.ino = id;
                path = paths.iter().find(|(ino, _)| *ino == id).map(|(_, p)| String::from_utf8_lossy(p).into_owned()).unwrap_or_default();
                area.name = &path;
            }
            (Role::Image, _) => {
                area.offset = v.start - image_start;
                area.name = &exe;
            }
            (Role::Heap, _) => area.name = "[heap]",
            (Role::Stack, _) => area.name = "[stack]",
            (Role::Vdso, _) => area.name = "[vdso]",
            (Role::Other, _) => {}
        }
        fmt::map_line(&mut out, &area);
    }
    Ok(out.into_bytes())
}

pub fn smaps_rollup(user: &mut UserSpace) -> Result<Vec<u8>, Errno> {
    let f = figures(user);
    let (start, end) = {
        let mm = user.lock();
        let range = (mm.vmas.iter().next().map_or(0, |v| v.start), mm.vmas.iter().last().map_or(0, |v| v.end));
        range
    };
    let kib = |pages: u64| pages * PAGE / 1024;
    let r = Rollup {
        start,
        end,
        rss: kib(f.resident_pages),
        anon: kib(f.resident_pages - f.file_pages),
        file: kib(f.file_pages - f.shared_pages),
        shmem: kib(f.shared_pages),
        shared: 0,
    };
    Ok(fmt::smaps_rollup(&r).into_bytes())
}

/// /proc/meminfo from the page frames and the kernel heap (mm::usage):
/// total, free, what files in the in-memory tree and the page cache of
/// cached shares hold (Cached; the cache's pages are also Available), the
/// program's resident pages, the kernel stacks, the heap in use (as Slab).
pub fn meminfo() -> String {
    let frames = crate::mm::frames::stats();
    let kib = |pages: usize| (pages * PAGE_SIZE / 1024) as u64;
    let (total, free) = crate::mm::usage();
    let free = free / 1024;
    let share_cache = kib(crate::fs::sharecache::pages());
    let files = kib(crate::fs::inode::file_pages()) + share_cache;
    let threads = crate::process::process().thread_count();
    let stacks = (threads * crate::param::KERNEL_STACK_SIZE / 1024) as u64;
    let heap = crate::mm::heap::used() as u64 / 1024;
    let used = kib(frames.in_use);
    let anon = used.saturating_sub(files + stacks);
    let m = MemInfo {
        total: total / 1024,
        free,
        available: free + files,
        cached: files,
        anon,
        mapped: 0,
        kernel_stack: stacks,
        page_tables: 0,
        slab: heap,
        committed: used + heap,
    };
    fmt::meminfo(&m)
}

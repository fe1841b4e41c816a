//! Memory: a process's /proc/<pid>/maps and smaps_rollup, and the
//! machine's /proc/meminfo (fs/proc/task_mmu.c, meminfo.c).

use alloc::string::String;
use core::fmt::Write;

/// One line of maps: an area, its rights, what backs it.
#[derive(Clone, Copy, Debug, Default)]
pub struct MapArea<'a> {
    pub start: u64,
    pub end: u64,
    pub read: bool,
    pub write: bool,
    pub exec: bool,
    pub shared: bool,
    pub offset: u64,
    pub dev: (u32, u32),
    pub ino: u64,
    /// A path, "[heap]", "[stack]", "[vdso]", or "" for anonymous memory.
    pub name: &'a str,
}

/// The columns before a name are padded to 72 bytes (25 + 6 × sizeof(void
/// *) - 1), then a space: Linux's seq_pad.
const NAME_COLUMN: usize = 25 + 6 * 8 - 1;

/// Appends `a` as Linux's maps line.
pub fn map_line(out: &mut String, a: &MapArea) {
    let begin = out.len();
    let flag = |on: bool, c: char| if on { c } else { '-' };
    let _ = write!(
        out,
        "{:08x}-{:08x} {}{}{}{} {:08x} {:02x}:{:02x} {} ",
        a.start,
        a.end,
        flag(a.read, 'r'),
        flag(a.write, 'w'),
        flag(a.exec, 'x'),
        if a.shared { 's' } else { 'p' },
        a.offset,
        a.dev.0,
        a.dev.1,
        a.ino
    );
    if !a.name.is_empty() {
        while out.len() - begin < NAME_COLUMN {
            out.push(' ');
        }
        out.push(' ');
        out.push_str(a.name);
    }
    out.push('\n');
}

/// The totals of smaps_rollup, in KiB.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rollup {
    pub start: u64,
    pub end: u64,
    pub rss: u64,
    pub anon: u64,
    pub file: u64,
    pub shmem: u64,
    /// Pages shared with the file (MAP_SHARED file pages), clean or dirty
    /// is not tracked: reported as dirty.
    pub shared: u64,
}

/// /proc/<pid>/smaps_rollup. Every page is the process's alone (one
/// process), so Pss equals Rss.
pub fn smaps_rollup(r: &Rollup) -> String {
    let mut o = String::new();
    map_line(&mut o, &MapArea { start: r.start, end: r.end, name: "[rollup]", ..MapArea::default() });
    let private = r.rss - r.shared;
    for (key, kb) in [
        ("Rss", r.rss),
        ("Pss", r.rss),
        ("Pss_Dirty", r.rss),
        ("Pss_Anon", r.anon),
        ("Pss_File", r.file),
        ("Pss_Shmem", r.shmem),
        ("Shared_Clean", 0),
        ("Shared_Dirty", r.shared),
        ("Private_Clean", 0),
        ("Private_Dirty", private),
        ("Referenced", r.rss),
        ("Anonymous", r.anon),
        ("KSM", 0),
        ("LazyFree", 0),
        ("AnonHugePages", 0),
        ("ShmemPmdMapped", 0),
        ("FilePmdMapped", 0),
        ("Shared_Hugetlb", 0),
        ("Private_Hugetlb", 0),
        ("Swap", 0),
        ("SwapPss", 0),
        ("Locked", 0),
    ] {
        let _ = writeln!(o, "{:<16}{kb:8} kB", [key, ":"].concat());
    }
    o
}

/// The machine's memory as /proc/meminfo reports it, in KiB.
#[derive(Clone, Copy, Debug, Default)]
pub struct MemInfo {
    pub total: u64,
    pub free: u64,
    pub available: u64,
    /// Files in the in-memory tree (tmpfs/rootfs pages: Linux counts them
    /// as Cached and Shmem).
    pub cached: u64,
    pub anon: u64,
    pub mapped: u64,
    pub kernel_stack: u64,
    pub page_tables: u64,
    /// Kernel heap in use (Linux's unreclaimable slab is the nearest).
    pub slab: u64,
    pub committed: u64,
}

/// /proc/meminfo: "Key:" padded to 16 columns, the value in 8, " kB".
pub fn meminfo(m: &MemInfo) -> String {
    let mut o = String::new();
    let line = |o: &mut String, key: &str, kb: u64| {
        let _ = writeln!(o, "{:<16}{kb:8} kB", [key, ":"].concat());
    };
    for (key, kb) in [
        ("MemTotal", m.total),
        ("MemFree", m.free),
        ("MemAvailable", m.available),
        ("Buffers", 0),
        ("Cached", m.cached),
        ("SwapCached", 0),
        ("Active", m.anon + m.cached),
        ("Inactive", 0),
        ("Active(anon)", m.anon + m.cached),
        ("Inactive(anon)", 0),
        ("Active(file)", 0),
        ("Inactive(file)", 0),
        ("Unevictable", 0),
        ("Mlocked", 0),
        ("SwapTotal", 0),
        ("SwapFree", 0),
        ("Zswap", 0),
        ("Zswapped", 0),
        ("Dirty", 0),
        ("Writeback", 0),
        ("AnonPages", m.anon),
        ("Mapped", m.mapped),
        ("Shmem", m.cached),
        ("KReclaimable", 0),
        ("Slab", m.slab),
        ("SReclaimable", 0),
        ("SUnreclaim", m.slab),
        ("KernelStack", m.kernel_stack),
        ("PageTables", m.page_tables),
        ("SecPageTables", 0),
        ("NFS_Unstable", 0),
        ("Bounce", 0),
        ("WritebackTmp", 0),
        ("CommitLimit", m.total / 2),
        ("Committed_AS", m.committed),
        ("VmallocTotal", 0),
        ("VmallocUsed", 0),
        ("VmallocChunk", 0),
        ("Percpu", 0),
        ("AnonHugePages", 0),
        ("ShmemHugePages", 0),
        ("ShmemPmdMapped", 0),
        ("FileHugePages", 0),
        ("FilePmdMapped", 0),
    ] {
        line(&mut o, key, kb);
    }
    for key in ["HugePages_Total", "HugePages_Free", "HugePages_Rsvd", "HugePages_Surp"] {
        let _ = writeln!(o, "{:<16}   {:>5}", [key, ":"].concat(), 0);
    }
    line(&mut o, "Hugepagesize", 2048);
    line(&mut o, "Hugetlb", 0);
    o
}

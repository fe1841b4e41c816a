//! The process's I/O accounting, as /proc/<pid>/io reports it: bytes
//! moved and calls made by the read and write families (Linux counts
//! read, pread64, readv and their write twins, whatever the file; a call
//! that fails still counts as a call).

use super::SysResult;
use core::sync::atomic::{AtomicU64, Ordering};

static RCHAR: AtomicU64 = AtomicU64::new(0);
static WCHAR: AtomicU64 = AtomicU64::new(0);
static SYSCR: AtomicU64 = AtomicU64::new(0);
static SYSCW: AtomicU64 = AtomicU64::new(0);

/// Counts a read-family call and passes its result on.
pub(super) fn read(r: SysResult) -> SysResult {
    SYSCR.fetch_add(1, Ordering::Relaxed);
    if let Ok(n) = r {
        RCHAR.fetch_add(n as u64, Ordering::Relaxed);
    }
    r
}

/// Counts a write-family call and passes its result on.
pub(super) fn write(r: SysResult) -> SysResult {
    SYSCW.fetch_add(1, Ordering::Relaxed);
    if let Ok(n) = r {
        WCHAR.fetch_add(n as u64, Ordering::Relaxed);
    }
    r
}

pub struct Counts {
    pub rchar: u64,
    pub wchar: u64,
    pub syscr: u64,
    pub syscw: u64,
}

pub fn counts() -> Counts {
    let r = |a: &AtomicU64| a.load(Ordering::Relaxed);
    Counts { rchar: r(&RCHAR), wchar: r(&WCHAR), syscr: r(&SYSCR), syscw: r(&SYSCW) }
}

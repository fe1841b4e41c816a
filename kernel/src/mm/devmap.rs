//! Device memory in a program's address space (UIO's mmap): areas whose
//! pages are fixed physical addresses (device registers, a DMA region)
//! instead of demand-zero frames. The address space consults this list when
//! it faults a page in, and never frees what it maps from here.

use alloc::vec::Vec;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceArea {
    pub start: u64,
    pub end: u64,
    /// Physical address of `start`.
    pub pa: u64,
}

#[derive(Default)]
pub struct DeviceAreas(Vec<DeviceArea>);

impl DeviceAreas {
    pub const fn new() -> Self {
        DeviceAreas(Vec::new())
    }

    pub fn add(&mut self, a: DeviceArea) {
        self.0.push(a);
    }

    /// The physical page behind user page `va`, if a device area covers it.
    pub fn phys(&self, va: u64) -> Option<u64> {
        self.0.iter().find(|a| (a.start..a.end).contains(&va)).map(|a| a.pa + (va - a.start))
    }

    /// True if `pa` is device memory mapped here (not a frame to free).
    pub fn owns_phys(&self, pa: u64) -> bool {
        self.0.iter().any(|a| (a.pa..a.pa + (a.end - a.start)).contains(&pa))
    }

    /// Forgets [start, end): the range was unmapped or replaced, so a later
    /// anonymous mapping there must not find device memory.
    pub fn remove(&mut self, start: u64, end: u64) {
        let mut kept = Vec::with_capacity(self.0.len() + 1);
        for a in self.0.drain(..) {
            if a.end <= start || a.start >= end {
                kept.push(a);
                continue;
            }
            if a.start < start {
                kept.push(DeviceArea { start: a.start, end: start, pa: a.pa });
            }
            if a.end > end {
                kept.push(DeviceArea { start: end, end: a.end, pa: a.pa + (end - a.start) });
            }
        }
        self.0 = kept;
    }
}

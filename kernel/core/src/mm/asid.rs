//! Address-space identifiers (ASIDs): a tag the TLB keeps with each
//! translation, so that switching address spaces needs no TLB flush.
//! The hardware has 2^bits of them (AArch64: 8 or 16 bits, RISC-V: up to
//! 16); when they run out, a new *generation* starts, as in Linux's
//! arch/arm64/mm/context.c: every address space must get a fresh ASID the
//! next time it is activated, every CPU flushes its TLB once before it
//! uses one from the new generation, and the ASID each CPU is running
//! keeps its number (it is "reserved"), because that CPU may go on using
//! it without activating anything.
//!
//! A value handed out is `generation << bits | asid`, so an address space
//! that remembers its last value can tell whether it is still current.
//! ASID 0 is never given out (the kernel's, or "no program yet"). With
//! `bits == 0` there are no ASIDs: every activation flushes.

use alloc::vec;
use alloc::vec::Vec;

pub struct Asids {
    bits: u32,
    generation: u64,
    /// Which ASIDs of the current generation are taken.
    used: Vec<bool>,
    /// Where to look for a free one next.
    next: usize,
    /// The value each CPU runs (0: none yet), and what it ran when the
    /// generation last rolled over (kept: that CPU may still use it).
    active: Vec<u64>,
    reserved: Vec<u64>,
    /// CPUs that must flush their TLB before their next activation.
    flush_pending: Vec<bool>,
}

/// What an activation decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Activation {
    /// The address space's value from now on (remember it).
    pub value: u64,
    /// The ASID for the hardware (the value's low bits).
    pub asid: u64,
    /// This CPU must flush its whole TLB before using it.
    pub flush: bool,
}

impl Asids {
    /// An allocator for `bits`-bit ASIDs on `cpus` CPUs.
    pub fn new(bits: u32, cpus: usize) -> Self {
        let bits = bits.min(16);
        Asids {
            bits,
            generation: 1,
            used: vec![false; 1 << bits],
            next: 1,
            active: vec![0; cpus],
            reserved: vec![0; cpus],
            flush_pending: vec![false; cpus],
        }
    }

    fn mask(&self) -> u64 {
        (1u64 << self.bits) - 1
    }

    /// The value for an address space whose last one was `last` (0: it
    /// never had one), about to run on `cpu`.
    pub fn activate(&mut self, last: u64, cpu: usize) -> Activation {
        if self.bits == 0 {
            return Activation { value: 0, asid: 0, flush: true };
        }
        let value = if last != 0 && last >> self.bits == self.generation {
            last
        } else {
            self.renew(last)
        };
        self.active[cpu] = value;
        let flush = core::mem::take(&mut self.flush_pending[cpu]);
        Activation { value, asid: value & self.mask(), flush }
    }

    /// A value of the current generation for an address space whose
    /// `last` is of an older one (or 0).
    fn renew(&mut self, last: u64) -> u64 {
        if last != 0 {
            // Reserved at a rollover: it keeps its number.
            let renewed = self.generation << self.bits | (last & self.mask());
            let mut kept = false;
            for r in self.reserved.iter_mut().filter(|r| **r == last) {
                *r = renewed;
                kept = true;
            }
            if kept {
                return renewed;
            }
        }
        let asid = match self.find_free() {
            Some(a) => a,
            None => {
                self.rollover();
                self.find_free().expect("more CPUs than ASIDs")
            }
        };
        self.used[asid] = true;
        self.next = asid + 1;
        self.generation << self.bits | asid as u64
    }

    fn find_free(&self) -> Option<usize> {
        let n = self.used.len();
        (self.next..n).chain(1..self.next.min(n)).find(|&a| !self.used[a])
    }

    /// Starts a new generation: only the ASIDs CPUs run stay taken (as
    /// reserved values), and every CPU flushes once.
    fn rollover(&mut self) {
        self.generation += 1;
        self.used.iter_mut().for_each(|u| *u = false);
        for cpu in 0..self.active.len() {
            // A CPU that activated nothing since the last rollover still
            // runs what was reserved for it then.
            let running = core::mem::take(&mut self.active[cpu]);
            let running = if running != 0 { running } else { self.reserved[cpu] };
            self.reserved[cpu] = running;
            if running != 0 {
                let asid = (running & self.mask()) as usize;
                self.used[asid] = true;
            }
            self.flush_pending[cpu] = true;
        }
        self.next = 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_generation_keeps_its_asid_without_flushes() {
        let mut a = Asids::new(8, 2);
        let x = a.activate(0, 0);
        assert_eq!((x.asid, x.flush), (1, false));
        assert_eq!(a.activate(x.value, 1), x);
        let y = a.activate(0, 0);
        assert_eq!(y.asid, 2);
        assert_eq!(a.activate(x.value, 0), x);
    }

    #[test]
    fn no_asids_flush_every_time() {
        let mut a = Asids::new(0, 1);
        assert_eq!(a.activate(0, 0), Activation { value: 0, asid: 0, flush: true });
        assert!(a.activate(0, 0).flush);
    }

    #[test]
    fn rollover_keeps_running_asids_and_flushes_each_cpu_once() {
        // 2 bits: ASIDs 1, 2, 3.
        let mut a = Asids::new(2, 2);
        let s1 = a.activate(0, 0); // cpu 0 runs s1
        let s2 = a.activate(0, 1);
        let s3 = a.activate(0, 1); // cpu 1 runs s3
        assert_eq!([s1.asid, s2.asid, s3.asid], [1, 2, 3]);
        // A fourth address space: new generation. s1 and s3 stay reserved.
        let s4 = a.activate(0, 1);
        assert!(s4.flush, "cpu 1 flushes before the new generation");
        assert_eq!(s4.asid, 2, "only s2's ASID is free");
        assert_ne!(s4.value, s2.value);
        // s1 comes back on cpu 0: its number was reserved, so it keeps it.
        let s1b = a.activate(s1.value, 0);
        assert_eq!((s1b.asid, s1b.flush), (1, true));
        assert!(!a.activate(s1b.value, 0).flush, "one flush per rollover");
        // s2 comes back: its old value is stale and every ASID is taken
        // (1 and 2 run, 3 stays reserved for cpu 1 until the next
        // rollover): another generation, in which cpu 1's s4 keeps 2.
        let s2b = a.activate(s2.value, 0);
        assert_eq!((s2b.asid, s2b.flush), (3, true));
        assert!(a.activate(s4.value, 1).flush);
    }

    #[test]
    fn no_two_live_address_spaces_share_an_asid() {
        let mut a = Asids::new(3, 4);
        let mut values = [0u64; 4];
        for round in 0..200usize {
            let cpu = round % 4;
            let space = (round * 7) % 11;
            let mut last = if space < 4 { values[space] } else { 0 };
            let got = a.activate(last, cpu);
            last = got.value;
            if space < 4 {
                values[space] = last;
            }
            // Every CPU's running ASID is distinct among different values.
            for (i, &x) in a.active.iter().enumerate() {
                for &y in &a.active[i + 1..] {
                    assert!(x == 0 || y == 0 || x == y || x & 7 != y & 7, "round {round}: {x:#x} and {y:#x}");
                }
            }
        }
    }
}

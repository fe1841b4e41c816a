//! Address-space identifiers for the hardware: each address space gets an
//! ASID (the allocator and its generations are `gometal_core::mm::asid`), so
//! a CPU switching to it needs no TLB flush unless the ASIDs rolled over.
//! The architecture says how many bits it has (`arch::asid_bits`, 0:
//! none, every switch flushes) and puts the ASID in its root register.

use crate::arch;
use crate::param::MAX_CPUS;
use crate::sync::{Lock, LockClass};
use core::sync::atomic::{AtomicU64, Ordering};
use gometal_core::mm::asid::{Activation, Asids};

static ASIDS: Lock<Option<Asids>> = Lock::new(LockClass::Asids, None);

/// An address space's ASID as last handed out (0: none yet).
#[derive(Default)]
pub struct AsidSlot(AtomicU64);

impl AsidSlot {
    pub const fn new() -> Self {
        AsidSlot(AtomicU64::new(0))
    }
}

/// Makes the address space with root `root` and ASID slot `slot` this
/// CPU's (`cpu`: its index) for user mode: the architecture installs the
/// root with the ASID, flushing this CPU's TLB only when the allocator
/// says so. Call with no lock held.
pub fn activate(root: u64, slot: &AsidSlot, cpu: usize) {
    let Activation { value, asid, flush } = {
        let mut asids = ASIDS.lock();
        let a = asids.get_or_insert_with(|| Asids::new(arch::asid_bits(), MAX_CPUS));
        a.activate(slot.0.load(Ordering::Relaxed), cpu)
    };
    slot.0.store(value, Ordering::Relaxed);
    arch::activate_user_root(root, asid, flush);
}

//! The lock order's bookkeeping (lockorder.rs has the order): which
//! classes each CPU holds, checked on every acquisition, and which classes
//! were ever taken. Both are gometal-core's `ClassSet` (core sync/lockset.rs), a bit per class
//! over as many words as `CLASSES` needs, so the order has room for every
//! class added to it. Only debug builds (the checked kernel) keep them;
//! in release builds these functions are empty and compile away.

use super::lockorder::{LockClass, CLASSES};
use gometal_core::sync::lockset::{words_for, ClassSet};

/// Words of a held-class set: one bit per class.
const WORDS: usize = words_for(CLASSES);

/// A set of lock classes: one CPU's held classes (in its per-CPU
/// structure), or the classes ever taken.
pub type HeldSet = ClassSet<WORDS>;

// The sets are sized from the class count, so this holds by construction;
// it is here to say so where the bits are numbered.
const _: () = assert!(CLASSES <= HeldSet::CAPACITY);

/// This CPU's held-class set and its number, or None before the CPU has
/// entered the kernel proper. The scheduler registers it at boot (the set
/// lives in its per-CPU structure); this module sits below the scheduler
/// and the architecture, so it cannot ask them.
pub type HeldSetOfThisCpu = fn() -> Option<(&'static HeldSet, usize)>;

static THIS_CPU: spin::Once<HeldSetOfThisCpu> = spin::Once::new();

/// Registers how to find this CPU's held-class set (once, at boot).
pub fn register_held_set(f: HeldSetOfThisCpu) {
    THIS_CPU.call_once(|| f);
}

/// Panics (debug builds) if this CPU holds any lock: `what` is about to
/// sleep, and a spin lock kept across a sleep is a lock no other thread on
/// this CPU can ever take (the kernel is not preempted).
pub fn assert_none_held(what: &str) {
    checks::assert_none(what);
}

/// The classes taken at least once since boot, by any CPU (checked kernels;
/// None in release builds, which do not record them).
pub fn taken() -> Option<impl Iterator<Item = LockClass>> {
    checks::taken().map(|set| set.iter().map(|c| LockClass::ALL[c]))
}

pub(super) use checks::{acquire, record, release};

#[cfg(debug_assertions)]
mod checks {
    use super::{HeldSet, LockClass, THIS_CPU};
    use gometal_core::sync::lockset::Conflict;

    /// Every class taken since boot, early boot's included.
    static TAKEN: HeldSet = HeldSet::new();

    fn this_cpu() -> Option<(&'static HeldSet, usize)> {
        THIS_CPU.get().and_then(|f| f())
    }

    pub fn acquire(class: LockClass) {
        TAKEN.insert(class as usize);
        let Some((held, cpu)) = this_cpu() else { return };
        match held.acquire(class as usize) {
            Ok(()) => {}
            Err(Conflict::Twice) => panic!("lock order: cpu {cpu} takes the {} lock twice", class.name()),
            Err(Conflict::Holding(later)) => {
                panic!("lock order: cpu {cpu} takes the {} lock while holding the {} lock", class.name(), LockClass::ALL[later].name())
            }
        }
    }

    /// A class taken without waiting (`try_lock`): held, not checked.
    pub fn record(class: LockClass) {
        TAKEN.insert(class as usize);
        if let Some((held, _)) = this_cpu() {
            held.insert(class as usize);
        }
    }

    pub fn release(class: LockClass) {
        if let Some((held, _)) = this_cpu() {
            held.remove(class as usize);
        }
    }

    pub fn assert_none(what: &str) {
        let Some((held, cpu)) = this_cpu() else { return };
        if let Some(first) = held.first_from(0) {
            panic!("lock order: cpu {cpu} is about to {what} holding the {} lock (held: {})", LockClass::ALL[first].name(), Names(held));
        }
    }

    /// A set's class names, comma-separated, with no allocation (the heap's
    /// lock may be among them).
    struct Names(&'static HeldSet);

    impl core::fmt::Display for Names {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            for (i, c) in self.0.iter().enumerate() {
                let sep = if i == 0 { "" } else { ", " };
                write!(f, "{sep}{}", LockClass::ALL[c].name())?;
            }
            Ok(())
        }
    }

    pub fn taken() -> Option<&'static HeldSet> {
        Some(&TAKEN)
    }
}

#[cfg(not(debug_assertions))]
mod checks {
    use super::{HeldSet, LockClass};
    #[inline(always)]
    pub fn acquire(_class: LockClass) {}
    #[inline(always)]
    pub fn record(_class: LockClass) {}
    #[inline(always)]
    pub fn release(_class: LockClass) {}
    #[inline(always)]
    pub fn assert_none(_what: &str) {}
    pub fn taken() -> Option<&'static HeldSet> {
        None
    }
}

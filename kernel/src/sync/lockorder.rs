//! The kernel's locks, each with a class from the lock order written at
//! the top of sched/mod.rs. In debug builds every acquisition is checked
//! against the locks this CPU already holds: taking a class while holding
//! the same class or a later one panics with both names, instead of hanging
//! (a lock taken twice by one CPU) or deadlocking two CPUs some day (an
//! inverted order). Release builds compile the checks away.

use core::ops::{Deref, DerefMut};
use core::sync::atomic::AtomicU32;
use spin::{Mutex, MutexGuard};

/// Lock classes in the order they may be nested: a CPU holding one may
/// only take classes listed after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum LockClass {
    /// The epoll watches on one pollable object (fs/pollhub.rs).
    PollHub = 0,
    /// One epoll instance's ready list (fs/pollhub.rs).
    EpollReady = 1,
    /// The futex table (linux/futex.rs).
    FutexTable = 2,
    /// A wait queue's list of waiters (wait.rs).
    WaitQueue = 3,
    /// One thread's run state and current wait (thread.rs).
    ThreadState = 4,
    /// The sleepers ordered by deadline (timer.rs).
    Sleepers = 5,
    /// One CPU's run queue (runqueue.rs).
    RunQueue = 6,
    /// Interrupt affinity changes (uio/affinity.rs).
    IrqAffinity = 7,
    /// The interrupt controller's enable words (arch/<arch>/irq.rs): a leaf.
    /// Unused where the controller has set/clear registers for them.
    #[allow(dead_code)]
    IrqEnables = 8,
}

impl LockClass {
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub const fn name(self) -> &'static str {
        match self {
            LockClass::PollHub => "poll hub",
            LockClass::EpollReady => "epoll ready list",
            LockClass::FutexTable => "futex table",
            LockClass::WaitQueue => "wait queue",
            LockClass::ThreadState => "thread state",
            LockClass::Sleepers => "sleepers",
            LockClass::RunQueue => "run queue",
            LockClass::IrqAffinity => "IRQ affinity",
            LockClass::IrqEnables => "IRQ enables",
        }
    }
}

/// A spin lock of a known class.
pub struct Lock<T> {
    class: LockClass,
    inner: Mutex<T>,
}

impl<T> Lock<T> {
    pub const fn new(class: LockClass, value: T) -> Self {
        Lock { class, inner: Mutex::new(value) }
    }

    pub fn lock(&self) -> LockGuard<'_, T> {
        held::acquire(self.class);
        LockGuard { class: self.class, inner: self.inner.lock() }
    }
}

pub struct LockGuard<'a, T> {
    class: LockClass,
    inner: MutexGuard<'a, T>,
}

impl<T> Deref for LockGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T> DerefMut for LockGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

impl<T> Drop for LockGuard<'_, T> {
    fn drop(&mut self) {
        held::release(self.class);
    }
}

/// This CPU's word of held classes (a bit each) and its number, or None
/// before the CPU has entered the kernel proper. The scheduler registers
/// it at boot (the word lives in its per-CPU structure); this module sits
/// below the scheduler and the architecture, so it cannot ask them.
pub type HeldWord = fn() -> Option<(&'static AtomicU32, usize)>;

static HELD_WORD: spin::Once<HeldWord> = spin::Once::new();

/// Registers how to find this CPU's held-class word (once, at boot).
pub fn register_held_word(f: HeldWord) {
    HELD_WORD.call_once(|| f);
}

#[cfg(debug_assertions)]
mod held {
    //! Per-CPU set of held classes, checked on every acquisition.
    use super::{LockClass, HELD_WORD};
    use core::sync::atomic::Ordering;

    pub fn acquire(class: LockClass) {
        let Some((word, cpu)) = HELD_WORD.get().and_then(|f| f()) else { return };
        let held = word.load(Ordering::Relaxed);
        let bit = 1u32 << class as u8;
        if held & bit != 0 {
            panic!("lock order: cpu {cpu} takes the {} lock twice", class.name());
        }
        // Any held class at or after this one is an inversion.
        if held >> class as u8 != 0 {
            let later = (class as u8..32).find(|&c| held & (1 << c) != 0).unwrap_or(0);
            panic!("lock order: cpu {cpu} takes the {} lock while holding class {later}", class.name());
        }
        word.store(held | bit, Ordering::Relaxed);
    }

    pub fn release(class: LockClass) {
        if let Some((word, _)) = HELD_WORD.get().and_then(|f| f()) {
            word.fetch_and(!(1u32 << class as u8), Ordering::Relaxed);
        }
    }
}

#[cfg(not(debug_assertions))]
mod held {
    use super::LockClass;
    #[inline(always)]
    pub fn acquire(_class: LockClass) {}
    #[inline(always)]
    pub fn release(_class: LockClass) {}
}

//! A thread's signal state as data: its mask, pending set, the siginfo of
//! each pending signal, and its alternate stack. It lives with the thread
//! (the blocking primitive asks whether a signal should end a wait);
//! signal.rs decides what happens with it.

use gometal_core::sigframe::SigInfo;
use gometal_core::signal::{self as sig, SigSet};

#[derive(Clone, Copy, Debug, Default)]
pub struct AltStack {
    pub sp: u64,
    pub size: u64,
    pub flags: i32,
}

impl AltStack {
    pub fn enabled(&self) -> bool {
        self.flags & sig::SS_DISABLE == 0 && self.size != 0
    }
    pub fn contains(&self, sp: u64) -> bool {
        self.enabled() && sp > self.sp && sp <= self.sp + self.size
    }
}

/// A thread's signal state.
#[derive(Clone)]
pub struct ThreadSignals {
    pub blocked: SigSet,
    pub pending: SigSet,
    /// The siginfo of each pending signal (standard signals do not queue).
    pub info: [SigInfo; 64],
    pub altstack: AltStack,
}

impl ThreadSignals {
    /// A new thread: inherits the creator's mask, no alternate stack.
    pub fn inherit(blocked: SigSet) -> Self {
        ThreadSignals {
            blocked,
            pending: 0,
            info: [SigInfo::default(); 64],
            altstack: AltStack { flags: sig::SS_DISABLE, ..AltStack::default() },
        }
    }

    /// Signals pending and not blocked: what must end an interruptible wait.
    pub fn deliverable(&self) -> SigSet {
        self.pending & !self.blocked
    }
}

//! A thread's signal state as data: its mask, pending set, the siginfo of
//! each pending signal, and its alternate stack. It lives with the thread
//! (the blocking primitive asks whether a signal should end a wait);
//! signal.rs decides what happens with it.

use alloc::vec::Vec;
use gometal_core::signal::sigframe::SigInfo;
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
    /// The siginfo of each pending signal (standard signals do not queue):
    /// a short list, not an array of 64, which would make every thread
    /// (kernel heap) 2 KiB bigger.
    info: Vec<SigInfo>,
    pub altstack: AltStack,
}

impl ThreadSignals {
    /// A new thread: inherits the creator's mask, no alternate stack.
    pub fn inherit(blocked: SigSet) -> Self {
        ThreadSignals {
            blocked,
            pending: 0,
            info: Vec::new(),
            altstack: AltStack { flags: sig::SS_DISABLE, ..AltStack::default() },
        }
    }

    /// Records `info` for pending signal `signo`, replacing what was there
    /// if `replace`.
    pub fn set_info(&mut self, signo: usize, info: SigInfo, replace: bool) {
        match self.info.iter_mut().find(|i| i.signo as usize == signo) {
            Some(old) if replace => *old = info,
            Some(_) => {}
            None => self.info.push(SigInfo { signo: signo as i32, ..info }),
        }
    }

    /// The siginfo recorded for `signo` (another thread's kill: zero), if any.
    pub fn info_of(&self, signo: usize) -> Option<&SigInfo> {
        self.info.iter().find(|i| i.signo as usize == signo)
    }

    /// Takes the siginfo of `signo`, which is being delivered.
    pub fn take_info(&mut self, signo: usize) -> SigInfo {
        match self.info.iter().position(|i| i.signo as usize == signo) {
            Some(at) => self.info.swap_remove(at),
            None => SigInfo { signo: signo as i32, ..SigInfo::default() },
        }
    }

    /// Signals pending and not blocked: what must end an interruptible wait.
    pub fn deliverable(&self) -> SigSet {
        self.pending & !self.blocked
    }
}

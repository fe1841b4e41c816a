//! Threads ready to run. One queue for the whole machine, served by the boot
//! hart only in this version: the other harts are online but idle in wfi.
//! Per-hart queues and placement policies replace this file.

use super::hart::Hart;
use super::thread::Thread;
use alloc::collections::VecDeque;
use alloc::sync::Arc;
use spin::Mutex;

static READY: Mutex<VecDeque<Arc<Thread>>> = Mutex::new(VecDeque::new());

/// Whether `hart` runs program threads (see the module comment).
pub fn runs_threads(hart: &Hart) -> bool {
    hart.index() == 0
}

pub fn enqueue(t: Arc<Thread>) {
    READY.lock().push_back(t);
}

pub fn dequeue(hart: &Hart) -> Option<Arc<Thread>> {
    if !runs_threads(hart) {
        return None;
    }
    READY.lock().pop_front()
}

/// Whether a thread is waiting for `hart`.
pub fn has_work(hart: &Hart) -> bool {
    runs_threads(hart) && !READY.lock().is_empty()
}

//! Readiness notification for epoll, as Linux's wait-queue callbacks do it:
//! every pollable object (a pipe, a socket, an eventfd) has a `Hub` listing
//! the epoll watches on it. A readiness change puts each of those watches
//! on the ready list of its epoll instance (once: a watch already queued is
//! not queued again) and wakes that instance's waiters only. epoll_wait then
//! takes entries off its ready list instead of checking every watched file,
//! so a wait costs O(ready) and a change O(watchers of that object), however
//! many connections a program holds open.
//!
//! Files without a hub of their own (the console, stdio, UIO devices, an
//! epoll inside an epoll) are watched through `GLOBAL`, which `notify`
//! fires: those change rarely and are few.
//!
//! Lock order: a hub's list, then a ready list, then the waiters' wait queue
//! (lockorder.rs: PollHub, EpollReady, WaitQueue). No allocation happens
//! under them: each ready list keeps room for every watch of its instance
//! (reserved, fallibly, when the watch is added).

use crate::sync::{Lock, LockClass};
use crate::sched::wait::WaitQueue;
use alloc::collections::VecDeque;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, Ordering};
use gometal_core::linux::errno::{Errno, ENOMEM};

/// One epoll instance's ready list and the threads waiting on it.
pub struct Ready {
    list: Lock<VecDeque<Arc<Watch>>>,
    pub waiters: WaitQueue,
}

/// One registration (a descriptor in one epoll instance), as hubs see it.
pub struct Watch {
    ready: Arc<Ready>,
    /// The descriptor number: the key of its interest in the instance.
    pub fd: usize,
    /// On the ready list now (cleared when epoll_wait takes it off).
    queued: AtomicBool,
}

impl Ready {
    pub fn new() -> Arc<Ready> {
        Arc::new(Ready { list: Lock::new(LockClass::EpollReady, VecDeque::new()), waiters: WaitQueue::new() })
    }

    /// Makes sure the list can hold `watches` entries without allocating
    /// when a hub queues one (ENOMEM when the heap is out).
    pub fn reserve(&self, watches: usize) -> Result<(), Errno> {
        let mut l = self.list.lock();
        if l.capacity() < watches {
            let more = watches - l.len();
            l.try_reserve(more).map_err(|_| ENOMEM)?;
        }
        Ok(())
    }

    /// Takes the next queued watch off the list: its readiness is checked
    /// after this, so a change from now on queues it again.
    pub fn pop(&self) -> Option<Arc<Watch>> {
        let w = self.list.lock().pop_front()?;
        // An RMW: it orders the caller's readiness check after the
        // queuing of any change that found the watch still queued.
        w.queued.swap(false, Ordering::AcqRel);
        Some(w)
    }

    /// Takes `watch` off the list (its registration is being removed).
    pub fn forget(&self, watch: &Arc<Watch>) {
        let mut l = self.list.lock();
        if watch.queued.load(Ordering::Acquire) {
            l.retain(|w| !Arc::ptr_eq(w, watch));
        }
    }

    /// Empties the list (the instance is closed): the entries point back at
    /// this list, a cycle only this breaks.
    pub fn clear(&self) {
        let taken = core::mem::take(&mut *self.list.lock());
        drop(taken);
    }
}

impl Watch {
    pub fn new(ready: &Arc<Ready>, fd: usize) -> Arc<Watch> {
        Arc::new(Watch { ready: ready.clone(), fd, queued: AtomicBool::new(false) })
    }

    /// Puts the watch on its instance's ready list unless it is there, and
    /// wakes the instance's waiters.
    pub fn enqueue(self: &Arc<Watch>) {
        if self.queued.swap(true, Ordering::AcqRel) {
            return;
        }
        {
            let mut l = self.ready.list.lock();
            // Room was reserved for every watch of the instance, and a
            // watch is on the list at most once: this never allocates. If
            // that were ever wrong, try to grow rather than drop the event.
            if l.len() == l.capacity() && l.try_reserve(1).is_err() {
                self.queued.store(false, Ordering::Release);
                return;
            }
            l.push_back(self.clone());
        }
        self.ready.waiters.wake_all();
    }
}

/// The epoll watches on one pollable object.
pub struct Hub {
    watches: Lock<Vec<Arc<Watch>>>,
}

impl Hub {
    pub const fn new() -> Self {
        Hub { watches: Lock::new(LockClass::PollHub, Vec::new()) }
    }

    /// Adds a watch; ENOMEM when the heap is out.
    pub fn add(&self, watch: Arc<Watch>) -> Result<(), Errno> {
        let mut w = self.watches.lock();
        // Most objects have one watch (Go's one netpoller): no spare room.
        let room = if w.is_empty() { w.try_reserve_exact(1) } else { w.try_reserve(1) };
        room.map_err(|_| ENOMEM)?;
        w.push(watch);
        Ok(())
    }

    pub fn remove(&self, watch: &Arc<Watch>) {
        let removed = {
            let mut w = self.watches.lock();
            w.iter().position(|x| Arc::ptr_eq(x, watch)).map(|i| w.swap_remove(i))
        };
        drop(removed); // outside the lock: it may be the last reference
    }

    /// The object's readiness may have changed: queue every watch on it.
    pub fn notify(&self) {
        for w in self.watches.lock().iter() {
            w.enqueue();
        }
        // poll/ppoll/select still scan their (short) descriptor lists.
        super::epoll::POLL_WAITERS.wake_all();
    }
}

/// Notifies the hubs a connection's pipe is linked to (fs/pipe.rs,
/// net/msgpipe.rs), outside the lock that holds them.
pub fn notify_linked(linked: &Lock<[Option<Arc<Hub>>; 2]>) {
    let [a, b] = linked.lock().clone();
    match (a, b) {
        (None, None) => super::epoll::POLL_WAITERS.wake_all(),
        (a, b) => {
            for h in [a, b].into_iter().flatten() {
                h.notify();
            }
        }
    }
}

/// Links `hub` as the hub of side `side` (0: reader, 1: writer) of a
/// connection's pipe; false if it was linked already.
pub fn link(linked: &Lock<[Option<Arc<Hub>>; 2]>, side: usize, hub: &Arc<Hub>) -> bool {
    let mut l = linked.lock();
    if l[side].as_ref().is_some_and(|h| Arc::ptr_eq(h, hub)) {
        return false;
    }
    l[side] = Some(hub.clone());
    true
}

/// The hub of every file that has none of its own.
pub static GLOBAL: Hub = Hub::new();

/// The hub a file announces its readiness on (`File::poll_hub`), held by
/// each epoll watch of it: the watch may outlive the file.
pub enum PollHub {
    /// `GLOBAL`, for files that change rarely (console, stdio, UIO).
    Global,
    /// The file's own (pipes, eventfds, sockets).
    Own(Arc<Hub>),
}

impl PollHub {
    pub fn hub(&self) -> &Hub {
        match self {
            PollHub::Global => &GLOBAL,
            PollHub::Own(h) => h,
        }
    }

    pub fn notify(&self) {
        self.hub().notify();
    }
}

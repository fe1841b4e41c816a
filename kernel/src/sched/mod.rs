//! Threads and scheduling: which thread runs on which CPU, and how threads
//! block, wake and sleep.
//!
//! - block.rs: the one blocking primitive (begin_wait / block / wake) that
//!   futex, wait queues, sleep and epoll use.
//! - place.rs: the one place that decides where a new or woken thread runs
//!   (policy, idle CPUs first, wakeup preemption).
//! - idle.rs: halt polling, napping, timer advance.
//! - profile.rs: each thread's CPU-use estimates (the adaptive policy's
//!   input), updated at switches and blocks.
//! - event.rs: kernel timer events (a deadline that runs kernel code, not
//!   a thread: the network stack's timers).
//! - runqueue.rs, scheduler.rs, timer.rs, cpu.rs, thread.rs: the parts.
//! - smp.rs: IPIs between CPUs, TLB shootdown, stopping every CPU at exit.
//! - bringup.rs: starting the other CPUs at boot (through arch::start_cpu).
//! - cputime.rs: CPU time per thread and for the program (CPU-time clocks).
//! - latency.rs: the wake and timer latency histograms (-kernel-args stats).
//!
//! Lock order (outermost first; sync/lockorder.rs checks it in debug builds and
//! panics with the lock's name when a CPU takes a lock twice or out of
//! order):
//!
//!   poll hub → epoll ready list → futex table → wait queue → thread state
//!     → sleepers → run queue → IRQ affinity → IRQ enables
//!
//! A readiness change (fs/pollhub.rs) holds an object's poll hub while it
//! puts each watch on its epoll's ready list and wakes that epoll's wait
//! queue; an epoll instance's interest map (fs/epoll.rs, a plain lock) is
//! taken before any of these and never under them. Otherwise no two nest: wakers take a waiter out of the futex
//! table or wait queue, release that lock, then wake it; `wake` releases
//! the thread state lock before queuing the thread. The thread state lock
//! is taken before the thread's signal lock (block.rs looks at pending
//! signals under it); nothing takes them the other way round. The IRQ
//! enables lock (arch/<arch>/irq.rs) guards each enable-word read-modify-write
//! and is a leaf: a UIO top half takes it in the trap handler before it
//! wakes anyone, irqcontrol takes it alone; a /proc/irq/N/smp_affinity
//! write takes it under the IRQ affinity lock (uio/affinity.rs), which
//! serialises moves of a line between CPUs.

#[deny(unsafe_code)]
pub mod block;
#[deny(unsafe_code)]
pub mod bringup;
#[deny(unsafe_code)]
pub mod clock;
#[deny(unsafe_code)]
pub mod cputime;
pub mod event;
pub mod cpu;
#[deny(unsafe_code)]
pub mod idle;
#[deny(unsafe_code)]
pub mod latency;
#[deny(unsafe_code)]
pub mod loadavg;
#[deny(unsafe_code)]
pub mod place;
#[deny(unsafe_code)]
pub mod profile;
#[deny(unsafe_code)]
pub mod runqueue;
#[deny(unsafe_code)]
pub mod smp;
pub mod scheduler;
#[deny(unsafe_code)]
pub mod sigstate;
pub mod thread;
#[deny(unsafe_code)]
pub mod timer;
#[deny(unsafe_code)]
pub mod wait;

pub use block::exit_current;
pub use scheduler::{current, yield_now};
pub use thread::Thread;

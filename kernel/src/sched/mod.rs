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
//! - sleeplock.rs: a lock its holder may keep while it sleeps (built on
//!   a wait queue).
//!
//! The lock order (every lock of the kernel, outermost first) is written
//! and checked in sync/lockorder.rs; docs/locking.md explains it. The
//! scheduler's part: futex table → wait queue → sleep lock → thread state
//! → thread signals → sleepers → placer → run queue. Wakers take a waiter
//! out of the futex table or wait queue, release that lock, then wake it;
//! `wake` releases the thread state lock before queuing the thread; the
//! thread state lock is taken before the thread's signal lock (block.rs
//! looks at pending signals under it). No thread blocks holding a spin lock
//! (block.rs checks it in debug builds).

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
#[deny(unsafe_code)]
pub mod sleeplock;
pub mod thread;
#[deny(unsafe_code)]
pub mod timer;
#[deny(unsafe_code)]
pub mod wait;

pub use block::exit_current;
pub use scheduler::{current, yield_now};
pub use thread::Thread;

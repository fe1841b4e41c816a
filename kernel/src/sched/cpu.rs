//! Per-CPU state, reached through the architecture's per-CPU pointer
//! register while in the kernel (xv6's `struct cpu`). CPUs are numbered
//! 0..n in device-tree order ("index"); the hardware id (`hwid`: a RISC-V
//! hart id, an ARM MPIDR affinity) can differ.

use super::thread::Thread;
use crate::arch::{self, Context};
use crate::param::MAX_CPUS;
use crate::sync::held::HeldSet;
use alloc::sync::Arc;
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, AtomicU8, AtomicUsize, Ordering};

/// Lifecycle of a CPU (InfOS's states).
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuState {
    /// Not found or not started yet.
    Offline = 0,
    /// Start requested from the firmware, waiting for it to reach Rust.
    Bootstrap = 1,
    /// Running the kernel.
    Online = 2,
    /// Failed to start (twice).
    Error = 3,
    /// Present but not used (beyond `cores=` or MAX_CPUS).
    Parked = 4,
}

/// Counters the user sees with `stats`/`-v` after the program exits.
#[derive(Default)]
pub struct CpuStats {
    pub busy_ns: AtomicU64,
    pub idle_ns: AtomicU64,
    pub threads_run: AtomicU64,
    pub switches: AtomicU64,
    /// Threads that last ran on another CPU.
    pub migrations: AtomicU64,
    /// Threads this CPU took from another CPU's queue.
    pub steals: AtomicU64,
    pub ipis_sent: AtomicU64,
    pub ipis_received: AtomicU64,
    pub syscalls: AtomicU64,
    pub interrupts: AtomicU64,
}

pub struct Cpu {
    pub hwid: AtomicUsize,
    state: AtomicU8,
    /// The scheduler loop's context while a thread runs.
    scheduler_context: UnsafeCell<Context>,
    current: UnsafeCell<Option<Arc<Thread>>>,
    /// The root page table this CPU has installed.
    pub page_table: AtomicU64,
    /// Next tick deadline in `time` ticks.
    pub next_tick: AtomicU64,
    /// When the current busy or idle period began (monotonic ns), so the
    /// statistics can include a period still in progress at exit.
    pub period_start: AtomicU64,
    /// When the thread it runs started running (monotonic ns); 0: none
    /// (sched/cputime.rs adds it to the program's CPU time).
    pub thread_since: AtomicU64,
    /// In the idle loop: not running a thread (placement prefers it).
    pub idle: AtomicBool,
    /// Idle and about to `wfi` or in it: new work for it needs an IPI. An
    /// idle CPU that is not napping polls its queue and needs none.
    pub napping: AtomicBool,
    /// A wakeup queued a thread here while it ran one: switch at the next
    /// trap (wakeup preemption, place.rs).
    pub need_resched: AtomicBool,
    /// How long the idle loop polls before it naps (ns; adapted, idle.rs).
    pub poll_ns: AtomicU64,
    /// Lock classes this CPU holds (debug builds; sync/held.rs).
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub held_locks: HeldSet,
    /// Running a thread (for placement's load count).
    pub running: AtomicBool,
    /// The thread it runs is CPU-bound (threadprofile's Long), as of its
    /// switch-in or the last tick (for the adaptive policy).
    pub running_long: AtomicBool,
    /// Which CPUs share a cache with this one (equal numbers; boot/topology.rs).
    pub cache_group: AtomicU16,
    /// A thread was handed to this CPU's queue because the CPU it should
    /// run on naps (place.rs): if it still waits here at this time
    /// (monotonic ns; 0: none), this CPU preempts its own thread for it.
    pub handoff_at: AtomicU64,
    /// When another CPU last sent this idle CPU an IPI for work, and when
    /// this CPU then left `wfi` (monotonic ns; 0: none), for the statistics.
    pub kicked_at: AtomicU64,
    pub awake_at: AtomicU64,
    /// The `kicked_at` that `awake_at` answered.
    pub kick_answered: AtomicU64,
    /// TLB shootdown generations asked of this CPU, and done by it.
    pub tlb_requested: AtomicU64,
    pub tlb_done: AtomicU64,
    pub stats: CpuStats,
}

// SAFETY: scheduler_context and current are only accessed by code running on
// this CPU (through tp), never from another CPU.
unsafe impl Sync for Cpu {}

impl Cpu {
    const fn new() -> Self {
        Cpu {
            hwid: AtomicUsize::new(usize::MAX),
            state: AtomicU8::new(CpuState::Offline as u8),
            scheduler_context: UnsafeCell::new(Context::zeroed()),
            current: UnsafeCell::new(None),
            page_table: AtomicU64::new(0),
            next_tick: AtomicU64::new(0),
            period_start: AtomicU64::new(0),
            thread_since: AtomicU64::new(0),
            idle: AtomicBool::new(false),
            napping: AtomicBool::new(false),
            need_resched: AtomicBool::new(false),
            poll_ns: AtomicU64::new(0),
            held_locks: HeldSet::new(),
            running: AtomicBool::new(false),
            running_long: AtomicBool::new(false),
            cache_group: AtomicU16::new(0),
            handoff_at: AtomicU64::new(0),
            kicked_at: AtomicU64::new(0),
            awake_at: AtomicU64::new(0),
            kick_answered: AtomicU64::new(0),
            tlb_requested: AtomicU64::new(0),
            tlb_done: AtomicU64::new(0),
            stats: CpuStats {
                busy_ns: AtomicU64::new(0),
                idle_ns: AtomicU64::new(0),
                threads_run: AtomicU64::new(0),
                switches: AtomicU64::new(0),
                migrations: AtomicU64::new(0),
                steals: AtomicU64::new(0),
                ipis_sent: AtomicU64::new(0),
                ipis_received: AtomicU64::new(0),
                syscalls: AtomicU64::new(0),
                interrupts: AtomicU64::new(0),
            },
        }
    }

    /// This CPU's number: 0 for the boot CPU, then device-tree order.
    pub fn index(&self) -> usize {
        (self as *const Cpu as usize - CPUS.as_ptr() as usize) / core::mem::size_of::<Cpu>()
    }

    pub fn state(&self) -> CpuState {
        match self.state.load(Ordering::Acquire) {
            1 => CpuState::Bootstrap,
            2 => CpuState::Online,
            3 => CpuState::Error,
            4 => CpuState::Parked,
            _ => CpuState::Offline,
        }
    }

    /// Moves from `from` to `to` atomically; false if the state was not `from`
    /// (a late CPU and a boot CPU giving up on it cannot both win).
    pub fn transition(&self, from: CpuState, to: CpuState) -> bool {
        self.state.compare_exchange(from as u8, to as u8, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }

    pub fn set_state(&self, s: CpuState) {
        self.state.store(s as u8, Ordering::Release);
    }

    pub fn is_running(&self) -> bool {
        self.running.load(Ordering::Relaxed)
    }

    pub fn hwid(&self) -> usize {
        self.hwid.load(Ordering::Relaxed)
    }

    pub fn scheduler_context(&self) -> *mut Context {
        self.scheduler_context.get()
    }

    /// The thread running on this CPU. Only call on this CPU.
    pub fn current(&self) -> Option<&Arc<Thread>> {
        // SAFETY: only this CPU touches `current` (see Sync).
        unsafe { (*self.current.get()).as_ref() }
    }

    pub fn set_current(&self, t: Option<Arc<Thread>>) -> Option<Arc<Thread>> {
        // SAFETY: only this CPU touches `current` (see Sync).
        unsafe { core::mem::replace(&mut *self.current.get(), t) }
    }
}

static CPUS: [Cpu; MAX_CPUS] = [const { Cpu::new() }; MAX_CPUS];

pub fn cpu(index: usize) -> &'static Cpu {
    &CPUS[index]
}

pub fn all() -> &'static [Cpu] {
    &CPUS
}

/// Points the per-CPU register at CPU `index` and sets up the CPU's trap
/// handling. Called once per CPU.
pub fn enter(index: usize, hwid: usize) {
    let h = cpu(index);
    h.hwid.store(hwid, Ordering::Relaxed);
    // SAFETY: CPUS is static, so the pointer stays valid forever, and only
    // this CPU runs with this index.
    unsafe { arch::set_cpu_local(h as *const Cpu as usize) };
    arch::init_cpu();
    crate::sync::held::register_held_set(held_locks);
}

/// This CPU's held lock classes, for the lock-order checks (sync/).
fn held_locks() -> Option<(&'static HeldSet, usize)> {
    // Before a CPU has entered the kernel proper the pointer is 0: no checks.
    (arch::cpu_local() != 0).then(|| {
        let c = this_cpu();
        (&c.held_locks, c.index())
    })
}

/// The CPU the caller runs on.
pub fn this_cpu() -> &'static Cpu {
    // SAFETY: the per-CPU pointer was set by `enter` on this CPU to an
    // element of the static CPUS array; trap entry restores it.
    unsafe { &*(arch::cpu_local() as *const Cpu) }
}

/// The number of CPUs that run the kernel.
pub fn online_count() -> usize {
    CPUS.iter().filter(|h| h.state() == CpuState::Online).count()
}

/// Gives each started CPU its cache group from what the device tree says
/// about the CPUs `hwids` (boot/topology.rs reads it), after
/// sched::bringup has assigned the indices.
pub fn set_cache_groups(hwids: &[usize], caches: &[gometal_core::boot::topology::CpuCaches]) {
    let groups = gometal_core::boot::topology::cache_groups(caches);
    for (&hwid, &group) in hwids.iter().zip(&groups) {
        if let Some(c) = all().iter().find(|c| c.hwid() == hwid) {
            c.cache_group.store(group, core::sync::atomic::Ordering::Relaxed);
        }
    }
}

//! A thread: one Go M. Its user registers (TrapFrame), kernel context, FP
//! state and kernel stack, plus the bookkeeping that blocking, signals and
//! accounting need.

use crate::arch::{Context, FpState, TrapFrame};
use crate::memlayout::phys_to_virt;
use crate::mm::frames;
use crate::param::KERNEL_STACK_SIZE;

const KERNEL_STACK_PAGES: usize = KERNEL_STACK_SIZE / crate::memlayout::PAGE_SIZE;
use super::profile::ProfileCell;
use super::sigstate::ThreadSignals;
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use crate::sync::{Lock, LockClass};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::sched) enum RunState {
    /// In a run queue, or about to be.
    Runnable,
    Running,
    /// Waiting for a wakeup (futex, timer, I/O).
    Blocked,
    Exited,
}

/// What the thread's state lock protects: the run state and the current
/// wait (see block.rs). Private to sched/.
pub(in crate::sched) struct SchedState {
    pub run: RunState,
    /// Numbers the thread's waits; a wakeup for an older wait is ignored.
    pub generation: u64,
    /// A wakeup for the current wait arrived before the thread blocked:
    /// `block` returns at once instead of sleeping.
    pub woken_early: bool,
}

pub struct Thread {
    pub tid: u32,
    /// Registers of the user context, saved at every trap.
    frame: UnsafeCell<TrapFrame>,
    /// Callee-saved registers of the kernel side while switched out.
    context: UnsafeCell<Context>,
    fp: UnsafeCell<FpState>,
    /// Physical address of the kernel stack (KERNEL_STACK_SIZE bytes of
    /// contiguous frames: taken from program memory, not the kernel heap, so
    /// a program making threads runs out of memory cleanly, not a panic).
    kernel_stack: u64,
    pub(in crate::sched) state: Lock<SchedState>,
    /// True while a CPU is running this thread or still switching away
    /// from it; another CPU must not resume it until it is false.
    pub(in crate::sched) on_cpu: AtomicBool,
    pub signals: Lock<ThreadSignals>,
    /// CLONE_CHILD_CLEARTID address: zeroed and futex-woken at exit.
    pub clear_child_tid: AtomicU64,
    pub(in crate::sched) last_cpu: AtomicUsize,
    /// When the thread was last made runnable by a wakeup (monotonic ns,
    /// 0 if not), for the wake-to-run statistics.
    pub(in crate::sched) woken_at: AtomicU64,
    /// Whether some CPU was idle when it was last queued by a wakeup.
    pub(in crate::sched) woken_with_idle: AtomicBool,
    /// How it uses the CPU (for the adaptive policy; profile.rs).
    pub(in crate::sched) profile: ProfileCell,
    /// It was CPU-bound when it joined its run queue (runqueue.rs counts
    /// such threads per queue and subtracts what it added).
    pub(in crate::sched) queued_long: AtomicBool,
    /// The waker's CPU it was handed to because the CPU it should run on
    /// napped (place.rs; usize::MAX: not handed off), until it runs: the
    /// statistics count which CPU took it.
    pub(in crate::sched) handed_to: AtomicUsize,
    /// CPU time of its finished runs, ns (cputime.rs).
    pub(in crate::sched) cpu_ns: AtomicU64,
    /// When its current run started (monotonic ns); 0: not running.
    pub(in crate::sched) run_since: AtomicU64,
    /// The earliest expiry of a timer on its CPU-time clock (itimer.rs);
    /// u64::MAX: none. Checked at every interrupt while it runs.
    pub cpu_timer_at: AtomicU64,
    /// How its runs ended: blocked (voluntary) or preempted and yielded
    /// (involuntary), for /proc.
    pub(in crate::sched) voluntary_switches: AtomicU64,
    pub(in crate::sched) involuntary_switches: AtomicU64,
}

// SAFETY: the UnsafeCell fields (frame, context, fp) are only touched by the
// CPU that runs the thread, or by the CPU switching to or from it; the
// on_cpu handshake in the scheduler makes those accesses exclusive. All other
// fields are atomics or locks.
unsafe impl Sync for Thread {}
// SAFETY: see Sync; nothing in a Thread is tied to one CPU.
unsafe impl Send for Thread {}

impl Thread {
    /// A new thread, or None when there is no memory for its kernel stack.
    pub fn new(tid: u32, frame: TrapFrame, fp: FpState, signals: ThreadSignals) -> Option<Self> {
        let kernel_stack = frames::alloc_contiguous(KERNEL_STACK_PAGES)?;
        let t = Thread {
            tid,
            frame: UnsafeCell::new(frame),
            context: UnsafeCell::new(Context::default()),
            fp: UnsafeCell::new(fp),
            kernel_stack,
            state: Lock::new(
                LockClass::ThreadState,
                SchedState { run: RunState::Runnable, generation: 0, woken_early: false },
            ),
            on_cpu: AtomicBool::new(false),
            signals: Lock::new(LockClass::ThreadSignals, signals),
            clear_child_tid: AtomicU64::new(0),
            last_cpu: AtomicUsize::new(usize::MAX),
            woken_at: AtomicU64::new(0),
            woken_with_idle: AtomicBool::new(false),
            profile: ProfileCell::new(),
            queued_long: AtomicBool::new(false),
            handed_to: AtomicUsize::new(usize::MAX),
            cpu_ns: AtomicU64::new(0),
            run_since: AtomicU64::new(0),
            cpu_timer_at: AtomicU64::new(u64::MAX),
            voluntary_switches: AtomicU64::new(0),
            involuntary_switches: AtomicU64::new(0),
        };
        // SAFETY: the thread is not shared yet.
        unsafe { *t.context.get() = Context::new_thread(t.kernel_stack_top(), t.frame_ptr() as u64) };
        t.stack_words().fill(STACK_PAINT);
        Some(t)
    }

    /// The kernel stack as words, lowest address first.
    #[allow(clippy::mut_from_ref)]
    fn stack_words(&self) -> &mut [u64] {
        // SAFETY: the stack is KERNEL_STACK_SIZE bytes of frames this
        // thread owns, in the kernel's linear map; callers touch it only
        // where the thread does not run: below its deepest use so far
        // (painting at creation, the overflow check of the lowest word,
        // the depth scan after its last run).
        unsafe { core::slice::from_raw_parts_mut(phys_to_virt(self.kernel_stack) as *mut u64, KERNEL_STACK_SIZE / 8) }
    }

    /// Panics if the thread's kernel stack ran over its lowest word (the
    /// scheduler checks after every run): a clear stop instead of a
    /// neighbour's memory silently overwritten.
    pub(in crate::sched) fn check_stack(&self) {
        if self.stack_words()[0] != STACK_PAINT {
            panic!("kernel stack overflow in thread {} (KERNEL_STACK_SIZE {} bytes)", self.tid, KERNEL_STACK_SIZE);
        }
    }

    /// The most of its kernel stack the thread used, in bytes (the paint
    /// the deepest call left untouched).
    pub fn stack_used(&self) -> usize {
        let untouched = self.stack_words().iter().take_while(|&&w| w == STACK_PAINT).count();
        KERNEL_STACK_SIZE - untouched * 8
    }

    pub fn kernel_stack_top(&self) -> u64 {
        phys_to_virt(self.kernel_stack) + KERNEL_STACK_SIZE as u64
    }

    pub fn frame_ptr(&self) -> *mut TrapFrame {
        self.frame.get()
    }

    pub fn context_ptr(&self) -> *mut Context {
        self.context.get()
    }

    /// The user registers. Only the thread itself (running on this CPU)
    /// may call this.
    #[allow(clippy::mut_from_ref)]
    pub fn frame(&self) -> &mut TrapFrame {
        // SAFETY: see the Sync impl: only the running thread's own CPU
        // touches its frame, and it does so from one call chain at a time.
        unsafe { &mut *self.frame.get() }
    }

    /// The saved FP registers. Same rule as `frame`.
    #[allow(clippy::mut_from_ref)]
    pub fn fp(&self) -> &mut FpState {
        // SAFETY: as for `frame`.
        unsafe { &mut *self.fp.get() }
    }

    /// Whether the thread has run at all (so `last_cpu` means something).
    pub fn ran_before(&self) -> bool {
        self.last_cpu.load(Ordering::Relaxed) != usize::MAX
    }

    /// The CPU this thread ran on last, if it is running there now.
    pub fn running_on(&self) -> Option<usize> {
        let h = self.last_cpu.load(Ordering::Relaxed);
        (self.state.lock().run == RunState::Running && h < crate::param::MAX_CPUS).then_some(h)
    }
}

/// What /proc says of a thread: its state letter (R running or
/// runnable, S waiting, Z exited), the CPU it ran on last, its CPU time
/// (ns) and its voluntary and involuntary context switches.
pub struct ThreadReport {
    pub state: char,
    pub cpu: usize,
    pub cpu_ns: u64,
    pub voluntary_switches: u64,
    pub involuntary_switches: u64,
}

impl Thread {
    pub fn report(&self) -> ThreadReport {
        let run = self.state.lock().run;
        let cpu = self.last_cpu.load(Ordering::Relaxed);
        let cpu_ns = super::cputime::thread_ns(self);
        let state = match run {
            RunState::Runnable | RunState::Running => 'R',
            RunState::Blocked => 'S',
            RunState::Exited => 'Z',
        };
        ThreadReport {
            state,
            cpu: if cpu < crate::param::MAX_CPUS { cpu } else { 0 },
            cpu_ns,
            voluntary_switches: self.voluntary_switches.load(Ordering::Relaxed),
            involuntary_switches: self.involuntary_switches.load(Ordering::Relaxed),
        }
    }
}

/// What a fresh kernel stack is filled with: the depth a thread reached is
/// where the paint ends.
const STACK_PAINT: u64 = 0x5a5a_5a5a_5a5a_5a5a;

/// The deepest any thread's kernel stack went (bytes), for the statistics.
static STACK_PEAK: AtomicUsize = AtomicUsize::new(0);

/// The deepest kernel stack use of any thread that has ended.
pub fn stack_peak() -> usize {
    STACK_PEAK.load(Ordering::Relaxed)
}

impl Drop for Thread {
    fn drop(&mut self) {
        STACK_PEAK.fetch_max(self.stack_used(), Ordering::Relaxed);
        // The last reference dies in the scheduler loop, after the CPU
        // switched away from this stack for good.
        frames::free_contiguous(self.kernel_stack, KERNEL_STACK_PAGES);
    }
}

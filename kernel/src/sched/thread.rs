//! A thread: one Go M. Its user registers (TrapFrame), kernel context, FP
//! state and kernel stack, plus the bookkeeping that blocking, signals and
//! accounting need.

use crate::arch::{Context, FpState, TrapFrame};
use crate::param::KERNEL_STACK_SIZE;
use crate::signal::ThreadSignals;
use alloc::boxed::Box;
use alloc::vec;
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use spin::Mutex;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadState {
    /// In a run queue, or about to be.
    Runnable,
    Running,
    /// Waiting for a wakeup (futex, timer, I/O).
    Blocked,
    Exited,
}

pub struct Thread {
    pub tid: u32,
    /// Registers of the user context, saved at every trap.
    frame: UnsafeCell<TrapFrame>,
    /// Callee-saved registers of the kernel side while switched out.
    context: UnsafeCell<Context>,
    fp: UnsafeCell<FpState>,
    kernel_stack: Box<[u64]>,
    pub state: Mutex<ThreadState>,
    /// True while a hart is running this thread or still switching away
    /// from it; another hart must not resume it until it is false.
    pub on_cpu: AtomicBool,
    /// Bumped at every block, so a stale timer cannot wake a later wait.
    pub wait_generation: AtomicU64,
    pub signals: Mutex<ThreadSignals>,
    /// CLONE_CHILD_CLEARTID address: zeroed and futex-woken at exit.
    pub clear_child_tid: AtomicU64,
    pub last_hart: AtomicUsize,
}

// SAFETY: the UnsafeCell fields (frame, context, fp) are only touched by the
// hart that runs the thread, or by the hart switching to or from it; the
// on_cpu handshake in the scheduler makes those accesses exclusive. All other
// fields are atomics or locks.
unsafe impl Sync for Thread {}
// SAFETY: see Sync; nothing in a Thread is tied to one hart.
unsafe impl Send for Thread {}

impl Thread {
    pub fn new(tid: u32, frame: TrapFrame, fp: FpState, signals: ThreadSignals) -> Self {
        let kernel_stack = vec![0u64; KERNEL_STACK_SIZE / 8].into_boxed_slice();
        let t = Thread {
            tid,
            frame: UnsafeCell::new(frame),
            context: UnsafeCell::new(Context::default()),
            fp: UnsafeCell::new(fp),
            kernel_stack,
            state: Mutex::new(ThreadState::Runnable),
            on_cpu: AtomicBool::new(false),
            wait_generation: AtomicU64::new(0),
            signals: Mutex::new(signals),
            clear_child_tid: AtomicU64::new(0),
            last_hart: AtomicUsize::new(0),
        };
        // SAFETY: the thread is not shared yet.
        unsafe { *t.context.get() = Context::new_thread(t.kernel_stack_top(), t.frame_ptr() as u64) };
        t
    }

    pub fn kernel_stack_top(&self) -> u64 {
        let base = self.kernel_stack.as_ptr() as u64;
        (base + (self.kernel_stack.len() * 8) as u64) & !15
    }

    pub fn frame_ptr(&self) -> *mut TrapFrame {
        self.frame.get()
    }

    pub fn context_ptr(&self) -> *mut Context {
        self.context.get()
    }

    /// The user registers. Only the thread itself (running on this hart)
    /// may call this.
    #[allow(clippy::mut_from_ref)]
    pub fn frame(&self) -> &mut TrapFrame {
        // SAFETY: see the Sync impl: only the running thread's own hart
        // touches its frame, and it does so from one call chain at a time.
        unsafe { &mut *self.frame.get() }
    }

    /// The saved FP registers. Same rule as `frame`.
    #[allow(clippy::mut_from_ref)]
    pub fn fp(&self) -> &mut FpState {
        // SAFETY: as for `frame`.
        unsafe { &mut *self.fp.get() }
    }

    pub fn generation(&self) -> u64 {
        self.wait_generation.load(Ordering::Acquire)
    }
}

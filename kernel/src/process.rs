//! The program: one process (the Go binary run as /init) with its address
//! space, open files, signal actions and threads. gometal runs exactly one
//! program per boot; when it exits, the machine powers off with its status.

use crate::fs::context::FsContext;
use crate::fs::fd::FdTable;
use crate::mm::addrspace::AddressSpace;
use crate::mm::uaccess::ProgramMemory;
use crate::sched::Thread;
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use gometal_core::signal::{SigAction, NSIG};
use crate::sync::{Lock, LockClass};
use spin::Once;

pub struct Process {
    pub pid: u32,
    /// Locked only through `UserSpace::lock` (mm/uaccess.rs).
    pub mm: ProgramMemory,
    /// The address space's root page table, fixed for the program's life:
    /// read on every return to user without taking the `mm` lock.
    pub root: u64,
    /// Its ASID (mm/asid.rs), given when a CPU first switches to it.
    pub asid: crate::mm::asid::AsidSlot,
    /// Open descriptors and the working directory (fs/context.rs).
    pub fs: FsContext,
    actions: Lock<[SigAction; NSIG]>,
    threads: Lock<BTreeMap<u32, Arc<Thread>>>,
    next_tid: AtomicU32,
    exiting: AtomicBool,
}

static PROCESS: Once<Process> = Once::new();

/// The running program. Panics before `create` (a kernel bug).
/// The statistics report printed at exit, registered at boot by start.rs
/// (stats.rs reads every layer, so it sits above this one).
static EXIT_REPORT: spin::Once<fn()> = spin::Once::new();

pub fn set_exit_report(f: fn()) {
    EXIT_REPORT.call_once(|| f);
}

pub fn process() -> &'static Process {
    PROCESS.get().expect("no process yet")
}

/// The running program, if it has been created yet.
pub fn try_process() -> Option<&'static Process> {
    PROCESS.get()
}

/// Creates the process from a loaded program; returns it and its main
/// thread (tid 1 = pid, as on Linux), not yet registered or queued.
pub fn create_with(loaded: crate::loader::Loaded, files: FdTable) -> Option<(&'static Process, Thread)> {
    let main = crate::loader::main_thread(1, &loaded)?;
    let p = create(loaded.mm, files);
    p.next_tid.store(2, Ordering::Relaxed);
    Some((p, main))
}

fn create(mm: AddressSpace, files: FdTable) -> &'static Process {
    let p = PROCESS.call_once(|| Process {
        pid: crate::param::PROGRAM_PID,
        root: mm.root,
        asid: crate::mm::asid::AsidSlot::new(),
        mm: ProgramMemory::new(mm),
        fs: FsContext::new(files),
        actions: Lock::new(LockClass::SignalActions, [SigAction::default(); NSIG]),
        threads: Lock::new(LockClass::ProcessThreads, BTreeMap::new()),
        next_tid: AtomicU32::new(1),
        exiting: AtomicBool::new(false),
    });
    crate::fs::context::install(&p.fs);
    p
}

/// Threads a program may have at once: as many as the page frames give a
/// kernel stack and what Go's runtime touches for a thread (param.rs:
/// 40 KiB in all; 11,375 at 512M, where Linux's threads-max, RAM / (8 *
/// 16 KiB), is 4,096), and at least MIN_THREADS (Go needs GOMAXPROCS + a
/// few).
pub fn max_threads() -> usize {
    let frame_bytes = crate::mm::frames::stats().total * crate::memlayout::PAGE_SIZE;
    (frame_bytes / (crate::param::KERNEL_STACK_SIZE + crate::param::THREAD_USER_BYTES)).max(crate::param::MIN_THREADS)
}

static THREADS_PEAK: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

/// The most threads the program had at once, for the statistics.
pub fn threads_peak() -> usize {
    THREADS_PEAK.load(Ordering::Relaxed)
}

impl Process {
    pub fn alloc_tid(&self) -> u32 {
        self.next_tid.fetch_add(1, Ordering::Relaxed)
    }

    /// The last thread id given out (loadavg's last pid, /proc/stat's
    /// processes count).
    pub fn last_tid(&self) -> u32 {
        self.next_tid.load(Ordering::Relaxed) - 1
    }

    pub fn add_thread(&self, t: Arc<Thread>) -> Result<(), ()> {
        let mut threads = self.threads.lock();
        if threads.len() >= max_threads() {
            return Err(());
        }
        threads.insert(t.tid, t);
        THREADS_PEAK.fetch_max(threads.len(), Ordering::Relaxed);
        Ok(())
    }

    /// Removes an exiting thread; returns how many remain.
    pub fn remove_thread(&self, tid: u32) -> usize {
        let mut threads = self.threads.lock();
        threads.remove(&tid);
        threads.len()
    }

    pub fn thread(&self, tid: u32) -> Option<Arc<Thread>> {
        self.threads.lock().get(&tid).cloned()
    }

    pub fn threads_snapshot(&self) -> Vec<Arc<Thread>> {
        self.threads.lock().values().cloned().collect()
    }

    pub fn thread_count(&self) -> usize {
        self.threads.lock().len()
    }

    pub fn action(&self, signo: usize) -> SigAction {
        self.actions.lock()[signo - 1]
    }

    pub fn set_action(&self, signo: usize, a: SigAction) -> SigAction {
        core::mem::replace(&mut self.actions.lock()[signo - 1], a)
    }
}

/// Ends the program with `status`: the machine powers off and QEMU exits
/// with it. Only the first caller proceeds; a thread of a program that is
/// already exiting just stops.
pub fn exit(status: u32) -> ! {
    let first = PROCESS.get().is_none_or(|p| !p.exiting.swap(true, Ordering::AcqRel));
    if !first {
        crate::sched::smp::park();
    }
    crate::sched::smp::stop_other_cpus();
    let _ = crate::fs::share::sync_at_exit(); // shared mappings' pages; it reports a failure itself
    crate::net::nic::drain(); // what the program sent reaches its peers
    if let Some(report) = EXIT_REPORT.get() {
        report(); // -kernel-args stats (stats.rs, above this layer)
    }
    crate::console::drain();
    crate::onexit::finish(status)
}

/// Terminates the program because of signal `signo` (default action), with
/// the shell's convention for the exit status (128 + signal).
pub fn kill_by_signal(signo: usize, fault_addr: Option<u64>, pc: u64) -> ! {
    let name = gometal_core::signal::name(signo);
    match fault_addr {
        Some(a) => crate::println!("gometal: program killed by signal {signo} ({name}) at pc {pc:#x}, address {a:#x}"),
        None => crate::println!("gometal: program killed by signal {signo} ({name})"),
    }
    exit(128 + signo as u32)
}

/// clone could not make a thread (the thread limit, or no frames for its
/// kernel stack). Go's riscv64 clone stub ignores clone's result and waits
/// for the thread forever, so an EAGAIN would hang the program silently:
/// end it instead, with a line that says why.
pub fn cannot_make_thread(threads: usize) -> ! {
    crate::println!(
        "gometal: cannot start thread {}: the limit is {} threads for this memory; give the VM more memory (-mem)",
        threads + 1,
        max_threads()
    );
    exit(128 + gometal_core::signal::SIGKILL as u32)
}

/// No frame left for a page the program touched: like Linux's OOM killer,
/// end the program (SIGKILL's status) with a clear message.
pub fn out_of_memory() -> ! {
    let f = crate::mm::frames::stats();
    crate::println!(
        "gometal: out of memory: the program uses all {} KiB of page frames; give the VM more memory (-mem)",
        f.total * 4
    );
    exit(128 + gometal_core::signal::SIGKILL as u32)
}

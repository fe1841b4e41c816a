//! The process and its threads: /proc/<pid>/{stat,status,statm,io,
//! limits,cmdline,environ,auxv,comm} and task/<tid>/{stat,status,comm}.
//! One program runs, as pid 1; its threads are its tasks.

use super::memory::{figures, Figures};
use crate::fs::inode::Inode;
use crate::fs::synth::DirSource;
use crate::memlayout::PAGE_SIZE;
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::process::process;
use crate::sched::thread::ThreadReport;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;
use gometal_core::linux::errno::{Errno, ENOENT};
use gometal_core::procfs::task::{self as fmt, IoCounts, Statm, TaskStat, TaskStatus, VmFigures, UNLIMITED};
use gometal_core::procfs::ticks;

/// PF_RANDOMIZE, and PF_FORKNOEXEC for a thread (a clone that did not exec).
const PF_RANDOMIZE: u32 = 0x0040_0000;
const PF_FORKNOEXEC: u32 = 0x40;
const SIGCHLD: i32 = 17;

fn comm() -> String {
    fmt::comm(&super::exec().path)
}

/// Signals the process ignores and catches (bit n-1 for signal n).
fn dispositions() -> (u64, u64) {
    let (mut ignored, mut caught) = (0, 0);
    for signo in 1..=64 {
        match process().action(signo).handler {
            0 => {}
            1 => ignored |= 1 << (signo - 1),
            _ => caught |= 1 << (signo - 1),
        }
    }
    (ignored, caught)
}

/// CPU time of the whole process: every CPU's busy time (all threads,
/// live and gone, ran there) plus runs in progress.
fn process_cpu_ns() -> u64 {
    let now = crate::sched::clock::monotonic_ns();
    crate::sched::cpu::all()
        .iter()
        .map(|c| {
            let busy = c.stats.busy_ns.load(Ordering::Relaxed);
            let running = c.running.load(Ordering::Relaxed);
            busy + if running { now.saturating_sub(c.period_start.load(Ordering::Relaxed)) } else { 0 }
        })
        .sum()
}

/// The reports of thread `tid` (None if gone) and the thread itself.
fn thread_report(tid: u32) -> Option<(ThreadReport, u64, u64)> {
    let t = process().thread(tid)?;
    let r = t.report();
    let s = t.signals.lock();
    Some((r, s.pending, s.blocked))
}

/// Where the initial stack's argv and envp strings are: (arg_start,
/// arg_end, env_start, env_end), read from the pointers at the initial sp.
fn arg_env_range(user: &mut UserSpace) -> (u64, u64, u64, u64) {
    let e = super::exec();
    let word = |user: &mut UserSpace, i: usize| user.read(UserPtr::<u64>::new(e.sp + 8 * i as u64)).unwrap_or(0);
    let arg_start = word(user, 1);
    let env_start = if e.envc > 0 { word(user, 2 + e.argc) } else { arg_start + e.cmdline.len() as u64 };
    (arg_start, arg_start + e.cmdline.len() as u64, env_start, env_start + e.environ.len() as u64)
}

/// stat of the process (`tid` 1, its figures) or of thread `tid`.
pub fn stat(tid: u32, user: &mut UserSpace) -> Result<Vec<u8>, Errno> {
    let (r, pending, blocked) = thread_report(tid).ok_or(ENOENT)?;
    let f = figures(user);
    let (arg_start, arg_end, env_start, env_end) = arg_env_range(user);
    let (ignored, caught) = dispositions();
    let leader = tid == process().pid;
    let cpu_ns = if leader { process_cpu_ns() } else { r.cpu_ns };
    let comm = comm();
    let t = TaskStat {
        pid: tid,
        comm: &comm,
        state: r.state,
        ppid: 0,
        pgrp: process().pid,
        session: process().pid,
        flags: if leader { PF_RANDOMIZE } else { PF_RANDOMIZE | PF_FORKNOEXEC },
        utime: ticks(cpu_ns),
        num_threads: process().thread_count() as u64,
        starttime: ticks(super::exec().start_ns),
        vsize: f.size,
        rss: f.resident_pages,
        rsslim: UNLIMITED,
        startcode: f.code.0,
        endcode: f.code.1,
        startstack: super::exec().sp,
        signal: pending,
        blocked,
        sigignore: ignored,
        sigcatch: caught,
        exit_signal: if leader { SIGCHLD } else { -1 },
        processor: r.cpu as u32,
        start_data: f.data_range.0,
        end_data: f.data_range.1,
        start_brk: f.start_brk,
        arg_start,
        arg_end,
        env_start,
        env_end,
        ..TaskStat::default()
    };
    Ok(fmt::stat(&t).into_bytes())
}

fn vm_figures(f: &Figures) -> VmFigures {
    let kib = |bytes: u64| bytes / 1024;
    let pages = |p: u64| p * PAGE_SIZE as u64 / 1024;
    VmFigures {
        peak: kib(f.size),
        size: kib(f.size),
        hwm: pages(f.resident_peak_pages),
        rss: pages(f.resident_pages),
        rss_anon: pages(f.resident_pages - f.file_pages),
        rss_file: pages(f.file_pages - f.shared_pages),
        rss_shmem: pages(f.shared_pages),
        data: kib(f.data),
        stk: kib(f.stack),
        exe: kib(f.exe),
        lib: 0,
        pte: 0,
    }
}

pub fn status(tid: u32, user: &mut UserSpace) -> Result<Vec<u8>, Errno> {
    let (r, pending, blocked) = thread_report(tid).ok_or(ENOENT)?;
    let f = figures(user);
    let (ignored, caught) = dispositions();
    let cpus: Vec<usize> = super::system::online().map(|c| c.index()).collect();
    let threads = process().threads_snapshot();
    let queued = threads.iter().map(|t| t.signals.lock().pending.count_ones() as u64).sum();
    let comm = comm();
    let s = TaskStatus {
        name: &comm,
        state: r.state,
        tgid: process().pid,
        pid: tid,
        ppid: 0,
        fdsize: process().fs.files.lock().capacity() as u64,
        vm: vm_figures(&f),
        threads: threads.len() as u64,
        sigq: (queued, crate::process::max_threads() as u64),
        sig_pending: pending,
        shared_pending: 0,
        sig_blocked: blocked,
        sig_ignored: ignored,
        sig_caught: caught,
        cpus: &cpus,
        voluntary_switches: r.voluntary_switches,
        nonvoluntary_switches: r.involuntary_switches,
    };
    Ok(fmt::status(&s).into_bytes())
}

pub fn statm(user: &mut UserSpace) -> Result<Vec<u8>, Errno> {
    let f = figures(user);
    let page = PAGE_SIZE as u64;
    let m = Statm { size: f.size / page, resident: f.resident_pages, shared: f.file_pages, text: f.exe / page, data: (f.data + f.stack) / page };
    Ok(fmt::statm(&m).into_bytes())
}

pub fn io() -> String {
    let c = crate::linux::iocount::counts();
    fmt::io(&IoCounts { rchar: c.rchar, wchar: c.wchar, syscr: c.syscr, syscw: c.syscw, read_bytes: 0, write_bytes: 0 })
}

/// The limits getrlimit reports (linux/misc.rs: RLIMIT_NOFILE is real,
/// the rest unlimited).
pub fn limits() -> String {
    let mut values = [(UNLIMITED, UNLIMITED); 16];
    let nofile = crate::fs::fd::nofile_limit();
    values[7] = (nofile.soft, nofile.hard);
    fmt::limits(&values)
}

pub fn cmdline() -> String {
    String::from_utf8_lossy(&super::exec().cmdline).into_owned()
}

pub fn environ() -> String {
    String::from_utf8_lossy(&super::exec().environ).into_owned()
}

pub fn comm_file() -> String {
    format!("{}\n", comm())
}

/// auxv: the (type, value) pairs after envp on the initial stack, up to
/// and including AT_NULL, as binary words.
pub fn auxv(user: &mut UserSpace) -> Result<Vec<u8>, Errno> {
    let e = super::exec();
    let mut at = e.sp + 8 * (1 + e.argc + 1 + e.envc + 1) as u64;
    let mut out = Vec::new();
    for _ in 0..64 {
        let key = user.read(UserPtr::<u64>::new(at))?;
        let value = user.read(UserPtr::<u64>::new(at + 8))?;
        out.extend_from_slice(&key.to_le_bytes());
        out.extend_from_slice(&value.to_le_bytes());
        at += 16;
        if key == 0 {
            break;
        }
    }
    Ok(out)
}

/// task/: one directory per thread.
pub struct Tasks;

fn task_dir(tid: u32) -> Arc<Inode> {
    let dir = Inode::new_dir(0o555, 0);
    crate::fs::tree::add_in(&dir, b"stat", super::text::numbered(tid, stat));
    crate::fs::tree::add_in(&dir, b"status", super::text::numbered(tid, status));
    crate::fs::tree::add_in(&dir, b"comm", super::text::text(comm_file));
    dir
}

impl DirSource for Tasks {
    fn names(&self) -> Vec<Vec<u8>> {
        process().threads_snapshot().iter().map(|t| format!("{}", t.tid).into_bytes()).collect()
    }

    fn make(&self, name: &[u8]) -> Option<Arc<Inode>> {
        let tid: u32 = core::str::from_utf8(name).ok()?.parse().ok()?;
        process().thread(tid)?;
        Some(task_dir(tid))
    }

    fn current(&self, name: &[u8], _: &Inode) -> bool {
        let tid: Option<u32> = core::str::from_utf8(name).ok().and_then(|s| s.parse().ok());
        tid.is_some_and(|t| process().thread(t).is_some())
    }
}

//! One task's files: /proc/<pid>/{stat,status,statm,io,limits,fdinfo/N}
//! and task/<tid>/stat, in Linux's layouts (fs/proc/array.c, base.c).

use super::cpu_list;
use super::cpu_mask;
use alloc::string::String;
use core::fmt::Write;

/// The figures of /proc/<pid>/stat (proc(5) numbers them 1..52); what a
/// kernel without the feature reports is 0.
#[derive(Clone, Default, Debug)]
pub struct TaskStat<'a> {
    pub pid: u32,
    pub comm: &'a str,
    /// R, S, D, T, Z (state letter).
    pub state: char,
    pub ppid: u32,
    pub pgrp: u32,
    pub session: u32,
    pub flags: u32,
    pub minflt: u64,
    pub majflt: u64,
    /// Clock ticks (USER_HZ).
    pub utime: u64,
    pub stime: u64,
    pub num_threads: u64,
    /// Ticks after boot.
    pub starttime: u64,
    /// Bytes.
    pub vsize: u64,
    /// Pages.
    pub rss: u64,
    pub rsslim: u64,
    pub startcode: u64,
    pub endcode: u64,
    pub startstack: u64,
    /// Pending, blocked, ignored and caught signals (bit n-1 for signal n).
    pub signal: u64,
    pub blocked: u64,
    pub sigignore: u64,
    pub sigcatch: u64,
    /// 17 (SIGCHLD) for a process, -1 for a thread that is not its leader.
    pub exit_signal: i32,
    pub processor: u32,
    pub start_data: u64,
    pub end_data: u64,
    pub start_brk: u64,
    pub arg_start: u64,
    pub arg_end: u64,
    pub env_start: u64,
    pub env_end: u64,
}

/// The task's name as the kernel keeps it: at most 15 bytes (TASK_COMM_LEN).
pub fn comm(path: &[u8]) -> String {
    let base = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    let base = &base[..base.len().min(15)];
    String::from_utf8_lossy(base).into_owned()
}

/// /proc/<pid>/stat: one line of 52 fields.
pub fn stat(t: &TaskStat) -> String {
    let mut o = String::new();
    let _ = write!(o, "{} ({}) {} {} {} {} 0 -1 {} ", t.pid, t.comm, t.state, t.ppid, t.pgrp, t.session, t.flags);
    let _ = write!(o, "{} 0 {} 0 {} {} 0 0 20 0 {} 0 {} ", t.minflt, t.majflt, t.utime, t.stime, t.num_threads, t.starttime);
    let _ = write!(o, "{} {} {} {} {} {} 0 0 ", t.vsize, t.rss, t.rsslim, t.startcode, t.endcode, t.startstack);
    // Linux prints the signal sets' low words here (obsolete fields).
    let low = |s: u64| s & 0xffff_ffff;
    let _ = write!(o, "{} {} {} {} 0 0 0 {} {} 0 0 0 0 0 ", low(t.signal), low(t.blocked), low(t.sigignore), low(t.sigcatch), t.exit_signal, t.processor);
    let _ = writeln!(o, "{} {} {} {} {} {} {} 0", t.start_data, t.end_data, t.start_brk, t.arg_start, t.arg_end, t.env_start, t.env_end);
    o
}

/// Memory sizes of /proc/<pid>/status, in KiB.
#[derive(Clone, Default, Debug)]
pub struct VmFigures {
    pub peak: u64,
    pub size: u64,
    pub hwm: u64,
    pub rss: u64,
    pub rss_anon: u64,
    pub rss_file: u64,
    pub rss_shmem: u64,
    pub data: u64,
    pub stk: u64,
    pub exe: u64,
    pub lib: u64,
    pub pte: u64,
}

#[derive(Clone, Default, Debug)]
pub struct TaskStatus<'a> {
    pub name: &'a str,
    pub state: char,
    pub tgid: u32,
    pub pid: u32,
    pub ppid: u32,
    pub fdsize: u64,
    /// None for a thread's status without memory (Linux prints them for
    /// every task of a process with an address space; kept for threads).
    pub vm: VmFigures,
    pub threads: u64,
    /// Signals queued and the limit (RLIMIT_SIGPENDING).
    pub sigq: (u64, u64),
    pub sig_pending: u64,
    pub shared_pending: u64,
    pub sig_blocked: u64,
    pub sig_ignored: u64,
    pub sig_caught: u64,
    /// CPUs the task may run on.
    pub cpus: &'a [usize],
    pub voluntary_switches: u64,
    pub nonvoluntary_switches: u64,
}

/// The state as status spells it.
pub fn state_name(state: char) -> &'static str {
    match state {
        'R' => "R (running)",
        'S' => "S (sleeping)",
        'D' => "D (disk sleep)",
        'T' => "T (stopped)",
        'Z' => "Z (zombie)",
        _ => "X (dead)",
    }
}

/// /proc/<pid>/status: "Key:\tvalue" lines (the root's capabilities).
pub fn status(s: &TaskStatus) -> String {
    let mut o = String::new();
    let _ = write!(o, "Name:\t{}\nUmask:\t0022\nState:\t{}\nTgid:\t{}\nNgid:\t0\nPid:\t{}\nPPid:\t{}\nTracerPid:\t0\n", s.name, state_name(s.state), s.tgid, s.pid, s.ppid);
    let _ = write!(o, "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nFDSize:\t{}\nGroups:\t \n", s.fdsize);
    let _ = write!(o, "NStgid:\t{}\nNSpid:\t{}\nNSpgid:\t{}\nNSsid:\t{}\nKthread:\t0\n", s.tgid, s.pid, s.tgid, s.tgid);
    let v = &s.vm;
    for (key, kb) in [
        ("VmPeak", v.peak),
        ("VmSize", v.size),
        ("VmLck", 0),
        ("VmPin", 0),
        ("VmHWM", v.hwm),
        ("VmRSS", v.rss),
        ("RssAnon", v.rss_anon),
        ("RssFile", v.rss_file),
        ("RssShmem", v.rss_shmem),
        ("VmData", v.data),
        ("VmStk", v.stk),
        ("VmExe", v.exe),
        ("VmLib", v.lib),
        ("VmPTE", v.pte),
        ("VmSwap", 0),
        ("HugetlbPages", 0),
    ] {
        let _ = writeln!(o, "{key}:\t{kb:8} kB");
    }
    let _ = write!(o, "CoreDumping:\t0\nTHP_enabled:\t1\nuntag_mask:\t0xffffffffffffffff\nThreads:\t{}\n", s.threads);
    let _ = writeln!(o, "SigQ:\t{}/{}", s.sigq.0, s.sigq.1);
    for (key, set) in [("SigPnd", s.sig_pending), ("ShdPnd", s.shared_pending), ("SigBlk", s.sig_blocked), ("SigIgn", s.sig_ignored), ("SigCgt", s.sig_caught)] {
        let _ = writeln!(o, "{key}:\t{set:016x}");
    }
    o.push_str("CapInh:\t0000000000000000\nCapPrm:\t000001ffffffffff\nCapEff:\t000001ffffffffff\nCapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\n");
    o.push_str("NoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\nSpeculation_Store_Bypass:\tunknown\nSpeculationIndirectBranch:\tunknown\n");
    let _ = write!(o, "Cpus_allowed:\t{}\nCpus_allowed_list:\t{}\n", cpu_mask(s.cpus.iter().copied()), cpu_list(s.cpus.iter().copied()));
    o.push_str("Mems_allowed:\t1\nMems_allowed_list:\t0\n");
    let _ = write!(o, "voluntary_ctxt_switches:\t{}\nnonvoluntary_ctxt_switches:\t{}\n", s.voluntary_switches, s.nonvoluntary_switches);
    o
}

/// /proc/<pid>/statm: sizes in pages.
#[derive(Clone, Copy, Default, Debug)]
pub struct Statm {
    pub size: u64,
    pub resident: u64,
    pub shared: u64,
    pub text: u64,
    pub data: u64,
}

pub fn statm(m: &Statm) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{} {} {} {} 0 {} 0", m.size, m.resident, m.shared, m.text, m.data);
    o
}

/// /proc/<pid>/io's counters.
#[derive(Clone, Copy, Default, Debug)]
pub struct IoCounts {
    pub rchar: u64,
    pub wchar: u64,
    pub syscr: u64,
    pub syscw: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
}

pub fn io(c: &IoCounts) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "rchar: {}\nwchar: {}\nsyscr: {}\nsyscw: {}\nread_bytes: {}\nwrite_bytes: {}\ncancelled_write_bytes: 0\n",
        c.rchar, c.wchar, c.syscr, c.syscw, c.read_bytes, c.write_bytes
    );
    o
}

/// RLIM_INFINITY.
pub const UNLIMITED: u64 = u64::MAX;

/// The resources in RLIMIT_* order, with their names and units in
/// /proc/<pid>/limits.
pub const LIMIT_NAMES: [(&str, &str); 16] = [
    ("Max cpu time", "seconds"),
    ("Max file size", "bytes"),
    ("Max data size", "bytes"),
    ("Max stack size", "bytes"),
    ("Max core file size", "bytes"),
    ("Max resident set", "bytes"),
    ("Max processes", "processes"),
    ("Max open files", "files"),
    ("Max locked memory", "bytes"),
    ("Max address space", "bytes"),
    ("Max file locks", "locks"),
    ("Max pending signals", "signals"),
    ("Max msgqueue size", "bytes"),
    ("Max nice priority", ""),
    ("Max realtime priority", ""),
    ("Max realtime timeout", "us"),
];

/// /proc/<pid>/limits from (soft, hard) per resource, RLIMIT_* order.
pub fn limits(values: &[(u64, u64); 16]) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{:<25} {:<20} {:<20} {:<10}", "Limit", "Soft Limit", "Hard Limit", "Units");
    for ((name, unit), (soft, hard)) in LIMIT_NAMES.iter().zip(values) {
        let _ = write!(o, "{name:<25} ");
        for v in [soft, hard] {
            if *v == UNLIMITED {
                let _ = write!(o, "{:<20} ", "unlimited");
            } else {
                let _ = write!(o, "{v:<20} ");
            }
        }
        if unit.is_empty() {
            o.push('\n');
        } else {
            let _ = writeln!(o, "{unit:<10}");
        }
    }
    o
}

/// /proc/<pid>/fdinfo/<fd>: offset, status flags (octal, O_CLOEXEC
/// included), mount id and inode.
pub fn fdinfo(pos: u64, flags: u32, mnt_id: u32, ino: u64) -> String {
    let mut o = String::new();
    let _ = write!(o, "pos:\t{pos}\nflags:\t0{flags:o}\nmnt_id:\t{mnt_id}\nino:\t{ino}\n");
    o
}

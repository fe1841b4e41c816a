//! The machine: /proc/stat, uptime, loadavg, mounts and mountinfo
//! (fs/proc/stat.c, uptime.c, loadavg.c, fs/proc_namespace.c).

use super::centi;
use alloc::string::String;
use core::fmt::Write;

/// One CPU's time, in USER_HZ ticks, in /proc/stat's column order.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuTimes {
    pub user: u64,
    pub nice: u64,
    pub system: u64,
    pub idle: u64,
    pub iowait: u64,
    pub irq: u64,
    pub softirq: u64,
    pub steal: u64,
}

impl CpuTimes {
    fn add(&mut self, o: &CpuTimes) {
        self.user += o.user;
        self.nice += o.nice;
        self.system += o.system;
        self.idle += o.idle;
        self.iowait += o.iowait;
        self.irq += o.irq;
        self.softirq += o.softirq;
        self.steal += o.steal;
    }
}

#[derive(Clone, Debug, Default)]
pub struct KernelStat {
    /// Per CPU, by CPU number (the "cpu" line is their sum).
    pub cpus: alloc::vec::Vec<(usize, CpuTimes)>,
    pub interrupts: u64,
    pub context_switches: u64,
    /// Seconds since the epoch at boot.
    pub boot_time: u64,
    pub processes: u64,
    pub running: u64,
    pub blocked: u64,
}

fn cpu_line(o: &mut String, label: &str, t: &CpuTimes) {
    let _ = writeln!(o, "{label} {} {} {} {} {} {} {} {} 0 0", t.user, t.nice, t.system, t.idle, t.iowait, t.irq, t.softirq, t.steal);
}

/// /proc/stat.
pub fn kernel_stat(k: &KernelStat) -> String {
    let mut o = String::new();
    let mut sum = CpuTimes::default();
    for (_, t) in &k.cpus {
        sum.add(t);
    }
    cpu_line(&mut o, "cpu ", &sum);
    for (n, t) in &k.cpus {
        cpu_line(&mut o, &alloc::format!("cpu{n}"), t);
    }
    let _ = writeln!(o, "intr {}", k.interrupts);
    let _ = write!(o, "ctxt {}\nbtime {}\nprocesses {}\nprocs_running {}\nprocs_blocked {}\n", k.context_switches, k.boot_time, k.processes, k.running, k.blocked);
    o.push_str("softirq 0 0 0 0 0 0 0 0 0 0 0\n");
    o
}

/// /proc/uptime: seconds since boot and idle seconds summed over CPUs,
/// from nanoseconds.
pub fn uptime(up_ns: u64, idle_ns: u64) -> String {
    let mut o = String::new();
    centi(&mut o, up_ns / 10_000_000);
    o.push(' ');
    centi(&mut o, idle_ns / 10_000_000);
    o.push('\n');
    o
}

/// /proc/loadavg: the 1, 5 and 15 minute averages in hundredths, runnable
/// and all tasks, the last pid given out.
pub fn loadavg(avg: [u64; 3], runnable: u64, tasks: u64, last_pid: u32) -> String {
    let mut o = String::new();
    for a in avg {
        centi(&mut o, a);
        o.push(' ');
    }
    let _ = writeln!(o, "{runnable}/{tasks} {last_pid}");
    o
}

/// One mount: what /proc/mounts and mountinfo list.
#[derive(Clone, Debug)]
pub struct Mount<'a> {
    pub id: u32,
    pub parent: u32,
    pub dev: (u32, u32),
    pub source: &'a str,
    pub point: &'a str,
    pub fstype: &'a str,
    /// "rw,relatime" (the per-mount options).
    pub options: &'a str,
    /// The file system's own options ("rw" or more).
    pub super_options: &'a str,
}

/// /proc/mounts (= /proc/self/mounts): fstab's format.
pub fn mounts(list: &[Mount]) -> String {
    let mut o = String::new();
    for m in list {
        let _ = writeln!(o, "{} {} {} {} 0 0", m.source, m.point, m.fstype, m.options);
    }
    o
}

/// /proc/<pid>/mountinfo: id, parent, major:minor, root, point, options,
/// "-", type, source, super options.
pub fn mountinfo(list: &[Mount]) -> String {
    let mut o = String::new();
    for m in list {
        let _ = writeln!(
            o,
            "{} {} {}:{} / {} {} - {} {} {}",
            m.id, m.parent, m.dev.0, m.dev.1, m.point, m.options, m.fstype, m.source, m.super_options
        );
    }
    o
}

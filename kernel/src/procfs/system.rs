//! The machine's files: /proc/{stat,meminfo,cpuinfo,uptime,loadavg,
//! version,mounts,filesystems}, /proc/sys/kernel/*, and the CPU lists of
//! /sys/devices/system/cpu.

use crate::process::process;
use crate::sched::clock;
use crate::sched::cpu::{self, CpuState};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;
use gometal_core::procfs::system::{self as fmt, CpuTimes, KernelStat, Mount};
use gometal_core::procfs::{cpu_list, ticks};

/// A CPU's busy and idle time, with the period in progress.
fn cpu_times(c: &cpu::Cpu, now: u64) -> CpuTimes {
    let mut busy = c.stats.busy_ns.load(Ordering::Relaxed);
    let mut idle = c.stats.idle_ns.load(Ordering::Relaxed);
    let current = now.saturating_sub(c.period_start.load(Ordering::Relaxed));
    if c.running.load(Ordering::Relaxed) {
        busy += current;
    } else if c.state() == CpuState::Online {
        idle += current;
    }
    // The kernel does not tell user from system time: all of it is user.
    CpuTimes { user: ticks(busy), idle: ticks(idle), ..CpuTimes::default() }
}

pub fn online() -> impl Iterator<Item = &'static cpu::Cpu> {
    cpu::all().iter().filter(|c| c.state() == CpuState::Online)
}

pub fn stat() -> String {
    let now = clock::monotonic_ns();
    let k = KernelStat {
        cpus: online().map(|c| (c.index(), cpu_times(c, now))).collect(),
        interrupts: cpu::all().iter().map(|c| c.stats.interrupts.load(Ordering::Relaxed)).sum(),
        context_switches: cpu::all().iter().map(|c| c.stats.switches.load(Ordering::Relaxed)).sum(),
        boot_time: (clock::realtime_ns() - now) / 1_000_000_000,
        processes: process().last_tid() as u64,
        running: crate::sched::loadavg::runnable() as u64,
        blocked: 0,
    };
    fmt::kernel_stat(&k)
}

pub fn uptime() -> String {
    let now = clock::monotonic_ns();
    let idle: u64 = online().map(|c| cpu_times(c, now).idle).sum::<u64>() * (1_000_000_000 / gometal_core::procfs::USER_HZ);
    fmt::uptime(now, idle)
}

pub fn loadavg() -> String {
    let tasks = process().thread_count() as u64;
    fmt::loadavg(crate::sched::loadavg::averages(), crate::sched::loadavg::runnable() as u64, tasks, process().last_tid())
}

pub fn cpuinfo() -> String {
    online().map(|c| crate::arch::cpuinfo(c.index(), c.hwid())).collect()
}

pub fn version() -> String {
    format!("Linux version {} (gometal {}) #1 SMP\n", super::OSRELEASE, env!("CARGO_PKG_VERSION"))
}

/// The mounts a program sees: the root file system (Linux's initramfs
/// rootfs), /proc, /sys, /dev, and each -mount share as 9p.
fn mount_list<R>(f: impl FnOnce(&[Mount]) -> R) -> R {
    let shares = crate::fs::share::mounted();
    let text: Vec<(String, String, &str)> = shares
        .iter()
        .map(|m| (String::from_utf8_lossy(&m.tag).into_owned(), String::from_utf8_lossy(&m.guest).into_owned(), match (m.read_only, m.cached) {
            (_, true) => "ro,relatime,cache=loose",
            (true, false) => "ro,relatime",
            (false, false) => "rw,relatime",
        }))
        .collect();
    let mut list = alloc::vec![
        Mount { id: super::ROOT_MOUNT_ID, parent: 1, dev: (0, 1), source: "rootfs", point: "/", fstype: "rootfs", options: "rw", super_options: "rw" },
        Mount { id: 22, parent: super::ROOT_MOUNT_ID, dev: (0, 21), source: "proc", point: "/proc", fstype: "proc", options: "rw,nosuid,nodev,noexec,relatime", super_options: "rw" },
        Mount { id: 23, parent: super::ROOT_MOUNT_ID, dev: (0, 22), source: "sysfs", point: "/sys", fstype: "sysfs", options: "rw,nosuid,nodev,noexec,relatime", super_options: "rw" },
        Mount { id: 24, parent: super::ROOT_MOUNT_ID, dev: (0, 5), source: "devtmpfs", point: "/dev", fstype: "devtmpfs", options: "rw,relatime", super_options: "rw" },
    ];
    for (i, (tag, guest, opts)) in text.iter().enumerate() {
        let id = 30 + i as u32;
        list.push(Mount { id, parent: super::ROOT_MOUNT_ID, dev: (0, id), source: tag, point: guest, fstype: "9p", options: opts, super_options: "rw,trans=virtio" });
    }
    f(&list)
}

pub fn mounts() -> String {
    mount_list(fmt::mounts)
}

pub fn mountinfo() -> String {
    mount_list(fmt::mountinfo)
}

pub fn filesystems() -> String {
    String::from("nodev\tsysfs\nnodev\ttmpfs\nnodev\tproc\nnodev\tdevtmpfs\nnodev\trootfs\nnodev\t9p\n")
}

pub fn hostname() -> String {
    String::from("gometal\n")
}

pub fn ostype() -> String {
    String::from("Linux\n")
}

pub fn osrelease() -> String {
    format!("{}\n", super::OSRELEASE)
}

pub fn pid_max() -> String {
    String::from("4194304\n")
}

pub fn threads_max() -> String {
    format!("{}\n", crate::process::max_threads())
}

pub fn cpus_online() -> String {
    format!("{}\n", cpu_list(online().map(|c| c.index())))
}

/// Every CPU the kernel found, started or not (Linux's possible and
/// present).
pub fn cpus_possible() -> String {
    let found = cpu::all().iter().filter(|c| c.state() != CpuState::Offline);
    format!("{}\n", cpu_list(found.map(|c| c.index())))
}

/// How many CPUs the kernel found (the cpuN directories of sysfs).
pub fn cpus_found() -> usize {
    cpu::all().iter().filter(|c| c.state() != CpuState::Offline).count()
}

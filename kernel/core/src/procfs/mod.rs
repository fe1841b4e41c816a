//! The text of Linux's /proc and /sys files, from plain numbers: the
//! kernel gathers the figures (procfs/), this module lays them out byte for
//! byte as Linux 6.6 does, so parsers written for Linux (Prometheus's
//! procfs, gopsutil, Go's own runtime) read them unchanged. Nothing here
//! looks at kernel state; the host tests compare with Linux's output.
//!
//! - task.rs: one process or thread: stat, status, statm, io, limits,
//!   fdinfo.
//! - memory.rs: a process's maps and smaps_rollup, and /proc/meminfo.
//! - system.rs: /proc/stat, uptime, loadavg, mounts, mountinfo, CPU lists.
//! - net.rs: /proc/net/dev, tcp, udp (4 and 6), route, snmp.

pub mod memory;
pub mod net;
pub mod system;
pub mod task;

#[cfg(test)]
mod tests;

use alloc::string::String;
use core::fmt::Write;

/// Clock ticks per second of the times in /proc (USER_HZ, AT_CLKTCK).
pub const USER_HZ: u64 = 100;

/// Nanoseconds as USER_HZ ticks.
pub fn ticks(ns: u64) -> u64 {
    ns / (1_000_000_000 / USER_HZ)
}

/// `s` as Linux writes a duration in seconds with two decimals (uptime,
/// loadavg's centi-units): "12.07".
pub fn centi(out: &mut String, hundredths: u64) {
    let _ = write!(out, "{}.{:02}", hundredths / 100, hundredths % 100);
}

/// A CPU set as Linux's list format: "0-3", "0,2-3", "" for none.
pub fn cpu_list(cpus: impl IntoIterator<Item = usize>) -> String {
    let mut out = String::new();
    let mut run: Option<(usize, usize)> = None;
    let flush = |out: &mut String, (a, b): (usize, usize)| {
        if !out.is_empty() {
            out.push(',');
        }
        if a == b {
            let _ = write!(out, "{a}");
        } else {
            let _ = write!(out, "{a}-{b}");
        }
    };
    for c in cpus {
        run = match run {
            Some((a, b)) if c == b + 1 => Some((a, c)),
            Some(r) => {
                flush(&mut out, r);
                Some((c, c))
            }
            None => Some((c, c)),
        };
    }
    if let Some(r) = run {
        flush(&mut out, r);
    }
    out
}

/// A CPU set as sysfs's cpumask files print it (`%*pb` over `nr_cpus`
/// bits): like `cpu_mask`, with the first word padded to the digits
/// `nr_cpus` needs ("01" for CPU 0 of 8).
pub fn cpu_mask_padded(cpus: impl IntoIterator<Item = usize>, nr_cpus: usize) -> String {
    let mut words = alloc::vec![0u32; nr_cpus.max(1).div_ceil(32)];
    for c in cpus {
        if let Some(w) = words.get_mut(c / 32) {
            *w |= 1 << (c % 32);
        }
    }
    let first_bits = match nr_cpus % 32 {
        0 => 32,
        r => r,
    };
    let mut out = String::new();
    for (i, w) in words.iter().rev().enumerate() {
        let width = if i == 0 { first_bits.div_ceil(4) } else { 8 };
        let sep = if i == 0 { "" } else { "," };
        let _ = write!(out, "{sep}{w:0width$x}");
    }
    out
}

/// A CPU set as Linux's mask format (status's Cpus_allowed): hex words of
/// 32 bits, most significant first, comma-separated, "f" for CPUs 0-3.
pub fn cpu_mask(cpus: impl IntoIterator<Item = usize>) -> String {
    let mut words: alloc::vec::Vec<u32> = alloc::vec![0];
    for c in cpus {
        if c / 32 >= words.len() {
            words.resize(c / 32 + 1, 0);
        }
        words[c / 32] |= 1 << (c % 32);
    }
    let mut out = String::new();
    for (i, w) in words.iter().rev().enumerate() {
        if i == 0 {
            let _ = write!(out, "{w:x}");
        } else {
            let _ = write!(out, ",{w:08x}");
        }
    }
    out
}

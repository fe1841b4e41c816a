//! /proc and /sys/devices/system/cpu as Linux has them, with the values
//! of this machine and its one program (pid 1): what Prometheus's procfs,
//! gopsutil and the Go runtime read. The files are generated when opened
//! (fs/synth.rs serves them); the text layouts are gometal_core::procfs's,
//! host-tested against Linux's. This module gathers the figures:
//!
//! - task.rs: the process and its threads (stat, status, statm, io,
//!   limits, cmdline, environ, auxv, task/<tid>/).
//! - memory.rs: maps, smaps_rollup, the memory figures, meminfo.
//! - fds.rs: fd/ and fdinfo/.
//! - system.rs: stat, uptime, loadavg, cpuinfo, mounts, sys/kernel, CPU lists.
//! - cputopo.rs: /sys/devices/system/cpu/cpuN/topology.
//! - net.rs: /proc/net.
//!
//! It sits above every layer it reads (process, fs, mm, sched, net,
//! linux's I/O counts); only start/ calls it, at boot.

mod cputopo;
mod fds;
mod memory;
mod net;
mod system;
mod task;
mod text;

use crate::fs::inode::Inode;
use crate::fs::synth;
use crate::fs::tree::add_at;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use spin::Once;
use text::{memory as mem_file, text as file};

/// uname's release, which /proc/version and osrelease repeat.
pub const OSRELEASE: &str = "6.6.0-gometal";
/// The root file system's mount id (mountinfo, fdinfo's mnt_id).
pub const ROOT_MOUNT_ID: u32 = 21;

/// What the program was started with, kept for /proc/<pid>.
pub struct Exec {
    pub path: Vec<u8>,
    /// argv and envp, each string NUL-terminated, as cmdline and environ
    /// show them.
    pub cmdline: Vec<u8>,
    pub environ: Vec<u8>,
    pub argc: usize,
    pub envc: usize,
    /// The initial stack pointer (argc, then argv, envp and auxv).
    pub sp: u64,
    /// When it started, ns after boot.
    pub start_ns: u64,
}

static EXEC: Once<Exec> = Once::new();

fn exec() -> &'static Exec {
    EXEC.get().expect("procfs: no program recorded")
}

fn joined(strings: &[&[u8]]) -> Vec<u8> {
    strings.iter().flat_map(|s| s.iter().copied().chain([0])).collect()
}

/// Records the program's start (start/, once it is loaded).
pub fn record_exec(argv: &[&[u8]], envp: &[&[u8]], sp: u64) {
    EXEC.call_once(|| Exec {
        path: argv.first().map(|p| p.to_vec()).unwrap_or_default(),
        cmdline: joined(argv),
        environ: joined(envp),
        argc: argv.len(),
        envc: envp.len(),
        sp,
        start_ns: crate::sched::clock::monotonic_ns(),
    });
}

fn symlink(target: &str) -> Arc<Inode> {
    Inode::new_symlink(target.as_bytes().to_vec(), 0)
}

/// /proc/1: the process. Its entries are fixed but for `cwd`, a link to
/// the working directory as it is when looked at.
struct ProcessDir {
    fixed: BTreeMap<Vec<u8>, Arc<Inode>>,
}

fn cwd_path() -> Vec<u8> {
    let cwd = crate::fs::context::current().cwd.lock().clone();
    crate::fs::tree::path_of(&cwd).unwrap_or_else(|_| b"/".to_vec())
}

impl synth::DirSource for ProcessDir {
    fn names(&self) -> Vec<Vec<u8>> {
        self.fixed.keys().cloned().chain([b"cwd".to_vec()]).collect()
    }

    fn make(&self, name: &[u8]) -> Option<Arc<Inode>> {
        if name == b"cwd" {
            return Some(Inode::new_symlink(cwd_path(), 0));
        }
        self.fixed.get(name).cloned()
    }

    fn current(&self, name: &[u8], node: &Inode) -> bool {
        match &node.kind {
            crate::fs::inode::Kind::Symlink(target) if name == b"cwd" => *target == cwd_path(),
            _ => true,
        }
    }
}

fn process_dir(exe: &[u8]) -> Arc<Inode> {
    let entries: Vec<(&str, Arc<Inode>)> = alloc::vec![
        ("stat", text::numbered(1, task::stat)),
        ("status", text::numbered(1, task::status)),
        ("statm", mem_file(task::statm)),
        ("io", file(task::io)),
        ("limits", file(task::limits)),
        ("cmdline", file(task::cmdline)),
        ("environ", file(task::environ)),
        ("comm", file(task::comm_file)),
        ("auxv", mem_file(task::auxv)),
        ("maps", mem_file(memory::maps)),
        ("smaps_rollup", mem_file(memory::smaps_rollup)),
        ("mountinfo", file(system::mountinfo)),
        ("mounts", file(system::mounts)),
        ("exe", Inode::new_symlink(exe.to_vec(), 0)),
        ("root", symlink("/")),
        ("net", symlink("../net")),
        ("fd", synth::dir_node(Arc::new(fds::Fds))),
        ("fdinfo", synth::dir_node(Arc::new(fds::FdInfos))),
        ("task", synth::dir_node(Arc::new(task::Tasks))),
    ];
    let fixed = entries.into_iter().map(|(name, node)| (name.as_bytes().to_vec(), node)).collect();
    synth::dir_node(Arc::new(ProcessDir { fixed }))
}

/// A function writing a file's text.
type Generator = fn() -> String;

/// Puts /proc and /sys/devices/system/cpu in the tree (boot, after the
/// initramfs: the kernel's files win over the archive's). `exe` is the
/// program's path.
pub fn publish(exe: &[u8]) {
    add_at(b"/proc/1", process_dir(exe));
    add_at(b"/proc/self", symlink("1"));
    add_at(b"/proc/thread-self", symlink("1/task/1"));
    add_at(b"/proc/mounts", symlink("self/mounts"));
    let files: [(&str, Generator); 21] = [
        ("stat", system::stat),
        ("meminfo", memory::meminfo),
        ("cpuinfo", system::cpuinfo),
        ("uptime", system::uptime),
        ("loadavg", system::loadavg),
        ("version", system::version),
        ("filesystems", system::filesystems),
        ("sys/kernel/hostname", system::hostname),
        ("sys/kernel/ostype", system::ostype),
        ("sys/kernel/osrelease", system::osrelease),
        ("sys/kernel/pid_max", system::pid_max),
        ("sys/kernel/threads-max", system::threads_max),
        ("net/dev", net::dev),
        ("net/tcp", net::tcp),
        ("net/tcp6", net::tcp6),
        ("net/udp", net::udp),
        ("net/udp6", net::udp6),
        ("net/route", net::route),
        ("net/snmp", net::snmp),
        ("net/netstat", net::netstat),
        ("net/if_inet6", net::if_inet6),
    ];
    for (name, f) in files {
        add_at(alloc::format!("/proc/{name}").as_bytes(), file(f));
    }
    add_at(b"/sys/devices/system/cpu/online", file(system::cpus_online));
    add_at(b"/sys/devices/system/cpu/possible", file(system::cpus_possible));
    add_at(b"/sys/devices/system/cpu/present", file(system::cpus_possible));
    cputopo::publish(system::cpus_found());
}

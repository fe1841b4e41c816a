//! The rest: identities, uname, getrandom, resource limits, sysinfo,
//! reboot, getrusage, and the calls answered with a fixed value.

use super::userbuf::UserIoBuf;
use super::SysResult;
use crate::mm::frames;
use crate::mm::uaccess::{UserPtr, UserSpace};
use crate::sched::clock;
use crate::fs::fd;
use gometal_core::linux::errno::{EINVAL, ENOSYS, EPERM};
use gometal_core::linux::rlimit::{Limit, RLIM_INFINITY};

/// getuid, geteuid, getgid, getegid: the program is root.
pub fn getuid(_: &mut UserSpace) -> SysResult {
    Ok(0)
}

/// Root with no supplementary groups.
pub fn getgroups(_: &mut UserSpace) -> SysResult {
    Ok(0)
}

pub fn setgroups(_: &mut UserSpace) -> SysResult {
    Ok(0)
}

/// The umask is fixed at 022 (files are created with it applied).
pub fn umask(_: &mut UserSpace) -> SysResult {
    Ok(0o022)
}

pub fn prctl(_: &mut UserSpace) -> SysResult {
    Err(EINVAL)
}

/// Deliberate and not logged: Go's `os` tries copy_file_range in io.Copy
/// between files, takes ENOSYS as "the kernel lacks it" (never asking
/// again) and copies with read/write, so there is nothing to report.
pub fn copy_file_range(_: &mut UserSpace) -> SysResult {
    Err(ENOSYS)
}

fn field(s: &[u8]) -> [u8; 65] {
    let mut f = [0u8; 65];
    f[..s.len()].copy_from_slice(s);
    f
}

/// Reports a Linux-compatible identity, so version checks in programs pass,
/// with gometal named in `version`.
pub fn uname(user: &mut UserSpace, out: UserPtr<[u8; 6 * 65]>) -> SysResult {
    let mut buf = alloc::vec::Vec::with_capacity(6 * 65);
    for s in [
        b"Linux".as_slice(),
        b"gometal",
        b"6.6.0-gometal",
        concat!("gometal ", env!("CARGO_PKG_VERSION")).as_bytes(),
        crate::arch::UNAME_MACHINE,
        b"(none)",
    ] {
        buf.extend_from_slice(&field(s));
    }
    let mut utsname = [0u8; 6 * 65];
    utsname.copy_from_slice(&buf);
    user.write(out, &utsname)?;
    Ok(0)
}

const GRND_NONBLOCK: u32 = 1;
const GRND_RANDOM: u32 = 2;
const GRND_INSECURE: u32 = 4;

/// getrandom(buf, len, flags) with Linux's flags: before the generator is
/// keyed from entropy it blocks, or fails with EAGAIN under GRND_NONBLOCK;
/// GRND_INSECURE never waits (random.rs). GRND_RANDOM is the same pool,
/// as on Linux since 5.6. As on Linux the wait comes before the buffer's
/// check, and a buffer mapped only in part gets a short count.
pub fn getrandom(user: &mut UserSpace, buf: UserIoBuf, flags: u32) -> SysResult {
    if flags & !(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE) != 0 || flags & (GRND_RANDOM | GRND_INSECURE) == (GRND_RANDOM | GRND_INSECURE) {
        return Err(EINVAL);
    }
    let secure = flags & GRND_INSECURE == 0;
    if secure {
        crate::random::fill_secure(&mut [], flags & GRND_NONBLOCK != 0).map_err(crate::random::NotReady::errno)?;
    }
    // Linux may return fewer bytes than asked; callers loop.
    let buf = user.usable_prefix(buf.range()?, 64 * 1024, true)?;
    let mut bytes = crate::mm::uaccess::zeroed(buf.len())?;
    if secure {
        crate::random::fill_secure(&mut bytes, true).map_err(crate::random::NotReady::errno)?;
    } else {
        crate::random::fill(&mut bytes);
    }
    user.write_bytes(buf, &bytes)?;
    Ok(bytes.len())
}

const RLIMIT_NOFILE: u64 = 7;

/// prlimit64(pid, resource, new, old) on the one process: RLIMIT_NOFILE is
/// real (fs/fd.rs allocates below its soft limit; Linux's rules for root in
/// gometal_core::linux::rlimit); every other resource reads as unlimited and a new
/// value for it is accepted and not enforced (docs/syscalls.md says so).
pub fn prlimit64(user: &mut UserSpace, _pid: u32, resource: u64, new: UserPtr<[u64; 2]>, old: UserPtr<[u64; 2]>) -> SysResult {
    if resource > 15 {
        return Err(EINVAL);
    }
    let wanted = match new.non_null() {
        Some(p) => Some(user.read(p)?),
        None => None,
    };
    let current = match resource {
        RLIMIT_NOFILE => fd::nofile_limit(),
        _ => Limit { soft: RLIM_INFINITY, hard: RLIM_INFINITY },
    };
    if let Some([soft, hard]) = wanted {
        if soft > hard {
            return Err(EINVAL);
        }
        if resource == RLIMIT_NOFILE {
            fd::set_nofile_limit(Limit { soft, hard })?;
        }
    }
    if let Some(old) = old.non_null() {
        user.write(old, &[current.soft, current.hard])?;
    }
    Ok(0)
}

pub fn getrlimit(user: &mut UserSpace, resource: u64, old: UserPtr<[u64; 2]>) -> SysResult {
    prlimit64(user, 0, resource, UserPtr::new(0), old)
}

pub fn setrlimit(user: &mut UserSpace, resource: u64, new: UserPtr<[u64; 2]>) -> SysResult {
    prlimit64(user, 0, resource, new, UserPtr::new(0))
}

pub fn sysinfo(user: &mut UserSpace, out: UserPtr<[u8; 112]>) -> SysResult {
    let (total, free) = crate::mm::usage();
    let mut b = [0u8; 112];
    b[0..8].copy_from_slice(&(clock::monotonic_ns() / 1_000_000_000).to_le_bytes());
    b[32..40].copy_from_slice(&total.to_le_bytes()); // totalram
    b[40..48].copy_from_slice(&free.to_le_bytes()); // freeram
    b[80..82].copy_from_slice(&(crate::process::process().thread_count() as u16).to_le_bytes());
    b[104..108].copy_from_slice(&1u32.to_le_bytes()); // mem_unit
    user.write(out, &b)?;
    Ok(0)
}

const LINUX_REBOOT_MAGIC1: u32 = 0xfee1dead;
const LINUX_REBOOT_MAGIC2: u32 = 672274793;
const LINUX_REBOOT_CMD_RESTART: u32 = 0x01234567;
const LINUX_REBOOT_CMD_HALT: u32 = 0xCDEF0123;
const LINUX_REBOOT_CMD_POWER_OFF: u32 = 0x4321FEDC;

/// reboot(2): power off (or halt) ends the machine with status 0, as an init
/// that powers off Linux does; restart is refused (QEMU runs -no-reboot).
pub fn reboot(_: &mut UserSpace, magic1: u32, magic2: u32, cmd: u32) -> SysResult {
    // The arguments are C ints: 32 bits, as Linux reads them (glibc passes
    // them sign-extended).
    if magic1 != LINUX_REBOOT_MAGIC1 || magic2 != LINUX_REBOOT_MAGIC2 {
        return Err(EINVAL);
    }
    match cmd {
        LINUX_REBOOT_CMD_POWER_OFF | LINUX_REBOOT_CMD_HALT => crate::process::exit(0),
        LINUX_REBOOT_CMD_RESTART => Err(EPERM),
        _ => Err(EINVAL),
    }
}

const RUSAGE_SELF: i64 = 0;
const RUSAGE_CHILDREN: i64 = -1;
const RUSAGE_THREAD: i64 = 1;

/// struct rusage: 2 timevals + 14 longs.
type Rusage = [u8; 144];

/// getrusage: the peak resident memory (page frames in use at most, KiB)
/// and the CPU time of the process or the thread (sched/cputime.rs) as
/// user time. Children: none.
pub fn getrusage(user: &mut UserSpace, who: i64, out: UserPtr<Rusage>) -> SysResult {
    let mut b: Rusage = [0; 144];
    match who {
        RUSAGE_SELF | RUSAGE_THREAD => {
            let busy_ns = if who == RUSAGE_SELF {
                crate::sched::cputime::process_ns()
            } else {
                crate::sched::cputime::thread_ns(&crate::sched::current())
            };
            b[0..8].copy_from_slice(&((busy_ns / 1_000_000_000) as i64).to_le_bytes());
            b[8..16].copy_from_slice(&(((busy_ns % 1_000_000_000) / 1000) as i64).to_le_bytes());
            let peak_kib = (frames::stats().peak * 4) as i64;
            b[32..40].copy_from_slice(&peak_kib.to_le_bytes()); // ru_maxrss
        }
        RUSAGE_CHILDREN => {}
        _ => return Err(EINVAL),
    }
    user.write(out, &b)?;
    Ok(0)
}

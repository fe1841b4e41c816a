//! The Linux system-call interface: decode the call from the trap frame,
//! dispatch by number (the asm-generic table riscv64 uses), and put the
//! result (or -errno) back in a0. Handlers live with their family, one file
//! each; each returns `Result<isize, errno>`.

mod dirs;
mod fs;
mod io;
mod futex;
mod memory;
mod misc;
mod poll;
mod signal;
mod stat;
mod thread;
mod time;
mod tty;

use crate::sched::current;
use core::sync::atomic::{AtomicU64, Ordering};
use gometal_core::errno::ENOSYS;
use gometal_core::sysno::{self as nr, name};

/// What a handler returns: a value for a0, or a positive errno.
pub type SysResult = Result<isize, isize>;

/// The six argument registers a0..a5.
pub type Args = [u64; 6];

/// Handles the system call in the current thread's trap frame.
pub fn syscall() {
    let t = current();
    let frame = t.frame();
    frame.regs[0] += 4; // resume after the ecall (clone children too)
    let number = frame.regs[17] as usize;
    let args: Args = core::array::from_fn(|i| frame.arg(i));
    drop(t);
    if number == nr::RT_SIGRETURN {
        // Restores every register, a0 included: nothing to return.
        crate::signal::sigreturn(&current());
        return;
    }
    if let Some(c) = COUNTS.get(number) {
        c.fetch_add(1, Ordering::Relaxed);
    }
    let result = dispatch(number, &args);
    if TRACE.load(Ordering::Relaxed) {
        crate::println!(
            "[tid {}] {}({:#x}, {:#x}, {:#x}, {:#x}) = {:?}",
            current().tid, name(number), args[0], args[1], args[2], args[3], result
        );
    }
    let value = match result {
        Ok(v) => v,
        Err(e) => -e,
    };
    current().frame().set_ret(value as u64);
}

fn dispatch(number: usize, a: &Args) -> SysResult {
    match number {
        nr::READ => io::read(a),
        nr::WRITE => io::write(a),
        nr::READV => io::readv(a),
        nr::WRITEV => io::writev(a),
        nr::PREAD64 => io::pread64(a),
        nr::OPENAT => fs::openat(a),
        nr::CLOSE => fs::close(a),
        nr::LSEEK => fs::lseek(a),
        nr::FCNTL => fs::fcntl(a),
        nr::IOCTL => fs::ioctl(a),
        nr::DUP => fs::dup(a),
        nr::DUP3 => fs::dup3(a),
        nr::PIPE2 => fs::pipe2(a),
        nr::PWRITE64 => io::pwrite64(a),
        nr::FTRUNCATE => fs::ftruncate(a),
        nr::TRUNCATE => fs::truncate(a),
        nr::GETCWD => dirs::getcwd(a),
        nr::CHDIR => dirs::chdir(a),
        nr::FCHDIR => dirs::fchdir(a),
        nr::GETDENTS64 => dirs::getdents64(a),
        nr::MKDIRAT => dirs::mkdirat(a),
        nr::MKNODAT => dirs::mknodat(a),
        nr::FCHMODAT2 => dirs::fchmodat2(a),
        nr::UNLINKAT => dirs::unlinkat(a),
        nr::RENAMEAT2 => dirs::renameat2(a),
        nr::LINKAT => dirs::linkat(a),
        nr::SYMLINKAT => dirs::symlinkat(a),
        nr::FACCESSAT | nr::FACCESSAT2 => dirs::faccessat(a),
        nr::READLINKAT => dirs::readlinkat(a),
        nr::FCHMOD => dirs::fchmod(a),
        nr::FCHMODAT => dirs::fchmodat(a),
        nr::FCHOWN => dirs::fchown(a),
        nr::FCHOWNAT => dirs::fchownat(a),
        nr::UTIMENSAT => dirs::utimensat(a),
        nr::FSTAT => stat::fstat(a),
        nr::NEWFSTATAT => stat::newfstatat(a),
        nr::STATX => stat::statx(a),
        nr::MMAP => memory::mmap(a),
        nr::MUNMAP => memory::munmap(a),
        nr::MPROTECT => memory::mprotect(a),
        nr::MADVISE => memory::madvise(a),
        nr::BRK => memory::brk(a),
        nr::CLONE => thread::clone(a),
        nr::EXIT => thread::exit(a),
        nr::EXIT_GROUP => thread::exit_group(a),
        nr::GETTID => thread::gettid(a),
        nr::GETPID => thread::getpid(a),
        nr::GETPPID => Ok(0),
        nr::SET_TID_ADDRESS => thread::set_tid_address(a),
        nr::SET_ROBUST_LIST => Ok(0),
        nr::SCHED_YIELD => thread::sched_yield(a),
        nr::SCHED_GETAFFINITY => thread::sched_getaffinity(a),
        nr::SCHED_SETAFFINITY => thread::sched_setaffinity(a),
        nr::GETUID | nr::GETEUID | nr::GETGID | nr::GETEGID => Ok(0),
        // Root with no supplementary groups.
        nr::GETGROUPS => Ok(0),
        nr::SETGROUPS => Ok(0),
        // One process: it never has children to wait for.
        nr::WAIT4 | nr::WAITID => Err(gometal_core::errno::ECHILD),
        nr::FUTEX => futex::futex(a),
        nr::CLOCK_GETTIME => time::clock_gettime(a),
        nr::CLOCK_GETRES => time::clock_getres(a),
        nr::GETTIMEOFDAY => time::gettimeofday(a),
        nr::NANOSLEEP => time::nanosleep(a),
        nr::CLOCK_NANOSLEEP => time::clock_nanosleep(a),
        nr::RT_SIGACTION => signal::rt_sigaction(a),
        nr::RT_SIGPROCMASK => signal::rt_sigprocmask(a),
        nr::SIGALTSTACK => signal::sigaltstack(a),
        nr::TGKILL => signal::tgkill(a),
        nr::TKILL => signal::tkill(a),
        nr::KILL => signal::kill(a),
        nr::EPOLL_CREATE1 => poll::epoll_create1(a),
        nr::EPOLL_CTL => poll::epoll_ctl(a),
        nr::EPOLL_PWAIT => poll::epoll_pwait(a),
        nr::EVENTFD2 => poll::eventfd2(a),
        nr::UNAME => misc::uname(a),
        nr::GETRANDOM => misc::getrandom(a),
        nr::PRLIMIT64 => misc::prlimit64(a),
        nr::GETRLIMIT => misc::getrlimit(a),
        nr::SYSINFO => misc::sysinfo(a),
        nr::UMASK => Ok(0o022),
        nr::REBOOT => misc::reboot(a),
        nr::GETRUSAGE => misc::getrusage(a),
        nr::PRCTL => Err(gometal_core::errno::EINVAL),
        // Deliberate: reporting the vector extension would make Go use it.
        nr::RISCV_HWPROBE => Err(ENOSYS),
        nr::FSYNC | nr::FDATASYNC => fs::fsync(a),
        _ => unknown(number),
    }
}

/// How often each system call was made, for the statistics.
static COUNTS: [AtomicU64; 512] = [const { AtomicU64::new(0) }; 512];

/// The `n` most frequent system calls: (count, name).
pub fn most_frequent(n: usize) -> alloc::vec::Vec<(u64, &'static str)> {
    let mut v: alloc::vec::Vec<(u64, &'static str)> = COUNTS
        .iter()
        .enumerate()
        .map(|(nr, c)| (c.load(Ordering::Relaxed), name(nr)))
        .filter(|&(c, _)| c > 0)
        .collect();
    v.sort_unstable_by_key(|&(count, _)| core::cmp::Reverse(count));
    v.truncate(n);
    v
}

static TRACE: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

/// Logs every system call from now on (the `trace` kernel argument).
pub fn enable_trace() {
    TRACE.store(true, Ordering::Relaxed);
}

/// Syscalls seen and not implemented, as a bitmap, so each is logged once.
static LOGGED: [AtomicU64; 8] = [const { AtomicU64::new(0) }; 8];

fn unknown(number: usize) -> SysResult {
    let (word, bit) = (number / 64, 1u64 << (number % 64));
    let first = LOGGED.get(word).is_none_or(|w| w.fetch_or(bit, Ordering::Relaxed) & bit == 0);
    if first {
        crate::println!("gometal: unsupported syscall {} ({}), returning ENOSYS", number, name(number));
    }
    Err(ENOSYS)
}

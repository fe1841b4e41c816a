//! Syscall numbers: the asm-generic table (include/uapi/asm-generic/unistd.h)
//! that riscv64 uses, limited to what Go programs and their tests call, plus
//! `name` so logs can say "futex" instead of "98". Numbers are never invented:
//! each one is the Linux value.

// One list defines both the constants and the name table, so the two cannot
// drift apart.
macro_rules! syscalls {
    ($($name:ident $lower:literal = $nr:literal,)*) => {
        $(pub const $name: usize = $nr;)*

        /// The Linux name of syscall `nr`, or "unknown".
        pub fn name(nr: usize) -> &'static str {
            match nr {
                $($nr => $lower,)*
                _ => "unknown",
            }
        }

        /// The number of the syscall called `lower` ("futex"), if listed.
        pub fn number(lower: &str) -> Option<usize> {
            match lower {
                $($lower => Some($nr),)*
                _ => None,
            }
        }

        #[cfg(test)]
        const ALL: &[(&str, usize)] = &[$((stringify!($name), $nr)),*];
    };
}

syscalls! {
    GETCWD "getcwd" = 17,
    EVENTFD2 "eventfd2" = 19,
    EPOLL_CREATE1 "epoll_create1" = 20,
    EPOLL_CTL "epoll_ctl" = 21,
    EPOLL_PWAIT "epoll_pwait" = 22,
    DUP "dup" = 23,
    DUP3 "dup3" = 24,
    FCNTL "fcntl" = 25,
    IOCTL "ioctl" = 29,
    FLOCK "flock" = 32,
    MKNODAT "mknodat" = 33,
    MKDIRAT "mkdirat" = 34,
    UNLINKAT "unlinkat" = 35,
    SYMLINKAT "symlinkat" = 36,
    LINKAT "linkat" = 37,
    // Only under __ARCH_WANT_RENAMEAT: arm64 has it (Go's os.Rename uses
    // it there), riscv64 does not (ENOSYS, as Linux).
    RENAMEAT "renameat" = 38,
    STATFS "statfs" = 43,
    FSTATFS "fstatfs" = 44,
    TRUNCATE "truncate" = 45,
    FTRUNCATE "ftruncate" = 46,
    FALLOCATE "fallocate" = 47,
    FACCESSAT "faccessat" = 48,
    CHDIR "chdir" = 49,
    FCHDIR "fchdir" = 50,
    FCHMOD "fchmod" = 52,
    FCHMODAT "fchmodat" = 53,
    FCHOWNAT "fchownat" = 54,
    FCHOWN "fchown" = 55,
    OPENAT "openat" = 56,
    CLOSE "close" = 57,
    PIPE2 "pipe2" = 59,
    GETDENTS64 "getdents64" = 61,
    LSEEK "lseek" = 62,
    READ "read" = 63,
    WRITE "write" = 64,
    READV "readv" = 65,
    WRITEV "writev" = 66,
    PREAD64 "pread64" = 67,
    PWRITE64 "pwrite64" = 68,
    PREADV "preadv" = 69,
    PWRITEV "pwritev" = 70,
    SENDFILE "sendfile" = 71,
    PPOLL "ppoll" = 73,
    SPLICE "splice" = 76,
    READLINKAT "readlinkat" = 78,
    NEWFSTATAT "newfstatat" = 79,
    FSTAT "fstat" = 80,
    SYNC "sync" = 81,
    FSYNC "fsync" = 82,
    FDATASYNC "fdatasync" = 83,
    UTIMENSAT "utimensat" = 88,
    EXIT "exit" = 93,
    EXIT_GROUP "exit_group" = 94,
    WAITID "waitid" = 95,
    SET_TID_ADDRESS "set_tid_address" = 96,
    FUTEX "futex" = 98,
    SET_ROBUST_LIST "set_robust_list" = 99,
    NANOSLEEP "nanosleep" = 101,
    GETITIMER "getitimer" = 102,
    SETITIMER "setitimer" = 103,
    TIMER_CREATE "timer_create" = 107,
    TIMER_GETTIME "timer_gettime" = 108,
    TIMER_GETOVERRUN "timer_getoverrun" = 109,
    TIMER_SETTIME "timer_settime" = 110,
    TIMER_DELETE "timer_delete" = 111,
    CLOCK_GETTIME "clock_gettime" = 113,
    CLOCK_GETRES "clock_getres" = 114,
    CLOCK_NANOSLEEP "clock_nanosleep" = 115,
    SCHED_SETAFFINITY "sched_setaffinity" = 122,
    SCHED_GETAFFINITY "sched_getaffinity" = 123,
    SCHED_YIELD "sched_yield" = 124,
    KILL "kill" = 129,
    TKILL "tkill" = 130,
    TGKILL "tgkill" = 131,
    SIGALTSTACK "sigaltstack" = 132,
    RT_SIGACTION "rt_sigaction" = 134,
    RT_SIGPROCMASK "rt_sigprocmask" = 135,
    RT_SIGRETURN "rt_sigreturn" = 139,
    SETPRIORITY "setpriority" = 140,
    GETPRIORITY "getpriority" = 141,
    REBOOT "reboot" = 142,
    GETGROUPS "getgroups" = 158,
    SETGROUPS "setgroups" = 159,
    UNAME "uname" = 160,
    GETRLIMIT "getrlimit" = 163,
    SETRLIMIT "setrlimit" = 164,
    GETRUSAGE "getrusage" = 165,
    UMASK "umask" = 166,
    PRCTL "prctl" = 167,
    GETTIMEOFDAY "gettimeofday" = 169,
    GETPID "getpid" = 172,
    GETPPID "getppid" = 173,
    GETUID "getuid" = 174,
    GETEUID "geteuid" = 175,
    GETGID "getgid" = 176,
    GETEGID "getegid" = 177,
    GETTID "gettid" = 178,
    SYSINFO "sysinfo" = 179,
    SOCKET "socket" = 198,
    SOCKETPAIR "socketpair" = 199,
    BIND "bind" = 200,
    LISTEN "listen" = 201,
    ACCEPT "accept" = 202,
    CONNECT "connect" = 203,
    GETSOCKNAME "getsockname" = 204,
    GETPEERNAME "getpeername" = 205,
    SENDTO "sendto" = 206,
    RECVFROM "recvfrom" = 207,
    SETSOCKOPT "setsockopt" = 208,
    GETSOCKOPT "getsockopt" = 209,
    SHUTDOWN "shutdown" = 210,
    SENDMSG "sendmsg" = 211,
    RECVMSG "recvmsg" = 212,
    BRK "brk" = 214,
    MUNMAP "munmap" = 215,
    MREMAP "mremap" = 216,
    CLONE "clone" = 220,
    EXECVE "execve" = 221,
    MMAP "mmap" = 222,
    MPROTECT "mprotect" = 226,
    MSYNC "msync" = 227,
    MLOCK "mlock" = 228,
    MUNLOCK "munlock" = 229,
    MLOCKALL "mlockall" = 230,
    MUNLOCKALL "munlockall" = 231,
    MINCORE "mincore" = 232,
    MADVISE "madvise" = 233,
    ACCEPT4 "accept4" = 242,
    RECVMMSG "recvmmsg" = 243,
    RISCV_HWPROBE "riscv_hwprobe" = 258,
    WAIT4 "wait4" = 260,
    PRLIMIT64 "prlimit64" = 261,
    SYNCFS "syncfs" = 267,
    SENDMMSG "sendmmsg" = 269,
    RENAMEAT2 "renameat2" = 276,
    MLOCK2 "mlock2" = 284,
    GETRANDOM "getrandom" = 278,
    COPY_FILE_RANGE "copy_file_range" = 285,
    PREADV2 "preadv2" = 286,
    PWRITEV2 "pwritev2" = 287,
    STATX "statx" = 291,
    RSEQ "rseq" = 293,
    PIDFD_SEND_SIGNAL "pidfd_send_signal" = 424,
    PIDFD_OPEN "pidfd_open" = 434,
    CLONE3 "clone3" = 435,
    FACCESSAT2 "faccessat2" = 439,
    EPOLL_PWAIT2 "epoll_pwait2" = 441,
    FCHMODAT2 "fchmodat2" = 452,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(name(FUTEX), "futex");
        assert_eq!(name(98), "futex");
        assert_eq!(name(RT_SIGRETURN), "rt_sigreturn");
        assert_eq!(name(EPOLL_PWAIT), "epoll_pwait");
        assert_eq!(name(9999), "unknown");
        assert_eq!(number("futex"), Some(FUTEX));
        assert_eq!(number("nosuchcall"), None);
    }

    #[test]
    fn every_constant_has_a_lower_case_name() {
        for (upper, nr) in ALL {
            assert_eq!(name(*nr), upper.to_ascii_lowercase(), "{upper}");
        }
    }

    #[test]
    fn numbers_are_unique_and_match_the_abi_doc() {
        let mut seen: Vec<usize> = ALL.iter().map(|(_, n)| *n).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), ALL.len());
        assert_eq!((CLONE, MMAP, MUNMAP, MADVISE), (220, 222, 215, 233));
        assert_eq!((TGKILL, SIGALTSTACK, RT_SIGACTION), (131, 132, 134));
        assert_eq!(
            (SCHED_GETAFFINITY, RISCV_HWPROBE, PRLIMIT64),
            (123, 258, 261)
        );
        assert_eq!((ACCEPT4, SOCKET, UNAME, FCNTL), (242, 198, 160, 25));
    }
}

//! Every system call that takes a user pointer, with how Linux checks it,
//! against the kernel's handlers (kernel/src/linux/table.rs and the
//! signatures of the functions it names). The kernel binary cannot run
//! host tests, so this reads the source: a parameter's type says how the
//! kernel checks it (kernel/src/linux/userbuf.rs): `UserBuf`, `UserIoBuf`,
//! `UserArray` and `UserIovec` are user ranges checked with access_ok when
//! the registers are decoded, before any file or socket sees the call;
//! `UserPtr` is checked by the copy through it (mm/uaccess.rs), exactly
//! what is copied, as Linux's copy_to_user and get_user do.
//!
//! A new handler that takes a user pointer fails here until its call is
//! listed below with Linux's check, and one listed as a range fails until
//! its handler takes the range type; every range-checked call must also be
//! tried with a kernel address by the boot test tests/progs/useraccess.

use gometal_core::linux::sysno;
use std::collections::BTreeMap;

/// How Linux checks one pointer argument; the numbers are argument
/// registers (0 = a0/x0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Arg {
    /// (pointer, length): the whole range, before the call acts
    /// (vfs_read, vfs_write). Kernel type `UserBuf`.
    Whole(usize, usize),
    /// (pointer, length): the length clamped to MAX_RW_COUNT, then checked
    /// (import_ubuf). Kernel type `UserIoBuf`.
    Clamped(usize, usize),
    /// (pointer, C int count) of fixed-size elements, all of them
    /// (epoll_wait). Kernel type `UserArray<T>`.
    Array(usize, usize),
    /// (iovec array, count): every range the array names, before any byte
    /// moves (import_iovec). Kernel type `UserIovec`.
    Iovecs(usize, usize),
    /// What the call copies, as it copies it: a struct, a path, a result
    /// of the length it has (copy_to_user, get_user, strncpy_from_user).
    /// Kernel type `UserPtr<T>`.
    Copied(usize),
}

use Arg::*;

/// Linux's checks, call by call (fs/read_write.c, net/socket.c,
/// fs/eventpoll.c, drivers/char/random.c and the copies elsewhere).
/// Calls whose Linux pointer gometal's handler does not take (getgroups,
/// wait4, prctl, set_robust_list...) are not listed: it never looks at it.
const CALLS: &[(&str, &[Arg])] = &[
    ("read", &[Whole(1, 2)]),
    ("write", &[Whole(1, 2)]),
    ("pread64", &[Whole(1, 2)]),
    ("pwrite64", &[Whole(1, 2)]),
    ("readv", &[Iovecs(1, 2)]),
    ("writev", &[Iovecs(1, 2)]),
    ("preadv", &[Iovecs(1, 2)]),
    ("pwritev", &[Iovecs(1, 2)]),
    ("preadv2", &[Iovecs(1, 2)]),
    ("pwritev2", &[Iovecs(1, 2)]),
    ("getrandom", &[Clamped(0, 1)]),
    ("sendto", &[Clamped(1, 2), Copied(4)]),
    ("recvfrom", &[Clamped(1, 2), Copied(4), Copied(5)]),
    ("epoll_pwait", &[Array(1, 2)]),
    // msghdr is copied; its iovecs go through import_iovec (sockmsg.rs).
    ("sendmsg", &[Copied(1)]),
    ("recvmsg", &[Copied(1)]),
    ("sendmmsg", &[Copied(1)]),
    ("recvmmsg", &[Copied(1), Copied(4)]),
    // filldir64 checks each record as it writes it.
    ("getdents64", &[Copied(1)]),
    // The link's bytes, the path's bytes: copy_to_user of what there is.
    ("readlinkat", &[Copied(1), Copied(2)]),
    ("getcwd", &[Copied(0)]),
    ("openat", &[Copied(1)]),
    ("ioctl", &[Copied(2)]),
    ("pipe2", &[Copied(0)]),
    ("truncate", &[Copied(0)]),
    ("statfs", &[Copied(0), Copied(1)]),
    ("fstatfs", &[Copied(1)]),
    ("chdir", &[Copied(0)]),
    ("mkdirat", &[Copied(1)]),
    ("mknodat", &[Copied(1)]),
    ("unlinkat", &[Copied(1)]),
    ("renameat2", &[Copied(1), Copied(3)]),
    ("renameat", &[Copied(1), Copied(3)]),
    ("linkat", &[Copied(1), Copied(3)]),
    ("symlinkat", &[Copied(0), Copied(2)]),
    ("faccessat", &[Copied(1)]),
    ("faccessat2", &[Copied(1)]),
    ("fchmodat", &[Copied(1)]),
    ("fchmodat2", &[Copied(1)]),
    ("fchownat", &[Copied(1)]),
    ("utimensat", &[Copied(1), Copied(2)]),
    ("fstat", &[Copied(1)]),
    ("newfstatat", &[Copied(1), Copied(2)]),
    ("statx", &[Copied(1), Copied(4)]),
    // The tid words are written when the thread starts and exits.
    ("clone", &[Copied(2), Copied(4)]),
    ("set_tid_address", &[Copied(0)]),
    ("sched_getaffinity", &[Copied(2)]),
    // get_futex_key: aligned (EINVAL), then access_ok of the word (EFAULT).
    ("futex", &[Copied(0), Copied(3)]),
    ("clock_gettime", &[Copied(1)]),
    ("clock_getres", &[Copied(1)]),
    ("gettimeofday", &[Copied(0)]),
    ("nanosleep", &[Copied(0), Copied(1)]),
    ("clock_nanosleep", &[Copied(2), Copied(3)]),
    // poll copies the pollfd array in chunks: nothing for nfds 0.
    ("ppoll", &[Copied(0), Copied(2), Copied(3)]),
    ("pidfd_send_signal", &[Copied(2)]),
    ("setitimer", &[Copied(1), Copied(2)]),
    ("getitimer", &[Copied(1)]),
    ("timer_create", &[Copied(1), Copied(2)]),
    ("timer_settime", &[Copied(2), Copied(3)]),
    ("timer_gettime", &[Copied(1)]),
    ("rt_sigaction", &[Copied(1), Copied(2)]),
    ("rt_sigprocmask", &[Copied(1), Copied(2)]),
    ("sigaltstack", &[Copied(0), Copied(1)]),
    ("epoll_ctl", &[Copied(3)]),
    ("uname", &[Copied(0)]),
    ("prlimit64", &[Copied(2), Copied(3)]),
    ("getrlimit", &[Copied(1)]),
    ("setrlimit", &[Copied(1)]),
    ("sysinfo", &[Copied(0)]),
    ("getrusage", &[Copied(1)]),
    ("socketpair", &[Copied(3)]),
    // move_addr_to_kernel, move_addr_to_user.
    ("bind", &[Copied(1)]),
    ("connect", &[Copied(1)]),
    ("accept", &[Copied(1), Copied(2)]),
    ("accept4", &[Copied(1), Copied(2)]),
    ("getsockname", &[Copied(1), Copied(2)]),
    ("getpeername", &[Copied(1), Copied(2)]),
    // Each option copies the bytes it reads or writes.
    ("setsockopt", &[Copied(3)]),
    ("getsockopt", &[Copied(3), Copied(4)]),
    ("splice", &[Copied(1), Copied(3)]),
    ("sendfile", &[Copied(2)]),
    // get_user/put_user of each pair; copy_from_user of the CPU set.
    ("riscv_hwprobe", &[Copied(0), Copied(3)]),
];

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../src/linux");
const USERACCESS: &str = include_str!("../../../tests/progs/useraccess/main.go");

/// (lower-case call, module, function) of every `NAME => module::fn,` line.
fn table() -> Vec<(String, String, String)> {
    let table = std::fs::read_to_string(format!("{SRC}/table.rs")).unwrap();
    table
        .lines()
        .filter_map(|l| l.trim().strip_suffix(',')?.split_once(" => "))
        .map(|(name, path)| {
            let (module, func) = path.split_once("::").unwrap_or_else(|| panic!("{path}: not module::function"));
            (name.to_ascii_lowercase(), module.to_string(), func.to_string())
        })
        .collect()
}

/// The parameter list of `pub fn func` in `module` (following a
/// `pub use super::other::func` re-export; for `arch`, the
/// architecture whose file defines it with the most parameters).
fn params(module: &str, func: &str) -> Vec<(String, String)> {
    let files: Vec<String> = match module {
        "arch" => vec!["arch/riscv64.rs".into(), "arch/aarch64.rs".into()],
        m => vec![format!("{m}.rs")],
    };
    let mut best: Option<Vec<(String, String)>> = None;
    for file in files {
        let src = std::fs::read_to_string(format!("{SRC}/{file}")).unwrap();
        if let Some(reexport) = src.lines().find_map(|l| l.trim().strip_prefix("pub use super::")?.strip_suffix(&format!("::{func};"))) {
            return params(reexport, func);
        }
        let Some(start) = src.find(&format!("pub fn {func}(")) else { continue };
        let rest = &src[start + func.len() + 8..];
        let list = &rest[..rest.find(") -> ").unwrap_or_else(|| panic!("{func}: no `) -> `"))];
        let found = split_params(list);
        if best.as_ref().is_none_or(|b| b.len() < found.len()) {
            best = Some(found);
        }
    }
    best.unwrap_or_else(|| panic!("no `pub fn {func}` in linux/{module}"))
}

/// "user: &mut UserSpace, fd: Fd, p: UserPtr<[u8; 2]>" → (name, type)
/// pairs, the UserSpace first one dropped.
fn split_params(list: &str) -> Vec<(String, String)> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0);
    for c in list.chars() {
        match c {
            '<' | '[' => depth += 1,
            '>' | ']' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    out.push(cur);
    let mut pairs: Vec<(String, String)> = out
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (n, t) = p.split_once(':').unwrap_or_else(|| panic!("parameter {p:?}"));
            (n.trim().to_string(), t.trim().to_string())
        })
        .collect();
    assert!(pairs.first().is_some_and(|(_, t)| t == "&mut UserSpace"), "handlers start with the UserSpace: {list}");
    pairs.remove(0);
    pairs
}

/// The types decoded from two registers (`const REGS: usize = 2` in
/// userbuf.rs), by name.
fn two_register_types() -> Vec<String> {
    let src = std::fs::read_to_string(format!("{SRC}/userbuf.rs")).unwrap();
    let mut out = Vec::new();
    for block in src.split("\nimpl").skip(1) {
        let Some(head) = block.lines().next() else { continue };
        if let Some(ty) = head.split(" Param for ").nth(1) {
            if block.lines().nth(1).is_some_and(|l| l.trim() == "const REGS: usize = 2;") {
                out.push(ty.trim_end_matches(" {").split('<').next().unwrap().to_string());
            }
        }
    }
    out
}

/// How the handler of each call takes its user pointers, from its types.
fn handler_args() -> BTreeMap<String, Vec<Arg>> {
    let two = two_register_types();
    let mut out = BTreeMap::new();
    for (call, module, func) in table() {
        let mut reg = 0;
        let mut args = Vec::new();
        for (_, ty) in params(&module, &func) {
            let base = ty.split('<').next().unwrap();
            args.extend(match base {
                "UserBuf" => Some(Whole(reg, reg + 1)),
                "UserIoBuf" => Some(Clamped(reg, reg + 1)),
                "UserArray" => Some(Array(reg, reg + 1)),
                "UserIovec" => Some(Iovecs(reg, reg + 1)),
                "UserPtr" => Some(Copied(reg)),
                _ => None,
            });
            assert!(!two.contains(&base.to_string()) || args.last().is_some_and(|a| !matches!(a, Copied(_))), "{call}: {ty} is a two-register type this test does not know");
            reg += if two.contains(&base.to_string()) { 2 } else { 1 };
        }
        assert!(reg <= 6, "{call}: {reg} argument registers");
        args.sort();
        out.insert(call, args);
    }
    out
}

#[test]
fn every_user_pointer_is_checked_as_linux_checks_it() {
    let listed: BTreeMap<&str, &[Arg]> = CALLS.iter().copied().collect();
    for (call, args) in handler_args() {
        let mut want = listed.get(call.as_str()).copied().unwrap_or(&[]).to_vec();
        want.sort();
        assert_eq!(
            args, want,
            "{call}: the handler takes user pointers as {args:?}, this list says Linux checks {want:?}. \
             List a new call's pointers with Linux's check; a range Linux checks whole \
             (Whole, Clamped, Array, Iovecs) is a UserBuf, UserIoBuf, UserArray or UserIovec parameter, \
             checked when decoded; one it checks as it copies is a UserPtr"
        );
    }
}

#[test]
fn every_listed_call_is_handled() {
    let handled: Vec<String> = table().into_iter().map(|(c, _, _)| c).collect();
    for (call, _) in CALLS {
        assert!(sysno::number(call).is_some(), "{call} is not in sysno.rs");
        assert!(handled.iter().any(|c| c == call), "{call} is listed but kernel/src/linux/table.rs does not handle it");
    }
}

#[test]
fn every_range_checked_call_is_tried_by_the_boot_test() {
    for (call, args) in CALLS {
        if args.iter().any(|a| !matches!(a, Copied(_))) {
            assert!(
                USERACCESS.contains(&format!("{{\"{call}\", ")),
                "tests/progs/useraccess does not try {call} with a kernel address"
            );
        }
    }
}

#[test]
fn the_sources_are_read() {
    // Guards the parsers: an empty parse would pass the tests above.
    let args = handler_args();
    assert!(args.len() > 100, "{} calls in the table", args.len());
    assert!(args.values().filter(|a| !a.is_empty()).count() > 60);
    let mut two = two_register_types();
    two.sort();
    assert_eq!(two, ["UserArray", "UserBuf", "UserIoBuf", "UserIovec"]);
}

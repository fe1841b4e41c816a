//! The Linux system-call interface: take the call from the trap frame,
//! dispatch by number through the one table (table.rs, the asm-generic
//! numbers riscv64 and aarch64 share) and put the result (or -errno) back in a0. Handlers
//! live with their family, one file each: typed functions (args.rs decodes
//! the registers) returning `Result<usize, Errno>`.

mod arch;
mod args;
mod dirs;
mod fallocate;
mod fs;
mod futex;
mod io;
pub mod iocount;
mod locks;
mod memory;
mod misc;
mod mlock;
mod mmapfile;
mod netlink;
mod poll;
mod ppoll;
mod process;
mod sendfile;
mod signal;
mod sockconn;
mod socket;
mod sockmmsg;
mod sockmsg;
mod sockopt;
mod sockoptbytes;
mod splice;
mod stat;
mod statfs;
mod sync;
mod thread;
mod time;
mod userbuf;
mod timer;

use crate::mm::uaccess::UserSpace;
use crate::sched::current;
use args::Args;
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use gometal_core::linux::errno::{Errno, ENOSYS};
use gometal_core::linux::sysno::{self as nr, name};

/// What a handler returns: the value for a0, or the errno.
pub type SysResult = Result<usize, Errno>;

/// Generates `dispatch` from the table in table.rs.
macro_rules! syscall_table {
    ($($nr:ident => $handler:path,)*) => {
        /// Runs the handler for system call `number`.
        pub(super) fn dispatch(number: usize, user: &mut UserSpace, a: &Args) -> SysResult {
            match number {
                $(nr::$nr => Handler::call($handler, user, a),)*
                _ => unknown(number),
            }
        }
    };
}

mod table;
use table::dispatch;

/// Handles the system call in the current thread's trap frame.
pub fn syscall(user: &mut UserSpace) {
    let t = current();
    let frame = t.frame();
    let number = frame.syscall_number();
    let args: Args = core::array::from_fn(|i| frame.arg(i));
    drop(t);
    if number == nr::RT_SIGRETURN {
        // Restores every register, a0 included: nothing to return.
        crate::signal::sigreturn(user, &current());
        return;
    }
    if let Some(c) = COUNTS.get(number) {
        c.fetch_add(1, Ordering::Relaxed);
    }
    let result = dispatch(number, user, &args);
    if TRACE.load(Ordering::Relaxed) {
        trace(number, &args, result);
    }
    let value = match result {
        Ok(v) => v as u64,
        Err(e) => e.to_register(),
    };
    current().frame().set_ret(value);
}

/// One strace-like line: the first four arguments raw, the result as a
/// number or an errno name.
fn trace(number: usize, a: &Args, result: SysResult) {
    let tid = current().tid;
    let call = name(number);
    match result {
        Ok(v) if v < 1 << 20 => crate::println!("[tid {tid}] {call}({:#x}, {:#x}, {:#x}, {:#x}) = {v}", a[0], a[1], a[2], a[3]),
        Ok(v) => crate::println!("[tid {tid}] {call}({:#x}, {:#x}, {:#x}, {:#x}) = {v:#x}", a[0], a[1], a[2], a[3]),
        Err(e) => crate::println!(
            "[tid {tid}] {call}({:#x}, {:#x}, {:#x}, {:#x}) = -1 {e} ({})",
            a[0],
            a[1],
            a[2],
            a[3],
            e.value()
        ),
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

static TRACE: AtomicBool = AtomicBool::new(false);

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

//! The serial console (UART): the kernel's own messages. The program's
//! stdin/stdout/stderr use it only as a fallback, on a machine without the
//! virtio console (stdio/); bytes arriving on the UART are buffered here
//! for that fallback's stdin. /dev/console and /dev/tty are this console
//! as a file (`ConsoleFile`).

use crate::drivers::uart;
use crate::fs::fd::OpenFile;
use crate::fs::file::{File, Opener};
use crate::fs::pollhub::PollHub;
use crate::fs::stat::Stat;
use crate::sched::wait::WaitQueue;
use alloc::collections::VecDeque;
use alloc::sync::Arc;
use core::fmt::{self, Write};
use gometal_core::errno::{Errno, EAGAIN, EINTR};
use crate::sync::{Lock, LockClass};

/// Serializes output so lines from different CPUs do not interleave.
static OUTPUT: Lock<()> = Lock::new(LockClass::ConsoleOutput, ());

struct Input {
    bytes: VecDeque<u8>,
    /// An end-of-transmission byte (Ctrl-D, 0x04) arrived: the next read
    /// that finds no data returns 0 (end of file), like a terminal.
    eof: bool,
}

static INPUT: Lock<Input> = Lock::new(LockClass::ConsoleInput, Input { bytes: VecDeque::new(), eof: false });
/// Readers waiting for input (read on fd 0, and epoll on it).
pub static INPUT_WAITERS: WaitQueue = WaitQueue::new();

const EOT: u8 = 0x04;
/// Input kept for a program that does not read it; beyond this the UART's
/// receive interrupt is turned off, so QEMU holds further input back.
const INPUT_LIMIT: usize = 64 * 1024;

pub fn write_bytes(bytes: &[u8]) {
    let _guard = OUTPUT.lock();
    for &b in bytes {
        uart::put_byte(b);
    }
}

struct Kernel;

impl Write for Kernel {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for &b in s.as_bytes() {
            uart::put_byte(b);
        }
        Ok(())
    }
}

pub fn print_fmt(args: fmt::Arguments) {
    let _guard = OUTPUT.lock();
    let _ = Kernel.write_fmt(args);
}

/// Prints even if the output lock is held (for panics).
pub fn print_fmt_unlocked(args: fmt::Arguments) {
    let _ = Kernel.write_fmt(args);
}

#[macro_export]
macro_rules! print {
    ($($arg:tt)*) => { $crate::console::print_fmt(format_args!($($arg)*)) };
}

#[macro_export]
macro_rules! println {
    () => { $crate::print!("\n") };
    ($($arg:tt)*) => { $crate::console::print_fmt(format_args!("{}\n", format_args!($($arg)*))) };
}

/// Waits until everything written has left the UART.
pub fn drain() {
    let _guard = OUTPUT.lock();
    uart::drain();
}

/// Moves received bytes from the UART into the input buffer (interrupt).
pub fn receive() {
    let mut got = false;
    {
        let mut input = INPUT.lock();
        while input.bytes.len() < INPUT_LIMIT {
            let Some(b) = uart::get_byte() else { break };
            if b == EOT {
                input.eof = true;
            } else {
                input.bytes.push_back(b);
            }
            got = true;
        }
        if input.bytes.len() >= INPUT_LIMIT {
            uart::set_receive_interrupt(false);
        }
    }
    if got {
        INPUT_WAITERS.wake_all();
        crate::fs::epoll::notify();
    }
}

/// Whether a read of stdin would not block.
pub fn input_ready() -> bool {
    let input = INPUT.lock();
    !input.bytes.is_empty() || input.eof
}

/// Takes up to `buf.len()` buffered bytes; Some(0) means end of file, None
/// means nothing yet.
pub fn take_input(buf: &mut [u8]) -> Option<usize> {
    let mut input = INPUT.lock();
    if input.bytes.is_empty() {
        if input.eof {
            input.eof = false;
            return Some(0);
        }
        return None;
    }
    let n = buf.len().min(input.bytes.len());
    for (i, b) in input.bytes.drain(..n).enumerate() {
        buf[i] = b;
    }
    if input.bytes.len() < INPUT_LIMIT / 2 {
        uart::set_receive_interrupt(true);
    }
    Some(n)
}

/// Reads console input, waiting for some unless `nonblocking`; Ok(0) is
/// end of file (Ctrl-D).
pub fn read(buf: &mut [u8], nonblocking: bool) -> Result<usize, Errno> {
    if nonblocking {
        return take_input(buf).ok_or(EAGAIN);
    }
    INPUT_WAITERS.wait_until(None, || take_input(buf)).map_err(|_| EINTR)
}

/// /dev/console and /dev/tty, open.
pub struct ConsoleFile;

impl File for ConsoleFile {
    fn read(&self, of: &OpenFile, buf: &mut [u8], _: Option<u64>) -> Result<usize, Errno> {
        read(buf, of.nonblocking())
    }

    fn write(&self, _: &OpenFile, data: &[u8], _: Option<u64>) -> Result<usize, Errno> {
        write_bytes(data);
        Ok(data.len())
    }

    fn stat(&self) -> Stat {
        Stat::char_device(0o620, (5, 1))
    }

    fn poll_hub(&self) -> Option<PollHub> {
        Some(PollHub::Global)
    }

    fn poll(&self, _: &OpenFile) -> (u32, u64) {
        let generation = crate::fs::epoll::global_generation(); // before the look
        (crate::fs::epoll::in_out(input_ready(), true), generation)
    }
}

impl Opener for ConsoleFile {
    fn open(&self, _: u32) -> Result<Arc<dyn File>, Errno> {
        Ok(Arc::new(ConsoleFile))
    }

    fn rdev(&self) -> (u32, u32) {
        (5, 1)
    }
}

/// Puts /dev/console and /dev/tty in the tree (boot, after the initramfs).
pub fn publish_files() {
    crate::drivers::virtio::console::set_on_ready(crate::fs::epoll::notify);
    for path in [&b"/dev/console"[..], b"/dev/tty"] {
        crate::fs::tree::add_at(path, crate::fs::inode::Inode::new_device(Arc::new(ConsoleFile)));
    }
}

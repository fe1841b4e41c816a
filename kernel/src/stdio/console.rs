//! Input from the serial console (the UART the device tree names), for
//! the program's stdin on a machine without the virtio console, and
//! /dev/console and /dev/tty as files (`ConsoleFile`). Bytes arriving on
//! the UART are buffered here; output is the kernel's console
//! (console.rs), the same UART.

use crate::drivers::uart;
use crate::fs::fd::OpenFile;
use crate::fs::file::{File, Opener};
use crate::fs::pollhub::PollHub;
use crate::fs::stat::Stat;
use crate::sched::wait::WaitQueue;
use crate::sync::{Lock, LockClass};
use alloc::collections::VecDeque;
use alloc::sync::Arc;
use gometal_core::linux::errno::{Errno, EAGAIN, EINTR};

struct Input {
    bytes: VecDeque<u8>,
    /// An end-of-transmission byte (Ctrl-D, 0x04) arrived: the next read
    /// that finds no data returns 0 (end of file), like a terminal.
    eof: bool,
}

static INPUT: Lock<Input> = Lock::new(LockClass::ConsoleInput, Input { bytes: VecDeque::new(), eof: false });
/// Readers waiting for input (read on fd 0, and epoll on it).
static INPUT_WAITERS: WaitQueue = WaitQueue::new();

const EOT: u8 = 0x04;
/// Input kept for a program that does not read it; beyond this the UART's
/// receive interrupt is turned off, so QEMU holds further input back.
const INPUT_LIMIT: usize = 64 * 1024;

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
fn take_input(buf: &mut [u8]) -> Option<usize> {
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
        crate::console::write_bytes(data);
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

//! The program's stdin, stdout and stderr (fds 0-2) as a Linux process has
//! them: each on its own virtio-console port (drivers/virtio/console.rs),
//! so input is byte-exact with a real end of file, output keeps the two
//! streams apart, and kernel messages (the UART) never mix into them.
//! The CLI wires port 1 to its stdin, 2 to its stdout, 3 to its stderr,
//! and says on the command line which of those are terminals (`tty=0,1,2`)
//! and whether stderr is the very same file as stdout (`stderr=stdout`,
//! then fd 2 writes go to port 2 as well, so the order of the two streams
//! survives, as with a shell's `2>&1`).
//!
//! Without the console device (a board, an image QEMU boots without
//! gometal) the three use the console UART the device tree names, as a
//! Linux serial console: one stream for stdout and stderr (the kernel's
//! lines among them), Ctrl-D as end of input, no terminal (isatty false).
//!
//! The three are files of their own (file.rs) that fds 0-2 start with; a
//! stream whose host side is a terminal answers the terminal ioctls (tty.rs).

pub mod console;
mod file;
pub mod hostsig;
mod tty;

pub use file::open_files;

use crate::drivers::virtio::console as vcon;
use core::sync::atomic::{AtomicBool, Ordering};
use gometal_core::linux::errno::{Errno, EAGAIN, EINTR, EPIPE};

/// Which of the three standard streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    In = 0,
    Out = 1,
    Err = 2,
}

static TTY: [AtomicBool; 3] = [AtomicBool::new(false), AtomicBool::new(false), AtomicBool::new(false)];
static STDERR_TO_STDOUT: AtomicBool = AtomicBool::new(false);

/// Applies the command line's `tty=` and `stderr=stdout`.
pub fn configure(tty: [bool; 3], stderr_to_stdout: bool) {
    for (flag, on) in TTY.iter().zip(tty) {
        flag.store(on, Ordering::Relaxed);
    }
    STDERR_TO_STDOUT.store(stderr_to_stdout, Ordering::Relaxed);
}

fn port(s: Stream) -> Option<usize> {
    let p = match s {
        Stream::In => 1,
        Stream::Out => 2,
        Stream::Err if STDERR_TO_STDOUT.load(Ordering::Relaxed) => 2,
        Stream::Err => 3,
    };
    vcon::has_port(p).then_some(p)
}

/// Whether the host side of `s` is a terminal (isatty, TCGETS). On the UART
/// fallback the answer is no: a serial line without termios.
pub fn is_tty(s: Stream) -> bool {
    port(s).is_some() && TTY[s as usize].load(Ordering::Relaxed)
}

/// Reads stdin: Ok(0) is end of file.
pub fn read(s: Stream, buf: &mut [u8], nonblocking: bool) -> Result<usize, Errno> {
    let Some(p) = port(s) else { return console::read(buf, nonblocking) };
    let mut take = || match vcon::take_input(p, buf) {
        vcon::Input::Data(n) => Some(n),
        vcon::Input::EndOfFile => Some(0),
        vcon::Input::Empty => None,
    };
    if nonblocking {
        return take().ok_or(EAGAIN);
    }
    vcon::INPUT_WAITERS.wait_until(None, take).map_err(|_| EINTR)
}

/// Writes to stdout or stderr; EPIPE when the host's reader went away.
pub fn write(s: Stream, bytes: &[u8]) -> Result<usize, Errno> {
    let Some(p) = port(s) else {
        crate::console::write_bytes(bytes);
        return Ok(bytes.len());
    };
    vcon::write(p, bytes).map_err(|e| match e {
        vcon::WriteError::Closed => EPIPE,
        vcon::WriteError::Interrupted => EINTR,
    })
}

/// Whether a read of `s` would not block (epoll, poll).
pub fn readable(s: Stream) -> bool {
    match port(s) {
        Some(p) => vcon::input_ready(p),
        None => console::input_ready(),
    }
}

//! The kernel's own messages: `print!`/`println!` and the panic path.
//! This is the bottom of the layer order (docs/architecture.md, "Layers"):
//! it imports only sync/, so every module may print without depending on
//! the modules above. The device that carries the bytes registers itself
//! as the sink at boot (start/: the console UART's driver, which falls
//! back to the firmware's console until it has found a port), as Linux's
//! printk reaches console drivers. Input from the console and
//! /dev/console as a file are stdio/console.rs.

use crate::sync::{Lock, LockClass};
use core::fmt::{self, Write};
use spin::Once;

/// Serializes output so lines from different CPUs do not interleave.
static OUTPUT: Lock<()> = Lock::new(LockClass::ConsoleOutput, ());

/// Where the bytes go: a byte at a time, and a wait until all have left.
#[derive(Clone, Copy)]
pub struct Sink {
    pub put_byte: fn(u8),
    pub drain: fn(),
}

static SINK: Once<Sink> = Once::new();

/// Registers the device that carries the kernel's messages (once, first
/// thing at boot; until then, and without one, output is dropped).
pub fn set_sink(sink: Sink) {
    SINK.call_once(|| sink);
}

fn put(bytes: &[u8]) {
    if let Some(sink) = SINK.get() {
        for &b in bytes {
            (sink.put_byte)(b);
        }
    }
}

/// Writes `bytes` as they are (the program's output where the machine has
/// no virtio console: stdio/).
pub fn write_bytes(bytes: &[u8]) {
    let _guard = OUTPUT.lock();
    put(bytes);
}

struct Kernel;

impl Write for Kernel {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        put(s.as_bytes());
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

/// Waits until everything written has left the device.
pub fn drain() {
    let _guard = OUTPUT.lock();
    if let Some(sink) = SINK.get() {
        (sink.drain)();
    }
}

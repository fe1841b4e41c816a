//! The console UART: the port the device tree names as the console
//! (boot/serial.rs), driven by the driver its `compatible` asks for. The
//! kernel's messages go here, and the program's stdin/stdout/stderr when
//! the machine has no virtio console (stdio.rs). With no port we can
//! drive, output goes through the firmware's console (SBI) instead: slow,
//! output only, but a board whose UART we lack still says what happens.

mod ns16550;
mod pl011;
mod sifive;

use crate::boot::serial::SerialNode;
use ns16550::Ns16550;
use pl011::Pl011;
use sifive::Sifive;
use spin::Once;

enum Uart {
    Ns16550(Ns16550),
    Pl011(Pl011),
    Sifive(Sifive),
}

static UART: Once<Uart> = Once::new();

/// What drives a port with this `compatible` list, if anything does.
fn model(compatible: &[alloc::string::String]) -> Option<&'static str> {
    compatible.iter().find_map(|c| match c.as_str() {
        "ns16550a" | "ns16550" | "snps,dw-apb-uart" => Some("16550"),
        "sifive,uart0" | "sifive,fu540-c000-uart" | "sifive,fu740-c000-uart" => Some("sifive"),
        "arm,pl011" => Some("pl011"),
        _ => None,
    })
}

/// Chooses the console: `stdout` (the device tree's choice) if a driver
/// here handles it, else the first port in `all` that one does. Returns
/// the port it drives, or None (the firmware console then).
pub fn init<'a>(stdout: Option<&'a SerialNode>, all: &'a [SerialNode]) -> Option<&'a SerialNode> {
    // The console the firmware chose, whether or not we drive it (then
    // the firmware console, rather than a guess at another port).
    let node = match stdout {
        Some(n) => n,
        None => all.iter().find(|n| model(&n.compatible).is_some())?,
    };
    let uart = match model(&node.compatible)? {
        // SAFETY: the base of a device-tree node whose compatible names a sifive,uart0.
        "sifive" => Uart::Sifive(unsafe { Sifive::new(node.base) }),
        // SAFETY: the base of a device-tree node whose compatible names an arm,pl011.
        "pl011" => Uart::Pl011(unsafe { Pl011::new(node.base) }),
        // SAFETY: the base of a node whose compatible names a 16550, with its register layout.
        _ => Uart::Ns16550(unsafe { Ns16550::new(node.base, node.reg_shift, node.reg_io_width) }),
    };
    UART.call_once(|| uart);
    Some(node)
}

pub fn put_byte(b: u8) {
    match UART.get() {
        Some(Uart::Ns16550(u)) => u.put_byte(b),
        Some(Uart::Pl011(u)) => u.put_byte(b),
        Some(Uart::Sifive(u)) => u.put_byte(b),
        None => crate::arch::firmware_console_put(b),
    }
}

/// A received byte, if one is waiting (never, on the firmware console).
pub fn get_byte() -> Option<u8> {
    match UART.get()? {
        Uart::Ns16550(u) => u.get_byte(),
        Uart::Pl011(u) => u.get_byte(),
        Uart::Sifive(u) => u.get_byte(),
    }
}

/// Turns the received-data interrupt on or off (flow control for a program
/// that does not read its input).
pub fn set_receive_interrupt(on: bool) {
    match UART.get() {
        Some(Uart::Ns16550(u)) => u.set_receive_interrupt(on),
        Some(Uart::Pl011(u)) => u.set_receive_interrupt(on),
        Some(Uart::Sifive(u)) => u.set_receive_interrupt(on),
        None => {}
    }
}

/// Waits until every byte written has left the transmitter, so that
/// powering off loses nothing.
pub fn drain() {
    match UART.get() {
        Some(Uart::Ns16550(u)) => u.drain(),
        Some(Uart::Pl011(u)) => u.drain(),
        Some(Uart::Sifive(u)) => u.drain(),
        None => {}
    }
}

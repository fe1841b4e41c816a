//! Which code handles each device interrupt line: drivers and the layers
//! above them (the console, the NIC, UIO) register a handler for their
//! line at boot, and the trap code dispatches to it — so the trap code
//! needs to know no device, and no driver calls up into net/ or uio/.
//! Lines are the interrupt controller's numbers (PLIC sources, GIC
//! INTIDs); each has at most one handler, set once and read without a
//! lock on every interrupt.

use core::sync::atomic::{AtomicU64, Ordering};
use spin::Once;

/// Lines a controller can have (the PLIC's 1024 sources; GIC SPIs end at 1019).
pub const MAX_LINES: usize = 1024;

/// A device interrupt handler; it gets the line it was registered for.
pub type Handler = fn(u32);

static HANDLERS: [Once<Handler>; MAX_LINES] = [const { Once::new() }; MAX_LINES];
static SPURIOUS: AtomicU64 = AtomicU64::new(0);

/// Makes `handler` the handler of `line`; the caller routes the line to a
/// CPU (arch::route_irq). False if the line is out of range or already has
/// a handler.
pub fn register(line: u32, handler: Handler) -> bool {
    let Some(slot) = HANDLERS.get(line as usize) else { return false };
    let mut fresh = false;
    slot.call_once(|| {
        fresh = true;
        handler
    });
    fresh
}

/// Registers `handler` for `line` and routes the line to the boot CPU: what
/// the kernel's own devices (console, NIC, storage) do.
pub fn attach(line: u32, handler: Handler) -> bool {
    let fresh = register(line, handler);
    if fresh {
        crate::arch::route_irq(line, crate::sched::cpu::cpu(0).hwid());
    }
    fresh
}

/// Runs the handler of `line` (called by the trap code, which completes
/// the interrupt at the controller afterwards).
pub fn dispatch(line: u32) {
    match HANDLERS.get(line as usize).and_then(|s| s.get()) {
        Some(handler) => handler(line),
        None => {
            SPURIOUS.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Interrupts that arrived on a line nobody registered.
pub fn spurious() -> u64 {
    SPURIOUS.load(Ordering::Relaxed)
}

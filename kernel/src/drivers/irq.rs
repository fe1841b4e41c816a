//! Which code handles each device interrupt line: drivers and the layers
//! above them (the console, the NIC, UIO) register a handler for their
//! line at boot, and the trap code dispatches to it — so the trap code
//! needs to know no device, and no driver calls up into net/ or uio/.
//! Lines are the interrupt controller's numbers (PLIC sources, GIC
//! INTIDs); each has at most one handler, set once and read without a
//! lock on every interrupt. A line several devices share (PCI INTx: four
//! lines for every slot on the bus) gets a handler that runs each of its
//! devices' handlers in turn; each device looks at its own status.

use core::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use spin::Once;

/// Lines a controller can have (the PLIC's 1024 sources; GIC SPIs end at 1019).
pub const MAX_LINES: usize = 1024;

/// A device interrupt handler; it gets the line it was registered for.
pub type Handler = fn(u32);

static HANDLERS: [Once<Handler>; MAX_LINES] = [const { Once::new() }; MAX_LINES];
static SPURIOUS: AtomicU64 = AtomicU64::new(0);

/// Makes `handler` the handler of `line`; the caller routes the line to a
/// CPU (irqchip::route_irq). False if the line is out of range or already has
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
        super::irqchip::route_irq(line, crate::sched::cpu::cpu(0).hwid());
    }
    fresh
}

/// Handlers of shared lines, in the order they were added.
const MAX_SHARED: usize = 32;
static SHARED: [Once<(u32, Handler)>; MAX_SHARED] = [const { Once::new() }; MAX_SHARED];
static SHARED_USED: AtomicUsize = AtomicUsize::new(0);
static IS_SHARED: [AtomicBool; MAX_LINES] = [const { AtomicBool::new(false) }; MAX_LINES];

/// Adds `handler` to the handlers of `line`, which others may share; the
/// caller routes the line. False if the line is out of range, has a
/// handler of its own (`register`), or the table of shared handlers is full.
pub fn register_shared(line: u32, handler: Handler) -> bool {
    let Some(shared) = IS_SHARED.get(line as usize) else { return false };
    let first = register(line, run_shared);
    if first {
        shared.store(true, Ordering::Release);
    } else if !shared.load(Ordering::Acquire) {
        return false;
    }
    let i = SHARED_USED.fetch_add(1, Ordering::AcqRel);
    let Some(slot) = SHARED.get(i) else { return false };
    slot.call_once(|| (line, handler));
    true
}

/// `register_shared`, and routes the line to the boot CPU.
pub fn attach_shared(line: u32, handler: Handler) -> bool {
    let ok = register_shared(line, handler);
    if ok {
        super::irqchip::route_irq(line, crate::sched::cpu::cpu(0).hwid());
    }
    ok
}

fn run_shared(line: u32) {
    for slot in &SHARED {
        match slot.get() {
            Some(&(l, handler)) if l == line => handler(line),
            _ => {}
        }
    }
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

//! How the machine ends once the program has (or the kernel panicked):
//! power off, reboot or halt, as the `onexit=` kernel option says
//! (`gometal build -on-exit`). Where the exit status cannot reach a host
//! whole — no QEMU test device, a reboot, a halt — one console line
//! carries it, so a board's serial console still tells how it went; and a
//! firmware that cannot do what was asked says so before the CPU halts.

use gometal_core::boot::bootargs::OnExit;
use spin::Once;

static MODE: Once<OnExit> = Once::new();

/// Sets what the machine does at the end (start.rs, from the command line).
pub fn configure(mode: OnExit) {
    MODE.call_once(|| mode);
}

fn say(args: core::fmt::Arguments) {
    // Unlocked: a panicking CPU may hold the console's lock, and every
    // other CPU is stopped or about to be.
    crate::console::print_fmt_unlocked(args);
    crate::drivers::uart::drain();
}

/// Ends the machine with exit status `status`; never returns.
pub fn finish(status: u32) -> ! {
    let mode = MODE.get().copied().unwrap_or_default();
    let status = status & 0xff;
    if mode != OnExit::PowerOff || !crate::arch::exit_status_reaches_host() {
        let what = match mode {
            OnExit::PowerOff => "powering off",
            OnExit::Reboot => "rebooting",
            OnExit::Halt => "halted",
        };
        say(format_args!("gometal: exit status {status}; {what}\n"));
    }
    match mode {
        OnExit::PowerOff => {
            let err = crate::arch::power_off(status);
            say(format_args!("gometal: the firmware cannot power this machine off (error {err}); halted\n"));
        }
        OnExit::Reboot => {
            let err = crate::arch::reboot();
            say(format_args!("gometal: the firmware cannot reset this machine (error {err}); halted\n"));
        }
        OnExit::Halt => {}
    }
    crate::arch::halt()
}

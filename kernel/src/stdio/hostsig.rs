//! Signals from the host: `gometal run` and `gometal exec` pass the
//! SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 they receive to
//! the program, one byte (the signal number) each on console port 4. They
//! arrive as Linux's `kill` from outside the program's pid namespace would
//! make them: process-directed, `si_code` SI_USER, `si_pid` 0.
//!
//! A byte that arrives before the program exists waits in the port's
//! queue; start calls `deliver` once the program is there.

use crate::drivers::virtio::console as vcon;
use gometal_core::signal::sigframe::SigInfo;
use gometal_core::signal as sig;

/// The console port the CLI writes signal numbers to.
const PORT: usize = 4;

/// The signals the host may send; any other byte is ignored.
const ALLOWED: [usize; 6] = [sig::SIGHUP, sig::SIGINT, sig::SIGQUIT, sig::SIGUSR1, sig::SIGUSR2, sig::SIGTERM];

/// Sends the program every signal the host has queued. Called from the
/// console's interrupt (no lock held) and once the program starts.
pub fn deliver() {
    if crate::process::try_process().is_none() {
        return;
    }
    let mut buf = [0u8; 16];
    while let vcon::Input::Data(n) = vcon::take_input(PORT, &mut buf) {
        for &b in &buf[..n] {
            let signo = b as usize;
            if ALLOWED.contains(&signo) {
                let info = SigInfo { signo: signo as i32, code: sig::SI_USER, pid_or_addr: 0, uid: 0, addr_is_fault: false, value: 0 };
                crate::signal::send_to_process(signo, info);
            }
        }
    }
}

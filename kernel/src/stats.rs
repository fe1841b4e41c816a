//! What the user sees about the run with the `stats` or `verbose` kernel
//! arguments: per-hart accounting and memory use, printed after the program
//! exits.

use crate::mm::frames;
use crate::sched::hart::{self, HartState};
use core::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

pub fn report_if_requested() {
    if !REQUESTED.load(Ordering::Relaxed) {
        return;
    }
    let ms = |ns: u64| ns / 1_000_000;
    crate::println!("gometal: per-hart statistics (placement policy {}):", crate::sched::runqueue::policy().name());
    crate::println!("  hart  state    busy_ms  idle_ms  busy%  threads_run  migrations  steals  ipis_sent  ipis_recv  syscalls  interrupts");
    for h in hart::all().iter().filter(|h| h.state() != HartState::Offline) {
        let s = &h.stats;
        let mut busy = s.busy_ns.load(Ordering::Relaxed);
        let mut idle = s.idle_ns.load(Ordering::Relaxed);
        // The period in progress (this report interrupts it).
        let since = h.period_start.load(Ordering::Relaxed);
        if since != 0 {
            let open = crate::sched::clock::monotonic_ns().saturating_sub(since);
            if h.idle.load(Ordering::Relaxed) {
                idle += open;
            } else if h.is_running() {
                busy += open;
            }
        }
        let percent = (busy * 100).checked_div(busy + idle).unwrap_or(0);
        crate::println!(
            "  {:>4}  {:<7} {:>8} {:>8} {:>5}% {:>12} {:>11} {:>7} {:>10} {:>10} {:>9} {:>11}",
            h.hartid(),
            match h.state() {
                HartState::Online => "online",
                HartState::Parked => "parked",
                HartState::Error => "error",
                _ => "booting",
            },
            ms(busy),
            ms(idle),
            percent,
            s.threads_run.load(Ordering::Relaxed),
            s.migrations.load(Ordering::Relaxed),
            s.steals.load(Ordering::Relaxed),
            s.ipis_sent.load(Ordering::Relaxed),
            s.ipis_received.load(Ordering::Relaxed),
            s.syscalls.load(Ordering::Relaxed),
            s.interrupts.load(Ordering::Relaxed),
        );
    }
    let top = crate::linux::most_frequent(8);
    if !top.is_empty() {
        let list: alloc::vec::Vec<alloc::string::String> =
            top.iter().map(|(c, n)| alloc::format!("{n} {c}")).collect();
        crate::println!("gometal: most frequent system calls: {}", list.join(", "));
    }
    let f = frames::stats();
    crate::println!(
        "gometal: memory: peak {} KiB of {} KiB in page frames, kernel heap {} KiB in use",
        f.peak * 4,
        f.total * 4,
        crate::mm::heap::used() / 1024
    );
}

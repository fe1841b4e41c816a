//! What the user sees about the run with the `stats` or `verbose` kernel
//! arguments: per-hart accounting and memory use, printed after the program
//! exits.

use crate::mm::frames;
use crate::sched::hart::{self, HartState};
use core::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Wake-to-run delays (from a wakeup making a thread runnable to a hart
/// switching to it), counted in buckets by upper bound in µs.
const DELAY_BOUNDS_US: [u64; 7] = [16, 64, 256, 1024, 4096, 16384, u64::MAX];
static DELAYS: [AtomicU64; 7] = [const { AtomicU64::new(0) }; 7];
static DELAY_MAX_NS: AtomicU64 = AtomicU64::new(0);

pub fn record_wake_delay(ns: u64) {
    let us = ns / 1000;
    let i = DELAY_BOUNDS_US.iter().position(|&b| us < b).unwrap_or(DELAY_BOUNDS_US.len() - 1);
    DELAYS[i].fetch_add(1, Ordering::Relaxed);
    DELAY_MAX_NS.fetch_max(ns, Ordering::Relaxed);
}

fn report_wake_delays() {
    let counts: alloc::vec::Vec<u64> = DELAYS.iter().map(|c| c.load(Ordering::Relaxed)).collect();
    if counts.iter().sum::<u64>() == 0 {
        return;
    }
    let labels = ["<16us", "<64us", "<256us", "<1ms", "<4ms", "<16ms", ">=16ms"];
    let parts: alloc::vec::Vec<alloc::string::String> =
        labels.iter().zip(&counts).map(|(l, c)| alloc::format!("{l} {c}")).collect();
    crate::println!(
        "gometal: wake-to-run delay: {}; max {} us",
        parts.join(", "),
        DELAY_MAX_NS.load(Ordering::Relaxed) / 1000
    );
}

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
    report_wake_delays();
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

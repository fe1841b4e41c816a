//! What the user sees about the run with the `stats` or `verbose` kernel
//! arguments: per-hart accounting and memory use, printed after the program
//! exits as tables for people, then once more as one `gometal-stats: {json}`
//! line for programs (the host's internal/kstats).

use crate::mm::frames;
use crate::sched::hart::{self, HartState};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
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

/// One hart's line of the statistics.
struct HartRow {
    hartid: usize,
    state: &'static str,
    busy_ms: u64,
    idle_ms: u64,
    percent: u64,
    counters: [u64; 7],
}

/// The counters' names, in the table's and the JSON's order.
const COUNTERS: [&str; 7] = ["threads_run", "migrations", "steals", "ipis_sent", "ipis_recv", "syscalls", "interrupts"];

fn hart_rows() -> Vec<HartRow> {
    let ms = |ns: u64| ns / 1_000_000;
    let mut rows = Vec::new();
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
        let counters = [&s.threads_run, &s.migrations, &s.steals, &s.ipis_sent, &s.ipis_received, &s.syscalls, &s.interrupts]
            .map(|c| c.load(Ordering::Relaxed));
        rows.push(HartRow {
            hartid: h.hartid(),
            state: match h.state() {
                HartState::Online => "online",
                HartState::Parked => "parked",
                HartState::Error => "error",
                _ => "booting",
            },
            busy_ms: ms(busy),
            idle_ms: ms(idle),
            percent: (busy * 100).checked_div(busy + idle).unwrap_or(0),
            counters,
        });
    }
    rows
}

pub fn report_if_requested() {
    if !REQUESTED.load(Ordering::Relaxed) {
        return;
    }
    let policy = crate::sched::runqueue::policy().name();
    let rows = hart_rows();
    crate::println!("gometal: per-hart statistics (placement policy {policy}):");
    crate::println!("  hart  state    busy_ms  idle_ms  busy%  threads_run  migrations  steals  ipis_sent  ipis_recv  syscalls  interrupts");
    for r in &rows {
        let c = &r.counters;
        crate::println!(
            "  {:>4}  {:<7} {:>8} {:>8} {:>5}% {:>12} {:>11} {:>7} {:>10} {:>10} {:>9} {:>11}",
            r.hartid, r.state, r.busy_ms, r.idle_ms, r.percent, c[0], c[1], c[2], c[3], c[4], c[5], c[6],
        );
    }
    report_wake_delays();
    let top = crate::linux::most_frequent(8);
    if !top.is_empty() {
        let list: Vec<String> = top.iter().map(|(c, n)| format!("{n} {c}")).collect();
        crate::println!("gometal: most frequent system calls: {}", list.join(", "));
    }
    let f = frames::stats();
    let heap_kib = crate::mm::heap::used() / 1024;
    crate::println!(
        "gometal: memory: peak {} KiB of {} KiB in page frames, kernel heap {} KiB in use",
        f.peak * 4,
        f.total * 4,
        heap_kib
    );
    let k = kernel_memory();
    let listed: Vec<String> = k.iter().map(|(name, v)| format!("{name} {v}")).collect();
    crate::println!("gometal: kernel memory: {}", listed.join(", "));
    let fields: String = k.iter().map(|(name, v)| format!(r#","{name}":{v}"#)).collect();
    let memory = format!(
        r#"{{"peak_kib":{},"total_kib":{},"heap_kib":{}{fields}}}"#,
        f.peak * 4,
        f.total * 4,
        heap_kib
    );
    crate::println!("gometal-stats: {}", json_line(policy, &rows, &top, &memory));
}

/// Kernel memory by category against its limit (docs/syscalls.md), as
/// (JSON name, value) pairs: the console line and the JSON share them.
fn kernel_memory() -> [(&'static str, usize); 6] {
    [
        ("heap_total_kib", crate::mm::heap::total() / 1024),
        ("pipe_peak_kib", crate::fs::pipe::buffer_peak() / 1024),
        ("watches_peak", crate::fs::epoll::watches_peak()),
        ("watches_max", crate::fs::epoll::max_watches()),
        ("threads_peak", crate::process::threads_peak()),
        ("threads_max", crate::process::max_threads()),
    ]
}

/// Everything above as one JSON object, for programs (internal/kstats
/// parses it): the table is for people.
fn json_line(policy: &str, rows: &[HartRow], top: &[(u64, &str)], memory: &str) -> String {
    let harts: Vec<String> = rows
        .iter()
        .map(|r| {
            let mut o = format!(
                r#"{{"hart":{},"state":"{}","busy_ms":{},"idle_ms":{},"busy_pct":{}"#,
                r.hartid, r.state, r.busy_ms, r.idle_ms, r.percent
            );
            for (name, v) in COUNTERS.iter().zip(r.counters) {
                o += &format!(r#","{name}":{v}"#);
            }
            o + "}"
        })
        .collect();
    let calls: Vec<String> = top.iter().map(|(c, n)| format!(r#"{{"name":"{n}","count":{c}}}"#)).collect();
    let counts: Vec<String> = DELAYS.iter().map(|c| c.load(Ordering::Relaxed).to_string()).collect();
    let bounds: Vec<String> = DELAY_BOUNDS_US[..DELAY_BOUNDS_US.len() - 1].iter().map(|b| b.to_string()).collect();
    format!(
        r#"{{"policy":"{policy}","harts":[{}],"syscalls":[{}],"wake_delay":{{"bounds_us":[{}],"counts":[{}],"max_us":{}}},"memory":{memory}}}"#,
        harts.join(","),
        calls.join(","),
        bounds.join(","),
        counts.join(","),
        DELAY_MAX_NS.load(Ordering::Relaxed) / 1000
    )
}

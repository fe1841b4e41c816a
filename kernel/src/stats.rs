//! What the user sees about the run with the `stats` or `verbose` kernel
//! arguments: per-CPU accounting and memory use, printed after the program
//! exits as tables for people, then once more as one `gometal-stats: {json}`
//! line for programs (the host's internal/kstats).

use crate::mm::frames;
use crate::sched::cpu::{self, CpuState};
use crate::sync::LockClass;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use crate::sched::latency::{self, BOUNDS_US, IDLE_EXIT_TO_RUN, IPI_TO_WAKE, TIMER_LATE, WAKE_ALL_BUSY, WAKE_WITH_IDLE_CPU};
use core::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

fn report_slowest() {
    let [woken, kicked, awake, running] = latency::slowest();
    if running == 0 {
        return;
    }
    let us = |a: u64, b: u64| b.saturating_sub(a) / 1000;
    if kicked == 0 {
        crate::println!(
            "gometal: slowest wakeup: {} us, not through a napping CPU (queued on a busy CPU, asked to preempt, or a polling one)",
            us(woken, running)
        );
    } else {
        crate::println!(
            "gometal: slowest wakeup: {} us = runnable→IPI sent {} us + IPI→CPU awake {} us + awake→running {} us",
            us(woken, running),
            us(woken, kicked),
            us(kicked, awake),
            us(awake, running)
        );
    }
}

fn report_wake_delays() {
    WAKE_WITH_IDLE_CPU.report("wake-to-run delay, a CPU was idle");
    WAKE_ALL_BUSY.report("wake-to-run delay, every CPU busy");
    IPI_TO_WAKE.report("IPI sent to idle CPU awake");
    IDLE_EXIT_TO_RUN.report("idle CPU awake to thread running");
    TIMER_LATE.report("timer deadline to sleeper woken");
    let [waker, other, preempts] = latency::handoffs();
    if waker + other > 0 {
        crate::println!(
            "gometal: wake hand-offs (the chosen CPU napped): {} run by the waker's CPU, {} by another CPU; the waker's CPU preempted its thread for one {preempts} times",
            waker,
            other
        );
        latency::HANDOFF_DELAY.report("hand-off wake-to-run delay");
    }
    report_slowest();
}

pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// One CPU's line of the statistics.
struct CpuRow {
    hwid: usize,
    state: &'static str,
    busy_ms: u64,
    idle_ms: u64,
    percent: u64,
    counters: [u64; 7],
}

/// The counters' names, in the table's and the JSON's order.
const COUNTERS: [&str; 7] = ["threads_run", "migrations", "steals", "ipis_sent", "ipis_recv", "syscalls", "interrupts"];

fn cpu_rows() -> Vec<CpuRow> {
    let ms = |ns: u64| ns / 1_000_000;
    let mut rows = Vec::new();
    for h in cpu::all().iter().filter(|h| h.state() != CpuState::Offline) {
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
        rows.push(CpuRow {
            hwid: h.hwid(),
            state: match h.state() {
                CpuState::Online => "online",
                CpuState::Parked => "parked",
                CpuState::Error => "error",
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
    let policy = crate::sched::place::policy().name();
    let rows = cpu_rows();
    crate::println!("gometal: per-CPU statistics (placement policy {policy}):");
    crate::println!("   cpu  state    busy_ms  idle_ms  busy%  threads_run  migrations  steals  ipis_sent  ipis_recv  syscalls  interrupts");
    for r in &rows {
        let c = &r.counters;
        crate::println!(
            "  {:>4}  {:<7} {:>8} {:>8} {:>5}% {:>12} {:>11} {:>7} {:>10} {:>10} {:>9} {:>11}",
            r.hwid, r.state, r.busy_ms, r.idle_ms, r.percent, c[0], c[1], c[2], c[3], c[4], c[5], c[6],
        );
    }
    report_wake_delays();
    let spurious = crate::drivers::irq::spurious();
    if spurious > 0 {
        crate::println!("gometal: {spurious} interrupts on lines no driver registered");
    }
    crate::net::nic::stats::report();
    crate::fs::share::report();
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
    let locks = report_lock_classes();
    crate::println!("gometal-stats: {}", json_line(policy, &rows, &top, &memory, &locks));
}

/// Checked kernels: prints which lock classes were taken since boot and
/// which never were, and returns them for the JSON line
/// (`,"locks":{"classes":N,"taken":[...],"never":[...]}`;
/// tests/checked_test.go unions them over boots: every class must be
/// taken by some test). Release kernels do not record them: "".
fn report_lock_classes() -> String {
    let Some(taken) = crate::sync::held::taken() else { return String::new() };
    let mut was = [false; crate::sync::lockorder::CLASSES];
    taken.for_each(|c| was[c as usize] = true);
    let names = |taken: bool| -> Vec<&str> {
        LockClass::ALL.iter().filter(|&&c| was[c as usize] == taken).map(|c| c.name()).collect()
    };
    let (yes, no) = (names(true), names(false));
    crate::println!("gometal: lock classes taken (checked kernel): {} of {}; never: {}", yes.len(), was.len(), no.join(", "));
    let quoted = |v: &[&str]| v.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(",");
    format!(r#","locks":{{"classes":{},"taken":[{}],"never":[{}]}}"#, was.len(), quoted(&yes), quoted(&no))
}

/// Kernel memory by category against its limit (docs/syscalls.md), as
/// (JSON name, value) pairs: the console line and the JSON share them.
fn kernel_memory() -> [(&'static str, usize); 9] {
    [
        ("heap_total_kib", crate::mm::heap::total() / 1024),
        ("pipe_peak_kib", crate::fs::pipe::buffer_peak() / 1024),
        ("watches_peak", crate::fs::epoll::watches_peak()),
        ("watches_max", crate::fs::epoll::max_watches()),
        ("threads_peak", crate::process::threads_peak()),
        ("threads_max", crate::process::max_threads()),
        ("kernel_stack_peak", stack_peak()),
        ("sockets_open", crate::net::counts().0),
        ("sockets_peak", crate::net::counts().1),
    ]
}

/// The deepest kernel stack use of any thread, ended or alive (at exit the
/// other CPUs are stopped, so no stack changes under the scan), but the
/// exiting one (its exit path, this report included, is not a syscall's).
fn stack_peak() -> usize {
    let me = crate::sched::current().tid;
    let live = crate::process::process().threads_snapshot().iter().filter(|t| t.tid != me).map(|t| t.stack_used()).max().unwrap_or(0);
    live.max(crate::sched::thread::stack_peak())
}

/// Everything above as one JSON object, for programs (internal/kstats
/// parses it): the table is for people. `locks` is "" or a checked
/// kernel's `,"locks":{...}` member.
fn json_line(policy: &str, rows: &[CpuRow], top: &[(u64, &str)], memory: &str, locks: &str) -> String {
    let cpus: Vec<String> = rows
        .iter()
        .map(|r| {
            let mut o = format!(
                r#"{{"cpu":{},"state":"{}","busy_ms":{},"idle_ms":{},"busy_pct":{}"#,
                r.hwid, r.state, r.busy_ms, r.idle_ms, r.percent
            );
            for (name, v) in COUNTERS.iter().zip(r.counters) {
                o += &format!(r#","{name}":{v}"#);
            }
            o + "}"
        })
        .collect();
    let calls: Vec<String> = top.iter().map(|(c, n)| format!(r#"{{"name":"{n}","count":{c}}}"#)).collect();
    // wake_delay: every wakeup (both halves of the split histogram).
    let (idle, busy) = (WAKE_WITH_IDLE_CPU.snapshot(), WAKE_ALL_BUSY.snapshot());
    let all = (core::array::from_fn(|i| idle.0[i] + busy.0[i]), idle.1.max(busy.1));
    let [waker, other, preempts] = latency::handoffs();
    let handoff = format!(
        r#"{{"by_waker_cpu":{waker},"by_other_cpu":{other},"preempts":{preempts},"delay":{}}}"#,
        histogram_json(latency::HANDOFF_DELAY.snapshot())
    );
    format!(
        r#"{{"policy":"{policy}","cpus":[{}],"syscalls":[{}],"wake_delay":{},"wake_delay_idle_cpu":{},"ipi_to_awake":{},"awake_to_run":{},"handoff":{handoff},"memory":{memory}{locks}}}"#,
        cpus.join(","),
        calls.join(","),
        histogram_json(all),
        histogram_json(idle),
        histogram_json(IPI_TO_WAKE.snapshot()),
        histogram_json(IDLE_EXIT_TO_RUN.snapshot()),
    )
}

/// A histogram snapshot as {"bounds_us":[...],"counts":[...],"max_us":N}.
fn histogram_json((counts, max_us): ([u64; 7], u64)) -> String {
    let counts: Vec<String> = counts.iter().map(|c| c.to_string()).collect();
    let bounds: Vec<String> = BOUNDS_US[..BOUNDS_US.len() - 1].iter().map(|b| b.to_string()).collect();
    format!(r#"{{"bounds_us":[{}],"counts":[{}],"max_us":{}}}"#, bounds.join(","), counts.join(","), max_us)
}

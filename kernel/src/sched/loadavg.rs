//! The load average (/proc/loadavg): every 5 s, the first CPU whose tick
//! comes after the deadline counts the runnable threads (queued or
//! running) and folds the count into the three averages
//! (gometal_core::sched::loadavg). When every CPU naps without ticks nobody
//! samples; the next reader folds in the missed samples with the count
//! it sees then (with nothing running, zeros).

use super::cpu;
use core::sync::atomic::{AtomicU64, Ordering};
use gometal_core::sched::loadavg::{fold, hundredths, EXP, INTERVAL_NS};

static NEXT_SAMPLE: AtomicU64 = AtomicU64::new(INTERVAL_NS);
static AVERAGES: [AtomicU64; 3] = [const { AtomicU64::new(0) }; 3];

/// Threads running or waiting in a run queue.
pub fn runnable() -> usize {
    cpu::all().iter().filter(|c| c.running.load(Ordering::Relaxed)).count() + (0..cpu::all().len()).map(super::runqueue::len).sum::<usize>()
}

/// Folds in the samples due by `now` (at most an hour's worth).
pub fn sample(now: u64) {
    let due = NEXT_SAMPLE.load(Ordering::Relaxed);
    if now < due {
        return;
    }
    let missed = ((now - due) / INTERVAL_NS + 1).min(720);
    if NEXT_SAMPLE.compare_exchange(due, due + missed * INTERVAL_NS, Ordering::AcqRel, Ordering::Relaxed).is_err() {
        return; // another CPU took this sample
    }
    let active = runnable() as u64;
    for (avg, exp) in AVERAGES.iter().zip(EXP) {
        let mut a = avg.load(Ordering::Relaxed);
        for _ in 0..missed {
            a = fold(a, exp, active);
        }
        avg.store(a, Ordering::Relaxed);
    }
}

/// The 1, 5 and 15 minute averages in hundredths.
pub fn averages() -> [u64; 3] {
    sample(super::clock::monotonic_ns());
    let a = |i: usize| hundredths(AVERAGES[i].load(Ordering::Relaxed));
    [a(0), a(1), a(2)]
}

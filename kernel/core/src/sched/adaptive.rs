//! The adaptive placement policy (`sched=adaptive`): where a new or woken
//! thread goes, given what the kernel has learnt about it (its Class from
//! threadprofile.rs, its last CPU and whether it keeps moving) and what
//! each CPU is doing (placement::CpuLoad). InfOS's four policies look at
//! loads only; its §5.2 asks for one that tells I/O-bound threads from
//! CPU-bound ones and minds caches. The rules:
//!
//! - **Short threads** (I/O-bound: a Go M that serves the network poller,
//!   a spinning M looking for work, sysmon) go where they start soonest.
//!   Their bursts are too short for a cache to pay back a wait, and most
//!   of the time they are what the program waits for. In order: the last
//!   CPU if it idles awake (polling, no IPI needed); any CPU idling awake;
//!   an idle CPU that naps (the kernel hands the thread to whichever CPU
//!   frees first, place.rs); else the busy CPU with the shortest queue,
//!   preferring one that runs a Long thread (a short burst costs it little
//!   and it resumes where its cache is) and then the last CPU.
//! - **Long threads** (CPU-bound: a Go M running a computation) stay where
//!   their cache is, and are spread so that no two share a CPU while
//!   another could take one: the last CPU if no other Long thread runs or
//!   waits there; else a CPU without one — idle first, then one sharing a
//!   cache with the last CPU, then the least loaded; else (more Long
//!   threads than CPUs) the CPU with the fewest, the last one on a tie.
//! - **Medium threads** keep affinity's rule (the last CPU unless it is
//!   busy while another idles, or overloaded) while they stay put; one that
//!   migrates on most runs has no cache to go back to and starts soonest,
//!   as a Short thread.
//! - **Unknown** (new) threads start soonest: Go makes an M to run
//!   something now.
//!
//! Why this suits Go: Go's own scheduler keeps one M per P running and
//! wakes a spinning M only when a P idles, so a CPU-bound M is nearly
//! always a goroutine that should keep its CPU, and a woken M nearly always
//! one the runtime waits for. Sending Short threads to busy CPUs only when
//! no CPU idles, and never stacking Long ones, keeps the kernel from
//! undoing what Go's scheduler arranged.

use crate::sched::load::{least_loaded_from, CpuLoad};
use crate::sched::threadprofile::Class;

/// Migrations per mille of runs above which a thread counts as unsettled.
pub const UNSETTLED_PM: u64 = 500;

/// What the adaptive policy knows about the thread being placed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wakee {
    /// The CPU it last ran on (None: a new thread).
    pub last: Option<usize>,
    pub class: Class,
    /// Its migration rate (per mille of runs).
    pub migrate_pm: u64,
}

/// The adaptive choice among `loads` (at least one CPU online). `cursor`
/// spreads ties between calls.
pub fn place(loads: &[CpuLoad], w: Wakee, cursor: &mut usize) -> usize {
    let last = w.last.filter(|&l| l < loads.len() && loads[l].online);
    match w.class {
        Class::Long => place_long(loads, last, cursor),
        Class::Medium if w.migrate_pm < UNSETTLED_PM => place_medium(loads, last, cursor),
        _ => place_soonest(loads, last, cursor),
    }
}

/// The first CPU (from after the cursor) that `ok` accepts, with the
/// smallest `key`.
fn best_by(loads: &[CpuLoad], cursor: &mut usize, ok: impl Fn(usize) -> bool, key: impl Fn(usize) -> usize) -> Option<usize> {
    let n = loads.len();
    let mut best: Option<usize> = None;
    for step in 1..=n {
        let i = (*cursor + step) % n;
        if loads[i].online && ok(i) && best.is_none_or(|b| key(i) < key(b)) {
            best = Some(i);
        }
    }
    if let Some(b) = best {
        *cursor = b;
    }
    best
}

fn place_soonest(loads: &[CpuLoad], last: Option<usize>, cursor: &mut usize) -> usize {
    let awake = |i: usize| loads[i].idle && loads[i].awake;
    if let Some(l) = last.filter(|&l| awake(l)) {
        return l;
    }
    if let Some(i) = best_by(loads, cursor, awake, |i| loads[i].load) {
        return i;
    }
    if let Some(l) = last.filter(|&l| loads[l].idle) {
        return l;
    }
    if let Some(i) = best_by(loads, cursor, |i| loads[i].idle, |i| loads[i].load) {
        return i;
    }
    // Every CPU busy: the shortest queue; among those a CPU running a Long
    // thread, then the last CPU.
    let key = |i: usize| loads[i].load * 4 + (loads[i].long == 0) as usize * 2 + (Some(i) != last) as usize;
    best_by(loads, cursor, |_| true, key).unwrap_or(0)
}

fn place_long(loads: &[CpuLoad], last: Option<usize>, cursor: &mut usize) -> usize {
    if let Some(l) = last.filter(|&l| loads[l].long == 0) {
        return l;
    }
    let cache = last.map(|l| loads[l].cache);
    let free = |i: usize| loads[i].long == 0;
    // Idle first, then sharing the last CPU's cache, then the least loaded.
    let key = |i: usize| (!loads[i].idle) as usize * 1000 + (Some(loads[i].cache) != cache) as usize * 500 + loads[i].load.min(499);
    if let Some(i) = best_by(loads, cursor, free, key) {
        return i;
    }
    let crowd = |i: usize| loads[i].long * 2 + (Some(i) != last) as usize;
    best_by(loads, cursor, |_| true, crowd).unwrap_or(0)
}

fn place_medium(loads: &[CpuLoad], last: Option<usize>, cursor: &mut usize) -> usize {
    let min = loads.iter().filter(|c| c.online).map(|c| c.load).min().unwrap_or(0);
    let slack = if min == 0 { 0 } else { crate::sched::load::AFFINITY_SLACK };
    match last {
        Some(l) if loads[l].load <= min + slack => l,
        _ => least_loaded_from(loads, cursor),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CPU: load (queued + running), idle, awake (polling), Long threads, cache group.
    fn c(load: usize, idle: bool, awake: bool, long: usize, cache: u16) -> CpuLoad {
        CpuLoad { online: true, load, idle, awake, long, cache }
    }
    const BUSY_LONG: CpuLoad = CpuLoad { online: true, load: 1, idle: false, awake: false, long: 1, cache: 0 };
    const BUSY_SHORT: CpuLoad = CpuLoad { online: true, load: 1, idle: false, awake: false, long: 0, cache: 0 };
    const NAPPING: CpuLoad = CpuLoad { online: true, load: 0, idle: true, awake: false, long: 0, cache: 0 };
    const POLLING: CpuLoad = CpuLoad { online: true, load: 0, idle: true, awake: true, long: 0, cache: 0 };

    fn place1(loads: &[CpuLoad], last: Option<usize>, class: Class) -> usize {
        place(loads, Wakee { last, class, migrate_pm: 0 }, &mut 0)
    }

    #[test]
    fn short_threads_go_where_they_start_soonest() {
        // An awake idle CPU beats the napping last CPU.
        assert_eq!(place1(&[NAPPING, BUSY_LONG, POLLING], Some(0), Class::Short), 2);
        // The last CPU when it is awake too.
        assert_eq!(place1(&[POLLING, BUSY_LONG, POLLING], Some(0), Class::Short), 0);
        // Napping CPUs only when none is awake, the last one first.
        assert_eq!(place1(&[NAPPING, BUSY_LONG, NAPPING], Some(2), Class::Short), 2);
        assert_eq!(place1(&[BUSY_SHORT, BUSY_LONG, NAPPING], Some(0), Class::Short), 2);
    }

    #[test]
    fn short_threads_on_a_busy_machine_preempt_a_long_thread_not_a_queue() {
        let queued = c(2, false, false, 1, 0);
        assert_eq!(place1(&[BUSY_SHORT, BUSY_LONG, queued], Some(2), Class::Short), 1);
        assert_eq!(place1(&[BUSY_LONG, BUSY_LONG], Some(1), Class::Short), 1);
    }

    #[test]
    fn long_threads_stay_home_unless_another_long_thread_is_there() {
        assert_eq!(place1(&[BUSY_SHORT, POLLING], Some(0), Class::Long), 0, "short threads leave soon");
        assert_eq!(place1(&[BUSY_LONG, BUSY_SHORT, NAPPING], Some(0), Class::Long), 2, "idle first");
        assert_eq!(place1(&[BUSY_LONG, BUSY_SHORT, BUSY_LONG], Some(0), Class::Long), 1);
    }

    #[test]
    fn long_threads_move_within_their_cache_first() {
        let l = [c(1, false, false, 1, 0), c(1, false, false, 0, 1), c(1, false, false, 0, 0)];
        assert_eq!(place1(&l, Some(0), Class::Long), 2);
    }

    #[test]
    fn more_long_threads_than_cpus_stack_evenly() {
        let l = [c(3, false, false, 2, 0), c(2, false, false, 1, 0)];
        assert_eq!(place1(&l, Some(0), Class::Long), 1);
        let even = [c(2, false, false, 1, 0), c(2, false, false, 1, 0)];
        assert_eq!(place1(&even, Some(0), Class::Long), 0, "the last CPU on a tie");
    }

    #[test]
    fn medium_threads_keep_affinity_while_settled() {
        let l = [c(2, false, false, 0, 0), c(1, false, false, 0, 0)];
        assert_eq!(place1(&l, Some(0), Class::Medium), 0);
        let moving = Wakee { last: Some(0), class: Class::Medium, migrate_pm: 900 };
        assert_eq!(place(&[BUSY_SHORT, POLLING], moving, &mut 0), 1);
        assert_eq!(place(&[BUSY_SHORT, BUSY_SHORT], Wakee { migrate_pm: 0, ..moving }, &mut 0), 0);
    }

    #[test]
    fn new_threads_start_soonest_and_offline_cpus_are_skipped() {
        let off = CpuLoad { online: false, ..POLLING };
        assert_eq!(place1(&[BUSY_LONG, off, POLLING], None, Class::Unknown), 2);
        assert_eq!(place1(&[BUSY_LONG, off], Some(1), Class::Long), 0);
    }
}

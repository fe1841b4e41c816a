//! How long an idle CPU polls for work before it naps (halt polling, as
//! KVM and Linux's haltpoll governor do it). The kernel's idle loop
//! (sched/idle.rs) asks `next_window` after every idle period that ended in
//! a nap.

/// First window after a nap that polling would have caught.
pub const GROW_START_NS: u64 = 20_000;

/// The polling window after an idle period whose naps lasted `napped_ns`
/// in all, given the window `poll_ns` it started with and the longest
/// window `max_ns`. A nap no longer than the longest window would have been
/// caught by polling: poll longer (double, from GROW_START_NS). A longer nap
/// means polling would only have burnt time: poll half as long (down to 0).
pub fn next_window(poll_ns: u64, napped_ns: u64, max_ns: u64) -> u64 {
    if napped_ns <= max_ns {
        poll_ns.saturating_mul(2).clamp(GROW_START_NS.min(max_ns), max_ns)
    } else if poll_ns <= GROW_START_NS {
        0
    } else {
        poll_ns / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: u64 = 200_000;

    #[test]
    fn short_naps_grow_the_window_to_the_limit() {
        let mut w = 0;
        let mut seen = vec![];
        for _ in 0..6 {
            w = next_window(w, 50_000, MAX);
            seen.push(w);
        }
        assert_eq!(seen, vec![20_000, 40_000, 80_000, 160_000, 200_000, 200_000]);
    }

    #[test]
    fn long_naps_shrink_it_to_nothing() {
        let mut w = MAX;
        let mut seen = vec![];
        for _ in 0..6 {
            w = next_window(w, 5_000_000, MAX);
            seen.push(w);
        }
        assert_eq!(seen, vec![100_000, 50_000, 25_000, 12_500, 0, 0]);
    }

    #[test]
    fn zero_limit_never_polls() {
        assert_eq!(next_window(0, 0, 0), 0);
        assert_eq!(next_window(0, 10, 0), 0);
        assert_eq!(next_window(5_000, 1_000_000, 0), 0);
    }
}

//! What the kernel learns about how one thread uses the CPU, for the
//! adaptive placement policy (adaptive.rs). Three online estimates, each an
//! exponentially weighted moving average (EWMA) so a thread that changes
//! role — a Go M that ran a CPU-bound goroutine and now serves the network
//! poller — is reclassified within a few bursts:
//!
//! - **burst**: CPU time from being woken to blocking again (time slices
//!   the thread was preempted at count towards the same burst: a thread
//!   that never blocks has one burst that only grows);
//! - **interval**: time from one block to the next — running plus waiting
//!   plus blocked — so `burst / interval` is the share of a CPU the thread
//!   wants and `1 / interval` its blocking rate;
//! - **migration rate**: the share (per mille) of the thread's runs that
//!   began on another CPU than the run before.
//!
//! From them `class()` says what the thread is: Short (an I/O-bound thread:
//! bursts under SHORT_BURST_NS), Long (CPU-bound: bursts of LONG_BURST_NS
//! or more, or a CPU share of at least a half), Medium, or Unknown (never
//! blocked nor ran long: a new thread).
//!
//! The kernel updates a profile only on the CPU that runs the thread (at
//! switch-in, switch-out and block), so the estimates need no lock; other
//! CPUs read only the published class.

/// Bursts shorter than this (mean) make a thread Short: it blocks again
/// before a time slice is a tenth over, so it gains more from starting at
/// once than from any cache.
pub const SHORT_BURST_NS: u64 = 250_000;
/// Bursts at least this long (mean, or the burst in progress) make a thread
/// Long: half a time slice, so such a thread is normally preempted rather
/// than blocking, and keeping its cache warm pays.
pub const LONG_BURST_NS: u64 = 2_000_000;
/// New samples weigh 1/2^EWMA_SHIFT.
const EWMA_SHIFT: u32 = 2;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Class {
    #[default]
    Unknown = 0,
    Short = 1,
    Medium = 2,
    Long = 3,
}

impl Class {
    pub fn from_u8(v: u8) -> Class {
        match v {
            1 => Class::Short,
            2 => Class::Medium,
            3 => Class::Long,
            _ => Class::Unknown,
        }
    }
}

/// One thread's estimates (all times in ns of the monotonic clock).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// EWMA of completed bursts (0: none yet).
    pub burst_ns: u64,
    /// CPU time of the burst in progress, up to the last switch-out.
    pub open_ns: u64,
    /// When the thread's current run began (0: not running).
    pub run_start: u64,
    /// EWMA of the time between blocks (0: fewer than two blocks).
    pub interval_ns: u64,
    /// When the thread last blocked (0: never).
    pub last_block: u64,
    /// EWMA of migrations per mille of runs.
    pub migrate_pm: u64,
}

fn ewma(old: u64, sample: u64) -> u64 {
    if old == 0 {
        return sample.max(1);
    }
    // old + (sample - old) / 2^k, in signed arithmetic.
    let delta = (sample as i128 - old as i128) >> EWMA_SHIFT;
    (old as i128 + delta).max(1) as u64
}

impl Profile {
    /// The thread starts running at `now`; `migrated`: on another CPU than
    /// its previous run.
    pub fn start(&mut self, now: u64, migrated: bool) {
        self.run_start = now;
        self.migrate_pm = ewma(self.migrate_pm.max(1), if migrated { 1000 } else { 1 });
    }

    /// The thread stops running at `now` (preempted, yielded or blocked):
    /// its CPU time so far joins the open burst.
    pub fn stop(&mut self, now: u64) {
        if self.run_start != 0 {
            self.open_ns += now.saturating_sub(self.run_start);
            self.run_start = 0;
        }
    }

    /// The thread blocks at `now`: the burst in progress ends.
    pub fn block(&mut self, now: u64) {
        self.stop(now);
        self.burst_ns = ewma(self.burst_ns, self.open_ns);
        self.open_ns = 0;
        if self.last_block != 0 {
            self.interval_ns = ewma(self.interval_ns, now.saturating_sub(self.last_block));
        }
        self.last_block = now;
    }

    /// The burst in progress at `now` (CPU time since the thread last
    /// blocked).
    pub fn current_burst(&self, now: u64) -> u64 {
        let running = if self.run_start == 0 { 0 } else { now.saturating_sub(self.run_start) };
        self.open_ns + running
    }

    /// The share of a CPU the thread wants, per mille (0: not known yet).
    pub fn cpu_share_pm(&self) -> u64 {
        match self.interval_ns {
            0 => 0,
            i => (self.burst_ns * 1000 / i).min(1000),
        }
    }

    /// What kind of thread this is, as of `now`.
    pub fn class(&self, now: u64) -> Class {
        let open = self.current_burst(now);
        if open >= LONG_BURST_NS || self.burst_ns >= LONG_BURST_NS {
            return Class::Long;
        }
        if self.burst_ns == 0 {
            return Class::Unknown;
        }
        if self.burst_ns < SHORT_BURST_NS && open < SHORT_BURST_NS {
            return Class::Short;
        }
        if self.cpu_share_pm() >= 500 {
            Class::Long
        } else {
            Class::Medium
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: u64 = 1_000;
    const MS: u64 = 1_000_000;

    /// Runs `bursts` cycles of `run` ns on a CPU then `sleep` ns blocked.
    fn cycle(p: &mut Profile, t: &mut u64, bursts: usize, run: u64, sleep: u64) {
        for _ in 0..bursts {
            p.start(*t, false);
            *t += run;
            p.block(*t);
            *t += sleep;
        }
    }

    #[test]
    fn a_new_thread_is_unknown_until_it_blocks_or_runs_long() {
        let mut p = Profile::default();
        assert_eq!(p.class(1), Class::Unknown);
        p.start(1_000, false);
        assert_eq!(p.class(1_000 + 100 * US), Class::Unknown);
        assert_eq!(p.class(1_000 + 3 * MS), Class::Long, "the burst in progress counts");
    }

    #[test]
    fn short_frequent_bursts_make_a_short_thread() {
        let (mut p, mut t) = (Profile::default(), 1);
        cycle(&mut p, &mut t, 20, 40 * US, 500 * US);
        assert_eq!(p.class(t), Class::Short);
        assert!(p.burst_ns.abs_diff(40 * US) < US, "{}", p.burst_ns);
        assert!(p.interval_ns.abs_diff(540 * US) < 2 * US, "{}", p.interval_ns);
        assert!(p.cpu_share_pm() < 100);
    }

    #[test]
    fn a_thread_preempted_by_ticks_is_long() {
        let (mut p, mut t) = (Profile::default(), 1);
        for _ in 0..3 {
            p.start(t, false);
            t += 4 * MS;
            p.stop(t); // the tick: preempted, not blocked
            t += 4 * MS;
        }
        assert_eq!(p.current_burst(t), 12 * MS);
        assert_eq!(p.class(t), Class::Long);
        p.block(t);
        assert_eq!(p.class(t), Class::Long, "the completed burst is long too");
    }

    #[test]
    fn medium_bursts_are_long_only_when_they_want_most_of_a_cpu() {
        let (mut p, mut t) = (Profile::default(), 1);
        cycle(&mut p, &mut t, 20, 800 * US, 200 * US);
        assert_eq!(p.class(t), Class::Long, "share {}", p.cpu_share_pm());
        let (mut q, mut t) = (Profile::default(), 1);
        cycle(&mut q, &mut t, 20, 800 * US, 5 * MS);
        assert_eq!(q.class(t), Class::Medium, "share {}", q.cpu_share_pm());
    }

    #[test]
    fn a_changed_role_is_learnt_within_sixteen_bursts() {
        let (mut p, mut t) = (Profile::default(), 1);
        cycle(&mut p, &mut t, 10, 10 * MS, 10 * US);
        assert_eq!(p.class(t), Class::Long);
        cycle(&mut p, &mut t, 16, 30 * US, 300 * US);
        assert_eq!(p.class(t), Class::Short, "burst {}", p.burst_ns);
    }

    #[test]
    fn migration_rate_follows_the_runs() {
        let mut p = Profile::default();
        for i in 0..40 {
            p.start(i * 10, true);
            p.stop(i * 10 + 5);
        }
        assert!(p.migrate_pm > 900, "{}", p.migrate_pm);
        for i in 40..80 {
            p.start(i * 10, false);
            p.stop(i * 10 + 5);
        }
        assert!(p.migrate_pm < 50, "{}", p.migrate_pm);
    }

    #[test]
    fn class_survives_a_round_trip_through_u8() {
        for c in [Class::Unknown, Class::Short, Class::Medium, Class::Long] {
            assert_eq!(Class::from_u8(c as u8), c);
        }
    }
}

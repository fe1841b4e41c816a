//! Placement policies: which CPU a new or woken thread is queued on. Each
//! policy is a small function of the CPUs' loads, chosen at boot with the
//! `sched=` kernel argument (InfOS's boot-selectable placement manager), so
//! comparing them is an experiment, not a rewrite. Idle CPUs also steal
//! work, so a policy decides where work starts, not where it must stay.
//! The first four are InfOS's and look at loads only; `adaptive`
//! (adaptive.rs) also looks at what the thread does (threadprofile.rs) and
//! at which CPUs idle awake, run CPU-bound threads or share a cache.
//! What both read of the CPUs is load.rs.

use crate::sched::adaptive::{self, Wakee};
pub use crate::sched::load::{least_loaded_from, CpuLoad, AFFINITY_SLACK};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Each placement goes to the next online CPU in turn.
    RoundRobin,
    /// A pseudo-random online CPU.
    Random,
    /// The online CPU with the fewest threads (ties: the lowest index
    /// after the last choice, so ties spread out).
    LeastLoaded,
    /// Back to the CPU the thread last ran on (its caches are warm) unless
    /// that CPU is busy while another is idle, or has more than
    /// AFFINITY_SLACK threads over the least loaded one; then least-loaded.
    Affinity,
    /// By what the thread does: I/O-bound threads where they start
    /// soonest, CPU-bound ones where their cache is, one per CPU
    /// (adaptive.rs).
    Adaptive,
}


impl Policy {
    pub const ALL: [Policy; 5] =
        [Policy::RoundRobin, Policy::Random, Policy::LeastLoaded, Policy::Affinity, Policy::Adaptive];

    pub fn parse(name: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Policy::RoundRobin => "round-robin",
            Policy::Random => "random",
            Policy::LeastLoaded => "least-loaded",
            Policy::Affinity => "affinity",
            Policy::Adaptive => "adaptive",
        }
    }
}

/// A policy with the little state some policies keep.
#[derive(Clone, Debug)]
pub struct Placer {
    pub policy: Policy,
    cursor: usize,
    rng: u64,
}

impl Placer {
    pub const fn new(policy: Policy, seed: u64) -> Placer {
        Placer { policy, cursor: 0, rng: seed | 1 }
    }

    /// The CPU (an index into `loads`) for the thread `w` (its last CPU is
    /// None for a new thread; the fixed policies look at nothing else). At
    /// least one CPU must be online; if none is, CPU 0 is returned.
    pub fn place(&mut self, loads: &[CpuLoad], w: Wakee) -> usize {
        let last = w.last;
        let online = loads.iter().filter(|h| h.online).count();
        if online == 0 {
            return 0;
        }
        match self.policy {
            Policy::RoundRobin => self.round_robin(loads),
            Policy::Random => self.random(loads, online),
            Policy::LeastLoaded => least_loaded_from(loads, &mut self.cursor),
            Policy::Adaptive => adaptive::place(loads, w, &mut self.cursor),
            Policy::Affinity => {
                // A woken thread must not wait for a busy home CPU's tick
                // while a CPU idles.
                let min = min_load(loads);
                let slack = if min == 0 { 0 } else { AFFINITY_SLACK };
                match last {
                    Some(h) if h < loads.len() && loads[h].online && loads[h].load <= min + slack => h,
                    _ => least_loaded_from(loads, &mut self.cursor),
                }
            }
        }
    }

    fn round_robin(&mut self, loads: &[CpuLoad]) -> usize {
        let n = loads.len();
        for step in 1..=n {
            let h = (self.cursor + step) % n;
            if loads[h].online {
                self.cursor = h;
                return h;
            }
        }
        0
    }

    fn random(&mut self, loads: &[CpuLoad], online: usize) -> usize {
        // xorshift64: fast and good enough to spread threads.
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        let k = (self.rng % online as u64) as usize;
        loads.iter().enumerate().filter(|(_, h)| h.online).nth(k).map_or(0, |(i, _)| i)
    }

}

fn min_load(loads: &[CpuLoad]) -> usize {
    loads.iter().filter(|h| h.online).map(|h| h.load).min().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(last: Option<usize>) -> Wakee {
        Wakee { last, ..Wakee::default() }
    }

    fn cpus(loads: &[Option<usize>]) -> Vec<CpuLoad> {
        loads.iter().map(|l| CpuLoad { online: l.is_some(), load: l.unwrap_or(0), ..CpuLoad::default() }).collect()
    }

    #[test]
    fn names_round_trip() {
        for p in Policy::ALL {
            assert_eq!(Policy::parse(p.name()), Some(p));
        }
        assert_eq!(Policy::parse("fifo"), None);
    }

    #[test]
    fn round_robin_cycles_over_online_cpus() {
        let l = cpus(&[Some(0), None, Some(5), Some(0)]);
        let mut p = Placer::new(Policy::RoundRobin, 1);
        let got: Vec<usize> = (0..6).map(|_| p.place(&l, at(None))).collect();
        assert_eq!(got, vec![2, 3, 0, 2, 3, 0]);
    }

    #[test]
    fn random_picks_only_online_cpus_and_all_of_them() {
        let l = cpus(&[Some(0), None, Some(0), Some(0)]);
        let mut p = Placer::new(Policy::Random, 42);
        let mut seen = [0; 4];
        for _ in 0..300 {
            seen[p.place(&l, at(None))] += 1;
        }
        assert_eq!(seen[1], 0);
        assert!(seen[0] > 50 && seen[2] > 50 && seen[3] > 50, "{seen:?}");
    }

    #[test]
    fn least_loaded_takes_the_minimum_and_spreads_ties() {
        let mut p = Placer::new(Policy::LeastLoaded, 1);
        assert_eq!(p.place(&cpus(&[Some(3), Some(1), Some(2)]), at(None)), 1);
        let even = cpus(&[Some(1), Some(1), Some(1)]);
        let a = p.place(&even, at(None));
        let b = p.place(&even, at(None));
        assert_ne!(a, b);
    }

    #[test]
    fn affinity_returns_home_unless_overloaded() {
        let mut p = Placer::new(Policy::Affinity, 1);
        assert_eq!(p.place(&cpus(&[Some(2), Some(1)]), at(Some(0))), 0); // within slack
        assert_eq!(p.place(&cpus(&[Some(1), Some(0)]), at(Some(0))), 1); // busy home, idle CPU
        assert_eq!(p.place(&cpus(&[Some(3), Some(1)]), at(Some(0))), 1); // overloaded
        assert_eq!(p.place(&cpus(&[Some(0), None]), at(Some(1))), 0); // home offline
        assert_eq!(p.place(&cpus(&[Some(4), Some(0)]), at(None)), 1); // new thread
    }

    #[test]
    fn no_online_cpu_means_cpu_zero() {
        let mut p = Placer::new(Policy::Random, 7);
        assert_eq!(p.place(&cpus(&[None, None]), at(Some(1))), 0);
    }
}

//! Placement policies: which hart a new or woken thread is queued on. Each
//! policy is a small function of the harts' loads, chosen at boot with the
//! `sched=` kernel argument (InfOS's boot-selectable placement manager), so
//! comparing them is an experiment, not a rewrite. Idle harts also steal
//! work, so a policy decides where work starts, not where it must stay.

/// What a policy may look at for one hart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HartLoad {
    /// The hart runs the kernel and may take threads.
    pub online: bool,
    /// Threads queued plus the one running, if any.
    pub load: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Each placement goes to the next online hart in turn.
    RoundRobin,
    /// A pseudo-random online hart.
    Random,
    /// The online hart with the fewest threads (ties: the lowest index
    /// after the last choice, so ties spread out).
    LeastLoaded,
    /// Back to the hart the thread last ran on (its caches are warm) unless
    /// that hart is busy while another is idle, or has more than
    /// AFFINITY_SLACK threads over the least loaded one; then least-loaded.
    Affinity,
}

/// How much busier than the least loaded hart a thread's last hart may be
/// before affinity gives way to balance.
pub const AFFINITY_SLACK: usize = 1;

impl Policy {
    pub const ALL: [Policy; 4] = [Policy::RoundRobin, Policy::Random, Policy::LeastLoaded, Policy::Affinity];

    pub fn parse(name: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Policy::RoundRobin => "round-robin",
            Policy::Random => "random",
            Policy::LeastLoaded => "least-loaded",
            Policy::Affinity => "affinity",
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

    /// The hart (an index into `loads`) for a thread that last ran on
    /// `last` (None for a new thread). At least one hart must be online;
    /// if none is, hart 0 is returned.
    pub fn place(&mut self, loads: &[HartLoad], last: Option<usize>) -> usize {
        let online = loads.iter().filter(|h| h.online).count();
        if online == 0 {
            return 0;
        }
        match self.policy {
            Policy::RoundRobin => self.round_robin(loads),
            Policy::Random => self.random(loads, online),
            Policy::LeastLoaded => self.least_loaded(loads),
            Policy::Affinity => {
                // A woken thread must not wait for a busy home hart's tick
                // while a hart idles.
                let min = min_load(loads);
                let slack = if min == 0 { 0 } else { AFFINITY_SLACK };
                match last {
                    Some(h) if h < loads.len() && loads[h].online && loads[h].load <= min + slack => h,
                    _ => self.least_loaded(loads),
                }
            }
        }
    }

    fn round_robin(&mut self, loads: &[HartLoad]) -> usize {
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

    fn random(&mut self, loads: &[HartLoad], online: usize) -> usize {
        // xorshift64: fast and good enough to spread threads.
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        let k = (self.rng % online as u64) as usize;
        loads.iter().enumerate().filter(|(_, h)| h.online).nth(k).map_or(0, |(i, _)| i)
    }

    fn least_loaded(&mut self, loads: &[HartLoad]) -> usize {
        let n = loads.len();
        let mut best: Option<usize> = None;
        for step in 1..=n {
            let h = (self.cursor + step) % n;
            if loads[h].online && best.is_none_or(|b| loads[h].load < loads[b].load) {
                best = Some(h);
            }
        }
        let h = best.unwrap_or(0);
        self.cursor = h;
        h
    }
}

fn min_load(loads: &[HartLoad]) -> usize {
    loads.iter().filter(|h| h.online).map(|h| h.load).min().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn harts(loads: &[Option<usize>]) -> Vec<HartLoad> {
        loads.iter().map(|l| HartLoad { online: l.is_some(), load: l.unwrap_or(0) }).collect()
    }

    #[test]
    fn names_round_trip() {
        for p in Policy::ALL {
            assert_eq!(Policy::parse(p.name()), Some(p));
        }
        assert_eq!(Policy::parse("fifo"), None);
    }

    #[test]
    fn round_robin_cycles_over_online_harts() {
        let l = harts(&[Some(0), None, Some(5), Some(0)]);
        let mut p = Placer::new(Policy::RoundRobin, 1);
        let got: Vec<usize> = (0..6).map(|_| p.place(&l, None)).collect();
        assert_eq!(got, vec![2, 3, 0, 2, 3, 0]);
    }

    #[test]
    fn random_picks_only_online_harts_and_all_of_them() {
        let l = harts(&[Some(0), None, Some(0), Some(0)]);
        let mut p = Placer::new(Policy::Random, 42);
        let mut seen = [0; 4];
        for _ in 0..300 {
            seen[p.place(&l, None)] += 1;
        }
        assert_eq!(seen[1], 0);
        assert!(seen[0] > 50 && seen[2] > 50 && seen[3] > 50, "{seen:?}");
    }

    #[test]
    fn least_loaded_takes_the_minimum_and_spreads_ties() {
        let mut p = Placer::new(Policy::LeastLoaded, 1);
        assert_eq!(p.place(&harts(&[Some(3), Some(1), Some(2)]), None), 1);
        let even = harts(&[Some(1), Some(1), Some(1)]);
        let a = p.place(&even, None);
        let b = p.place(&even, None);
        assert_ne!(a, b);
    }

    #[test]
    fn affinity_returns_home_unless_overloaded() {
        let mut p = Placer::new(Policy::Affinity, 1);
        assert_eq!(p.place(&harts(&[Some(2), Some(1)]), Some(0)), 0); // within slack
        assert_eq!(p.place(&harts(&[Some(1), Some(0)]), Some(0)), 1); // busy home, idle hart
        assert_eq!(p.place(&harts(&[Some(3), Some(1)]), Some(0)), 1); // overloaded
        assert_eq!(p.place(&harts(&[Some(0), None]), Some(1)), 0); // home offline
        assert_eq!(p.place(&harts(&[Some(4), Some(0)]), None), 1); // new thread
    }

    #[test]
    fn no_online_hart_means_hart_zero() {
        let mut p = Placer::new(Policy::Random, 7);
        assert_eq!(p.place(&harts(&[None, None]), Some(1)), 0);
    }
}

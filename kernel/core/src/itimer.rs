//! Interval timers as Linux has them (setitimer, timer_create): an expiry
//! on some clock and a period, how many expirations a late check counts
//! (the overrun), and the clock ids that name a thread's or a process's
//! CPU-time clock (`pthread_getcpuclockid`, `clock_getcpuclockid`).
//! Pure logic; the kernel keeps the timers and reads the clocks.

/// An armed or disarmed timer on one clock, in that clock's nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Interval {
    /// The next expiry; 0: disarmed.
    pub next: u64,
    /// The period after each expiry; 0: one-shot.
    pub period: u64,
}

impl Interval {
    /// Arms for `value` ns from `now` (relative) and then every `period`;
    /// a value of 0 disarms, as Linux's it_value of zero.
    pub fn arm_relative(now: u64, value: u64, period: u64) -> Self {
        if value == 0 {
            return Interval::default();
        }
        Interval { next: now.saturating_add(value).max(1), period }
    }

    /// Arms for the absolute time `at` (TIMER_ABSTIME); 0 disarms. A time
    /// already past fires at the next check.
    pub fn arm_absolute(at: u64, period: u64) -> Self {
        Interval { next: at, period }
    }

    pub fn armed(&self) -> bool {
        self.next != 0
    }

    /// At `now`: 0 if not due, else the expirations since the last check
    /// (1 + overruns); a periodic timer moves to its next expiry after
    /// `now`, a one-shot one disarms.
    pub fn expire(&mut self, now: u64) -> u64 {
        if self.next == 0 || now < self.next {
            return 0;
        }
        if self.period == 0 {
            self.next = 0;
            return 1;
        }
        let late = now - self.next;
        let count = late / self.period + 1;
        self.next = self.next.saturating_add(count.saturating_mul(self.period));
        count
    }

    /// What timer_gettime and getitimer report at `now`: the time left
    /// (never 0 while armed: Linux reports at least 1 ns) and the period.
    pub fn remaining(&self, now: u64) -> (u64, u64) {
        if self.next == 0 {
            return (0, self.period);
        }
        (self.next.saturating_sub(now).max(1), self.period)
    }
}

/// A clock a timer or clock_gettime can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    Realtime,
    Monotonic,
    Boottime,
    /// CPU time of the whole process.
    ProcessCpu,
    /// CPU time of one thread (0: the calling thread).
    ThreadCpu(u32),
}

pub const CLOCK_REALTIME: i32 = 0;
pub const CLOCK_MONOTONIC: i32 = 1;
pub const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
pub const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
pub const CLOCK_MONOTONIC_RAW: i32 = 4;
pub const CLOCK_REALTIME_COARSE: i32 = 5;
pub const CLOCK_MONOTONIC_COARSE: i32 = 6;
pub const CLOCK_BOOTTIME: i32 = 7;
pub const CLOCK_REALTIME_ALARM: i32 = 8;
pub const CLOCK_BOOTTIME_ALARM: i32 = 9;

/// Decodes a clock id; `pid` is the process's. Negative ids are Linux's
/// CPU clocks of a given process or thread: `(~id_of_it << 3) | kind`,
/// bit 2 set for a thread, kind 0 (prof), 1 (virt) or 2 (sched) — all
/// three read as the CPU time here. None: EINVAL.
pub fn decode_clock(id: i32, pid: u32) -> Option<Clock> {
    match id {
        CLOCK_REALTIME | CLOCK_REALTIME_COARSE | CLOCK_REALTIME_ALARM => Some(Clock::Realtime),
        CLOCK_MONOTONIC | CLOCK_MONOTONIC_RAW | CLOCK_MONOTONIC_COARSE => Some(Clock::Monotonic),
        CLOCK_BOOTTIME | CLOCK_BOOTTIME_ALARM => Some(Clock::Boottime),
        CLOCK_PROCESS_CPUTIME_ID => Some(Clock::ProcessCpu),
        CLOCK_THREAD_CPUTIME_ID => Some(Clock::ThreadCpu(0)),
        id if id < 0 => {
            if id & 3 == 3 {
                return None; // CPUCLOCK_MAX: no such kind
            }
            let who = !(id >> 3) as u32;
            if id & 4 != 0 {
                Some(Clock::ThreadCpu(who))
            } else if who == 0 || who == pid {
                Some(Clock::ProcessCpu)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The clock id `pthread_getcpuclockid` gives for thread `tid` (sched kind).
pub fn thread_cpu_clock(tid: u32) -> i32 {
    ((!(tid as i32)) << 3) | 6
}

/// sigevent's sigev_notify values.
pub const SIGEV_SIGNAL: i32 = 0;
pub const SIGEV_NONE: i32 = 1;
pub const SIGEV_THREAD: i32 = 2;
pub const SIGEV_THREAD_ID: i32 = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_shot_fires_once() {
        let mut t = Interval::arm_relative(100, 50, 0);
        assert_eq!(t.expire(149), 0);
        assert_eq!(t.expire(150), 1);
        assert!(!t.armed());
        assert_eq!(t.expire(1000), 0);
    }

    #[test]
    fn periodic_counts_overruns() {
        let mut t = Interval::arm_relative(0, 10, 10);
        assert_eq!(t.expire(10), 1);
        assert_eq!(t.next, 20);
        assert_eq!(t.expire(55), 4); // 20, 30, 40, 50
        assert_eq!(t.next, 60);
        assert_eq!(t.remaining(58), (2, 10));
    }

    #[test]
    fn zero_value_disarms() {
        assert!(!Interval::arm_relative(5, 0, 10).armed());
        assert_eq!(Interval::default().remaining(7), (0, 0));
    }

    #[test]
    fn clock_ids() {
        assert_eq!(decode_clock(3, 1), Some(Clock::ThreadCpu(0)));
        assert_eq!(decode_clock(2, 1), Some(Clock::ProcessCpu));
        assert_eq!(decode_clock(thread_cpu_clock(42), 1), Some(Clock::ThreadCpu(42)));
        // clock_getcpuclockid(getpid()): (~pid << 3) | 2
        assert_eq!(decode_clock((!1i32 << 3) | 2, 1), Some(Clock::ProcessCpu));
        assert_eq!(decode_clock((!7i32 << 3) | 2, 1), None);
        assert_eq!(decode_clock(11, 1), None);
        assert_eq!(decode_clock((!1i32 << 3) | 3, 1), None);
    }
}

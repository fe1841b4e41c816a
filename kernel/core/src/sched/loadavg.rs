//! The load average as Linux computes it (kernel/sched/loadavg.c): every
//! 5 s the number of runnable threads is folded into three exponentially
//! decaying averages (1, 5 and 15 minutes), in fixed point with 11
//! fractional bits.

/// Fractional bits.
pub const FSHIFT: u32 = 11;
pub const FIXED_1: u64 = 1 << FSHIFT;
/// Seconds between samples.
pub const INTERVAL_NS: u64 = 5_000_000_000;
/// 1/exp(5 s / 1 min), 1/exp(5 s / 5 min), 1/exp(5 s / 15 min) in fixed point.
pub const EXP: [u64; 3] = [1884, 2014, 2037];

/// One average after one more sample of `active` runnable threads.
pub fn fold(load: u64, exp: u64, active: u64) -> u64 {
    let active = active << FSHIFT;
    let mut newload = load * exp + active * (FIXED_1 - exp);
    if active >= load {
        newload += FIXED_1 - 1;
    }
    newload / FIXED_1
}

/// A fixed-point average in hundredths (loadavg's "0.42"), rounded as
/// Linux does (adding FIXED_1/200).
pub fn hundredths(load: u64) -> u64 {
    let load = load + FIXED_1 / 200;
    (load >> FSHIFT) * 100 + (((load & (FIXED_1 - 1)) * 100) >> FSHIFT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_busy_thread_approaches_one() {
        let mut avg = [0u64; 3];
        for _ in 0..12 * 15 {
            for (a, e) in avg.iter_mut().zip(EXP) {
                *a = fold(*a, e, 1);
            }
        }
        // After 15 minutes: the 1-minute average is 1.00, the 15-minute
        // one 1 - 1/e ≈ 0.63 (0.65: Linux rounds up while the load grows).
        assert_eq!(hundredths(avg[0]), 100);
        assert!((62..=66).contains(&hundredths(avg[2])), "{}", hundredths(avg[2]));
    }

    #[test]
    fn idle_decays_to_zero() {
        let mut a = 4 * FIXED_1;
        for _ in 0..12 * 10 {
            a = fold(a, EXP[0], 0);
        }
        assert_eq!(hundredths(a), 0);
        // After one minute of nothing a load of 1 is at 1/e.
        let mut b = FIXED_1;
        for _ in 0..12 {
            b = fold(b, EXP[0], 0);
        }
        assert!((36..=38).contains(&hundredths(b)), "{}", hundredths(b));
    }
}

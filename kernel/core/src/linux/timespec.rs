//! Conversions between timer ticks (the `time` CSR), nanoseconds and the
//! (seconds, nanoseconds) pairs of struct timespec. Products go through u128
//! so a 10 MHz timer running for years cannot overflow.

const NS_PER_SEC: u64 = 1_000_000_000;

/// Ticks of a `freq_hz` clock to nanoseconds (saturating; 0 if freq is 0).
pub fn ticks_to_ns(ticks: u64, freq_hz: u64) -> u64 {
    if freq_hz == 0 {
        return 0;
    }
    let ns = ticks as u128 * NS_PER_SEC as u128 / freq_hz as u128;
    ns.min(u64::MAX as u128) as u64
}

/// Nanoseconds to ticks, rounded up so a sleep never ends early.
pub fn ns_to_ticks(ns: u64, freq_hz: u64) -> u64 {
    let ticks = (ns as u128 * freq_hz as u128).div_ceil(NS_PER_SEC as u128);
    ticks.min(u64::MAX as u128) as u64
}

/// A user timespec to nanoseconds; None if invalid (EINVAL): negative
/// seconds or nanoseconds outside [0, 1e9). Saturates for huge values.
pub fn timespec_to_ns(sec: i64, nsec: i64) -> Option<u64> {
    if sec < 0 || !(0..NS_PER_SEC as i64).contains(&nsec) {
        return None;
    }
    Some(
        (sec as u64)
            .saturating_mul(NS_PER_SEC)
            .saturating_add(nsec as u64),
    )
}

pub fn ns_to_timespec(ns: u64) -> (i64, i64) {
    ((ns / NS_PER_SEC) as i64, (ns % NS_PER_SEC) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_and_ns() {
        assert_eq!(ticks_to_ns(10_000_000, 10_000_000), NS_PER_SEC);
        assert_eq!(ticks_to_ns(1, 10_000_000), 100);
        assert_eq!(ns_to_ticks(100, 10_000_000), 1);
        assert_eq!(ns_to_ticks(101, 10_000_000), 2);
        assert_eq!(ns_to_ticks(3_000, 10_000_000), 30);
        assert_eq!(ns_to_ticks(0, 10_000_000), 0);
        // Years at 10 MHz: a u64 product would overflow.
        let ten_years = 10 * 365 * 24 * 3600 * 10_000_000u64;
        assert_eq!(ticks_to_ns(ten_years, 10_000_000), ten_years * 100);
        assert_eq!(ticks_to_ns(u64::MAX, 1), u64::MAX);
        assert_eq!(ns_to_ticks(u64::MAX, u64::MAX), u64::MAX);
        assert_eq!(ticks_to_ns(5, 0), 0);
    }

    #[test]
    fn timespecs() {
        assert_eq!(timespec_to_ns(1, 500), Some(1_000_000_500));
        assert_eq!(timespec_to_ns(0, 999_999_999), Some(999_999_999));
        assert_eq!(timespec_to_ns(0, 1_000_000_000), None);
        assert_eq!(timespec_to_ns(0, -1), None);
        assert_eq!(timespec_to_ns(-1, 0), None);
        assert_eq!(timespec_to_ns(i64::MAX, 0), Some(u64::MAX));
        assert_eq!(ns_to_timespec(1_000_000_500), (1, 500));
        assert_eq!(ns_to_timespec(u64::MAX), (18_446_744_073, 709_551_615));
        for ns in [0, 1, 999_999_999, 1_000_000_000, 123_456_789_012] {
            let (s, n) = ns_to_timespec(ns);
            assert_eq!(timespec_to_ns(s, n), Some(ns));
        }
    }
}

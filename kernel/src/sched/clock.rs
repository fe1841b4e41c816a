//! Time as the kernel sees it: the architecture's counter (arch::ticks, the
//! same value on every CPU) converted to nanoseconds, and the real-time
//! clock's offset from it.

use core::sync::atomic::{AtomicU64, Ordering};
use gometal_core::linux::timespec;

static TIMEBASE_HZ: AtomicU64 = AtomicU64::new(10_000_000);
/// Unix time in ns at monotonic time 0.
static REALTIME_OFFSET_NS: AtomicU64 = AtomicU64::new(0);

pub fn init(timebase_hz: u64, rtc_now_ns: Option<u64>) {
    if timebase_hz != 0 {
        TIMEBASE_HZ.store(timebase_hz, Ordering::Relaxed);
    }
    if let Some(rtc) = rtc_now_ns {
        REALTIME_OFFSET_NS.store(rtc.saturating_sub(monotonic_ns()), Ordering::Relaxed);
    }
}

pub fn timebase_hz() -> u64 {
    TIMEBASE_HZ.load(Ordering::Relaxed)
}

/// Nanoseconds since the machine started; never goes backwards.
pub fn monotonic_ns() -> u64 {
    timespec::ticks_to_ns(crate::arch::ticks(), timebase_hz())
}

/// Unix time at monotonic time 0, in ns (the vDSO adds it itself).
pub fn realtime_offset_ns() -> u64 {
    REALTIME_OFFSET_NS.load(Ordering::Relaxed)
}

/// Nanoseconds since the Unix epoch.
pub fn realtime_ns() -> u64 {
    REALTIME_OFFSET_NS.load(Ordering::Relaxed) + monotonic_ns()
}

pub fn ns_to_ticks(ns: u64) -> u64 {
    timespec::ns_to_ticks(ns, timebase_hz())
}

/// Milliseconds since power-on at `time` value `ticks`.
pub fn ns_to_ms_since_boot(ticks: u64) -> u64 {
    timespec::ticks_to_ns(ticks, timebase_hz()) / 1_000_000
}

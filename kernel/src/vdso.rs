//! The vDSO page (arch/<arch>/vdso.S): lets Go read the clocks without a
//! system call, and is where signal handlers return (rt_sigreturn). The
//! kernel maps a copy at VDSO_BASE in every program, with the conversion
//! factor and the real-time offset filled in.

use crate::arch;
use crate::mm::frames;
use crate::sched::clock;

/// Fills the frame at `pa` with the vDSO, data words included.
pub fn fill_page(pa: u64) {
    frames::write_frame(pa, 0, arch::vdso::image());
    let data = arch::vdso::data_offset();
    // ns = ticks * factor >> 32: exact when the timebase divides 1e9 (QEMU's
    // 10 MHz does), within a part in 2^32 otherwise.
    let factor = ((1_000_000_000u128 << 32) / clock::timebase_hz() as u128) as u64;
    frames::write_frame(pa, data, &factor.to_le_bytes());
    frames::write_frame(pa, data + 8, &clock::realtime_offset_ns().to_le_bytes());
}

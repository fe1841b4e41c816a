//! The vDSO page (arch/vdso.S): lets Go read the clocks without a system
//! call. The kernel maps a copy at VDSO_BASE in every program, with the
//! conversion factor and the real-time offset filled in.

use crate::mm::frames;
use crate::sched::clock;

extern "C" {
    static vdso_start: u8;
    static vdso_end: u8;
    static vdso_data_offset: u64;
}

/// The assembled image.
fn image() -> &'static [u8] {
    let start = core::ptr::addr_of!(vdso_start);
    let len = core::ptr::addr_of!(vdso_end) as usize - start as usize;
    // SAFETY: vdso_start..vdso_end is one 4 KiB block of .rodata that the
    // assembler filled; nothing writes to it.
    unsafe { core::slice::from_raw_parts(start, len) }
}

/// Fills the frame at `pa` with the vDSO, data words included.
pub fn fill_page(pa: u64) {
    frames::write_frame(pa, 0, image());
    // SAFETY: an immutable word in .rodata, written by the assembler.
    let data = unsafe { vdso_data_offset } as usize;
    // ns = ticks * factor >> 32: exact when the timebase divides 1e9 (QEMU's
    // 10 MHz does), within a part in 2^32 otherwise.
    let factor = ((1_000_000_000u128 << 32) / clock::timebase_hz() as u128) as u64;
    frames::write_frame(pa, data, &factor.to_le_bytes());
    frames::write_frame(pa, data + 8, &clock::realtime_offset_ns().to_le_bytes());
}

//! Host tests of the config-space decoders with the values QEMU's devices
//! give and with hostile ones.

use super::*;

#[test]
fn header_layouts() {
    assert_eq!(header(0x0000_0000), (Layout::Endpoint, false));
    assert_eq!(header(0x0080_0000), (Layout::Endpoint, true));
    assert_eq!(header(0x0001_0000), (Layout::Bridge, false));
    assert_eq!(header(0x0082_0000), (Layout::Bridge, true));
    assert_eq!(header(0x007f_0000), (Layout::Unknown(0x7f), false));
    assert_eq!(header(u32::MAX), (Layout::Unknown(0x7f), true));
}

#[test]
fn pins() {
    assert_eq!(intx_pin(0x0000_0100), Some(1));
    assert_eq!(intx_pin(0x0000_0400), Some(4));
    assert_eq!(intx_pin(0), None);
    assert_eq!(intx_pin(0x0000_0500), None);
    assert_eq!(intx_pin(u32::MAX), None);
}

#[test]
fn kinds() {
    assert_eq!(bar_kind(0x0000_0000, 0), Ok(BarKind::Mem32));
    assert_eq!(bar_kind(0x0000_0008, 0), Ok(BarKind::Mem32)); // prefetchable
    assert_eq!(bar_kind(0x0000_000c, 4), Ok(BarKind::Mem64));
    assert_eq!(bar_kind(0x0000_0004, 5), Err(BarError::Mem64InLastSlot));
    assert_eq!(bar_kind(0x0000_0002, 0), Err(BarError::ReservedType));
    assert_eq!(bar_kind(0x0000_0006, 0), Err(BarError::ReservedType));
    assert_eq!(bar_kind(0x0000_0001, 5), Ok(BarKind::Io));
    assert_eq!(bar_kind(u32::MAX, 0), Ok(BarKind::Io));
}

#[test]
fn sizes_qemu_gives() {
    // edu: 1 MiB 32-bit BAR0.
    assert_eq!(bar_size(BarKind::Mem32, 0xfff0_0000, 0), Ok(Some(0x10_0000)));
    // virtio-pci: 16 KiB 64-bit prefetchable BAR4.
    assert_eq!(bar_size(BarKind::Mem64, 0xffff_c00c, 0xffff_ffff), Ok(Some(0x4000)));
    // pci-serial: 8 ports.
    assert_eq!(bar_size(BarKind::Io, 0xffff_fff9, 0), Ok(Some(8)));
    assert_eq!(bar_size(BarKind::Io, 0x0000_fff9, 0), Ok(Some(8)));
    // A 64-bit BAR of 8 GiB: the low half reads back only type bits.
    assert_eq!(bar_size(BarKind::Mem64, 0x0000_000c, 0xffff_fffe), Ok(Some(0x2_0000_0000)));
}

#[test]
fn hostile_sizes() {
    // Not implemented.
    assert_eq!(bar_size(BarKind::Mem32, 0, 0), Ok(None));
    assert_eq!(bar_size(BarKind::Mem32, 0xf, 0), Ok(None));
    assert_eq!(bar_size(BarKind::Mem64, 0xc, 0), Ok(None));
    assert_eq!(bar_size(BarKind::Io, 0xffff_0001, 0), Ok(None));
    // Holes in the mask.
    assert_eq!(bar_size(BarKind::Mem32, 0xf0f0_0000, 0), Err(BarError::BadSizeMask));
    assert_eq!(bar_size(BarKind::Mem64, 0xfff0_0000, 0x7fff_ffff), Err(BarError::BadSizeMask));
    assert_eq!(bar_size(BarKind::Io, 0x0000_f0f1, 0), Err(BarError::BadSizeMask));
    // The largest masks: 2 GiB (32-bit), 2^63 (64-bit).
    assert_eq!(bar_size(BarKind::Mem32, 0x8000_0000, 0), Ok(Some(0x8000_0000)));
    assert_eq!(bar_size(BarKind::Mem64, 0, 0x8000_0000), Ok(Some(1 << 63)));
    // Every readback decodes without panicking.
    for lo in [0u32, 1, 2, 3, 0x10, 0xffff_fff0, 0x8000_0001, u32::MAX] {
        for hi in [0u32, 1, 0x8000_0000, u32::MAX] {
            for kind in [BarKind::Mem32, BarKind::Mem64, BarKind::Io] {
                let _ = bar_size(kind, lo, hi);
            }
        }
    }
}

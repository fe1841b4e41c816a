//! Decoding raw PCI config-space words, which come from the device and so
//! may hold anything: the header type, the interrupt pin and what a BAR
//! reads back after the all-ones sizing write. Every hostile value decodes
//! to an error the kernel logs (and then skips the BAR or function), never
//! to a panic. Written here rather than taken from `pci_types`, whose
//! `EndpointHeader::bar` panics on the reserved memory BAR type and shifts
//! by 32/64 on some readbacks.

/// What dword 0x0c's header-type byte says about a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Type 0: six BARs, an interrupt pin; what UIO can hand out.
    Endpoint,
    /// Type 1 (PCI-to-PCI bridge) or 2 (CardBus bridge).
    Bridge,
    Unknown(u8),
}

/// The layout of a function and whether it is one of several at its
/// device number (bit 7, meaningful at function 0), from dword 0x0c.
pub fn header(dword_0c: u32) -> (Layout, bool) {
    let t = (dword_0c >> 16) as u8;
    let layout = match t & 0x7f {
        0 => Layout::Endpoint,
        1 | 2 => Layout::Bridge,
        other => Layout::Unknown(other),
    };
    (layout, t & 0x80 != 0)
}

/// The INTx pin (1 = INTA .. 4 = INTD) from dword 0x3c; anything else
/// (0: no interrupt, 5..255: invalid) is None.
pub fn intx_pin(dword_3c: u32) -> Option<u8> {
    let pin = (dword_3c >> 8) as u8;
    (1..=4).contains(&pin).then_some(pin)
}

/// The kind of a BAR, from the value it holds before sizing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarKind {
    Mem32,
    /// Uses this slot and the next one.
    Mem64,
    Io,
}

/// Why a BAR is not placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarError {
    /// Memory type 0b01 or 0b11 (reserved by the PCI spec).
    ReservedType,
    /// A 64-bit BAR in slot 5: there is no slot 6 for its upper half.
    Mem64InLastSlot,
    /// The sizing readback is not a run of ones above a run of zeros, so
    /// no power-of-two size fits it.
    BadSizeMask,
}

/// Decodes the type bits of BAR `slot` (0..=5) from its raw value.
pub fn bar_kind(raw: u32, slot: u8) -> Result<BarKind, BarError> {
    if raw & 1 == 1 {
        return Ok(BarKind::Io);
    }
    match (raw >> 1) & 3 {
        0 => Ok(BarKind::Mem32),
        2 if slot >= 5 => Err(BarError::Mem64InLastSlot),
        2 => Ok(BarKind::Mem64),
        _ => Err(BarError::ReservedType),
    }
}

/// The size of a BAR from what it reads back after all ones were written
/// (`hi`: the upper slot's readback, for a 64-bit BAR). `Ok(None)`: the BAR
/// is not implemented (reads back zero).
pub fn bar_size(kind: BarKind, lo: u32, hi: u32) -> Result<Option<u64>, BarError> {
    // The address bits that stuck at one, as a 64-bit mask (bits a BAR
    // cannot have are taken as ones).
    let mask = match kind {
        BarKind::Mem32 => (lo & !0xf) as u64 | 0xffff_ffff_0000_0000,
        BarKind::Mem64 => (hi as u64) << 32 | (lo & !0xf) as u64,
        // I/O decodes 16 bits of port; the upper half may read back 0.
        BarKind::Io => (lo & !3 & 0xffff) as u64 | !0xffff,
    };
    let implemented = match kind {
        BarKind::Mem32 => lo & !0xf != 0,
        BarKind::Mem64 => lo & !0xf != 0 || hi != 0,
        BarKind::Io => lo & !3 & 0xffff != 0,
    };
    if !implemented {
        return Ok(None);
    }
    let size = (!mask).wrapping_add(1);
    if size == 0 || !size.is_power_of_two() {
        return Err(BarError::BadSizeMask);
    }
    Ok(Some(size))
}

#[cfg(test)]
#[path = "pciconfig_tests.rs"]
mod tests;

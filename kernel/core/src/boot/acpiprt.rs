//! PCI INTx routing from an ACPI DSDT without an AML interpreter: reads the
//! host bridge's `_PRT` when it is a static package (`Name (_PRT,
//! Package {...})`, as QEMU's generic PCIe host writes it for arm64 and
//! riscv64 virt: hw/pci-host/gpex-acpi.c) and the `_CRS` interrupt of each
//! link device it names (`Device (GSIn)` with one Extended Interrupt
//! descriptor). A `_PRT` computed by a method, or a link whose `_CRS` is
//! not a plain resource template, is not understood: `route` says None and
//! the caller reports the device as unrouted.
//!
//! The AML encodings used (ACPI 6.5, 20.2): NameOp 0x08, PackageOp 0x12,
//! VarPackageOp 0x13, BufferOp 0x11, DeviceOp 0x5B 0x82, PkgLength, the
//! integer encodings (Zero, One, Ones, Byte/Word/DWord/QWord prefixes) and
//! NameStrings (root and parent prefixes, dual and multi name paths).

use alloc::vec::Vec;

/// Where a `_PRT` entry's pin goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A link device (its last name segment); its `_CRS` has the GSI.
    Link([u8; 4]),
    /// A global system interrupt directly (the source is Zero).
    Gsi(u32),
}

/// One `_PRT` entry: PCI device `device` (any function), INTx `pin`
/// (0 = INTA .. 3 = INTD).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub device: u8,
    pub pin: u8,
    pub source: Source,
}

/// A byte cursor over AML; every read is bounds-checked.
struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn byte(&mut self) -> Option<u8> {
        let v = *self.b.get(self.at)?;
        self.at += 1;
        Some(v)
    }

    fn le(&mut self, n: usize) -> Option<u64> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s.iter().rev().fold(0u64, |v, &x| v << 8 | x as u64))
    }

    /// A PkgLength; returns the offset where the package ends.
    fn pkg_end(&mut self) -> Option<usize> {
        let start = self.at;
        let lead = self.byte()?;
        let follow = (lead >> 6) as usize;
        let len = if follow == 0 {
            (lead & 0x3f) as usize
        } else {
            let rest = self.le(follow)? as usize;
            (lead & 0x0f) as usize | rest << 4
        };
        let end = start.checked_add(len)?;
        (end <= self.b.len()).then_some(end)
    }

    fn integer(&mut self) -> Option<u64> {
        match self.byte()? {
            0x00 => Some(0),
            0x01 => Some(1),
            0xff => Some(u64::MAX),
            0x0a => self.le(1),
            0x0b => self.le(2),
            0x0c => self.le(4),
            0x0e => self.le(8),
            _ => None,
        }
    }

    /// A NameString: its last segment (None for the null name).
    fn name(&mut self) -> Option<[u8; 4]> {
        while matches!(self.b.get(self.at), Some(b'\\') | Some(b'^')) {
            self.at += 1;
        }
        let segs = match self.byte()? {
            0x2e => 2,
            0x2f => self.byte()? as usize,
            0x00 => return None,
            _ => {
                self.at -= 1;
                1
            }
        };
        let mut last = None;
        for _ in 0..segs {
            let s = self.b.get(self.at..self.at + 4)?;
            if !(s[0].is_ascii_uppercase() || s[0] == b'_') {
                return None;
            }
            last = Some([s[0], s[1], s[2], s[3]]);
            self.at += 4;
        }
        last
    }
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

/// The entries of the first static `_PRT` in `aml` (a DSDT's body).
pub fn parse_prt(aml: &[u8]) -> Option<Vec<Entry>> {
    let at = find(aml, b"\x08_PRT", 0)? + 5;
    let mut c = Cursor { b: aml, at };
    let count = match c.byte()? {
        0x12 => {
            c.pkg_end()?;
            c.byte()? as u64
        }
        0x13 => {
            c.pkg_end()?;
            c.integer()?
        }
        _ => return None,
    };
    let mut out = Vec::new();
    for _ in 0..count {
        if c.byte()? != 0x12 {
            return None;
        }
        let end = c.pkg_end()?;
        if c.byte()? != 4 {
            return None;
        }
        let addr = c.integer()?;
        let pin = c.integer()?;
        let source = if c.b.get(c.at) == Some(&0) {
            c.at += 1;
            None
        } else {
            Some(c.name()?)
        };
        let index = c.integer()?;
        c.at = end;
        let source = match source {
            Some(n) => Source::Link(n),
            None => Source::Gsi(u32::try_from(index).ok()?),
        };
        let device = u8::try_from(addr >> 16).ok().filter(|d| *d < 32)?;
        out.push(Entry { device, pin: u8::try_from(pin).ok().filter(|p| *p < 4)?, source });
    }
    Some(out)
}

/// The first interrupt of link device `name`'s `_CRS` (an Extended
/// Interrupt descriptor, large item 0x89).
pub fn link_gsi(aml: &[u8], name: [u8; 4]) -> Option<u32> {
    let mut from = 0;
    while let Some(at) = find(aml, &[0x5b, 0x82], from) {
        from = at + 2;
        let mut c = Cursor { b: aml, at: at + 2 };
        let Some(end) = c.pkg_end() else { continue };
        if c.name() != Some(name) {
            continue;
        }
        let body = aml.get(..end)?;
        let crs = find(body, b"\x08_CRS", c.at)? + 5;
        let mut c = Cursor { b: body, at: crs };
        if c.byte()? != 0x11 {
            return None;
        }
        let buf_end = c.pkg_end()?;
        c.integer()?;
        while c.at < buf_end {
            let tag = c.byte()?;
            if tag & 0x80 == 0 {
                // Small item: length in bits 0..2; 0x79 ends the template.
                if tag == 0x79 {
                    return None;
                }
                c.at += (tag & 7) as usize;
                continue;
            }
            let len = c.le(2)? as usize;
            if tag == 0x89 && len >= 6 {
                let mut d = Cursor { b: body, at: c.at };
                d.byte()?; // flags
                if d.byte()? >= 1 {
                    return u32::try_from(d.le(4)?).ok();
                }
            }
            c.at += len;
        }
        return None;
    }
    None
}

/// The GSI that INTx `pin` (1 = INTA .. 4 = INTD) of PCI device `device`
/// on the bridge reaches, from `_PRT` and its links.
pub fn route(entries: &[Entry], aml: &[u8], device: u8, pin: u8) -> Option<u32> {
    let e = entries.iter().find(|e| e.device == device && e.pin + 1 == pin)?;
    match e.source {
        Source::Gsi(g) => Some(g),
        Source::Link(n) => link_gsi(aml, n),
    }
}

#[cfg(test)]
#[path = "acpiprt_tests.rs"]
mod tests;

//! The text formats of Linux's /proc/irq/N/smp_affinity (a hex CPU mask in
//! comma-separated groups of 8 digits, as `%*pb` prints and bitmap_parse
//! reads it) and smp_affinity_list (ranges, `0-2,5`), over the kernel's
//! CPU indexes (CPU numbers). A mask is a u64: gometal runs at most 64
//! CPUs. Which CPU an interrupt goes to is decided here too: the PLIC
//! driver on Linux routes a line to one CPU of the mask, the first online
//! one, and so does gometal.

use crate::linux::errno::{Errno, EINVAL};
use alloc::string::String;
use core::fmt::Write;

/// All CPUs of `cpus` online ones, as a mask.
pub fn all(cpus: usize) -> u64 {
    if cpus >= 64 {
        u64::MAX
    } else {
        (1u64 << cpus) - 1
    }
}

/// Parses a hex mask (`f`, `0000000f`, `0,0000000f`; a trailing newline
/// allowed). EINVAL for anything else, for a mask wider than 64 bits, and
/// for one that names no online CPU (Linux's answer too).
pub fn parse_mask(text: &[u8], cpus: usize) -> Result<u64, Errno> {
    let text = trim(text);
    if text.is_empty() {
        return Err(EINVAL);
    }
    let mut mask = 0u64;
    let mut digits = 0;
    for &c in text {
        if c == b',' {
            continue;
        }
        let d = (c as char).to_digit(16).ok_or(EINVAL)? as u64;
        if mask >> 60 != 0 {
            return Err(EINVAL);
        }
        mask = mask << 4 | d;
        digits += 1;
    }
    if digits == 0 {
        return Err(EINVAL);
    }
    online(mask, cpus)
}

/// Parses a list (`0`, `0-3`, `1,3`; a trailing newline allowed).
pub fn parse_list(text: &[u8], cpus: usize) -> Result<u64, Errno> {
    let text = core::str::from_utf8(trim(text)).map_err(|_| EINVAL)?;
    let mut mask = 0u64;
    for part in text.split(',') {
        let (lo, hi) = part.split_once('-').unwrap_or((part, part));
        let lo: u32 = lo.parse().map_err(|_| EINVAL)?;
        let hi: u32 = hi.parse().map_err(|_| EINVAL)?;
        if lo > hi || hi >= 64 {
            return Err(EINVAL);
        }
        for b in lo..=hi {
            mask |= 1 << b;
        }
    }
    online(mask, cpus)
}

fn online(mask: u64, cpus: usize) -> Result<u64, Errno> {
    if mask & all(cpus) == 0 {
        return Err(EINVAL);
    }
    Ok(mask)
}

fn trim(text: &[u8]) -> &[u8] {
    text.strip_suffix(b"\n").unwrap_or(text)
}

/// The CPU a line with affinity `mask` is routed to: the first online one.
pub fn target(mask: u64, cpus: usize) -> usize {
    let m = mask & all(cpus);
    if m == 0 {
        0
    } else {
        m.trailing_zeros() as usize
    }
}

/// The mask as smp_affinity reads: as many hex digits as `cpus` needs,
/// in groups of 8 from the right separated by commas, and a newline.
pub fn format_mask(mask: u64, cpus: usize) -> String {
    let digits = cpus.clamp(1, 64).div_ceil(4);
    let mut out = String::new();
    for i in (0..digits).rev() {
        let d = (mask >> (4 * i)) & 0xf;
        let _ = write!(out, "{d:x}");
        if i % 8 == 0 && i != 0 {
            out.push(',');
        }
    }
    out.push('\n');
    out
}

/// The mask as smp_affinity_list reads: ranges, `0-2,5`, and a newline.
pub fn format_list(mask: u64) -> String {
    let mut out = String::new();
    let mut b = 0;
    while b < 64 {
        if mask & (1 << b) == 0 {
            b += 1;
            continue;
        }
        let start = b;
        while b + 1 < 64 && mask & (1 << (b + 1)) != 0 {
            b += 1;
        }
        if !out.is_empty() {
            out.push(',');
        }
        let _ = if start == b { write!(out, "{start}") } else { write!(out, "{start}-{b}") };
        b += 1;
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        assert_eq!(parse_mask(b"f\n", 4), Ok(0xf));
        assert_eq!(parse_mask(b"2", 4), Ok(2));
        assert_eq!(parse_mask(b"00000004", 4), Ok(4));
        assert_eq!(parse_mask(b"0,00000001\n", 4), Ok(1));
        assert_eq!(parse_mask(b"F0", 8), Ok(0xf0));
        // No online CPU, not hex, empty, too wide.
        assert_eq!(parse_mask(b"10", 4), Err(EINVAL));
        assert_eq!(parse_mask(b"0", 4), Err(EINVAL));
        assert_eq!(parse_mask(b"xyz", 4), Err(EINVAL));
        assert_eq!(parse_mask(b"", 4), Err(EINVAL));
        assert_eq!(parse_mask(b",", 4), Err(EINVAL));
        assert_eq!(parse_mask(b"-1", 4), Err(EINVAL));
        assert_eq!(parse_mask(b"1,00000000,00000000", 4), Err(EINVAL));
        assert_eq!(parse_mask(b"ffffffffffffffff", 64), Ok(u64::MAX));
    }

    #[test]
    fn lists() {
        assert_eq!(parse_list(b"0-3\n", 4), Ok(0xf));
        assert_eq!(parse_list(b"1,3", 4), Ok(0xa));
        assert_eq!(parse_list(b"2", 4), Ok(4));
        assert_eq!(parse_list(b"4", 4), Err(EINVAL));
        assert_eq!(parse_list(b"3-1", 4), Err(EINVAL));
        assert_eq!(parse_list(b"0-64", 4), Err(EINVAL));
        assert_eq!(parse_list(b"", 4), Err(EINVAL));
        assert_eq!(parse_list(b"a", 4), Err(EINVAL));
    }

    #[test]
    fn formats() {
        assert_eq!(format_mask(0xf, 4), "f\n");
        assert_eq!(format_mask(1, 1), "1\n");
        assert_eq!(format_mask(4, 8), "04\n");
        assert_eq!(format_mask(1, 36), "0,00000001\n");
        assert_eq!(format_list(0xf), "0-3\n");
        assert_eq!(format_list(0b1011), "0-1,3\n");
        assert_eq!(format_list(1 << 63), "63\n");
        assert_eq!(format_list(u64::MAX), "0-63\n");
    }

    #[test]
    fn targets() {
        assert_eq!(target(0b1100, 4), 2);
        assert_eq!(target(0b1000, 2), 0);
        assert_eq!(target(u64::MAX, 64), 0);
    }
}

//! The `uio=` kernel argument: which device the program asked for, and on
//! which CPU its interrupt should land. A spec is
//! `pci:VVVV:DDDD[@HART]` (a PCI function by vendor and device id, hex) or
//! `dt:COMPATIBLE[@HART]` (a platform device by its device-tree
//! `compatible` string). Without `@HART` the kernel spreads interrupts over
//! the CPUs.

use alloc::string::String;
use alloc::vec::Vec;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Match {
    Pci { vendor: u16, device: u16 },
    Compatible(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub what: Match,
    pub cpu: Option<usize>,
}

fn hex16(s: &str) -> Option<u16> {
    if s.is_empty() || s.len() > 4 {
        return None;
    }
    u16::from_str_radix(s, 16).ok()
}

/// Parses one spec; None if it is malformed.
pub fn parse(raw: &[u8]) -> Option<Spec> {
    let s = core::str::from_utf8(raw).ok()?;
    let (body, cpu) = match s.rsplit_once('@') {
        Some((b, h)) => (b, Some(h.parse::<usize>().ok()?)),
        None => (s, None),
    };
    let what = if let Some(ids) = body.strip_prefix("pci:") {
        let (v, d) = ids.split_once(':')?;
        Match::Pci { vendor: hex16(v)?, device: hex16(d)? }
    } else if let Some(c) = body.strip_prefix("dt:") {
        if c.is_empty() {
            return None;
        }
        Match::Compatible(String::from(c))
    } else {
        return None;
    };
    Some(Spec { what, cpu })
}

/// The CPU for the `index`-th exposed device's interrupt: the one asked
/// for if it is online, else spread round-robin over the `cpus` online.
pub fn cpu_for(spec_cpu: Option<usize>, index: usize, cpus: usize) -> usize {
    let cpus = cpus.max(1);
    match spec_cpu {
        Some(h) if h < cpus => h,
        _ => index % cpus,
    }
}

/// Parses every spec; malformed ones come back separately for the log.
pub fn parse_all(raw: &[Vec<u8>]) -> (Vec<Spec>, Vec<Vec<u8>>) {
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for r in raw {
        match parse(r) {
            Some(s) => good.push(s),
            None => bad.push(r.clone()),
        }
    }
    (good, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        assert_eq!(parse(b"pci:1234:11e8"), Some(Spec { what: Match::Pci { vendor: 0x1234, device: 0x11e8 }, cpu: None }));
        assert_eq!(parse(b"pci:1b36:2@3").unwrap().cpu, Some(3));
        assert_eq!(parse(b"dt:google,goldfish-rtc").unwrap().what, Match::Compatible(String::from("google,goldfish-rtc")));
        for bad in [&b"pci:1234"[..], b"pci:12345:1", b"pci:zz:1", b"dt:", b"edu", b"pci:1:2@x", b"\xff"] {
            assert_eq!(parse(bad), None, "{:?}", bad);
        }
    }

    #[test]
    fn cpus() {
        assert_eq!(cpu_for(None, 5, 4), 1);
        assert_eq!(cpu_for(Some(2), 0, 4), 2);
        assert_eq!(cpu_for(Some(9), 3, 4), 3);
        assert_eq!(cpu_for(None, 3, 0), 0);
    }
}

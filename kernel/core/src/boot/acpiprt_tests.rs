//! Tests for `acpiprt` (the DSDT `_PRT` reader), kept in their own file so
//! acpiprt.rs stays readable: hand-built AML packages, good and malformed.
use super::*;
use alloc::vec;

/// PkgLength of a package whose contents (after the PkgLength) are `n` bytes.
fn pkg(op: &[u8], body: Vec<u8>) -> Vec<u8> {
    let mut out = op.to_vec();
    let total = body.len() + 1;
    if total < 0x40 {
        out.push(total as u8);
    } else {
        let total = body.len() + 2;
        assert!(total < 0x1000);
        out.push(0x40 | (total & 0xf) as u8);
        out.push((total >> 4) as u8);
    }
    out.extend(body);
    out
}

fn int(v: u32) -> Vec<u8> {
    match v {
        0 => vec![0],
        1 => vec![1],
        2..=0xff => vec![0x0a, v as u8],
        0x100..=0xffff => vec![0x0b, v as u8, (v >> 8) as u8],
        _ => {
            let mut o = vec![0x0c];
            o.extend(v.to_le_bytes());
            o
        }
    }
}

/// What QEMU's gpex-acpi.c writes for a bridge whose INTA..D reach
/// GSI `base`..`base+3`, swizzled by slot.
fn qemu_dsdt(base: u32) -> Vec<u8> {
    let mut rt = int(128);
    for slot in 0..32u32 {
        for pin in 0..4u32 {
            let mut e = vec![4u8];
            e.extend(int(slot << 16 | 0xffff));
            e.extend(int(pin));
            e.extend(format!("GSI{}", (slot + pin) % 4).bytes());
            e.extend(int(0));
            rt.extend(pkg(&[0x12], e));
        }
    }
    let mut aml = b"\x5b\x82".to_vec();
    let mut pci0 = b"PCI0".to_vec();
    pci0.extend(b"\x08_PRT");
    pci0.extend(pkg(&[0x13], rt));
    for i in 0..4u32 {
        let mut dev = format!("GSI{i}").into_bytes();
        dev.extend(b"\x08_HID\x0dPNP0C0F\x00");
        let irq = base + i;
        let mut desc = vec![0x89, 6, 0, 0x0d, 1];
        desc.extend(irq.to_le_bytes());
        desc.extend([0x79, 0]);
        let mut buf = int(desc.len() as u32);
        buf.extend(desc);
        dev.extend(b"\x08_CRS");
        dev.extend(pkg(&[0x11], buf));
        pci0.extend(pkg(&[0x5b, 0x82], dev));
    }
    let body = pkg(&[], pci0);
    aml.extend(body);
    aml
}

#[test]
fn qemu_virt_swizzle() {
    let aml = qemu_dsdt(35);
    let prt = parse_prt(&aml).expect("the _PRT");
    assert_eq!(prt.len(), 128);
    assert_eq!(prt[5], Entry { device: 1, pin: 1, source: Source::Link(*b"GSI2") });
    assert_eq!(link_gsi(&aml, *b"GSI0"), Some(35));
    assert_eq!(link_gsi(&aml, *b"GSI3"), Some(38));
    // Device 1's INTA: (1 + 0) % 4 = GSI1 = 36, as the device tree's map.
    assert_eq!(route(&prt, &aml, 1, 1), Some(36));
    assert_eq!(route(&prt, &aml, 3, 2), Some(35));
    assert_eq!(route(&prt, &aml, 1, 0), None);
    assert_eq!(route(&prt, &aml, 1, 5), None);
}

#[test]
fn direct_gsi_and_damage() {
    let mut e = vec![4u8];
    e.extend(int(2 << 16 | 0xffff));
    e.extend(int(0));
    e.push(0);
    e.extend(int(40));
    let mut body = vec![1u8];
    body.extend(pkg(&[0x12], e));
    let mut aml = b"\x08_PRT".to_vec();
    aml.extend(pkg(&[0x12], body));
    let prt = parse_prt(&aml).unwrap();
    assert_eq!(prt, vec![Entry { device: 2, pin: 0, source: Source::Gsi(40) }]);
    assert_eq!(route(&prt, &aml, 2, 1), Some(40));
    // Every truncation fails cleanly, never panics.
    let full = qemu_dsdt(35);
    for n in 0..full.len() {
        let _ = parse_prt(&full[..n]);
        let _ = link_gsi(&full[..n], *b"GSI1");
    }
    assert_eq!(parse_prt(b"\x08_PRT\x14"), None); // a method: not understood
}

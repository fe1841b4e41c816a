//! Tests for `vma`, kept in their own file so vma.rs stays readable.

use super::*;

/// The user half of Sv39 (tests run on any host, so the figure is fixed).
const USER_END: u64 = crate::arch::riscv64::sv39::USER_END;

const BASE: u64 = 0x10_0000_0000;
const TOP: u64 = 0x20_0000_0000;
const R: Prot = Prot {
    read: true,
    write: false,
    exec: false,
};
const RX: Prot = Prot {
    read: true,
    write: false,
    exec: true,
};

fn areas(m: &VmaMap) -> Vec<(u64, u64, Prot)> {
    m.iter().map(|v| (v.start, v.end, v.prot)).collect()
}

#[test]
fn prot_from_linux() {
    assert_eq!(Prot::from_linux(0), Prot::NONE);
    assert_eq!(Prot::from_linux(3), Prot::RW);
    assert_eq!(Prot::from_linux(5), RX);
}

#[test]
fn insert_rounds_length_up() {
    let mut m = VmaMap::new(BASE, TOP, USER_END);
    assert!(m.insert_fixed(0x10000, 69648, Prot::RW).is_empty());
    assert_eq!(areas(&m), vec![(0x10000, 0x10000 + 0x12000, Prot::RW)]);
    assert_eq!(m.mapped_bytes(), 0x12000);
    assert!(m.insert_fixed(0x90000, 0, Prot::RW).is_empty());
    assert_eq!(m.iter().count(), 1);
}

#[test]
fn insert_fixed_replaces_and_splits() {
    let mut m = VmaMap::new(BASE, TOP, USER_END);
    m.insert_fixed(0x100000, 0x10000, Prot::NONE);
    // Commit the middle RW: the reservation splits in three.
    let replaced = m.insert_fixed(0x104000, 0x2000, Prot::RW);
    assert_eq!(replaced, vec![(0x104000, 0x106000)]);
    assert_eq!(
        areas(&m),
        vec![
            (0x100000, 0x104000, Prot::NONE),
            (0x104000, 0x106000, Prot::RW),
            (0x106000, 0x110000, Prot::NONE),
        ]
    );
    // A range covering parts of several areas and a hole.
    m.insert_fixed(0x120000, 0x1000, R);
    let replaced = m.insert_fixed(0x105000, 0x1c000, RX);
    assert_eq!(
        replaced,
        vec![
            (0x105000, 0x106000),
            (0x106000, 0x110000),
            (0x120000, 0x121000)
        ]
    );
    assert_eq!(
        areas(&m),
        vec![
            (0x100000, 0x104000, Prot::NONE),
            (0x104000, 0x105000, Prot::RW),
            (0x105000, 0x121000, RX),
        ]
    );
    assert_eq!(m.mapped_bytes(), 0x21000);
}

#[test]
fn neighbours_with_equal_prot_merge() {
    let mut m = VmaMap::new(BASE, TOP, USER_END);
    m.insert_fixed(0x100000, 0x1000, Prot::RW);
    m.insert_fixed(0x102000, 0x1000, Prot::RW);
    assert_eq!(m.iter().count(), 2);
    m.insert_fixed(0x101000, 0x1000, Prot::RW);
    assert_eq!(areas(&m), vec![(0x100000, 0x103000, Prot::RW)]);
    // Different protection next door does not merge.
    m.insert_fixed(0x103000, 0x1000, R);
    assert_eq!(m.iter().count(), 2);
    // Committing a whole reservation piecewise ends as one area.
    let mut m = VmaMap::new(BASE, TOP, USER_END);
    m.insert_fixed(0x200000, 0x8000, Prot::NONE);
    for i in 0..8 {
        m.insert_fixed(0x200000 + i * 0x1000, 0x1000, Prot::RW);
    }
    assert_eq!(areas(&m), vec![(0x200000, 0x208000, Prot::RW)]);
}

#[test]
fn unmap_trims_and_splits() {
    let mut m = VmaMap::new(BASE, TOP, USER_END);
    m.insert_fixed(0x100000, 0x10000, Prot::RW);
    assert_eq!(m.unmap(0x100000, 0x1000), vec![(0x100000, 0x101000)]); // head
    assert_eq!(m.unmap(0x10f000, 0x1000), vec![(0x10f000, 0x110000)]); // tail
    assert_eq!(m.unmap(0x105000, 0x2000), vec![(0x105000, 0x107000)]); // middle
    assert_eq!(
        areas(&m),
        vec![
            (0x101000, 0x105000, Prot::RW),
            (0x107000, 0x10f000, Prot::RW)
        ]
    );
    // Across the hole and beyond the end: only mapped parts come back.
    assert_eq!(
        m.unmap(0x104000, 0x20000),
        vec![(0x104000, 0x105000), (0x107000, 0x10f000)]
    );
    assert_eq!(areas(&m), vec![(0x101000, 0x104000, Prot::RW)]);
    assert!(m.unmap(0x500000, 0x1000).is_empty());
    assert!(m.unmap(0x101000, 0).is_empty());
    // Unaligned length rounds up to whole pages.
    assert_eq!(m.unmap(0x101000, 1), vec![(0x101000, 0x102000)]);
    assert!(m.unmap(u64::MAX - 10, 100).is_empty());
}

#[test]
fn protect_requires_full_coverage() {
    let mut m = VmaMap::new(BASE, TOP, USER_END);
    m.insert_fixed(0x100000, 0x4000, Prot::RW);
    m.insert_fixed(0x105000, 0x1000, Prot::RW);
    let before = areas(&m);
    assert_eq!(m.protect(0x103000, 0x3000, R), Err(()));
    assert_eq!(areas(&m), before);
    assert_eq!(m.protect(0x101000, 0x1000, R), Ok(()));
    assert_eq!(
        areas(&m),
        vec![
            (0x100000, 0x101000, Prot::RW),
            (0x101000, 0x102000, R),
            (0x102000, 0x104000, Prot::RW),
            (0x105000, 0x106000, Prot::RW),
        ]
    );
    // Setting it back merges everything contiguous again.
    assert_eq!(m.protect(0x100000, 0x4000, Prot::RW), Ok(()));
    assert_eq!(
        areas(&m),
        vec![
            (0x100000, 0x104000, Prot::RW),
            (0x105000, 0x106000, Prot::RW)
        ]
    );
    // Spanning two touching areas with different prots is fine.
    m.insert_fixed(0x104000, 0x1000, R);
    assert_eq!(m.protect(0x103000, 0x2800, RX), Ok(()));
    assert_eq!(m.find(0x105fff).unwrap().prot, RX);
    assert_eq!(m.find(0x102fff).unwrap().prot, Prot::RW);
    assert_eq!(m.protect(0x900000, 0, R), Ok(()));
}

#[test]
fn find_looks_up_addresses() {
    let mut m = VmaMap::new(BASE, TOP, USER_END);
    m.insert_fixed(0x100000, 0x2000, RX);
    assert_eq!(m.find(0x100000).unwrap().start, 0x100000);
    assert_eq!(m.find(0x101fff).unwrap().end, 0x102000);
    assert!(m.find(0x102000).is_none());
    assert!(m.find(0xfffff).is_none());
    assert!(m.find(0).is_none());
}

#[test]
fn find_free_uses_good_hints() {
    let mut m = VmaMap::new(BASE, TOP, USER_END);
    m.insert_fixed(0x100000, 0x2000, Prot::RW);
    assert_eq!(m.find_free(0x1000, 0x200000), Some(0x200000));
    // Overlapping, unaligned, too low, or beyond Sv39 hints fall back to top-down.
    for hint in [
        0x101000,
        0x200001,
        0x1000,
        USER_END - 0x1000,
        0xc000_0000_0000,
        !0xfff,
    ] {
        assert_eq!(m.find_free(0x2000, hint), Some(TOP - 0x2000), "{hint:#x}");
    }
    assert_eq!(m.find_free(0, 0), None);
}

#[test]
fn find_free_is_top_down_and_fills_gaps() {
    let mut m = VmaMap::new(BASE, TOP, USER_END);
    let a = m.map_anywhere(0x3000, 0, Prot::RW).unwrap();
    assert_eq!(a, TOP - 0x3000);
    let b = m.map_anywhere(69648, 0, Prot::NONE).unwrap();
    assert_eq!(b, a - 0x12000); // 69648 = 17 pages + 16 bytes
                                // Open a hole between them and at the top: the top one is chosen first.
    m.unmap(a, 0x1000);
    m.unmap(TOP - 0x1000, 0x1000);
    assert_eq!(m.find_free(0x1000, 0), Some(TOP - 0x1000));
    m.insert_fixed(TOP - 0x1000, 0x1000, R);
    assert_eq!(m.find_free(0x1000, 0), Some(a));
    // Too big for the hole: goes below b.
    assert_eq!(m.find_free(0x2000, 0), Some(b - 0x2000));
    // Areas straddling or above mmap_top are stepped over.
    let mut m = VmaMap::new(BASE, TOP, USER_END);
    m.insert_fixed(TOP - 0x1000, 0x3000, Prot::RW);
    assert_eq!(m.find_free(0x1000, 0), Some(TOP - 0x2000));
}

#[test]
fn find_free_respects_base_and_exhaustion() {
    let mut m = VmaMap::new(0x100000, 0x110000, USER_END);
    assert_eq!(m.find_free(0x10000, 0), Some(0x100000));
    assert_eq!(m.find_free(0x11000, 0), None);
    m.insert_fixed(0x108000, 0x1000, Prot::RW);
    assert_eq!(m.find_free(0x8000, 0), Some(0x100000));
    assert_eq!(m.find_free(0x9000, 0), None);
    // A mapping below the base does not make room below it.
    m.insert_fixed(0x50000, 0x1000, Prot::RW);
    assert_eq!(m.find_free(0x7000, 0), Some(0x109000));
    assert_eq!(m.map_anywhere(0x7000, 0, R), Some(0x109000));
    assert_eq!(m.map_anywhere(0x8000, 0, R), Some(0x100000));
    assert_eq!(m.map_anywhere(0x1000, 0, R), None);
    assert_eq!(m.mapped_bytes(), 0x11000);
}

#[test]
fn file_areas_keep_their_offsets_through_splits() {
    let mut m = VmaMap::new(0x1000_0000, 0x2000_0000, USER_END);
    let file = Backing::File { id: 7, offset: 0x3000, shared: true };
    let base = 0x100000;
    m.insert_backed(base, 8 * PAGE, Prot::RW, file);
    // mprotect the middle: three areas, the file offset follows the address.
    m.protect(base + 2 * PAGE, 2 * PAGE, Prot::from_linux(1)).unwrap();
    let mid = *m.find(base + 2 * PAGE).unwrap();
    assert_eq!(mid.backing, Backing::File { id: 7, offset: 0x3000 + 2 * PAGE, shared: true });
    assert_eq!(m.find(base + 5 * PAGE).unwrap().backing_at(base + 5 * PAGE),
        Backing::File { id: 7, offset: 0x3000 + 5 * PAGE, shared: true });
    // Back to RW: the pieces continue each other and merge into one again.
    m.protect(base + 2 * PAGE, 2 * PAGE, Prot::RW).unwrap();
    assert_eq!(m.len(), 1);
    assert_eq!(m.find(base).unwrap().backing, file);
    // Unmapping reports the removed piece with its backing.
    let removed = m.unmap_areas(base + PAGE, PAGE);
    assert_eq!(removed.len(), 1);
    assert_eq!(removed[0].backing, Backing::File { id: 7, offset: 0x3000 + PAGE, shared: true });
}

#[test]
fn areas_of_different_backing_never_merge() {
    let mut m = VmaMap::new(0x1000_0000, 0x2000_0000, USER_END);
    let base = 0x100000;
    m.insert_fixed(base, PAGE, Prot::RW);
    m.insert_backed(base + PAGE, PAGE, Prot::RW, Backing::File { id: 1, offset: 0, shared: false });
    m.insert_backed(base + 2 * PAGE, PAGE, Prot::RW, Backing::File { id: 2, offset: PAGE, shared: false });
    m.insert_backed(base + 3 * PAGE, PAGE, Prot::RW, Backing::File { id: 2, offset: 5 * PAGE, shared: false });
    assert_eq!(m.len(), 4);
}

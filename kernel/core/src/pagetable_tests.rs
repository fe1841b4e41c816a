//! Tests for `pagetable`, kept in their own file so pagetable.rs stays readable.

use super::*;
use std::collections::HashMap;

/// Physical memory as a map of tables, handing out frames from 0x8000_0000.
#[derive(Default)]
struct FakeFrames {
    tables: HashMap<u64, Vec<u64>>,
    next: u64,
    left: usize,
    freed: Vec<u64>,
}

impl FakeFrames {
    fn new(budget: usize) -> (Self, u64) {
        let mut f = FakeFrames {
            next: 0x8000_0000,
            left: budget + 1,
            ..Default::default()
        };
        let root = f.alloc_zeroed().unwrap();
        (f, root)
    }
}

impl Frames for FakeFrames {
    fn alloc_zeroed(&mut self) -> Option<u64> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let pa = self.next;
        self.next += PAGE_SIZE as u64;
        self.tables.insert(pa, vec![0; ENTRIES]);
        Some(pa)
    }
    fn read_pte(&self, table: u64, index: usize) -> u64 {
        self.tables[&table][index]
    }
    fn write_pte(&mut self, table: u64, index: usize, pte: u64) {
        self.tables.get_mut(&table).unwrap()[index] = pte;
    }
    fn free(&mut self, pa: u64) {
        self.freed.push(pa);
    }
}

const URW: PteFlags = PteFlags(PteFlags::U.0 | PteFlags::R.0 | PteFlags::W.0);

#[test]
fn pte_fields() {
    let p = Pte::new(0x80123, PteFlags::R | PteFlags::W | PteFlags::V);
    assert!(p.is_valid() && p.is_leaf());
    assert_eq!(p.ppn(), 0x80123);
    assert_eq!(p.pa(), 0x8012_3000);
    assert!(p.flags().contains(PteFlags::R | PteFlags::W));
    assert!(!p.flags().contains(PteFlags::X));
    assert!(!Pte::new(1, PteFlags::V).is_leaf());
    assert_eq!(vpn(0x3f_ffff_f000, 2), 255);
    assert_eq!(vpn(0x40_0000_0000, 2), 256);
    assert_eq!((vpn(0x20_1000, 1), vpn(0x20_1000, 0)), (1, 1));
}

#[test]
fn map_translate_unmap() {
    let (mut f, root) = FakeFrames::new(100);
    let va = 0x12_3456_7000;
    map_page(&mut f, root, va, 0x9000_0000, URW).unwrap();
    let (pa, fl) = translate(&f, root, va).unwrap();
    assert_eq!(pa, 0x9000_0000);
    assert!(fl.contains(URW | PteFlags::V));
    assert_eq!(translate(&f, root, va + 0xfff).unwrap().0, 0x9000_0000);
    assert_eq!(translate(&f, root, va + 0x1000), None);
    assert_eq!(
        map_page(&mut f, root, va, 0x9000_1000, URW),
        Err(MapError::AlreadyMapped)
    );
    // A neighbour shares both intermediate tables: only 1 root + 2 tables used.
    map_page(&mut f, root, va + 0x1000, 0x9000_1000, URW).unwrap();
    assert_eq!(f.tables.len(), 3);
    assert_eq!(unmap_page(&mut f, root, va), Some(0x9000_0000));
    assert_eq!(unmap_page(&mut f, root, va), None);
    assert_eq!(translate(&f, root, va), None);
    assert_eq!(unmap_page(&mut f, root, 0x1000), None);
}

#[test]
fn set_flags_keeps_the_frame() {
    let (mut f, root) = FakeFrames::new(10);
    map_page(&mut f, root, 0x10000, 0x9000_0000, URW).unwrap();
    assert!(set_flags(
        &mut f,
        root,
        0x10000,
        PteFlags::U | PteFlags::R | PteFlags::X
    ));
    let (pa, fl) = translate(&f, root, 0x10000).unwrap();
    assert_eq!(pa, 0x9000_0000);
    assert!(fl.contains(PteFlags::X | PteFlags::V) && !fl.contains(PteFlags::W));
    assert!(!set_flags(&mut f, root, 0x11000, URW));
    // PROT_NONE keeps the frame findable and freeable.
    assert!(set_flags(&mut f, root, 0x10000, PteFlags::U));
    assert_eq!(translate(&f, root, 0x10000).map(|t| t.0), Some(0x9000_0000));
    free_user_tables(&mut f, root);
    assert!(f.freed.contains(&0x9000_0000));
    assert!(!set_flags(&mut f, root, 0x7000_0000, URW));
}

#[test]
fn out_of_memory() {
    let (mut f, root) = FakeFrames::new(1);
    assert_eq!(
        map_page(&mut f, root, 0x10000, 0x9000_0000, URW),
        Err(MapError::NoMemory)
    );
    let (mut f, root) = FakeFrames::new(2);
    assert_eq!(map_page(&mut f, root, 0x10000, 0x9000_0000, URW), Ok(()));
}

#[test]
fn superpages_are_respected() {
    let (mut f, root) = FakeFrames::new(10);
    // A 1 GiB kernel gigapage at root index 258 (VA 0x40_8000_0000).
    let giga = Pte::new(0x8000_0000 >> 12, PteFlags::V | PteFlags::R | PteFlags::W);
    f.write_pte(root, 258, giga.0);
    let va = 0x40_8000_0000 + 0x12_3456;
    assert_eq!(translate(&f, root, va).unwrap().0, 0x8012_3000);
    assert_eq!(
        map_page(&mut f, root, va, 0x1000, URW),
        Err(MapError::AlreadyMapped)
    );
    assert_eq!(unmap_page(&mut f, root, va), None);
    free_user_tables(&mut f, root);
    assert_eq!(f.read_pte(root, 258), giga.0);
}

#[test]
fn free_user_tables_frees_pages_and_tables() {
    let (mut f, root) = FakeFrames::new(100);
    let vas = [0x10000, 0x11000, 0x4000_0000, 0x3f_ffff_f000];
    for (i, va) in vas.iter().enumerate() {
        map_page(&mut f, root, *va, 0xa000_0000 + i as u64 * 0x1000, URW).unwrap();
    }
    let kernel = Pte::new(0x8000_0000 >> 12, PteFlags::V | PteFlags::R).0;
    f.write_pte(root, 300, kernel);
    let tables = f.tables.len() - 1;
    free_user_tables(&mut f, root);
    assert_eq!(f.freed.len(), vas.len() + tables);
    for i in 0..4 {
        assert!(f.freed.contains(&(0xa000_0000 + i * 0x1000)));
    }
    assert!(!f.freed.contains(&root));
    assert!(vas.iter().all(|va| translate(&f, root, *va).is_none()));
    assert_eq!(f.read_pte(root, 300), kernel);
    assert!((0..256).all(|i| f.read_pte(root, i) == 0));
}

//! Tests for `pagetable`, kept in their own file so pagetable.rs stays readable.

use super::*;
use crate::arch::riscv64::sv39::{self, Sv39, R, V, W};

// The walker is generic; these tests drive it with the Sv39 format.
fn translate(f: &FakeFrames, root: u64, va: u64) -> Option<(u64, Rights)> {
    super::translate::<Sv39, _>(f, root, va)
}
fn map_page(f: &mut FakeFrames, root: u64, va: u64, pa: u64, r: Rights) -> Result<(), MapError> {
    super::map_page::<Sv39, _>(f, root, va, pa, r, Memory::Ram)
}
fn unmap_page(f: &mut FakeFrames, root: u64, va: u64) -> Option<u64> {
    super::unmap_page::<Sv39, _>(f, root, va)
}
fn set_rights(f: &mut FakeFrames, root: u64, va: u64, r: Rights) -> bool {
    super::set_rights::<Sv39, _>(f, root, va, r)
}
fn free_user_tables(f: &mut FakeFrames, root: u64) {
    super::free_user_tables::<Sv39, _>(f, root)
}
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

const URW: Rights = Rights { user: true, read: true, write: true, exec: false };

#[test]
fn indexes() {
    assert_eq!(vpn(0x3f_ffff_f000, 2), 255);
    assert_eq!(vpn(0x40_0000_0000, 2), 256);
    assert_eq!((vpn(0x20_1000, 1), vpn(0x20_1000, 0)), (1, 1));
    assert_eq!(next_region(0x20_1000, 1), 0x40_0000);
    assert_eq!(next_region(0x20_1000, 2), 0x4000_0000);
}

#[test]
fn map_translate_unmap() {
    let (mut f, root) = FakeFrames::new(100);
    let va = 0x12_3456_7000;
    map_page(&mut f, root, va, 0x9000_0000, URW).unwrap();
    let (pa, r) = translate(&f, root, va).unwrap();
    assert_eq!(pa, 0x9000_0000);
    assert_eq!(r, URW);
    assert_eq!(translate(&f, root, va + 0xfff).unwrap().0, 0x9000_0000);
    assert_eq!(translate(&f, root, va + 0x1000), None);
    assert_eq!(map_page(&mut f, root, va, 0x9000_1000, URW), Err(MapError::AlreadyMapped));
    // A neighbour shares both intermediate tables: only 1 root + 2 tables used.
    map_page(&mut f, root, va + 0x1000, 0x9000_1000, URW).unwrap();
    assert_eq!(f.tables.len(), 3);
    assert!(populated::<Sv39, _>(&f, root, va, 0) && populated::<Sv39, _>(&f, root, va, 1));
    assert!(!populated::<Sv39, _>(&f, root, 0x1000, 1));
    assert_eq!(unmap_page(&mut f, root, va), Some(0x9000_0000));
    assert_eq!(unmap_page(&mut f, root, va), None);
    assert_eq!(translate(&f, root, va), None);
    assert_eq!(unmap_page(&mut f, root, 0x1000), None);
}

#[test]
fn set_rights_keeps_the_frame() {
    let (mut f, root) = FakeFrames::new(10);
    map_page(&mut f, root, 0x10000, 0x9000_0000, URW).unwrap();
    let rx = Rights { user: true, read: true, write: false, exec: true };
    assert!(set_rights(&mut f, root, 0x10000, rx));
    let (pa, r) = translate(&f, root, 0x10000).unwrap();
    assert_eq!((pa, r), (0x9000_0000, rx));
    assert!(URW.exceeds(rx) && !rx.exceeds(Rights { write: true, ..rx }));
    assert!(!set_rights(&mut f, root, 0x11000, URW));
    // PROT_NONE keeps the frame findable and freeable.
    assert!(set_rights(&mut f, root, 0x10000, Rights::NONE));
    assert_eq!(translate(&f, root, 0x10000).map(|t| t.0), Some(0x9000_0000));
    assert!(!translate(&f, root, 0x10000).unwrap().1.user);
    free_user_tables(&mut f, root);
    assert!(f.freed.contains(&0x9000_0000));
    assert!(!set_rights(&mut f, root, 0x7000_0000, URW));
}

#[test]
fn out_of_memory() {
    let (mut f, root) = FakeFrames::new(1);
    assert_eq!(map_page(&mut f, root, 0x10000, 0x9000_0000, URW), Err(MapError::NoMemory));
    let (mut f, root) = FakeFrames::new(2);
    assert_eq!(map_page(&mut f, root, 0x10000, 0x9000_0000, URW), Ok(()));
}

#[test]
fn superpages_are_respected() {
    let (mut f, root) = FakeFrames::new(10);
    // A 1 GiB kernel gigapage at root index 258 (VA 0x40_8000_0000).
    let giga = sv39::entry(0x8000_0000, V | R | W);
    f.write_pte(root, 258, giga);
    let va = 0x40_8000_0000 + 0x12_3456;
    assert_eq!(translate(&f, root, va).unwrap().0, 0x8012_3000);
    assert_eq!(map_page(&mut f, root, va, 0x1000, URW), Err(MapError::AlreadyMapped));
    assert_eq!(unmap_page(&mut f, root, va), None);
    free_user_tables(&mut f, root);
    assert_eq!(f.read_pte(root, 258), giga);
}

#[test]
fn free_user_tables_frees_pages_and_tables() {
    let (mut f, root) = FakeFrames::new(100);
    let vas = [0x10000, 0x11000, 0x4000_0000, 0x3f_ffff_f000];
    for (i, va) in vas.iter().enumerate() {
        map_page(&mut f, root, *va, 0xa000_0000 + i as u64 * 0x1000, URW).unwrap();
    }
    let kernel = sv39::entry(0x8000_0000, V | R);
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

#[test]
fn memory_types_from_the_memory_map() {
    let ram = [(0x4000_0000, 0x8000_0000), (0x1_0000_0000, 0x1_0020_0000)];
    assert_eq!(Memory::at(0x4000_0000, &ram), Memory::Ram);
    assert_eq!(Memory::at(0x7fff_f000, &ram), Memory::Ram);
    assert_eq!(Memory::at(0x8000_0000, &ram), Memory::Device);
    assert_eq!(Memory::at(0x0900_0000, &ram), Memory::Device); // a PL011
    assert_eq!(Memory::at(0x1_0010_0000, &ram), Memory::Ram);
    assert_eq!(Memory::at(0x100_0000_0000, &[]), Memory::Device);
    // Whole GiBs: devices only, RAM only, both (to be split).
    assert_eq!(Memory::of_range(0, 0x4000_0000, &ram), Some(Memory::Device));
    assert_eq!(Memory::of_range(0x4000_0000, 0x8000_0000, &ram), Some(Memory::Ram));
    assert_eq!(Memory::of_range(0x1_0000_0000, 0x1_4000_0000, &ram), None);
    assert_eq!(Memory::of_range(0x1_0000_0000, 0x1_0020_0000, &ram), Some(Memory::Ram));
    assert_eq!(Memory::of_range(0x1_0020_0000, 0x1_0040_0000, &ram), Some(Memory::Device));
}

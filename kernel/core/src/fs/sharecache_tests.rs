//! Host tests of a cached share's bookkeeping (sharecache.rs).

use super::*;

fn order(lru: &mut PageLru<&'static str>) -> Vec<(FileKey, u64, u64)> {
    let mut out = Vec::new();
    while let Some(v) = lru.pop_oldest() {
        out.push((v.file, v.index, v.frame));
    }
    out
}

#[test]
fn oldest_first_and_a_touch_makes_young() {
    let mut lru = PageLru::new();
    lru.insert(1, 0, 0x1000, "a");
    lru.insert(1, 1, 0x2000, "a");
    lru.insert(2, 0, 0x3000, "b");
    assert_eq!(lru.len(), 3);
    assert!(lru.touch(1, 0));
    assert!(!lru.touch(3, 0), "a page never listed");
    assert_eq!(order(&mut lru), [(1, 1, 0x2000), (2, 0, 0x3000), (1, 0, 0x1000)]);
    assert!(lru.is_empty());
}

#[test]
fn a_page_listed_again_takes_the_new_frame_and_counts_once() {
    let mut lru = PageLru::new();
    lru.insert(1, 5, 0x1000, "a");
    lru.insert(2, 0, 0x2000, "b");
    lru.insert(1, 5, 0x9000, "a");
    assert_eq!(lru.len(), 2);
    assert_eq!(order(&mut lru), [(2, 0, 0x2000), (1, 5, 0x9000)]);
}

#[test]
fn trim_evicts_down_to_the_limit_with_owners() {
    let mut lru = PageLru::new();
    for i in 0..10 {
        lru.insert(i % 2, i, 0x1000 * (i + 1), if i % 2 == 0 { "even" } else { "odd" });
    }
    lru.touch(0, 0);
    let v = lru.trim(7);
    assert_eq!(v.iter().map(|v| (v.file, v.index, v.owner)).collect::<Vec<_>>(), [(1, 1, "odd"), (0, 2, "even"), (1, 3, "odd")]);
    assert_eq!(lru.len(), 7);
    assert!(lru.trim(7).is_empty(), "nothing beyond the limit");
    assert_eq!(lru.trim(0).len(), 7);
    assert!(lru.is_empty());
}

#[test]
fn remove_file_takes_only_that_file() {
    let mut lru = PageLru::new();
    lru.insert(7, 0, 0x1000, ());
    lru.insert(8, 0, 0x2000, ());
    lru.insert(7, u64::MAX, 0x3000, ());
    lru.insert(6, 3, 0x4000, ());
    assert_eq!(lru.remove_file(7), 2);
    assert_eq!(lru.remove_file(7), 0);
    assert_eq!(lru.len(), 2);
    let left: Vec<_> = order(&mut PageLru::new()); // an empty list pops nothing
    assert!(left.is_empty());
    let v = lru.trim(0);
    assert_eq!(v.iter().map(|v| (v.file, v.index)).collect::<Vec<_>>(), [(8, 0), (6, 3)]);
}

#[test]
fn a_file_listed_again_after_its_last_page_left_gets_its_new_owner() {
    let mut lru = PageLru::new();
    lru.insert(1, 0, 0x1000, "old");
    assert_eq!(lru.pop_oldest().map(|v| v.owner), Some("old"));
    lru.insert(1, 0, 0x2000, "new");
    assert_eq!(lru.pop_oldest().map(|v| v.owner), Some("new"));
}

#[test]
fn the_limit_is_a_quarter_of_memory_and_what_the_heap_can_list() {
    // 1 GiB of frames, 128 MiB of heap: a quarter of the frames.
    assert_eq!(page_limit(262_144, 128 << 20), 65_536);
    // A small heap lists fewer: an eighth of 4 MiB at 128 bytes a page.
    assert_eq!(page_limit(262_144, 4 << 20), 4096);
    assert_eq!(page_limit(0, 0), 0);
}

#[test]
fn the_cache_grows_only_below_its_limit_and_with_a_quarter_of_memory_free() {
    assert!(may_grow(0, 10, 1000, 1000));
    assert!(!may_grow(10, 10, 1000, 1000), "at the limit");
    assert!(may_grow(9, 10, 251, 1000));
    assert!(!may_grow(9, 10, 250, 1000), "the last quarter is the program's");
    assert!(!may_grow(0, 0, 1000, 1000), "no cache at all");
}

#[test]
fn absent_names_forget_the_oldest_beyond_the_bound() {
    let mut a = AbsentNames::new();
    assert!(!a.contains(b"x"));
    a.insert(b"x");
    a.insert(b"x");
    assert!(a.contains(b"x"));
    assert_eq!(a.len(), 1);
    for i in 0..MAX_ABSENT {
        a.insert(alloc::format!("n{i}").as_bytes());
    }
    assert_eq!(a.len(), MAX_ABSENT);
    assert!(!a.contains(b"x"), "the oldest name went first");
    assert!(a.contains(b"n0") && a.contains(alloc::format!("n{}", MAX_ABSENT - 1).as_bytes()));
}

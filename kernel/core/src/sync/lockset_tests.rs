use super::*;
use alloc::vec::Vec;

#[test]
fn words_cover_the_classes() {
    assert_eq!(words_for(0), 1);
    assert_eq!(words_for(62), 1);
    assert_eq!(words_for(64), 1);
    assert_eq!(words_for(65), 2);
    assert_eq!(words_for(128), 2);
    assert_eq!(words_for(129), 3);
    assert_eq!(ClassSet::<2>::CAPACITY, 128);
}

#[test]
fn later_classes_may_be_taken_in_order() {
    let s = ClassSet::<2>::new();
    for c in [0, 5, 63, 64, 100, 127] {
        assert_eq!(s.acquire(c), Ok(()), "class {c}");
    }
    assert_eq!(s.iter().collect::<Vec<_>>(), [0, 5, 63, 64, 100, 127]);
}

#[test]
fn a_class_taken_twice_is_refused() {
    let s = ClassSet::<2>::new();
    s.acquire(70).unwrap();
    assert_eq!(s.acquire(70), Err(Conflict::Twice));
    s.acquire(3).unwrap_err();
}

#[test]
fn an_earlier_class_under_a_later_one_names_the_later_one() {
    let s = ClassSet::<2>::new();
    s.acquire(10).unwrap();
    s.acquire(90).unwrap();
    // The first held class after the one asked for, across words.
    assert_eq!(s.acquire(11), Err(Conflict::Holding(90)));
    assert_eq!(s.acquire(64), Err(Conflict::Holding(90)));
    assert_eq!(s.acquire(5), Err(Conflict::Holding(10)));
    // A refused class is not added.
    assert!(!s.contains(11) && !s.contains(5));
    s.acquire(91).unwrap();
}

#[test]
fn release_lets_the_order_start_again() {
    let s = ClassSet::<2>::new();
    s.acquire(40).unwrap();
    s.acquire(64).unwrap();
    s.remove(64);
    s.remove(40);
    assert!(s.is_empty());
    s.acquire(1).unwrap();
    s.acquire(127).unwrap();
}

#[test]
fn the_last_bit_of_each_word() {
    let s = ClassSet::<3>::new();
    s.insert(63);
    assert_eq!(s.first_from(0), Some(63));
    assert_eq!(s.first_from(63), Some(63));
    assert_eq!(s.first_from(64), None);
    s.insert(191);
    assert_eq!(s.first_from(64), Some(191));
    assert_eq!(s.first_from(192), None);
    assert_eq!(s.acquire(150), Err(Conflict::Holding(191)));
}

#[test]
fn insert_keeps_what_is_there() {
    let s = ClassSet::<1>::new();
    s.insert(7);
    s.insert(7);
    s.insert(2);
    assert_eq!(s.iter().collect::<Vec<_>>(), [2, 7]);
    assert!(s.contains(7) && !s.contains(8));
}

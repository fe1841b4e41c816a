//! Host tests of the advisory lock table (filelock.rs).

use super::*;
use LockKind::{Exclusive as X, Shared as S};

const A: Owner = Owner::Process(1);
const B: Owner = Owner::OpenFile(0x1000);
const C: Owner = Owner::OpenFile(0x2000);

fn held(t: &RangeLocks, owner: Owner) -> Vec<(LockKind, u64, u64)> {
    let mut v: Vec<_> = t.iter().filter(|l| l.owner == owner).map(|l| (l.kind, l.first, l.last)).collect();
    v.sort_by_key(|&(_, f, _)| f);
    v
}

#[test]
fn ranges_from_struct_flock() {
    assert_eq!(range_of(10, 0), Some((10, u64::MAX)));
    assert_eq!(range_of(10, 5), Some((10, 14)));
    assert_eq!(range_of(10, -5), Some((5, 9)));
    assert_eq!(range_of(10, -11), None);
    assert_eq!(range_of(-1, 5), None);
    assert_eq!(range_of(i64::MAX, 2), None);
    assert_eq!(range_of(i64::MAX, 1), Some((i64::MAX as u64, i64::MAX as u64)));
}

#[test]
fn shared_locks_coexist_exclusive_conflicts() {
    let mut t = RangeLocks::new();
    t.set(A, S, 0, 99).unwrap();
    assert_eq!(t.conflict(B, S, 50, 60), None);
    assert_eq!(t.conflict(B, X, 50, 60).map(|l| l.owner), Some(A));
    assert_eq!(t.conflict(B, X, 100, 200), None, "adjacent, not overlapping");
    t.set(B, S, 50, 60).unwrap();
    assert_eq!(t.conflict(C, X, 55, 55).map(|l| l.kind), Some(S));
}

#[test]
fn an_owner_never_conflicts_with_itself() {
    let mut t = RangeLocks::new();
    t.set(A, X, 0, u64::MAX).unwrap();
    assert_eq!(t.conflict(A, X, 5, 10), None);
}

#[test]
fn relocking_splits_and_converts() {
    let mut t = RangeLocks::new();
    t.set(A, S, 0, 99).unwrap();
    t.set(A, X, 40, 59).unwrap();
    assert_eq!(held(&t, A), vec![(S, 0, 39), (X, 40, 59), (S, 60, 99)]);
    t.set(A, S, 40, 59).unwrap();
    assert_eq!(held(&t, A), vec![(S, 0, 99)], "same kind merges back");
}

#[test]
fn touching_ranges_merge() {
    let mut t = RangeLocks::new();
    t.set(A, X, 0, 9).unwrap();
    t.set(A, X, 10, 19).unwrap();
    t.set(A, X, 30, 39).unwrap();
    assert_eq!(held(&t, A), vec![(X, 0, 19), (X, 30, 39)]);
    t.set(A, X, 20, 29).unwrap();
    assert_eq!(held(&t, A), vec![(X, 0, 39)]);
}

#[test]
fn unlock_splits_and_only_touches_the_owner() {
    let mut t = RangeLocks::new();
    t.set(A, S, 0, u64::MAX).unwrap();
    t.set(B, S, 0, 10).unwrap();
    t.unlock(A, 100, 199).unwrap();
    assert_eq!(held(&t, A), vec![(S, 0, 99), (S, 200, u64::MAX)]);
    assert_eq!(held(&t, B), vec![(S, 0, 10)]);
    t.unlock(A, 0, u64::MAX).unwrap();
    assert!(held(&t, A).is_empty());
    assert!(t.remove_owner(B));
    assert!(t.is_empty());
    assert!(!t.remove_owner(B));
}

#[test]
fn the_limit_answers_too_many() {
    let mut t = RangeLocks::new();
    for i in 0..RangeLocks::MAX as u64 {
        t.set(A, X, i * 2, i * 2).unwrap();
    }
    assert_eq!(t.set(A, X, u64::MAX - 5, u64::MAX - 5), Err(TooManyLocks));
    assert_eq!(t.iter().count(), RangeLocks::MAX);
    // Filling a gap merges three into one: allowed at the limit.
    t.set(A, X, 1, 1).unwrap();
    assert_eq!(t.iter().count(), RangeLocks::MAX - 1);
    let mut u = RangeLocks::new();
    u.set(A, X, 0, u64::MAX).unwrap();
    for i in 0..RangeLocks::MAX as u64 - 1 {
        u.unlock(A, i * 2 + 1, i * 2 + 1).unwrap();
    }
    assert_eq!(u.unlock(A, 1 << 40, 1 << 40), Err(TooManyLocks));
    assert_eq!(u.iter().count(), RangeLocks::MAX);
}

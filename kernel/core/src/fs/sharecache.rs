//! The bookkeeping of a share mounted with `cache=loose` (the kernel's
//! fs/sharecache.rs): which file pages the cache holds and in what order
//! they were last used, how many it may hold, and the names a directory is
//! known to lack. Pure: the kernel keeps the frames and the locks.
//!
//! Least recently used pages go first. Linux keeps two lists (active and
//! inactive) so that one big read does not push out what is read often;
//! a share's cache serves a test reading its package, so one list is
//! enough. No crate fits: the LRU crates map keys to values they own,
//! while here the frame belongs to the file's own page map and the list
//! only names it; this is two B-trees.

use alloc::collections::{BTreeMap, BTreeSet, VecDeque};
use alloc::vec::Vec;

/// Which cached file a page belongs to (the kernel's inode number: unique
/// for the run).
pub type FileKey = u64;

/// A page leaving the cache: the caller frees `frame` if the file still
/// holds it at `index` (the file's page map owns the frame).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Victim<T> {
    pub file: FileKey,
    pub index: u64,
    pub frame: u64,
    /// What the caller gave for the file (the kernel: a weak reference).
    pub owner: T,
}

struct Entry {
    stamp: u64,
    frame: u64,
}

/// The cached pages of every file, in the order of their last use.
pub struct PageLru<T> {
    by_page: BTreeMap<(FileKey, u64), Entry>,
    by_age: BTreeMap<u64, (FileKey, u64)>,
    /// Each file's owner and how many of its pages are listed.
    files: BTreeMap<FileKey, (T, usize)>,
    clock: u64,
}

impl<T: Clone> Default for PageLru<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Clone> PageLru<T> {
    pub const fn new() -> Self {
        PageLru { by_page: BTreeMap::new(), by_age: BTreeMap::new(), files: BTreeMap::new(), clock: 0 }
    }

    /// Pages listed.
    pub fn len(&self) -> usize {
        self.by_page.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_page.is_empty()
    }

    fn stamp(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// Lists page `index` of `file`, held in `frame`, as just used. A page
    /// listed already keeps its place in the file and moves to the young
    /// end, its frame replaced by `frame`.
    pub fn insert(&mut self, file: FileKey, index: u64, frame: u64, owner: T) {
        let stamp = self.stamp();
        match self.by_page.insert((file, index), Entry { stamp, frame }) {
            Some(old) => {
                self.by_age.remove(&old.stamp);
            }
            None => self.files.entry(file).or_insert((owner, 0)).1 += 1,
        }
        self.by_age.insert(stamp, (file, index));
    }

    /// Marks page `index` of `file` as just used (a read found it);
    /// false if it is not listed.
    pub fn touch(&mut self, file: FileKey, index: u64) -> bool {
        let stamp = self.stamp();
        let Some(e) = self.by_page.get_mut(&(file, index)) else { return false };
        self.by_age.remove(&e.stamp);
        e.stamp = stamp;
        self.by_age.insert(stamp, (file, index));
        true
    }

    /// Takes the least recently used page off the list.
    pub fn pop_oldest(&mut self) -> Option<Victim<T>> {
        let (_, (file, index)) = self.by_age.pop_first()?;
        let e = self.by_page.remove(&(file, index))?;
        let owner = self.unlist(file)?;
        Some(Victim { file, index, frame: e.frame, owner })
    }

    /// One page fewer of `file`; its owner.
    fn unlist(&mut self, file: FileKey) -> Option<T> {
        let (owner, count) = self.files.get_mut(&file)?;
        let owner = owner.clone();
        *count -= 1;
        if *count == 0 {
            self.files.remove(&file);
        }
        Some(owner)
    }

    /// Takes every page of `file` off the list (the file is gone, or its
    /// pages now belong to a mapping); returns how many there were.
    pub fn remove_file(&mut self, file: FileKey) -> usize {
        let keys: Vec<(FileKey, u64)> = self.by_page.range((file, 0)..=(file, u64::MAX)).map(|(k, _)| *k).collect();
        for k in &keys {
            if let Some(e) = self.by_page.remove(k) {
                self.by_age.remove(&e.stamp);
            }
        }
        self.files.remove(&file);
        keys.len()
    }

    /// The oldest pages taken off the list until at most `limit` remain.
    pub fn trim(&mut self, limit: usize) -> Vec<Victim<T>> {
        let mut out = Vec::new();
        while self.len() > limit {
            match self.pop_oldest() {
                Some(v) => out.push(v),
                None => break,
            }
        }
        out
    }
}

/// Bytes of kernel heap one listed page costs, counted high: two B-tree
/// entries and their share of the nodes.
pub const HEAP_PER_PAGE: usize = 128;

/// How many pages the cache may hold: a quarter of the page frames, and
/// no more than an eighth of the kernel heap can list.
pub fn page_limit(total_frames: usize, heap_bytes: usize) -> usize {
    (total_frames / 4).min(heap_bytes / 8 / HEAP_PER_PAGE)
}

/// Whether one more page may be cached now, with `cached` held already
/// and `free_frames` of `total_frames` free: the cache stays under
/// `limit` and never takes the last quarter of memory, which is left to
/// the program (a page fault that still finds none empties the cache).
pub fn may_grow(cached: usize, limit: usize, free_frames: usize, total_frames: usize) -> bool {
    cached < limit && free_frames > total_frames / 4
}

/// Names a directory at most remembers as missing on the host.
pub const MAX_ABSENT: usize = 64;

/// Names a directory of a cached share is known to lack (Linux's negative
/// dentries): a lookup of one answers ENOENT without asking the host. At
/// most MAX_ABSENT, the oldest forgotten first.
#[derive(Default)]
pub struct AbsentNames {
    names: BTreeSet<Vec<u8>>,
    order: VecDeque<Vec<u8>>,
}

impl AbsentNames {
    pub const fn new() -> Self {
        AbsentNames { names: BTreeSet::new(), order: VecDeque::new() }
    }

    pub fn contains(&self, name: &[u8]) -> bool {
        self.names.contains(name)
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Remembers `name` as missing, forgetting the oldest beyond MAX_ABSENT.
    pub fn insert(&mut self, name: &[u8]) {
        if !self.names.insert(name.to_vec()) {
            return;
        }
        self.order.push_back(name.to_vec());
        while self.order.len() > MAX_ABSENT {
            if let Some(old) = self.order.pop_front() {
                self.names.remove(&old);
            }
        }
    }
}

#[cfg(test)]
#[path = "sharecache_tests.rs"]
mod tests;

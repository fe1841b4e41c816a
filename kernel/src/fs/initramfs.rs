//! The initramfs: the cpio archive QEMU loads with -initrd, indexed by path
//! at boot. File contents stay in the archive (its memory is never reused),
//! so reading a file copies straight from it.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use gometal_core::cpio::{self, CpioError};
use spin::Once;

pub struct Node {
    pub mode: u32,
    pub data: &'static [u8],
    pub ino: u64,
    pub mtime: u64,
}

impl Node {
    pub fn is_dir(&self) -> bool {
        cpio::is_dir(self.mode)
    }
    pub fn is_symlink(&self) -> bool {
        cpio::is_symlink(self.mode)
    }
}

static NODES: Once<BTreeMap<Vec<u8>, Node>> = Once::new();

const DIR_MODE: u32 = cpio::S_IFDIR | 0o755;

/// Indexes the archive. Directories that only appear as parents of files
/// are created too, so every path prefix exists.
pub fn init(archive: &'static [u8]) -> Result<usize, CpioError> {
    let mut nodes = BTreeMap::new();
    nodes.insert(b"/".to_vec(), Node { mode: DIR_MODE, data: &[], ino: 1, mtime: 0 });
    let mut next_ino = 2;
    for entry in cpio::entries(archive) {
        let e = entry?;
        let path = cpio::normalize_path(e.name);
        let mut parent = parent_of(&path);
        while parent.len() > 1 && !nodes.contains_key(&parent) {
            nodes.insert(parent.clone(), Node { mode: DIR_MODE, data: &[], ino: next_ino, mtime: 0 });
            next_ino += 1;
            parent = parent_of(&parent);
        }
        nodes.insert(path, Node { mode: e.mode, data: e.data, ino: next_ino, mtime: e.mtime as u64 });
        next_ino += 1;
    }
    let count = nodes.len();
    NODES.call_once(|| nodes);
    Ok(count)
}

pub fn parent_of(path: &[u8]) -> Vec<u8> {
    match path.iter().rposition(|&b| b == b'/') {
        Some(0) | None => b"/".to_vec(),
        Some(i) => path[..i].to_vec(),
    }
}

/// The node at a normalized absolute path (symlinks not followed).
pub fn lookup(path: &[u8]) -> Option<&'static Node> {
    NODES.get()?.get(path)
}

/// Names of the entries directly inside directory `dir`, with their nodes.
pub fn children(dir: &[u8]) -> Vec<(&'static [u8], &'static Node)> {
    let Some(nodes) = NODES.get() else { return Vec::new() };
    let prefix: Vec<u8> = if dir == b"/" { b"/".to_vec() } else { [dir, b"/"].concat() };
    nodes
        .range(prefix.clone()..)
        .take_while(|(k, _)| k.starts_with(&prefix))
        .filter(|(k, _)| k.len() > prefix.len() && !k[prefix.len()..].contains(&b'/'))
        .map(|(k, n)| (&k[prefix.len()..], n))
        .collect()
}

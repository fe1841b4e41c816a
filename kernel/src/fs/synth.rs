//! Nodes the kernel makes up as they are used, for /proc and /sys: files
//! whose text is generated when they are opened (Linux's seq_file, which
//! also builds the text at the first read), and directories whose entries
//! are computed when a name is looked up or the directory listed
//! (/proc/<pid>/fd, task/). What they say is decided above this layer
//! (procfs/): this module only serves it as files.

use super::fd::OpenFile;
use super::file::{seek_in, File, Opener};
use super::inode::{Inode, Kind};
use super::stat::Stat;
use crate::mm::uaccess::UserSpace;
use alloc::collections::BTreeSet;
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::boot::cpio::S_IFREG;
use gometal_core::linux::errno::{Errno, EACCES, EINVAL};

/// The text of a generated file. `user` is the opening thread's view of
/// the program's memory (maps, cmdline and auxv read it).
pub trait Generate: Send + Sync {
    fn generate(&self, user: &mut UserSpace) -> Result<Vec<u8>, Errno>;
}

/// A generated file, as the tree holds it: a regular file of mode 0444 and
/// size 0, as Linux's /proc files are (readers read until end of file).
pub fn text_node(text: Arc<dyn Generate>) -> Arc<Inode> {
    Inode::new_served(Arc::new(TextOpener(text)), S_IFREG | 0o444)
}

struct TextOpener(Arc<dyn Generate>);

impl Opener for TextOpener {
    fn open(&self, _: u32) -> Result<Arc<dyn File>, Errno> {
        Err(EINVAL) // opened only with the program's memory at hand (open_in)
    }

    fn open_in(&self, user: &mut UserSpace, status: u32) -> Result<Arc<dyn File>, Errno> {
        if status & super::fd::O_ACCMODE != super::fd::O_RDONLY {
            return Err(EACCES);
        }
        Ok(Arc::new(TextFile { text: self.0.generate(user)? }))
    }
}

/// An open generated file: the text as it was at open.
struct TextFile {
    text: Vec<u8>,
}

impl File for TextFile {
    fn read(&self, of: &OpenFile, buf: &mut [u8], at: Option<u64>) -> Result<usize, Errno> {
        let mut offset = of.offset.lock();
        let pos = at.unwrap_or(*offset) as usize;
        let n = self.text.len().saturating_sub(pos).min(buf.len());
        if n > 0 {
            buf[..n].copy_from_slice(&self.text[pos..pos + n]);
        }
        if at.is_none() {
            *offset += n as u64;
        }
        Ok(n)
    }

    fn positional(&self) -> bool {
        true
    }

    fn seek(&self, of: &OpenFile, offset: i64, whence: u32) -> Result<u64, Errno> {
        seek_in(of, offset, whence, self.text.len() as i64)
    }

    fn stat(&self) -> Stat {
        Stat { mode: S_IFREG | 0o444, nlink: 1, ..Stat::default() }
    }
}

/// Where a made-up directory's entries come from.
pub trait DirSource: Send + Sync {
    /// The names it has now, in any order.
    fn names(&self) -> Vec<Vec<u8>>;
    /// The node for `name`, or None if there is no such entry now.
    fn make(&self, name: &[u8]) -> Option<Arc<Inode>>;
    /// Whether `node`, made earlier for `name`, still says the right thing
    /// (a descriptor's link changes when the number is reused).
    fn current(&self, name: &[u8], node: &Inode) -> bool {
        let _ = (name, node);
        true
    }
}

/// A directory (mode 0555) whose entries `source` gives.
pub fn dir_node(source: Arc<dyn DirSource>) -> Arc<Inode> {
    let dir = Inode::new_dir(0o555, 0);
    dir.synth.call_once(|| source);
    dir
}

/// `dir`'s entry `name` if `dir` is made up: Some(answer), else None (the
/// caller looks in the tree).
pub fn lookup(dir: &Arc<Inode>, name: &[u8]) -> Option<Option<Arc<Inode>>> {
    let source = dir.synth.get()?;
    Some(lookup_in(dir, source.as_ref(), name))
}

fn lookup_in(dir: &Arc<Inode>, source: &dyn DirSource, name: &[u8]) -> Option<Arc<Inode>> {
    let Kind::Dir(entries) = &dir.kind else { return None };
    let cached = entries.lock().get(name).cloned();
    if let Some(node) = cached.filter(|n| source.current(name, n)) {
        return Some(node);
    }
    let made = source.make(name);
    entries.lock().remove(name);
    if let Some(node) = &made {
        let _ = super::tree::attach(dir, name, node.clone());
    }
    made
}

/// Brings a made-up directory's entries up to date (before a listing).
pub fn refresh(dir: &Arc<Inode>) {
    let Some(source) = dir.synth.get() else { return };
    let Kind::Dir(entries) = &dir.kind else { return };
    let names: BTreeSet<Vec<u8>> = source.names().into_iter().collect();
    entries.lock().retain(|name, _| names.contains(name));
    for name in &names {
        lookup_in(dir, source.as_ref(), name);
    }
}

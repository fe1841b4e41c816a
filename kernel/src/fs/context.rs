//! The running program's file-system context: its descriptor table and its
//! working directory. The process (process.rs, a layer above fs) owns one
//! and installs it here when it is created, so that path lookup and
//! descriptor access in fs/ and net/ reach it without importing the
//! process layer. gometal runs one program per boot, so there is one
//! context; a kernel with several processes would install the current one
//! on every switch.

use super::fd::FdTable;
use super::inode::Inode;
use alloc::sync::Arc;
use crate::sync::{Lock, LockClass};
use spin::Once;

/// What a program's calls resolve descriptors and relative paths against.
pub struct FsContext {
    pub files: Lock<FdTable>,
    /// The working directory (a directory node: it follows renames).
    pub cwd: Lock<Arc<Inode>>,
}

impl FsContext {
    /// A context with `files` open, working in the root directory.
    pub fn new(files: FdTable) -> Self {
        FsContext { files: Lock::new(LockClass::FdTable, files), cwd: Lock::new(LockClass::Cwd, super::tree::root()) }
    }
}

static CURRENT: Once<&'static FsContext> = Once::new();

/// Makes `ctx` the one every later lookup uses (once per boot).
pub fn install(ctx: &'static FsContext) {
    CURRENT.call_once(|| ctx);
}

/// The running program's context. Panics before `install` (a kernel bug:
/// no system call runs before the program exists).
pub fn current() -> &'static FsContext {
    CURRENT.get().expect("no program yet")
}

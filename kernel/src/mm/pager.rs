//! What a file-backed area needs from the file behind it. fs/ implements
//! it for its nodes (fs/filemap.rs); the address space keeps one per mapped
//! file and asks it for frames at a fault, so memory management does not
//! depend on the file systems above it.

use super::addrspace::Fault;
use gometal_core::linux::errno::Errno;

pub trait Pager: Send + Sync {
    /// The frame to map at file offset `offset` (page aligned), and whether
    /// the area owns it (frees it when unmapped) or the file does.
    fn page(&self, offset: u64, shared: bool) -> Result<(u64, bool), Fault>;
    /// Whether shared pages are a cache of storage elsewhere (a host
    /// share's file) that msync, munmap and exit must write back.
    fn writes_back(&self) -> bool;
    /// Writes the cached shared pages back (nothing for other files).
    fn write_back(&self) -> Result<(), Errno>;
    /// A shared mapping of the file became writable (mprotect).
    fn note_writable(self: alloc::sync::Arc<Self>);
}

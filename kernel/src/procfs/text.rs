//! The generated files of /proc, as fs/synth.rs serves them: a function
//! that writes a file's text, for the process or for one of its threads.

use crate::fs::inode::Inode;
use crate::fs::synth::{self, Generate};
use crate::mm::uaccess::UserSpace;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::linux::errno::Errno;

/// A file whose text needs nothing but the moment it is read.
struct Text(fn() -> String);

impl Generate for Text {
    fn generate(&self, _: &mut UserSpace) -> Result<Vec<u8>, Errno> {
        Ok((self.0)().into_bytes())
    }
}

/// A file that reads the program's memory (maps, auxv).
struct MemoryText(fn(&mut UserSpace) -> Result<Vec<u8>, Errno>);

impl Generate for MemoryText {
    fn generate(&self, user: &mut UserSpace) -> Result<Vec<u8>, Errno> {
        (self.0)(user)
    }
}

/// A file about one thread (task/<tid>/stat) or descriptor (fdinfo/<fd>).
struct NumberText(u32, fn(u32, &mut UserSpace) -> Result<Vec<u8>, Errno>);

impl Generate for NumberText {
    fn generate(&self, user: &mut UserSpace) -> Result<Vec<u8>, Errno> {
        (self.1)(self.0, user)
    }
}

pub fn text(f: fn() -> String) -> Arc<Inode> {
    synth::text_node(Arc::new(Text(f)))
}

pub fn memory(f: fn(&mut UserSpace) -> Result<Vec<u8>, Errno>) -> Arc<Inode> {
    synth::text_node(Arc::new(MemoryText(f)))
}

pub fn numbered(n: u32, f: fn(u32, &mut UserSpace) -> Result<Vec<u8>, Errno>) -> Arc<Inode> {
    synth::text_node(Arc::new(NumberText(n, f)))
}

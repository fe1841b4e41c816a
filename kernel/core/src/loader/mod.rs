//! Loading a program (kernel/src/loader.rs): ELF, the initial stack.

pub mod elf;
pub mod initstack;

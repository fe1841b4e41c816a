//! The pure, host-testable facts of each architecture: page-table entry
//! formats, signal-frame layouts, ELF and HWCAP numbers. Every
//! architecture is compiled and tested whatever the host is; the kernel
//! uses the one it is built for (kernel/src/arch/).

pub mod aarch64;
pub mod riscv64;

//! System calls that exist on one architecture only (asm-generic leaves
//! numbers 244..259 to each architecture, and keeps some older calls, such
//! as renameat, for the architectures that ask for them). The table (../table.rs) names
//! them; each architecture's file answers, and any other architecture
//! answers ENOSYS as Linux does for a number it does not assign.

#[cfg(target_arch = "riscv64")]
mod riscv64;
#[cfg(target_arch = "riscv64")]
pub use riscv64::hwprobe;

/// riscv_hwprobe does not exist here: ENOSYS, as Linux answers on arm64.
#[cfg(not(target_arch = "riscv64"))]
pub fn hwprobe(_: &mut crate::mm::uaccess::UserSpace) -> super::SysResult {
    Err(gometal_core::linux::errno::ENOSYS)
}

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "aarch64")]
pub use aarch64::renameat;

#[cfg(not(target_arch = "aarch64"))]
pub fn renameat(_: &mut crate::mm::uaccess::UserSpace) -> super::SysResult {
    Err(gometal_core::linux::errno::ENOSYS)
}

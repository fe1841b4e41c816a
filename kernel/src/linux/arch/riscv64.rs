//! riscv64's own system calls.

use crate::linux::SysResult;
use crate::mm::uaccess::UserSpace;
use gometal_core::linux::errno::ENOSYS;

/// riscv_hwprobe: deliberate ENOSYS for now; reporting the vector
/// extension would make Go use it.
pub fn hwprobe(_: &mut UserSpace) -> SysResult {
    Err(ENOSYS)
}

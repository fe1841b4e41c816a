//! aarch64's own system calls: the ones asm-generic keeps under an
//! `__ARCH_WANT_*` that arm64 defines and riscv64 does not.

use crate::fs::fd::Fd;
use crate::linux::SysResult;
use crate::mm::uaccess::{UserPtr, UserSpace};

/// renameat (38, `__ARCH_WANT_RENAMEAT`): Go's arm64 os.Rename calls it;
/// renameat2 without flags.
pub fn renameat(user: &mut UserSpace, olddir: Fd, oldpath: UserPtr<u8>, newdir: Fd, newpath: UserPtr<u8>) -> SysResult {
    crate::linux::dirs::renameat2(user, olddir, oldpath, newdir, newpath, 0)
}

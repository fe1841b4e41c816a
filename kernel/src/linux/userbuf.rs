//! User ranges as system calls take them: a pointer register and a length
//! register, checked with Linux's `access_ok` (gometal_core::mm::useraddr) when
//! the arguments are decoded, before any file, socket or device sees the
//! call. These are the calls for which Linux checks the whole range it was
//! given before it acts (vfs_read/vfs_write, import_ubuf, import_iovec,
//! epoll_wait): a range reaching into the kernel half, or wrapping, is
//! EFAULT even where the file would never look at the bytes (a write to
//! /dev/null), and even for zero bytes at a kernel address.
//!
//! A handler takes the range with `range()?` at the point where Linux makes
//! the check (after the descriptor checks that come first there, so the
//! errno a program sees is Linux's); the decoded parameter has no other way
//! to memory. As a safety net the dispatcher (args.rs) never lets a call
//! succeed when one of these parameters failed its check. Calls that only
//! copy a struct or what they produce (stat, readlinkat, getsockopt) keep
//! `UserPtr`: Linux checks exactly what it copies, and so do the copies of
//! mm/uaccess.rs. kernel/core/tests/user_buffers.rs lists which calls take
//! which, against the handlers' signatures.

use crate::memlayout::USER_END;
use crate::mm::uaccess::{UserPtr, UserSlice, UserSpace, UserValue};
use alloc::vec::Vec;
use gometal_core::linux::errno::{Errno, EFAULT, EINVAL, ENOMEM};
use gometal_core::mm::useraddr::{access_ok, array_bytes, MAX_RW_COUNT};

/// A handler parameter, decoded from `REGS` consecutive argument registers.
pub trait Param: Sized {
    const REGS: usize;
    /// Decodes it from `regs`, which starts at this parameter's first register.
    fn from_regs(regs: &[u64]) -> Self;
    /// True for a user range that failed `access_ok`: the call cannot succeed.
    fn faulty(&self) -> bool {
        false
    }
}

impl<T: super::args::FromArg> Param for T {
    const REGS: usize = 1;
    fn from_regs(regs: &[u64]) -> Self {
        T::from_arg(reg(regs, 0))
    }
}

fn reg(regs: &[u64], i: usize) -> u64 {
    regs.get(i).copied().unwrap_or(0)
}

/// `[addr, addr + len)` if it lies in user space, else None.
fn checked(addr: u64, len: u64) -> Option<UserSlice> {
    access_ok(addr, len, USER_END).then(|| UserSlice::new(addr, len as usize))
}

/// A byte range the call moves as a whole (read, write, pread64,
/// pwrite64): the whole length is checked, as vfs_read and vfs_write do.
pub struct UserBuf {
    range: Option<UserSlice>,
}

impl UserBuf {
    /// The range, or EFAULT if it does not lie in user space.
    pub fn range(&self) -> Result<UserSlice, Errno> {
        self.range.ok_or(EFAULT)
    }
}

impl Param for UserBuf {
    const REGS: usize = 2;
    fn from_regs(regs: &[u64]) -> Self {
        let (addr, len) = (reg(regs, 0), reg(regs, 1));
        UserBuf { range: checked(addr, len) }
    }
    fn faulty(&self) -> bool {
        self.range.is_none()
    }
}

/// A byte range as Linux's import_ubuf takes it (sendto, recvfrom,
/// getrandom): the length clamped to MAX_RW_COUNT first, then checked.
pub struct UserIoBuf(UserBuf);

impl UserIoBuf {
    /// The range (at most MAX_RW_COUNT bytes), or EFAULT.
    pub fn range(&self) -> Result<UserSlice, Errno> {
        self.0.range()
    }
}

impl Param for UserIoBuf {
    const REGS: usize = 2;
    fn from_regs(regs: &[u64]) -> Self {
        let (addr, len) = (reg(regs, 0), reg(regs, 1).min(MAX_RW_COUNT));
        UserIoBuf(UserBuf { range: checked(addr, len) })
    }
    fn faulty(&self) -> bool {
        self.0.faulty()
    }
}

/// An array of `T` and its length as a C `int` (epoll_pwait's events):
/// all `count` elements are checked. A negative count checks nothing
/// (the handler refuses it first).
pub struct UserArray<T> {
    count: i32,
    range: Option<UserSlice>,
    _of: core::marker::PhantomData<fn() -> T>,
}

impl<T> UserArray<T> {
    pub fn count(&self) -> i32 {
        self.count
    }

    /// The array's bytes, or EFAULT.
    pub fn range(&self) -> Result<UserSlice, Errno> {
        self.range.ok_or(EFAULT)
    }
}

impl<T: UserValue> Param for UserArray<T> {
    const REGS: usize = 2;
    fn from_regs(regs: &[u64]) -> Self {
        let (addr, count) = (reg(regs, 0), reg(regs, 1) as i32);
        let bytes = u64::try_from(count).ok().and_then(|n| array_bytes(n, T::SIZE as u64));
        UserArray { count, range: bytes.and_then(|b| checked(addr, b)), _of: core::marker::PhantomData }
    }
    fn faulty(&self) -> bool {
        self.count >= 0 && self.range.is_none()
    }
}

/// struct iovec: a (base, len) pair.
pub struct IoVec {
    base: u64,
    len: u64,
}

impl UserValue for IoVec {
    const SIZE: usize = 16;
    fn decode(b: &[u8]) -> Self {
        IoVec { base: u64::decode(&b[..8]), len: u64::decode(&b[8..]) }
    }
    fn encode(&self, out: &mut [u8]) {
        self.base.encode(&mut out[..8]);
        self.len.encode(&mut out[8..]);
    }
}

/// UIO_MAXIOV: the most iovecs one call takes.
pub const UIO_MAXIOV: usize = 1024;

/// An iovec array and its count (readv, writev; msghdr's msg_iov and
/// msg_iovlen): its ranges come from user memory, so `import_iovec`
/// checks them.
#[derive(Clone, Copy)]
pub struct UserIovec {
    iov: UserPtr<IoVec>,
    count: usize,
}

impl UserIovec {
    pub fn new(iov: UserPtr<IoVec>, count: usize) -> Self {
        UserIovec { iov, count }
    }
}

impl Param for UserIovec {
    const REGS: usize = 2;
    fn from_regs(regs: &[u64]) -> Self {
        UserIovec { iov: UserPtr::new(reg(regs, 0)), count: reg(regs, 1) as usize }
    }
}

/// Linux's import_iovec: no iovecs is no ranges (the array is not read);
/// more than UIO_MAXIOV is EINVAL; the array unreadable is EFAULT, a length
/// negative as a ssize_t EINVAL (over the whole array first); then every
/// range is checked (EFAULT), before any byte moves. The lengths are
/// clamped so that the total is at most MAX_RW_COUNT.
pub fn import_iovec(user: &mut UserSpace, v: UserIovec) -> Result<Vec<UserSlice>, Errno> {
    if v.count > UIO_MAXIOV {
        return Err(EINVAL);
    }
    let mut vecs = Vec::new();
    vecs.try_reserve_exact(v.count).map_err(|_| ENOMEM)?;
    for i in 0..v.count {
        let iov = user.read(v.iov.at(i))?;
        if (iov.len as i64) < 0 {
            return Err(EINVAL);
        }
        vecs.push(iov);
    }
    let mut total = 0;
    let mut out = Vec::with_capacity(vecs.len());
    for iov in vecs {
        let range = checked(iov.base, iov.len).ok_or(EFAULT)?;
        let len = iov.len.min(MAX_RW_COUNT - total);
        total += len;
        out.push(range.prefix(len as usize));
    }
    Ok(out)
}

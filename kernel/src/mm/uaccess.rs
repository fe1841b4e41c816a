//! The boundary with the program's memory. A user pointer is an allegation
//! (`UserPtr<T>`, `UserSlice`): it has no way in except the checked copies of
//! `UserSpace`, which check what they copy with Linux's access_ok (a copy
//! of 0 bytes checks nothing, as copy_to_user) and against the address
//! space's areas and go through `AddressSpace::page_for`, so a bad pointer
//! yields EFAULT (never a kernel fault) and a not-yet-touched page is
//! faulted in. The bytes move through the kernel's linear map, never at the
//! user address, which the CPU keeps the kernel from touching
//! (arch/*/userguard.rs: SUM clear, PAN). System calls that check a whole
//! range before they act take it as linux/userbuf.rs's types.
//!
//! The copies take the address-space lock; holding that lock borrows the
//! `UserSpace` mutably (`UserSpace::lock`), so a copy cannot be called while
//! the lock is held: the compiler refuses it. One `UserSpace` exists per
//! kernel entry (system call, return to user, page fault), made by the
//! unsafe `UserSpace::enter`.

use super::addrspace::{Access, AddressSpace, Fault};
use super::frames;
use crate::memlayout::{PAGE_SIZE, USER_END};
use alloc::vec::Vec;
use core::marker::PhantomData;
use gometal_core::linux::errno::{Errno, EFAULT, EINVAL, ENAMETOOLONG, ENOMEM};
use gometal_core::mm::useraddr::access_ok;
use crate::sync::{Lock, LockClass, LockGuard};

pub type UResult<T> = Result<T, Errno>;

impl From<Fault> for Errno {
    fn from(f: Fault) -> Errno {
        match f {
            Fault::OutOfMemory => ENOMEM,
            _ => EFAULT,
        }
    }
}

/// A value with a fixed little-endian layout in user memory (the C struct
/// or integer a system call reads or writes).
pub trait UserValue: Sized {
    const SIZE: usize;
    fn decode(bytes: &[u8]) -> Self;
    fn encode(&self, out: &mut [u8]);
}

macro_rules! int_user_value {
    ($($t:ty),*) => {$(
        impl UserValue for $t {
            const SIZE: usize = core::mem::size_of::<$t>();
            fn decode(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().unwrap_or_default())
            }
            fn encode(&self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
int_user_value!(u32, i32, u64, i64);

/// A C struct the kernel lays out byte by byte (stat, sysinfo, utsname...).
impl<const N: usize> UserValue for [u8; N] {
    const SIZE: usize = N;
    fn decode(bytes: &[u8]) -> Self {
        bytes.try_into().unwrap_or([0; N])
    }
    fn encode(&self, out: &mut [u8]) {
        out.copy_from_slice(self);
    }
}

/// Two of a kind: int[2] (pipe2's descriptors), struct rlimit (two longs).
impl<T: UserValue> UserValue for [T; 2] {
    const SIZE: usize = 2 * T::SIZE;
    fn decode(bytes: &[u8]) -> Self {
        [T::decode(&bytes[..T::SIZE]), T::decode(&bytes[T::SIZE..2 * T::SIZE])]
    }
    fn encode(&self, out: &mut [u8]) {
        self[0].encode(&mut out[..T::SIZE]);
        self[1].encode(&mut out[T::SIZE..2 * T::SIZE]);
    }
}

/// The address of a `T` in the program's memory, as the program claims it.
pub struct UserPtr<T> {
    addr: u64,
    _points_to: PhantomData<fn() -> T>,
}

impl<T> Clone for UserPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for UserPtr<T> {}

impl<T> UserPtr<T> {
    /// An address from a register or from user memory: any value.
    pub const fn new(addr: u64) -> Self {
        UserPtr { addr, _points_to: PhantomData }
    }

    pub fn addr(self) -> u64 {
        self.addr
    }

    pub fn is_null(self) -> bool {
        self.addr == 0
    }

    /// None for NULL (the optional pointers of many calls).
    pub fn non_null(self) -> Option<Self> {
        (!self.is_null()).then_some(self)
    }

    /// The `index`-th `T` of an array starting here.
    pub fn at(self, index: usize) -> Self
    where
        T: UserValue,
    {
        UserPtr::new(self.addr.wrapping_add((index * T::SIZE) as u64))
    }
}

impl UserPtr<u8> {
    /// `len` bytes starting here.
    pub fn slice(self, len: usize) -> UserSlice {
        UserSlice { addr: self.addr, len }
    }
}

impl<T> core::fmt::Debug for UserPtr<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        write!(f, "{:#x}", self.addr)
    }
}

/// A byte range in the program's memory, as the program claims it.
#[derive(Clone, Copy, Debug)]
pub struct UserSlice {
    addr: u64,
    len: usize,
}

impl UserSlice {
    /// `len` bytes at `addr`: any values (linux/userbuf.rs makes the ones
    /// a system call's range check let through).
    pub fn new(addr: u64, len: usize) -> Self {
        UserSlice { addr, len }
    }

    pub fn len(self) -> usize {
        self.len
    }

    /// The first `n` bytes (all of them if fewer).
    pub fn prefix(self, n: usize) -> UserSlice {
        UserSlice { addr: self.addr, len: n.min(self.len) }
    }

    /// The part after the first `n` bytes.
    pub fn skip(self, n: usize) -> UserSlice {
        let n = n.min(self.len);
        UserSlice { addr: self.addr.wrapping_add(n as u64), len: self.len - n }
    }
}

/// The program's address space behind its lock. Only `UserSpace::lock`
/// opens it, so whoever holds it holds the `UserSpace` too.
pub struct ProgramMemory(Lock<AddressSpace>);

impl ProgramMemory {
    pub fn new(mm: AddressSpace) -> Self {
        ProgramMemory(Lock::new(LockClass::AddressSpace, mm))
    }
}

/// The right to touch the current program's memory, for one kernel entry.
/// Not `Send` or `Sync`: it belongs to the thread that entered.
pub struct UserSpace {
    memory: &'static ProgramMemory,
    _this_thread: PhantomData<*const ()>,
}

impl UserSpace {
    /// The user space of this kernel entry.
    ///
    /// # Safety
    /// Call only where the current thread enters the kernel from user mode
    /// (or leaves for it), with nothing of its own below on its kernel
    /// stack: then it holds no guard of the address-space lock and no other
    /// `UserSpace`. Every lock of the address space on the thread's way
    /// through the kernel goes through this value, and the borrow checker
    /// keeps the copies below from running while the guard lives. (A thread
    /// never blocks holding the guard: it is a spin lock.)
    #[allow(unsafe_code)] // the one unsafe item of this file: the contract above
    pub unsafe fn enter(memory: &'static ProgramMemory) -> Self {
        UserSpace { memory, _this_thread: PhantomData }
    }

    /// The address space, locked for as long as the guard (and with it this
    /// `UserSpace`) is borrowed.
    pub fn lock(&mut self) -> LockGuard<'_, AddressSpace> {
        self.memory.0.lock()
    }

    /// Reads the `T` at `p`.
    pub fn read<T: UserValue>(&mut self, p: UserPtr<T>) -> UResult<T> {
        let mut buf = [0u8; 512];
        let bytes = buf.get_mut(..T::SIZE).ok_or(EINVAL)?;
        copy_in(&mut self.lock(), p.addr, bytes)?;
        Ok(T::decode(bytes))
    }

    /// Writes `value` at `p`.
    pub fn write<T: UserValue>(&mut self, p: UserPtr<T>, value: &T) -> UResult<()> {
        let mut buf = [0u8; 512];
        let bytes = buf.get_mut(..T::SIZE).ok_or(EINVAL)?;
        value.encode(bytes);
        copy_out(&mut self.lock(), p.addr, bytes)
    }

    /// All the bytes of `s` (ENOMEM, not a panic, when the kernel heap
    /// cannot hold them).
    pub fn read_bytes(&mut self, s: UserSlice) -> UResult<Vec<u8>> {
        let mut buf = zeroed(s.len)?;
        copy_in(&mut self.lock(), s.addr, &mut buf)?;
        Ok(buf)
    }

    /// Copies the first `buf.len()` bytes of `s` into `buf` (a kernel
    /// buffer the caller owns: a TCP send goes straight into smoltcp's).
    pub fn read_into(&mut self, s: UserSlice, buf: &mut [u8]) -> UResult<()> {
        let n = buf.len().min(s.len);
        copy_in(&mut self.lock(), s.addr, &mut buf[..n])
    }

    /// How many bytes from the start of `s` the program lets the kernel
    /// write (`write`) or read: the pages up to the first one that is
    /// unmapped or forbids the access, faulted in as a copy would. A call
    /// checks this *before* it consumes anything (file offset, pipe bytes,
    /// an event), so a bad buffer costs nothing, and a buffer mapped only in
    /// part gets a short transfer, as on Linux. ENOMEM when no frame is left.
    pub fn accessible_prefix(&mut self, s: UserSlice, write: bool) -> UResult<usize> {
        let access = if write { Access::Write } else { Access::Read };
        let mut mm = self.lock();
        let mut done = 0;
        while done < s.len {
            let addr = s.addr.wrapping_add(done as u64);
            if check_range(addr, 1).is_err() {
                break;
            }
            match mm.page_for(addr, access) {
                Ok(_) => {}
                Err(Fault::OutOfMemory) => return Err(ENOMEM),
                Err(_) => break,
            }
            done += (PAGE_SIZE - (addr % PAGE_SIZE as u64) as usize).min(s.len - done);
        }
        Ok(done)
    }

    /// The part of `s` (its first `max` bytes at most) that a transfer
    /// may use now (`accessible_prefix`): EFAULT when `s` is not empty and
    /// none of it is.
    pub fn usable_prefix(&mut self, s: UserSlice, max: usize, write: bool) -> UResult<UserSlice> {
        let s = s.prefix(max);
        match self.accessible_prefix(s, write)? {
            0 if s.len > 0 => Err(EFAULT),
            n => Ok(s.prefix(n)),
        }
    }

    /// Writes `data` to the start of `s` (at most `s.len()` bytes of it).
    pub fn write_bytes(&mut self, s: UserSlice, data: &[u8]) -> UResult<()> {
        let n = data.len().min(s.len);
        copy_out(&mut self.lock(), s.addr, &data[..n])
    }

    /// A NUL-terminated string of at most `max` bytes (without the NUL).
    pub fn read_cstr(&mut self, p: UserPtr<u8>, max: usize) -> UResult<Vec<u8>> {
        let mut mm = self.lock();
        let mut out = Vec::new();
        let mut addr = p.addr;
        let mut chunk = [0u8; 128];
        loop {
            check_range(addr, 1)?;
            let pa = mm.page_for(addr, Access::Read)?;
            let off = (addr % PAGE_SIZE as u64) as usize;
            let n = chunk.len().min(PAGE_SIZE - off);
            frames::read_frame(pa, off, &mut chunk[..n]);
            for &b in &chunk[..n] {
                if b == 0 {
                    return Ok(out);
                }
                if out.len() == max {
                    return Err(ENAMETOOLONG);
                }
                out.push(b);
            }
            addr += n as u64;
        }
    }

    /// The aligned futex word at `p`, for the futex code's atomic loads.
    pub fn futex_word(&mut self, p: UserPtr<u32>) -> UResult<FutexWord<'_>> {
        if !p.addr.is_multiple_of(4) {
            return Err(EINVAL);
        }
        check_range(p.addr, 4)?;
        let pa = self.lock().page_for(p.addr, Access::Read)?;
        Ok(FutexWord { pa: pa + p.addr % PAGE_SIZE as u64, _user: PhantomData })
    }
}

/// A futex word found in the program's memory. It lives no longer than the
/// `UserSpace` borrow it came from, so no reference to the frame outlives
/// the system call. The address-space lock is not held: a concurrent munmap
/// of the word only frees the frame after every CPU has flushed its TLB
/// (smp::shootdown), and this CPU acknowledges that only outside this
/// system call, so the frame cannot be reused under the access. A program
/// racing munmap with its own futex wait may read a stale value, as it could
/// on Linux.
pub struct FutexWord<'a> {
    pa: u64,
    _user: PhantomData<&'a mut UserSpace>,
}

impl FutexWord<'_> {
    /// The word's value now (user threads change it concurrently).
    pub fn load(&self) -> u32 {
        frames::load_word(self.pa)
    }
}

/// `len` zero bytes on the kernel heap, or ENOMEM: every buffer whose size
/// a program chooses is allocated fallibly (an infallible allocation that
/// fails is a kernel panic).
pub fn zeroed(len: usize) -> UResult<Vec<u8>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| ENOMEM)?;
    v.resize(len, 0);
    Ok(v)
}

/// Linux's access_ok against the top of user space.
fn check_range(va: u64, len: usize) -> UResult<()> {
    if access_ok(va, len as u64, USER_END) {
        Ok(())
    } else {
        Err(EFAULT)
    }
}

/// Visits [va, va+len) page by page: `f(frame, offset_in_frame, range_in_buffer)`.
fn for_each_chunk(
    mm: &mut AddressSpace,
    va: u64,
    len: usize,
    access: Access,
    mut f: impl FnMut(u64, usize, core::ops::Range<usize>),
) -> UResult<()> {
    if len == 0 {
        return Ok(()); // copy_{to,from}_user of nothing checks nothing
    }
    check_range(va, len)?;
    let mut done = 0;
    while done < len {
        let addr = va + done as u64;
        let off = (addr % PAGE_SIZE as u64) as usize;
        let n = (PAGE_SIZE - off).min(len - done);
        let pa = mm.page_for(addr, access)?;
        f(pa, off, done..done + n);
        done += n;
    }
    Ok(())
}

/// Copies from user address `va` of `mm` into `buf`.
fn copy_in(mm: &mut AddressSpace, va: u64, buf: &mut [u8]) -> UResult<()> {
    let len = buf.len();
    for_each_chunk(mm, va, len, Access::Read, |pa, off, r| frames::read_frame(pa, off, &mut buf[r]))
}

/// Copies `data` to user address `va` of `mm` (the loader uses this on an
/// address space that is not yet the program's).
pub fn copy_out(mm: &mut AddressSpace, va: u64, data: &[u8]) -> UResult<()> {
    for_each_chunk(mm, va, data.len(), Access::Write, |pa, off, r| frames::write_frame(pa, off, &data[r]))
}

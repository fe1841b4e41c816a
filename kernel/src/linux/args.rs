//! Decoding system-call arguments: each handler declares typed parameters
//! (descriptors, flags, user pointers, lengths, user ranges) and
//! `Handler::call` turns the six argument registers into them, one register
//! per parameter, or two for a user range (userbuf.rs: pointer and length).
//! This is the only place that reads the raw registers.
//!
//! Decoding never fails: a C `int` is the low 32 bits, flags keep unknown
//! bits (handlers that refuse them say so), a user pointer is only an
//! allegation until `UserSpace` copies through it, and a user range carries
//! the result of its `access_ok` check for the handler to return where
//! Linux does. So the order in which a handler checks its arguments, and
//! with it the errno a program sees, stays in the handler; but a call whose
//! range failed its check never succeeds (`Handler::call`).

use super::userbuf::Param;
use super::SysResult;
use crate::fs::fd::Fd;
use crate::mm::uaccess::{UserPtr, UserSpace, UserValue};
use bitflags::bitflags;
use gometal_core::linux::errno::EFAULT;

/// The argument registers a0..a5.
pub type Args = [u64; 6];

/// A parameter type a handler can take from one argument register.
pub trait FromArg {
    fn from_arg(raw: u64) -> Self;
}

impl FromArg for u64 {
    fn from_arg(raw: u64) -> Self {
        raw
    }
}

impl FromArg for usize {
    fn from_arg(raw: u64) -> Self {
        raw as usize
    }
}

impl FromArg for i64 {
    fn from_arg(raw: u64) -> Self {
        raw as i64
    }
}

/// C `int` and `unsigned int`: the low 32 bits, as Linux reads them.
impl FromArg for i32 {
    fn from_arg(raw: u64) -> Self {
        raw as i32
    }
}

impl FromArg for u32 {
    fn from_arg(raw: u64) -> Self {
        raw as u32
    }
}

impl FromArg for Fd {
    fn from_arg(raw: u64) -> Self {
        Fd(raw as i32)
    }
}

impl<T> FromArg for UserPtr<T> {
    fn from_arg(raw: u64) -> Self {
        UserPtr::new(raw)
    }
}

/// A system-call handler: a function of the caller's user space and up to
/// six decoded arguments.
pub trait Handler<Params> {
    fn call(self, user: &mut UserSpace, a: &Args) -> SysResult;
}

macro_rules! handler_arity {
    ($($p:ident $v:ident),*) => {
        impl<F, $($p: Param),*> Handler<($($p,)*)> for F
        where
            F: FnOnce(&mut UserSpace, $($p),*) -> SysResult,
        {
            #[allow(unused_variables, unused_mut, unused_assignments)]
            fn call(self, user: &mut UserSpace, a: &Args) -> SysResult {
                let mut at = 0;
                $(
                    let $v = $p::from_regs(a.get(at..).unwrap_or(&[]));
                    at += $p::REGS;
                )*
                let faulty = false $(|| $v.faulty())*;
                match self(user, $($v),*) {
                    // The handler had no need to look at a range that is
                    // not the program's (a write to /dev/null): Linux's
                    // check fails the call all the same.
                    Ok(_) if faulty => Err(EFAULT),
                    r => r,
                }
            }
        }
    };
}

handler_arity!();
handler_arity!(A a);
handler_arity!(A a, B b);
handler_arity!(A a, B b, C c);
handler_arity!(A a, B b, C c, D d);
handler_arity!(A a, B b, C c, D d, E e);
handler_arity!(A a, B b, C c, D d, E e, G g);

macro_rules! flags_arg {
    ($($t:ty: $bits:ty),*) => {$(
        impl FromArg for $t {
            fn from_arg(raw: u64) -> Self {
                <$t>::from_bits_retain(raw as $bits)
            }
        }
    )*};
}

bitflags! {
    /// open(2) flags (asm-generic values, but O_DIRECTORY and O_NOFOLLOW
    /// are the architecture's: arm64 swaps them with O_DIRECT and
    /// O_LARGEFILE), also the O_CLOEXEC/O_NONBLOCK of pipe2, dup3,
    /// eventfd2 and epoll_create1.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct OpenFlags: u32 {
        const WRONLY = 0o1;
        const RDWR = 0o2;
        const CREAT = 0o100;
        const EXCL = 0o200;
        const TRUNC = 0o1000;
        const APPEND = 0o2000;
        const NONBLOCK = 0o4000;
        const DIRECTORY = crate::arch::O_DIRECTORY;
        const NOFOLLOW = crate::arch::O_NOFOLLOW;
        const CLOEXEC = 0o2000000;
        const PATH = 0o10000000;
        const TMPFILE = 0o20000000 | Self::DIRECTORY.bits();
    }

    /// The AT_* flags of the *at calls.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct AtFlags: u32 {
        const SYMLINK_NOFOLLOW = 0x100;
        const REMOVEDIR = 0x200;
        const SYMLINK_FOLLOW = 0x400;
        const NO_AUTOMOUNT = 0x800;
        const EMPTY_PATH = 0x1000;
        /// statx's AT_STATX_SYNC_TYPE bits.
        const STATX_SYNC = 0x6000;
    }

    /// mmap's flags.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct MapFlags: u32 {
        const SHARED = 0x01;
        const PRIVATE = 0x02;
        const FIXED = 0x10;
        const ANONYMOUS = 0x20;
        const FIXED_NOREPLACE = 0x100000;
    }

    /// clone's flags (the ones gometal looks at).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct CloneFlags: u64 {
        const VM = 0x100;
        const THREAD = 0x10000;
        const SETTLS = 0x80000;
        const PARENT_SETTID = 0x100000;
        const CHILD_CLEARTID = 0x200000;
        const CHILD_SETTID = 0x1000000;
    }

    /// eventfd2's flags.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct EventFdFlags: u32 {
        const SEMAPHORE = 1;
        const NONBLOCK = OpenFlags::NONBLOCK.bits();
        const CLOEXEC = OpenFlags::CLOEXEC.bits();
    }
}

flags_arg!(OpenFlags: u32, AtFlags: u32, MapFlags: u32, CloneFlags: u64, EventFdFlags: u32);

/// struct timespec (and struct timeval: the same two longs).
#[derive(Clone, Copy, Debug)]
pub struct Timespec {
    pub sec: i64,
    pub nsec: i64,
}

impl UserValue for Timespec {
    const SIZE: usize = 16;
    fn decode(b: &[u8]) -> Self {
        Timespec { sec: i64::decode(&b[..8]), nsec: i64::decode(&b[8..16]) }
    }
    fn encode(&self, out: &mut [u8]) {
        self.sec.encode(&mut out[..8]);
        self.nsec.encode(&mut out[8..16]);
    }
}

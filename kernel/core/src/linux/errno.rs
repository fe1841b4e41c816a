//! Linux errno values (asm-generic, as used on riscv64) as a type. A syscall
//! handler returns `Err(Errno)`; the dispatcher puts `-errno` in a0, which the
//! Go runtime recognises as an error when it lies in [-4095, -1]. `Debug`
//! prints the Linux name (`EFAULT`), which is what `trace` shows.

use core::fmt;

/// One Linux error number. Only the values below exist, so a handler cannot
/// return a number Linux does not define.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Errno(u16);

// One list defines the constants and their names, so the two cannot drift.
macro_rules! errnos {
    ($($name:ident = $value:literal,)*) => {
        $(pub const $name: Errno = Errno($value);)*

        impl Errno {
            /// The Linux name, e.g. "EFAULT".
            pub fn name(self) -> &'static str {
                match self.0 {
                    $($value => stringify!($name),)*
                    _ => "E?",
                }
            }
        }

        #[cfg(test)]
        const ALL: &[Errno] = &[$($name),*];
    };
}

errnos! {
    EPERM = 1,
    ENOENT = 2,
    ESRCH = 3,
    EINTR = 4,
    EIO = 5,
    ENXIO = 6,
    EBADF = 9,
    ECHILD = 10,
    EAGAIN = 11,
    ENOMEM = 12,
    EACCES = 13,
    EFAULT = 14,
    EBUSY = 16,
    EEXIST = 17,
    EXDEV = 18,
    ENODEV = 19,
    ENOTDIR = 20,
    EISDIR = 21,
    EINVAL = 22,
    ENFILE = 23,
    EMFILE = 24,
    ENOTTY = 25,
    EFBIG = 27,
    ENOSPC = 28,
    ESPIPE = 29,
    EROFS = 30,
    EPIPE = 32,
    EDOM = 33,
    ERANGE = 34,
    EDEADLK = 35,
    ENAMETOOLONG = 36,
    ENOLCK = 37,
    ENOSYS = 38,
    ENOTEMPTY = 39,
    ELOOP = 40,
    ENODATA = 61,
    ENOTSOCK = 88,
    EDESTADDRREQ = 89,
    EMSGSIZE = 90,
    EPROTOTYPE = 91,
    ENOPROTOOPT = 92,
    EPROTONOSUPPORT = 93,
    ESOCKTNOSUPPORT = 94,
    EOPNOTSUPP = 95,
    EAFNOSUPPORT = 97,
    EADDRINUSE = 98,
    EADDRNOTAVAIL = 99,
    ENETUNREACH = 101,
    ECONNABORTED = 103,
    ECONNRESET = 104,
    ENOBUFS = 105,
    EISCONN = 106,
    ENOTCONN = 107,
    ETIMEDOUT = 110,
    ECONNREFUSED = 111,
    EALREADY = 114,
    EINPROGRESS = 115,
}

/// The largest errno: results in [-MAX_ERRNO, -1] are errors (sys.s checks
/// this range), so no successful result may fall inside it.
pub const MAX_ERRNO: usize = 4095;

impl Errno {
    /// The positive Linux value.
    pub const fn value(self) -> usize {
        self.0 as usize
    }

    /// A Linux errno another machine reported (a 9P server's Rlerror):
    /// itself if gometal knows the value, EIO otherwise, so no number
    /// outside the list can reach a program.
    pub fn from_host(v: u32) -> Errno {
        let e = Errno(v.min(u16::MAX as u32) as u16);
        if e.name() == "E?" { EIO } else { e }
    }

    /// What the program sees in a0: -errno as a register value.
    pub const fn to_register(self) -> u64 {
        (self.0 as u64).wrapping_neg()
    }
}

impl fmt::Debug for Errno {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;

    #[test]
    fn values_match_linux() {
        assert_eq!(EAGAIN.value(), 11);
        assert_eq!(ENOSYS.value(), 38);
        assert_eq!(ETIMEDOUT.value(), 110);
        assert_eq!(EAFNOSUPPORT.value(), 97);
        assert_eq!(EOPNOTSUPP.value(), 95);
        assert_eq!(EINPROGRESS.value(), 115);
    }

    #[test]
    fn all_are_valid_error_results() {
        for e in ALL {
            assert!(e.value() > 0 && e.value() <= MAX_ERRNO);
            assert_eq!(e.to_register() as i64, -(e.value() as i64));
        }
    }

    #[test]
    fn host_errnos_are_known_or_eio() {
        assert_eq!(Errno::from_host(2), ENOENT);
        assert_eq!(Errno::from_host(39), ENOTEMPTY);
        assert_eq!(Errno::from_host(0), EIO);
        assert_eq!(Errno::from_host(70_000), EIO);
    }

    #[test]
    fn names_are_the_constants() {
        assert_eq!(format!("{:?}", EFAULT), "EFAULT");
        assert_eq!(EINVAL.name(), "EINVAL");
        let mut values: alloc::vec::Vec<usize> = ALL.iter().map(|e| e.value()).collect();
        values.sort();
        values.dedup();
        assert_eq!(values.len(), ALL.len(), "two names share a value");
        assert!(ALL.iter().all(|e| e.name().starts_with('E') && e.name() != "E?"));
    }
}

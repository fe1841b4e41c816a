//! Linux errno values (asm-generic, as used on riscv64). They are positive;
//! a syscall handler returns `-(E as isize)` and the user sees -errno in a0,
//! which the Go runtime recognises as an error when it lies in [-4095, -1].

pub const EPERM: isize = 1;
pub const ENOENT: isize = 2;
pub const ESRCH: isize = 3;
pub const EINTR: isize = 4;
pub const EIO: isize = 5;
pub const ENXIO: isize = 6;
pub const EBADF: isize = 9;
pub const ECHILD: isize = 10;
pub const EAGAIN: isize = 11;
pub const ENOMEM: isize = 12;
pub const EACCES: isize = 13;
pub const EFAULT: isize = 14;
pub const EBUSY: isize = 16;
pub const EEXIST: isize = 17;
pub const EXDEV: isize = 18;
pub const ENODEV: isize = 19;
pub const ENOTDIR: isize = 20;
pub const EISDIR: isize = 21;
pub const EINVAL: isize = 22;
pub const ENFILE: isize = 23;
pub const EMFILE: isize = 24;
pub const ENOTTY: isize = 25;
pub const EFBIG: isize = 27;
pub const ENOSPC: isize = 28;
pub const ESPIPE: isize = 29;
pub const EROFS: isize = 30;
pub const EPIPE: isize = 32;
pub const ERANGE: isize = 34;
pub const ENAMETOOLONG: isize = 36;
pub const ENOSYS: isize = 38;
pub const ENOTEMPTY: isize = 39;
pub const ELOOP: isize = 40;
pub const ENOTSOCK: isize = 88;
pub const EPROTONOSUPPORT: isize = 93;
pub const EOPNOTSUPP: isize = 95;
pub const EAFNOSUPPORT: isize = 97;
pub const EADDRINUSE: isize = 98;
pub const EADDRNOTAVAIL: isize = 99;
pub const ECONNABORTED: isize = 103;
pub const ECONNRESET: isize = 104;
pub const EISCONN: isize = 106;
pub const ENOTCONN: isize = 107;
pub const ETIMEDOUT: isize = 110;
pub const ECONNREFUSED: isize = 111;
pub const EALREADY: isize = 114;
pub const EINPROGRESS: isize = 115;

/// The largest errno: results in [-MAX_ERRNO, -1] are errors (sys.s checks
/// this range), so no successful result may fall inside it.
pub const MAX_ERRNO: isize = 4095;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_match_linux() {
        assert_eq!(EAGAIN, 11);
        assert_eq!(ENOSYS, 38);
        assert_eq!(ETIMEDOUT, 110);
        assert_eq!(EAFNOSUPPORT, 97);
        assert_eq!(EOPNOTSUPP, 95);
        assert_eq!(EINPROGRESS, 115);
    }

    #[test]
    fn all_are_valid_error_results() {
        for e in [EPERM, ENOENT, EINVAL, ENOTSOCK, ECONNREFUSED, ENODEV] {
            assert!(e > 0 && e <= MAX_ERRNO);
        }
    }
}

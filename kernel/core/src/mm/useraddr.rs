//! Linux's `access_ok`: whether a user range `[addr, addr + size)` lies
//! wholly below the top of user space (`limit`, Linux's TASK_SIZE_MAX;
//! gometal's USER_END), with no overflow. It says nothing about whether the
//! pages are mapped: a range that passes may still fault when copied (then
//! EFAULT, or a short transfer), one that fails is EFAULT before anything
//! is read or written.
//!
//! Linux (include/asm-generic/access_ok.h) computes
//! `size <= limit && addr <= limit - size`, so a size of 0 passes for any
//! address up to and including `limit` but not above it: `write(fd,
//! kernel_address, 0)` is EFAULT, `write(fd, NULL, 0)` is 0. A copy of 0
//! bytes (copy_to_user/copy_from_user) checks nothing at all.

/// The most one read or write moves (INT_MAX rounded down to a page), which
/// Linux's import_ubuf clamps a length to before it checks the range.
pub const MAX_RW_COUNT: u64 = 0x7fff_f000;

/// Whether `[addr, addr + size)` lies in user space below `limit`.
pub fn access_ok(addr: u64, size: u64, limit: u64) -> bool {
    size <= limit && addr <= limit - size
}

/// `count` elements of `elem` bytes: the byte length, or None if it does
/// not fit in 64 bits (then no range is ok).
pub fn array_bytes(count: u64, elem: u64) -> Option<u64> {
    count.checked_mul(elem)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: u64 = 0x40_0000_0000;

    #[test]
    fn ranges_inside_user_space_pass() {
        assert!(access_ok(0x1000, 0x1000, LIMIT));
        assert!(access_ok(LIMIT - 0x1000, 0x1000, LIMIT), "ending exactly at the limit");
        assert!(access_ok(0, LIMIT, LIMIT), "all of user space");
    }

    #[test]
    fn ranges_reaching_past_the_limit_fail() {
        assert!(!access_ok(LIMIT - 0x1000, 0x1001, LIMIT), "one byte into the kernel half");
        assert!(!access_ok(0xffff_ffc0_8020_0000, 16, LIMIT), "a kernel address");
        assert!(!access_ok(0x1000, 1 << 63, LIMIT), "a length larger than user space");
        assert!(!access_ok(0, LIMIT + 1, LIMIT));
    }

    #[test]
    fn wrapping_ranges_fail() {
        // addr + size wraps to a small number: a naive `addr + size <= limit`
        // would pass it.
        assert!(!access_ok(0x1000, u64::MAX - 0xfff + 0x10, LIMIT));
        assert!(!access_ok(u64::MAX - 0xfff, 0x2000, LIMIT));
        assert!(!access_ok(u64::MAX, 1, LIMIT));
    }

    #[test]
    fn zero_length_checks_the_address() {
        // Linux: size 0 passes up to and including the limit.
        assert!(access_ok(0, 0, LIMIT), "NULL with length 0");
        assert!(access_ok(LIMIT, 0, LIMIT), "the limit itself");
        assert!(!access_ok(LIMIT + 1, 0, LIMIT));
        assert!(!access_ok(0xffff_ffc0_8020_0000, 0, LIMIT), "a kernel address, even for 0 bytes");
    }

    #[test]
    fn array_lengths_do_not_overflow() {
        assert_eq!(array_bytes(4, 16), Some(64));
        assert_eq!(array_bytes(1 << 61, 16), None);
        assert_eq!(array_bytes(0, 16), Some(0));
    }
}

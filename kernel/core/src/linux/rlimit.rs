//! RLIMIT_NOFILE as Linux keeps it: a soft limit (the most descriptors a
//! process may have open; the lowest fd number that cannot be allocated) and
//! a hard ceiling for it. Linux starts init with 1024/4096 and Go raises the
//! soft limit to one below the hard one at start-up, so a Go program gets 4095 — a
//! server with more connections raises the hard limit (allowed: gometal's
//! program runs as root) up to fs.nr_open.

use crate::linux::errno::{Errno, EINVAL, EPERM};

/// The limits a program starts with (Linux's INR_OPEN_CUR, INR_OPEN_MAX).
pub const NOFILE_START: Limit = Limit { soft: 1024, hard: 4096 };
/// fs.nr_open: no descriptor table grows beyond this.
pub const NR_OPEN: u64 = 1 << 20;
/// What getrlimit says of a resource the kernel does not limit.
pub const RLIM_INFINITY: u64 = u64::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub soft: u64,
    pub hard: u64,
}

/// Checks a new RLIMIT_NOFILE as setrlimit(2) does for root: the soft limit
/// may not exceed the hard one (EINVAL), and neither may exceed nr_open
/// (EPERM).
pub fn check_nofile(new: Limit) -> Result<Limit, Errno> {
    if new.soft > new.hard {
        return Err(EINVAL);
    }
    if new.hard > NR_OPEN {
        return Err(EPERM);
    }
    Ok(new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nofile_rules() {
        assert_eq!(check_nofile(Limit { soft: 4096, hard: 4096 }), Ok(Limit { soft: 4096, hard: 4096 }));
        assert_eq!(check_nofile(Limit { soft: 10, hard: 100_000 }).map(|l| l.hard), Ok(100_000));
        assert_eq!(check_nofile(Limit { soft: 5000, hard: 4096 }), Err(EINVAL));
        assert_eq!(check_nofile(Limit { soft: 1, hard: NR_OPEN + 1 }), Err(EPERM));
        assert_eq!(check_nofile(Limit { soft: RLIM_INFINITY, hard: RLIM_INFINITY }), Err(EPERM));
    }
}

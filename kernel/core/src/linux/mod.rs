//! The Linux ABI as numbers and layouts (kernel/src/linux/): errno,
//! syscall numbers, times, message flags and control messages, socket
//! addresses and options, resource limits.

pub mod cmsg;
pub mod errno;
pub mod msgflags;
pub mod rlimit;
pub mod sockaddr;
pub mod sockopt;
pub mod sockoptval;
pub mod sysno;
pub mod timespec;

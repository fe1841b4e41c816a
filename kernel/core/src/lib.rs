//! Pure, host-testable logic of the gometal kernel: everything that can be
//! decided without touching hardware (syscall numbers, boot-argument parsing,
//! cpio/ELF reading, Linux's access_ok, the initial user stack, page-table walks over an
//! abstract memory and entry format, virtual-memory-area bookkeeping, futex queues, signal
//! frames, time conversion, the halt-polling window, advisory file locks,
//! thread placement: the policies, the per-thread CPU-use estimates and the
//! cache topology the adaptive policy reads). The kernel binary supplies the hardware side;
//! `cargo test -p gometal-core` runs all of this on the host.
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod acpiprt;
pub mod arch;
pub mod bootargs;
pub mod bootimage;
pub mod cmsg;
pub mod cpio;
pub mod elf;
pub mod epollmask;
pub mod errno;
pub mod filelock;
pub mod futex;
pub mod haltpoll;
pub mod icmp;
pub mod netplan;
pub mod netbuf;
pub mod netshard;
pub mod initstack;
pub mod irqaffinity;
pub mod itimer;
pub mod loadavg;
pub mod msgflags;
pub mod netlink;
pub mod p9;
pub mod p9tags;
pub mod pagetable;
pub mod procfmt;
pub mod pciconfig;
pub mod pcihost;
pub mod rlimit;
pub mod placement;
pub mod reuseport;
pub mod adaptive;
pub mod asid;
pub mod threadprofile;
pub mod topology;
pub mod sigframe;
pub mod signal;
pub mod sockaddr;
pub mod sockopt;
pub mod sysno;
pub mod timespec;
pub mod uiospec;
pub mod useraddr;
pub mod virtionet;
pub mod virtionetmq;
pub mod vma;

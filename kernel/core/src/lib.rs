//! Pure, host-testable logic of the gometal kernel: everything that can be
//! decided without touching hardware (syscall numbers, boot-argument parsing,
//! cpio/ELF reading, the initial user stack, page-table walks over an
//! abstract memory and entry format, virtual-memory-area bookkeeping, futex queues, signal
//! frames, time conversion, the halt-polling window, advisory file locks, the
//! lock order's held-class sets,
//! thread placement: the policies, the per-thread CPU-use estimates and the
//! cache topology the adaptive policy reads). The kernel binary supplies the hardware side;
//! `cargo test -p gometal-core` runs all of this on the host. The folders
//! mirror kernel/src's (boot/, drivers/, fs/, linux/, mm/, net/, sched/,
//! signal/, sync/, uio/, procfs/, arch/<cpu>/), so the pure half of a kernel
//! module is found at the same path here; they form no import cycle
//! (kernel/core/tests/layers.rs).
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod arch;
pub mod boot;
pub mod drivers;
pub mod fs;
pub mod itimer;
pub mod linux;
pub mod loader;
pub mod mm;
pub mod net;
pub mod procfs;
pub mod sched;
pub mod signal;
pub mod sync;
pub mod uio;

//! UIO (kernel/src/uio/): the `uio=` option, interrupt affinity masks.

pub mod irqaffinity;
pub mod uiospec;

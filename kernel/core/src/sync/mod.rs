//! Locks (kernel/src/sync/): the lock order's sets of classes and the
//! rule over them.

pub mod lockset;

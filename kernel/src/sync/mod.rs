//! Locks for every layer: spin locks with a class in the written lock order
//! (lockorder.rs), checked in debug builds (held.rs). This is the lowest layer of the
//! kernel (below arch/), so the interrupt controller's lock is in the order
//! as well as the scheduler's.

#[deny(unsafe_code)]
pub mod held;
#[deny(unsafe_code)]
pub mod lockorder;

pub use lockorder::{Lock, LockClass, LockGuard};

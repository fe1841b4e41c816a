//! Threads and scheduling: which thread runs on which hart, and how threads
//! block, wake and sleep.

#[deny(unsafe_code)]
pub mod clock;
pub mod hart;
#[deny(unsafe_code)]
pub mod runqueue;
pub mod scheduler;
pub mod thread;
#[deny(unsafe_code)]
pub mod timer;
#[deny(unsafe_code)]
pub mod wait;

pub use scheduler::{current, schedule, yield_now};
pub use thread::Thread;

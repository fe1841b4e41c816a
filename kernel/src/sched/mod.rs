//! Threads and scheduling: which thread runs on which hart, and how threads
//! block, wake and sleep.

pub mod clock;
pub mod hart;
pub mod runqueue;
pub mod scheduler;
pub mod thread;
pub mod timer;
pub mod wait;

pub use scheduler::{current, schedule, yield_now};
pub use thread::Thread;

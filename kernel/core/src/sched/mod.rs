//! Scheduling (kernel/src/sched/): placement policies and the loads
//! they compare, the adaptive policy's thread profiles, halt polling,
//! the load average, futex queues.

pub mod adaptive;
pub mod futex;
pub mod haltpoll;
pub mod load;
pub mod loadavg;
pub mod placement;
pub mod threadprofile;

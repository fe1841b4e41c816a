//! What the machine is: the device tree read into plain values (machine.rs:
//! memory, CPUs, console, devices; devnodes.rs: what UIO may hand out;
//! dtirq.rs: interrupt specifiers). Starting the CPUs is sched/bringup.rs.

pub mod devnodes;
#[deny(unsafe_code)]
pub mod dtirq;
pub mod machine;
#[deny(unsafe_code)]
pub mod topology;

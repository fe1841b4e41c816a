//! Bringing the machine up: reading the device tree, starting the CPUs.

#[deny(unsafe_code)]
pub mod cpus;
pub mod devnodes;
#[deny(unsafe_code)]
pub mod dtirq;
pub mod machine;
#[deny(unsafe_code)]
pub mod topology;

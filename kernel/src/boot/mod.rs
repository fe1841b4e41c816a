//! Bringing the machine up: reading the device tree, starting the harts.

#[deny(unsafe_code)]
pub mod harts;
pub mod devnodes;
pub mod machine;

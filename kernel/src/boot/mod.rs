//! Bringing the machine up: reading the device tree, starting the harts.

pub mod harts;
pub mod machine;

//! What the machine is: the device tree read into plain values (machine.rs:
//! memory, CPUs, console, devices; devnodes.rs: what UIO may hand out;
//! dtirq.rs: interrupt specifiers; irqchip.rs: the interrupt controller
//! a driver is chosen for; serial.rs: the console's port; seeds.rs:
//! the loader's entropy; topology.rs: which CPUs share a cache), found by
//! dtb.rs, or from ACPI tables (acpi.rs), and the kernel's own image
//! (image.rs: where it was loaded, the program it carries). Starting the
//! CPUs is sched/bringup.rs.

pub mod acpi;
pub mod devnodes;
pub mod dtb;
#[deny(unsafe_code)]
pub mod dtirq;
pub mod image;
#[deny(unsafe_code)]
pub mod irqchip;
#[deny(unsafe_code)]
pub mod machine;
#[deny(unsafe_code)]
pub mod seeds;
#[deny(unsafe_code)]
pub mod serial;
#[deny(unsafe_code)]
pub mod topology;

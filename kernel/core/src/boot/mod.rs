//! What the kernel reads at boot, decided without hardware: the command
//! line, the image's header and payload, the initramfs (cpio), ACPI's
//! `_PRT`, the device tree's cache topology (kernel/src/boot/).

pub mod acpiprt;
pub mod bootargs;
pub mod bootimage;
pub mod cpio;
pub mod fdtnop;
pub mod topology;

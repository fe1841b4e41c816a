//! Drivers for the QEMU virt platform devices the kernel uses itself.

pub mod mmio;
pub mod pci;
pub mod plic;
pub mod poweroff;
pub mod rtc;
pub mod uart;
pub mod virtio;

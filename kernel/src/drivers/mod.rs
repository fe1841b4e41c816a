//! Drivers for the devices the kernel uses itself (the console UART, RTC, PCI, virtio),
//! and the table of device interrupt handlers. Interrupt controllers and
//! power-off belong to the architecture (arch/).

#[deny(unsafe_code)]
pub mod irq;
pub mod pci;
pub mod rtc;
pub mod uart;
pub mod virtio;

//! Drivers for the chips the kernel uses itself: the interrupt controller
//! (irqchip/), the console UART, the RTC, PCI, virtio; and the table of
//! device interrupt handlers (irq.rs). Each is chosen by the device tree's
//! `compatible` (or ACPI's tables). What the CPU defines itself — its
//! timer, its IPIs where it has them, power-off through its firmware —
//! belongs to the architecture (arch/).

#[deny(unsafe_code)]
pub mod irq;
pub mod irqchip;
pub mod pci;
pub mod rtc;
pub mod uart;
pub mod virtio;

//! Pure logic of device drivers (kernel/src/drivers/): interrupt
//! controllers' specifiers, PCI configuration and host bridges, virtio-net
//! queues, the virtio-9p ring's tags.

pub mod irqchip;
pub mod p9tags;
pub mod pciconfig;
pub mod pcihost;
pub mod virtionet;
pub mod virtionetmq;

//! Pure logic of device drivers (kernel/src/drivers): what can be decided
//! about a chip without touching it.

pub mod irqchip;

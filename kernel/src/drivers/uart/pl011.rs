//! The Arm PL011 UART (`arm,pl011`): QEMU's arm64 virt console, and the
//! Raspberry Pi's. Output is polled (waiting while the transmit FIFO is
//! full), input raises the receive and receive-timeout interrupts. The
//! firmware (or QEMU) has set the line up; only the enables are touched.

use crate::arch::mmio::Mmio;

const DR: usize = 0x00; // data
const FR: usize = 0x18; // flags
const CR: usize = 0x30; // control
const IMSC: usize = 0x38; // interrupt mask set/clear
const FR_BUSY: u32 = 1 << 3;
const FR_RXFE: u32 = 1 << 4;
const FR_TXFF: u32 = 1 << 5;
const CR_ENABLE: u32 = (1 << 0) | (1 << 8) | (1 << 9); // UARTEN, TXE, RXE
const IM_RX: u32 = (1 << 4) | (1 << 6); // RXIM, RTIM

pub struct Pl011 {
    regs: Mmio,
}

impl Pl011 {
    /// # Safety
    /// `pa` must be the base of a PL011 (from the device tree).
    pub unsafe fn new(pa: u64) -> Pl011 {
        // SAFETY: forwarded from the caller's contract.
        let regs = unsafe { Mmio::new(pa) };
        regs.write32(CR, regs.read32(CR) | CR_ENABLE);
        regs.write32(IMSC, IM_RX);
        Pl011 { regs }
    }

    pub fn put_byte(&self, b: u8) {
        while self.regs.read32(FR) & FR_TXFF != 0 {
            core::hint::spin_loop();
        }
        self.regs.write32(DR, b as u32);
    }

    pub fn get_byte(&self) -> Option<u8> {
        if self.regs.read32(FR) & FR_RXFE != 0 {
            return None;
        }
        Some(self.regs.read32(DR) as u8)
    }

    /// Masks or unmasks the receive interrupts. The pending state is left
    /// alone: it clears as the FIFO is read. Clearing it here (ICR) lost
    /// input: a byte that arrived after the handler emptied the FIFO and
    /// before a reader re-enabled the interrupt then raised none, and sat
    /// in the FIFO until the next byte.
    pub fn set_receive_interrupt(&self, on: bool) {
        self.regs.write32(IMSC, if on { IM_RX } else { 0 });
    }

    pub fn drain(&self) {
        while self.regs.read32(FR) & FR_BUSY != 0 {
            core::hint::spin_loop();
        }
    }
}

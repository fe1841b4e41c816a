//! 16550-compatible UARTs: QEMU virt's `ns16550a`, and the DesignWare APB
//! UART (`snps,dw-apb-uart`) of the StarFive JH7110 (VisionFive 2) and
//! Sophgo (Milk-V) SoCs, whose registers are 4 bytes apart and read as
//! 32-bit words (`reg-shift = 2`, `reg-io-width = 4`). Output is polled
//! (a byte at a time, waiting for the transmit holding register), input
//! raises an interrupt. The firmware has set the line up (baud rate,
//! format); nothing here changes it.

use crate::arch::mmio::Mmio;

const RBR_THR: usize = 0; // receive buffer / transmit holding
const IER: usize = 1; // interrupt enable
const LSR: usize = 5; // line status
const IER_RECEIVED_DATA: u8 = 1 << 0;
const LSR_DATA_READY: u8 = 1 << 0;
const LSR_THR_EMPTY: u8 = 1 << 5;
const LSR_TX_IDLE: u8 = 1 << 6;

pub struct Ns16550 {
    regs: Mmio,
    shift: u32,
    wide: bool,
}

impl Ns16550 {
    /// # Safety
    /// `pa` must be the base of a 16550-compatible UART (from the device
    /// tree) with registers `1 << shift` bytes apart, `width` bytes wide.
    pub unsafe fn new(pa: u64, shift: u32, width: u32) -> Ns16550 {
        // SAFETY: forwarded from the caller's contract.
        let regs = unsafe { Mmio::new(pa) };
        let u = Ns16550 { regs, shift: shift.min(3), wide: width == 4 };
        // Resetting the FIFOs here would drop input the host piped in
        // before the kernel started: only the receive interrupt is set.
        u.write(IER, IER_RECEIVED_DATA);
        u
    }

    fn read(&self, reg: usize) -> u8 {
        let off = reg << self.shift;
        if self.wide {
            self.regs.read32(off) as u8
        } else {
            self.regs.read8(off)
        }
    }

    fn write(&self, reg: usize, v: u8) {
        let off = reg << self.shift;
        if self.wide {
            self.regs.write32(off, v as u32)
        } else {
            self.regs.write8(off, v)
        }
    }

    pub fn put_byte(&self, b: u8) {
        while self.read(LSR) & LSR_THR_EMPTY == 0 {
            core::hint::spin_loop();
        }
        self.write(RBR_THR, b);
    }

    pub fn get_byte(&self) -> Option<u8> {
        (self.read(LSR) & LSR_DATA_READY != 0).then(|| self.read(RBR_THR))
    }

    pub fn set_receive_interrupt(&self, on: bool) {
        self.write(IER, if on { IER_RECEIVED_DATA } else { 0 });
    }

    /// Waits until the last byte has left the transmitter.
    pub fn drain(&self) {
        while self.read(LSR) & LSR_TX_IDLE == 0 {
            core::hint::spin_loop();
        }
    }
}

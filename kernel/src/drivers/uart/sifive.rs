//! SiFive's UART (`sifive,uart0`): the console of the HiFive Unleashed
//! (QEMU `sifive_u`) and of other SiFive-core SoCs. Eight-entry FIFOs
//! behind word registers: writing txdata queues a byte (bit 31 reads 1
//! while the FIFO is full), reading rxdata takes one (bit 31 is 1 when
//! there was none). The receive watermark interrupt fires while the
//! receive FIFO holds more than rxctrl's count (0: any byte). The
//! firmware has set the baud divisor; nothing here changes it.

use crate::arch::mmio::Mmio;

const TXDATA: usize = 0x00;
const RXDATA: usize = 0x04;
const TXCTRL: usize = 0x08;
const RXCTRL: usize = 0x0c;
const IE: usize = 0x10;
const IP: usize = 0x14;
const FIFO_FLAG: u32 = 1 << 31; // txdata: full; rxdata: empty
const CTRL_ENABLE: u32 = 1 << 0;
/// txctrl's watermark count: ip.txwm is set while fewer bytes than this
/// wait, so 1 means "the transmit FIFO is empty".
const TXCNT_ONE: u32 = 1 << 16;
const IE_RXWM: u32 = 1 << 1;
const IP_TXWM: u32 = 1 << 0;

pub struct Sifive {
    regs: Mmio,
}

impl Sifive {
    /// # Safety
    /// `pa` must be the base of a sifive,uart0 (from the device tree).
    pub unsafe fn new(pa: u64) -> Sifive {
        // SAFETY: forwarded from the caller's contract.
        let regs = unsafe { Mmio::new(pa) };
        regs.write32(TXCTRL, CTRL_ENABLE | TXCNT_ONE);
        regs.write32(RXCTRL, CTRL_ENABLE); // watermark 0: any byte
        regs.write32(IE, IE_RXWM);
        Sifive { regs }
    }

    pub fn put_byte(&self, b: u8) {
        while self.regs.read32(TXDATA) & FIFO_FLAG != 0 {
            core::hint::spin_loop();
        }
        self.regs.write32(TXDATA, b as u32);
    }

    pub fn get_byte(&self) -> Option<u8> {
        let v = self.regs.read32(RXDATA);
        (v & FIFO_FLAG == 0).then_some(v as u8)
    }

    pub fn set_receive_interrupt(&self, on: bool) {
        self.regs.write32(IE, if on { IE_RXWM } else { 0 });
    }

    /// Waits until the transmit FIFO is empty. (The UART has no "shift
    /// register idle" flag; the last byte takes one character time more.)
    pub fn drain(&self) {
        while self.regs.read32(IP) & IP_TXWM == 0 {
            core::hint::spin_loop();
        }
    }
}

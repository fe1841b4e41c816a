//! Device facts other parts of the kernel need after boot.

use spin::Once;

static UART_IRQ: Once<u32> = Once::new();

pub fn set_uart_irq(irq: u32) {
    UART_IRQ.call_once(|| irq);
}

pub fn uart_irq() -> Option<u32> {
    UART_IRQ.get().copied()
}

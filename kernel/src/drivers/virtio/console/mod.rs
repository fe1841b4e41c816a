//! Our virtio-console driver, multiport (VIRTIO_CONSOLE_F_MULTIPORT), over
//! the `virtio-drivers` crate's transports (MMIO or PCI) and split virtqueues. The
//! crate's own console driver speaks to port 0 only and has no control
//! queue; the control queue is what tells the guest that the host closed a
//! port, which is how the program's stdin gets a real end of file.
//!
//! Protocol (virtio spec 5.3.6): after DRIVER_OK the driver sends
//! DEVICE_READY; the device announces each port (DEVICE_ADD), the driver
//! answers PORT_READY and opens it (PORT_OPEN 1); the device says whether
//! the host side is connected (PORT_OPEN 1/0). Port n's data queues are
//! 0/1 for n = 0, else 2n+2 / 2n+3; the control queues are 2 and 3.
//!
//! Writes are synchronous: QEMU consumes a transmit buffer while handling
//! the notify, so the writer normally finds it used at once; only when the
//! host side is slow does it turn on used-buffer interrupts and block.
//! Received data is queued per port; receive buffers are reposted while
//! less than INPUT_LIMIT is queued, so an unread stdin pushes back on the host.

use super::hal::KernelHal;
use super::VirtioTransport;
use crate::sched::wait::WaitQueue;
use alloc::collections::VecDeque;
use alloc::vec::Vec;
use crate::sync::{Lock, LockClass};
use spin::Once;
use virtio_drivers::queue::VirtQueue;
use virtio_drivers::transport::{DeviceStatus, Transport};

const QUEUE_SIZE: usize = 32;
type Queue = VirtQueue<KernelHal, QUEUE_SIZE>;

/// Ports this driver serves (the CLI uses 1, 2, 3: stdin, stdout, stderr;
/// 4: signals from the host, one byte each, stdio/hostsig.rs).
pub const MAX_PORTS: usize = 5;
const RX_BUF: usize = 4096;
const RX_POSTED: usize = 32;
const CTRL_BUF: usize = 64;
const INPUT_LIMIT: usize = 256 * 1024;

const F_MULTIPORT: u64 = 1 << 1;
const F_VERSION_1: u64 = 1 << 32;
const CONFIG_MAX_NR_PORTS: usize = 4;

const DEVICE_READY: u16 = 0;
const DEVICE_ADD: u16 = 1;
const DEVICE_REMOVE: u16 = 2;
const PORT_READY: u16 = 3;
const CONSOLE_PORT: u16 = 4;
const PORT_OPEN: u16 = 6;

mod rx;
mod stream;

use rx::RxBuffers;
pub use stream::{input_ready, take_input, write, Input, WriteError};

#[derive(Default)]
pub struct PortState {
    pub added: bool,
    pub host_open: bool,
    /// The host closed its side after data (or never had any): end of file.
    pub host_closed: bool,
    pub input: VecDeque<u8>,
    writing: bool,
}

struct Port {
    rx: RxBuffers,
    tx: Queue,
    state: PortState,
}

struct Console {
    transport: VirtioTransport,
    ctrl_rx: RxBuffers,
    ctrl_tx: Queue,
    ports: Vec<Port>,
}

static CONSOLE: Lock<Option<Console>> = Lock::new(LockClass::VirtioConsole, None);
static IRQ: Once<u32> = Once::new();
/// Readers of a port's input, woken when data or a close arrives.
pub static INPUT_WAITERS: WaitQueue = WaitQueue::new();
/// Writers waiting for their buffer to be used, or for a port to be free.
pub static OUTPUT_WAITERS: WaitQueue = WaitQueue::new();

fn data_queues(port: usize) -> (u16, u16) {
    let rx = if port == 0 { 0 } else { 2 * port as u16 + 2 };
    (rx, rx + 1)
}

/// Brings the device up and learns its ports; logs and gives up on a
/// device without multiport (no way to signal end of input).
pub fn init(mut transport: VirtioTransport, irq: u32) {
    if CONSOLE.lock().is_some() {
        return; // only the first console device is ours
    }
    transport.set_status(DeviceStatus::empty());
    transport.set_status(DeviceStatus::ACKNOWLEDGE | DeviceStatus::DRIVER);
    let offered = transport.read_device_features();
    if offered & F_MULTIPORT == 0 {
        crate::println!("gometal: virtio console without multiport ignored (stdio stays on the UART)");
        transport.set_status(DeviceStatus::FAILED);
        return;
    }
    transport.write_driver_features(F_MULTIPORT | (offered & F_VERSION_1));
    transport.set_status(DeviceStatus::ACKNOWLEDGE | DeviceStatus::DRIVER | DeviceStatus::FEATURES_OK);
    transport.set_guest_page_size(crate::memlayout::PAGE_SIZE as u32);
    let max_ports = transport.read_config_space::<u32>(CONFIG_MAX_NR_PORTS).unwrap_or(1) as usize;
    let Some(console) = build(transport, max_ports.min(MAX_PORTS)) else {
        crate::println!("gometal: virtio console: cannot set up its queues (stdio stays on the UART)");
        return;
    };
    *CONSOLE.lock() = Some(console);
    IRQ.call_once(|| irq);
    let mut guard = CONSOLE.lock();
    let c = guard.as_mut().expect("just set");
    c.transport.finish_init();
    c.send_control(0, DEVICE_READY, 1);
    // QEMU answers each control message while handling its notify, so the
    // whole handshake is done once nothing new arrives.
    while c.handle_control() {}
}

fn build(mut transport: VirtioTransport, ports: usize) -> Option<Console> {
    let mut queue = |idx| Queue::new(&mut transport, idx, false, false).ok();
    let ctrl_rx = queue(2)?;
    let ctrl_tx = queue(3)?;
    let mut list = Vec::new();
    for p in 0..ports {
        let (rx, tx) = data_queues(p);
        let mut tx = queue(tx)?;
        tx.set_dev_notify(false);
        list.push(Port { rx: RxBuffers::new(queue(rx)?), tx, state: PortState::default() });
    }
    let mut c = Console { transport, ctrl_rx: RxBuffers::new(ctrl_rx), ctrl_tx, ports: list };
    for _ in 0..QUEUE_SIZE {
        c.ctrl_rx.post(alloc::vec![0u8; CTRL_BUF].into_boxed_slice());
    }
    for port in &mut c.ports {
        for _ in 0..RX_POSTED {
            port.rx.post(alloc::vec![0u8; RX_BUF].into_boxed_slice());
        }
    }
    Some(c)
}

impl Console {
    fn send_control(&mut self, id: u32, event: u16, value: u16) {
        let mut msg = [0u8; 8];
        msg[..4].copy_from_slice(&id.to_le_bytes());
        msg[4..6].copy_from_slice(&event.to_le_bytes());
        msg[6..].copy_from_slice(&value.to_le_bytes());
        let _ = self.ctrl_tx.add_notify_wait_pop(&[&msg], &mut [], &mut self.transport);
    }

    /// Handles one control message; false when there was none.
    fn handle_control(&mut self) -> bool {
        let Some((buf, len)) = self.ctrl_rx.pop() else { return false };
        if len >= 8 {
            let id = u32::from_le_bytes(buf[..4].try_into().unwrap());
            let event = u16::from_le_bytes(buf[4..6].try_into().unwrap());
            let value = u16::from_le_bytes(buf[6..8].try_into().unwrap());
            self.on_control(id, event, value);
        }
        self.ctrl_rx.post(buf);
        self.notify_queue(2);
        true
    }

    fn on_control(&mut self, id: u32, event: u16, value: u16) {
        let Some(port) = self.ports.get_mut(id as usize) else { return };
        match event {
            DEVICE_ADD => {
                port.state.added = true;
                self.send_control(id, PORT_READY, 1);
                self.send_control(id, PORT_OPEN, 1);
            }
            CONSOLE_PORT => {}
            PORT_OPEN if value != 0 => port.state.host_open = true,
            PORT_OPEN | DEVICE_REMOVE => {
                // Data the host sent before closing is already in the
                // receive ring: take it first, so the close follows it.
                self.receive(id as usize);
                let s = &mut self.ports[id as usize].state;
                s.host_open = false;
                s.host_closed = true;
            }
            _ => {}
        }
    }

    fn notify_queue(&mut self, idx: u16) {
        self.transport.notify(idx);
    }

    /// Moves filled receive buffers of `port` into its input queue.
    fn receive(&mut self, port: usize) -> bool {
        let p = &mut self.ports[port];
        let mut got = false;
        while let Some((buf, len)) = p.rx.pop() {
            p.state.input.extend(&buf[..len]);
            got = true;
            if p.state.input.len() < INPUT_LIMIT {
                p.rx.post(buf);
            } else {
                p.rx.parked.push(buf);
            }
        }
        if got {
            let (rx, _) = data_queues(port);
            self.notify_queue(rx);
        }
        got
    }
}

pub fn irq() -> Option<u32> {
    IRQ.get().copied()
}

/// Whether a multiport console is serving `port`.
pub fn has_port(port: usize) -> bool {
    CONSOLE.lock().as_ref().is_some_and(|c| c.ports.get(port).is_some_and(|p| p.state.added))
}

/// The device interrupt: new input, control messages, used transmit buffers.
pub fn on_interrupt() {
    {
        let mut guard = CONSOLE.lock();
        let Some(c) = guard.as_mut() else { return };
        c.transport.ack_interrupt();
        for port in 0..c.ports.len() {
            c.receive(port);
        }
        while c.handle_control() {}
    }
    INPUT_WAITERS.wake_all();
    OUTPUT_WAITERS.wake_all();
    if let Some(f) = ON_READY.get() {
        f();
    }
}

/// Called after every interrupt (input or room to write may have come):
/// the console file's layer registers how to tell poll and epoll waiters,
/// so this driver need not know about files.
static ON_READY: Once<fn()> = Once::new();

pub fn set_on_ready(f: fn()) {
    ON_READY.call_once(|| f);
}

//! The network device (`gometal run -net`): one virtio-net device on
//! QEMU's user-mode network and a smoltcp TCP/IP stack over it. The guest
//! has slirp's fixed addresses: 10.0.2.15/24, gateway 10.0.2.2, DNS
//! 10.0.2.3. Connections from outside become ordinary stream sockets
//! (tcp.rs), so loopback sockets (the rest of net/) are untouched.
//!
//! Locking: one lock (`NIC`) covers the device, the smoltcp interface, its
//! socket set and the connection table. Polls (the device's interrupt, an
//! idle hart, a program that moved bytes through a socket, the stack's
//! timer) only try it: a hart that finds it held leaves a note (PENDING)
//! and the holder polls once more before it lets go, so no hart spins for
//! it (`poll_soon`). listen and connect wait for it. Under it the pump
//! takes pipe, socket and listener locks, so no caller may hold one of
//! those when it calls in here. The kernel runs with interrupts off, so the
//! interrupt never finds its own hart holding the lock.

mod addr;
mod buffers;
mod device;
pub mod icmp;
mod ip;
pub mod keepalive;
mod outbound;
pub mod stats;
mod tcp;
pub mod udp;

pub use addr::{is_own, own_for, source_v4};
pub use outbound::routes;

use crate::net::socket::{Socket, State};
use alloc::sync::Arc;
use core::sync::atomic::{AtomicBool, Ordering};
use gometal_core::errno::{Errno, EINPROGRESS, EINTR, ENETUNREACH};
use gometal_core::sockaddr::InetAddr;
use device::NetDevice;
use smoltcp::iface::{Config, Interface, PollIngressSingleResult, SocketSet};
use smoltcp::time::Instant;
use smoltcp::wire::{EthernetAddress, HardwareAddress, IpAddress, IpCidr, Ipv4Address};
use crate::sched::event::TimerEvent;
use spin::{Mutex, Once};

/// slirp's fixed plan for its one guest.
pub const ADDR: [u8; 4] = [10, 0, 2, 15];
pub const PREFIX: u8 = 24;
pub const GATEWAY: [u8; 4] = [10, 0, 2, 2];
/// slirp's DNS forwarder, 10.0.2.3, as /etc/resolv.conf names it.
const RESOLV_CONF: &[u8] = b"nameserver 10.0.2.3\n";

struct Nic {
    dev: NetDevice,
    iface: Interface,
    sockets: SocketSet<'static>,
    tcp: tcp::Tcp,
    /// When smoltcp was last asked for its next deadline (arm_timer).
    deadline_asked: u64,
    /// UDP and ICMP: raw IP sockets the kernel handles itself.
    udp: udp::Udp,
    icmp: icmp::Icmp,
}

static NIC: Mutex<Option<Nic>> = Mutex::new(None);
static PRESENT: AtomicBool = AtomicBool::new(false);
static IRQ: Once<u32> = Once::new();
/// A poll was asked for while the lock was held (poll_soon).
static PENDING: AtomicBool = AtomicBool::new(false);

/// The NIC lock, timed for the statistics.
struct Timed<'a> {
    guard: spin::MutexGuard<'a, Option<Nic>>,
    since: u64,
}

impl core::ops::Deref for Timed<'_> {
    type Target = Option<Nic>;
    fn deref(&self) -> &Option<Nic> {
        &self.guard
    }
}

impl core::ops::DerefMut for Timed<'_> {
    fn deref_mut(&mut self) -> &mut Option<Nic> {
        &mut self.guard
    }
}

impl Drop for Timed<'_> {
    fn drop(&mut self) {
        stats::LOCK_HOLD.record(crate::sched::clock::monotonic_ns().saturating_sub(self.since));
    }
}

fn try_lock() -> Option<Timed<'static>> {
    let guard = NIC.try_lock();
    if guard.is_none() {
        stats::LOCK_BUSY.add(1);
    }
    Some(Timed { guard: guard?, since: crate::sched::clock::monotonic_ns() })
}

fn now() -> Instant {
    Instant::from_micros((crate::sched::clock::monotonic_ns() / 1000) as i64)
}

/// Brings up the first virtio-net device (later ones are ignored).
pub fn add(transport: crate::drivers::virtio::Mmio, irq: u32) {
    let mut guard = NIC.lock();
    if guard.is_some() {
        return;
    }
    let mut dev = match NetDevice::new(transport) {
        Ok(d) => d,
        Err(e) => {
            crate::println!("gometal: virtio-net device did not start: {e:?}");
            return;
        }
    };
    let mac = dev.net.mac_address();
    let mut config = Config::new(HardwareAddress::Ethernet(EthernetAddress(mac)));
    config.random_seed = crate::arch::csr::time();
    let mut iface = Interface::new(config, &mut dev, now());
    iface.update_ip_addrs(|a| {
        let _ = a.push(IpCidr::new(IpAddress::v4(ADDR[0], ADDR[1], ADDR[2], ADDR[3]), PREFIX));
    });
    let gw = Ipv4Address::new(GATEWAY[0], GATEWAY[1], GATEWAY[2], GATEWAY[3]);
    let _ = iface.routes_mut().add_default_ipv4_route(gw);
    addr::add_ipv6(&mut iface);
    dev.net.enable_interrupts();
    let mut sockets = SocketSet::new(alloc::vec::Vec::new());
    let (udp, icmp) = (udp::Udp::new(&mut sockets), icmp::Icmp::new(&mut sockets));
    *guard = Some(Nic { dev, iface, sockets, tcp: tcp::Tcp::default(), deadline_asked: 0, udp, icmp });
    IRQ.call_once(|| irq);
    PRESENT.store(true, Ordering::Release);
    let m = mac;
    crate::println!(
        "gometal: net: virtio-net {:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}, address 10.0.2.15/24 and fec0::15/64, gateway 10.0.2.2, DNS 10.0.2.3",
        m[0], m[1], m[2], m[3], m[4], m[5]
    );
}

pub fn present() -> bool {
    PRESENT.load(Ordering::Acquire)
}

pub fn irq() -> Option<u32> {
    IRQ.get().copied()
}

/// The device's interrupt: frames arrived or were sent. Each poll
/// acknowledges it first; while another hart polls, the interrupt stays
/// raised until that hart's next round (it polls again for this one).
pub fn on_interrupt() {
    stats::POLL_IRQ.add(1);
    poll_soon();
}

/// Something may have changed for the stack (a program wrote, read or
/// closed, or a hart went idle): move what can move. Cheap without -net.
pub fn kick() {
    if !present() {
        return;
    }
    stats::POLL_KICK.add(1);
    poll_soon();
}

/// A hart goes idle: what the threads left behind (a close, say) moves.
pub fn idle_kick() {
    if !present() {
        return;
    }
    stats::POLL_IDLE.add(1);
    poll_soon();
}

/// smoltcp's own deadline (retransmission, keep-alive, TIME-WAIT): set
/// after every poll from `Interface::poll_at`, so those timers run on time
/// when nothing else polls.
static TIMER: TimerEvent = TimerEvent::new(on_timer);
/// The soonest the timer polls again after a poll: smoltcp says "now" when
/// it has something it could not send (the device's queue was full), and
/// the device's interrupt will poll for that anyway.
const TIMER_MIN_NS: u64 = 1_000_000;

fn on_timer() {
    stats::POLL_TIMER.add(1);
    let before = stats::FRAMES_OUT.get();
    poll_soon();
    stats::TIMER_FRAMES.add(stats::FRAMES_OUT.get() - before);
}

/// Arms the timer for smoltcp's next deadline. Asking costs a pass over
/// every socket, so during a burst of polls it is asked at most every
/// DEADLINE_EVERY_NS; the timer then fires by the end of that interval and
/// its poll asks again, so no deadline is missed by more than that.
fn arm_timer(nic: &mut Nic) {
    let now_ns = crate::sched::clock::monotonic_ns();
    if now_ns < nic.deadline_asked + DEADLINE_EVERY_NS {
        TIMER.arm_no_later(nic.deadline_asked + DEADLINE_EVERY_NS);
        return;
    }
    nic.deadline_asked = now_ns;
    let at = match nic.iface.poll_at(now(), &nic.sockets) {
        Some(t) => (t.total_micros().max(0) as u64).saturating_mul(1000).max(now_ns + TIMER_MIN_NS),
        None => u64::MAX,
    };
    TIMER.arm(at);
}

const DEADLINE_EVERY_NS: u64 = 2_000_000;

/// Polls now, or has the hart that holds the NIC lock poll once more
/// before it lets go: no hart ever spins for the lock here. (Spinning was
/// the 4-hart stall: with more harts than host cores, the harts waiting
/// for the lock took the host time the holder needed.)
pub(super) fn poll_soon() {
    loop {
        PENDING.store(true, Ordering::SeqCst);
        let Some(mut guard) = try_lock() else { return }; // the holder sees PENDING
        while PENDING.swap(false, Ordering::SeqCst) {
            if let Some(nic) = guard.as_mut() {
                poll(nic);
            }
        }
        drop(guard);
        // A hart that failed try_lock after our last look left PENDING set.
        if !PENDING.load(Ordering::SeqCst) {
            return;
        }
    }
}

/// The program exited: before the machine powers off, what it wrote to
/// its connections goes out (Linux keeps sending a closed socket's data
/// after its process is gone; here the machine would stop with it). Polls
/// until every connection's data is acknowledged, for at most
/// DRAIN_LIMIT_NS. Other harts are stopped, so nothing else polls.
pub fn drain() {
    if !present() {
        return;
    }
    let clock = crate::sched::clock::monotonic_ns;
    let limit = clock() + DRAIN_LIMIT_NS;
    while clock() < limit {
        let Some(mut guard) = NIC.try_lock() else { return }; // a stopped hart held it
        let Some(nic) = guard.as_mut() else { return };
        poll(nic);
        if nic.tcp.all_sent(&nic.sockets) {
            return;
        }
        drop(guard);
        let pause = clock() + 50_000;
        while clock() < pause {
            core::hint::spin_loop();
        }
    }
}

const DRAIN_LIMIT_NS: u64 = 2_000_000_000;

/// A program listens on an Internet port: connections from outside to it
/// are accepted from now on.
pub fn on_listen(port: u16) {
    if !present() {
        return;
    }
    if let Some(nic) = NIC.lock().as_mut() {
        nic.tcp.listen(&mut nic.sockets, port);
    }
    poll_soon();
}

/// connect(2) through the NIC (`routes(to)` said so): starts the
/// connection and, unless `nonblock`, waits for its outcome.
pub fn connect(sock: &Arc<Socket>, to: InetAddr, nonblock: bool) -> Result<usize, Errno> {
    {
        let mut guard = NIC.lock();
        let nic = guard.as_mut().ok_or(ENETUNREACH)?;
        outbound::start(&mut nic.iface, &mut nic.sockets, &mut nic.tcp, sock, to)?;
    }
    poll_soon();
    if nonblock {
        sock.connecting.store(true, Ordering::Release);
        return Err(EINPROGRESS);
    }
    let deadline = crate::net::timeo::send_deadline(sock);
    let outcome = sock.waiters.wait_until(deadline, || match (&*sock.state.lock(), sock.take_error()) {
        (_, Some(e)) => Some(Err(e)),
        (State::Connected(_), None) => Some(Ok(0)),
        _ => None,
    });
    match outcome {
        Ok(r) => r,
        // SO_SNDTIMEO passed: the connection goes on, as on Linux.
        Err(crate::sched::wait::WaitError::TimedOut) => {
            sock.connecting.store(true, Ordering::Release);
            Err(EINPROGRESS)
        }
        Err(_) => Err(EINTR),
    }
}

/// Polls smoltcp and pumps connections until no frame waits (bounded, so
/// a flood cannot keep a hart here forever): frames in, the pump, frames
/// out, and again only if more frames came meanwhile — each step walks
/// every socket, so a round that would find nothing is not run. Frames
/// are taken one at a time so that a listening socket used up by a SYN is
/// replaced before the next SYN: a burst of connections is not reset.
fn poll(nic: &mut Nic) {
    let clock = crate::sched::clock::monotonic_ns;
    nic.dev.net.ack_interrupt();
    for _ in 0..64 {
        let t0 = clock();
        for _ in 0..device::QUEUE {
            match nic.iface.poll_ingress_single(now(), &mut nic.dev, &mut nic.sockets) {
                PollIngressSingleResult::None => break,
                PollIngressSingleResult::PacketProcessed => stats::FRAMES_IN.add(1),
                PollIngressSingleResult::SocketStateChanged => {
                    stats::FRAMES_IN.add(1);
                    nic.tcp.refill(&mut nic.sockets)
                }
            }
        }
        let t1 = clock();
        nic.tcp.step(&mut nic.sockets);
        nic.udp.step(&mut nic.sockets);
        nic.icmp.step(&mut nic.sockets);
        let t2 = clock();
        nic.iface.poll_egress(now(), &mut nic.dev, &mut nic.sockets);
        let t3 = clock();
        stats::INGRESS_NS.add(t1 - t0);
        stats::PUMP_NS.add(t2 - t1);
        stats::EGRESS_NS.add(t3 - t2);
        if !nic.dev.has_frames() {
            break;
        }
    }
    let t = clock();
    arm_timer(nic);
    stats::TIMER_NS.add(clock() - t);
}

/// /etc/resolv.conf naming slirp's DNS, when there is a NIC and the
/// initramfs brought none (Go's resolver reads it).
pub fn publish_files() {
    if !present() || crate::fs::tree::resolve(b"/etc/resolv.conf", true).is_ok() {
        return;
    }
    let node = crate::fs::inode::Inode::new_file(0o644, RESOLV_CONF, 0);
    crate::fs::tree::add_at(b"/etc/resolv.conf", node);
}

//! The network device (`gometal run -net`): one virtio-net device on
//! QEMU's user-mode network and a smoltcp TCP/IP stack over it. The guest
//! has slirp's fixed addresses: 10.0.2.15/24, gateway 10.0.2.2, DNS
//! 10.0.2.3. Connections from outside become ordinary stream sockets
//! (tcp.rs), so loopback sockets (the rest of net/) are untouched.
//!
//! TCP connections are spread over many socket sets (shard.rs), so that a
//! frame costs smoltcp a walk over one set's sockets, not over all.
//!
//! Locking: one lock (`NIC`) covers the device, the smoltcp interface, the
//! socket sets and the connection tables. Polls (the device's interrupt, an
//! idle CPU, a program that moved bytes through a socket, the stack's
//! timer) only try it: a CPU that finds it held leaves a note (PENDING)
//! and the holder polls once more before it lets go, so no CPU spins for
//! it (`poll_soon`). listen and connect wait for it. Under it the pump
//! takes pipe, socket and listener locks, so no caller may hold one of
//! those when it calls in here. The kernel runs with interrupts off, so the
//! interrupt never finds its own CPU holding the lock.

pub mod addr;
mod buffers;
mod device;
mod dhcp;
pub mod icmp;
mod ip;
pub mod keepalive;
mod outbound;
mod poll;
pub mod rx;
mod shard;
pub mod tx;
pub mod stats;
mod tcp;
pub mod udp;
mod usercopy;

pub use addr::{is_own, own_for, source_v4};
pub use outbound::routes;
pub use poll::drain;
pub(super) use poll::poll_soon;

use crate::net::socket::{Socket, State};
use alloc::sync::Arc;
use core::sync::atomic::{AtomicBool, Ordering};
use gometal_core::linux::errno::{Errno, EINPROGRESS, EINTR, ENETUNREACH};
use gometal_core::linux::sockaddr::InetAddr;
use device::NetDevice;
use smoltcp::iface::{Config, Interface};
use smoltcp::time::Instant;
use smoltcp::wire::{EthernetAddress, HardwareAddress};
use crate::sync::{Lock, LockClass};
use spin::Once;


struct Nic {
    dev: NetDevice,
    iface: Interface,
    /// Each socket set's smoltcp deadline (the sets themselves have a
    /// lock each, shard.rs; the first also holds the raw UDP and ICMP sockets).
    timing: alloc::vec::Vec<shard::Timing>,
    /// The ports programs listen on: a SYN to one of them gets a listening
    /// socket in its set (tcp.rs); to any other port, a reset.
    listened: alloc::vec::Vec<u16>,
    /// UDP and ICMP: raw IP sockets the kernel handles itself (in shard 0).
    udp: udp::Udp,
    icmp: icmp::Icmp,
    mac: [u8; 6],
}

static NIC: Lock<Option<Nic>> = Lock::new(LockClass::Nic, None);
static PRESENT: AtomicBool = AtomicBool::new(false);
static IRQ: Once<u32> = Once::new();
pub(super) fn now() -> Instant {
    Instant::from_micros((crate::sched::clock::monotonic_ns() / 1000) as i64)
}

/// Brings up the first virtio-net device (later ones are ignored), with a
/// queue pair for each of `cpus` CPUs where it offers several.
pub fn add(transport: crate::drivers::virtio::VirtioTransport, irq: u32, cpus: usize) {
    let mut guard = NIC.lock();
    if guard.is_some() {
        return;
    }
    let mut dev = match NetDevice::new(transport, cpus) {
        Ok(d) => d,
        Err(e) => {
            crate::println!("gometal: virtio-net device did not start: {e}");
            return;
        }
    };
    let mac = dev.net.mac();
    let offloads = dev.offloads();
    if let Some(why) = dev.net.mq_refused {
        crate::println!("gometal: net: multiqueue: {why}; one queue pair");
    } else if dev.net.pair_count() > 1 {
        crate::println!("gometal: net: {} queue pairs (multiqueue), one per CPU", dev.net.pair_count());
    }
    let mut config = Config::new(HardwareAddress::Ethernet(EthernetAddress(mac)));
    config.random_seed = crate::arch::ticks();
    let mut iface = Interface::new(config, &mut dev, now());
    addr::add_ipv6(&mut iface);
    let timing = shard::make();
    let (udp, icmp) = {
        let mut first = shard::set(0).lock();
        (udp::Udp::new(&mut first.sockets), icmp::Icmp::new(&mut first.sockets))
    };
    *guard = Some(Nic { dev, iface, timing, listened: alloc::vec::Vec::new(), udp, icmp, mac });
    IRQ.call_once(|| irq);
    MAC.call_once(|| mac);
    PRESENT.store(true, Ordering::Release);
    if offloads.csum_tx || offloads.csum_rx {
        let o = offloads;
        crate::println!(
            "gometal: net: offloads: checksum tx {} rx {}, segmentation tcp4 {} tcp6 {} (smoltcp segments over IPv4 only), large receive {}",
            o.csum_tx, o.csum_rx, o.tso4, o.tso6, o.lro
        );
    }
}

/// Gives the interface its IPv4 plan: the `net=` kernel option's (or, with
/// `net=dhcp`, a DHCP server's lease, which may change later: dhcp.rs),
/// else QEMU's user network's (called once the command line is read,
/// after `add`). A `net=` that does not parse is reported and the default
/// kept.
pub fn configure(spec: Option<&[u8]>) {
    let mut plan = match spec.map(gometal_core::net::netplan::parse) {
        Some(Some(p)) => p,
        Some(None) => {
            crate::println!("gometal: net: net= option not understood; QEMU's user network's addresses are used");
            gometal_core::net::netplan::SLIRP
        }
        None => gometal_core::net::netplan::SLIRP,
    };
    let mut guard = NIC.lock();
    let Some(nic) = guard.as_mut() else {
        addr::set_plan(plan);
        return;
    };
    if plan.dhcp {
        let t0 = crate::sched::clock::monotonic_ns();
        let Some(l) = dhcp::acquire(nic) else {
            crate::println!("gometal: net: no DHCP lease in {} s: the device has no IPv4 address (the client keeps asking)", dhcp::LIMIT_NS / 1_000_000_000);
            addr::apply(&mut nic.iface, gometal_core::net::netplan::NO_LEASE);
            return;
        };
        let s = l.server;
        crate::println!(
            "gometal: net: DHCP lease {}.{}.{}.{}/{} from server {}.{}.{}.{} in {} ms",
            l.addr[0], l.addr[1], l.addr[2], l.addr[3], l.prefix, s[0], s[1], s[2], s[3],
            (crate::sched::clock::monotonic_ns() - t0) / 1_000_000
        );
        plan = gometal_core::net::netplan::NetPlan::from_lease(&l);
    }
    addr::apply(&mut nic.iface, plan);
    let (a, g, d) = (plan.addr, plan.gateway, plan.dns);
    let m = nic.mac;
    crate::println!(
        "gometal: net: virtio-net {:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}, address {}.{}.{}.{}/{} and fec0::15/64, gateway {}.{}.{}.{}, DNS {}.{}.{}.{}",
        m[0], m[1], m[2], m[3], m[4], m[5], a[0], a[1], a[2], a[3], plan.prefix, g[0], g[1], g[2], g[3], d[0], d[1], d[2], d[3]
    );
}

/// The device's MAC address (eth0's, for netlink and /proc).
static MAC: Once<[u8; 6]> = Once::new();

pub fn mac() -> Option<[u8; 6]> {
    MAC.get().copied()
}

pub fn present() -> bool {
    PRESENT.load(Ordering::Acquire)
}

pub fn irq() -> Option<u32> {
    IRQ.get().copied()
}

/// The device's interrupt: frames arrived or were sent. Each poll
/// acknowledges it first; while another CPU polls, the interrupt stays
/// raised until that CPU's next round (it polls again for this one).
pub fn on_interrupt() {
    stats::POLL_IRQ.add(1);
    poll_soon();
}

/// A program moved bytes through a connection of socket set `shard`
/// (wrote, or read from a pipe the network had filled): move them on now.
pub fn kick(shard: usize) {
    stats::POLL_KICK.add(1);
    shard::mark(shard);
    poll_soon();
}

/// A program's read took a receive buffer of a connection of set `shard`
/// from more than half full to half or less: the window it opened is sent
/// at the next poll,
/// which the NIC's timer event runs now, from the timer interrupt (never
/// the read itself: a read() costs the reader its copy and nothing more).
pub fn room(shard: usize) {
    stats::POLL_ROOM.add(1);
    shard::mark(shard);
    poll::poll_from_timer();
}

/// A program shut down or closed a connection of set `shard`: its FIN or
/// reset goes out at the next poll (at the latest when a CPU idles).
/// Only marks the set: the caller may hold locks a poll takes.
pub fn changed(shard: usize) {
    shard::mark(shard);
}

/// A listener's full queue got room: connections established through the
/// NIC and waiting for it (tcp.rs) are offered again at the next poll.
pub fn listener_room() {
    if present() {
        shard::mark_all();
    }
}

/// A CPU goes idle: what the threads left behind moves, and one more
/// socket set is swept (shard.rs). Cheap without -net.
pub fn idle_kick() {
    if !present() {
        return;
    }
    stats::POLL_IDLE.add(1);
    shard::mark_next();
    poll_soon();
}

/// A program listens on an Internet port: connections from outside to it
/// are accepted from now on.
pub fn on_listen(port: u16) {
    if !present() {
        return;
    }
    if port == 0 {
        return;
    }
    if let Some(nic) = NIC.lock().as_mut() {
        if !nic.listened.contains(&port) {
            nic.listened.push(port);
        }
    }
}

/// connect(2) through the NIC (`routes(to)` said so): starts the
/// connection and, unless `nonblock`, waits for its outcome.
pub fn connect(sock: &Arc<Socket>, to: InetAddr, nonblock: bool) -> Result<usize, Errno> {
    {
        let mut guard = NIC.lock();
        let nic = guard.as_mut().ok_or(ENETUNREACH)?;
        let set = outbound::start(&mut nic.iface, sock, to)?;
        shard::mark(set);
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

/// /etc/resolv.conf naming the plan's DNS server (slirp's 10.0.2.3 by
/// default), when there is a NIC and the initramfs brought none (Go's
/// resolver reads it).
pub fn publish_files() {
    if !present() || crate::fs::tree::resolve(b"/etc/resolv.conf", true).is_ok() {
        return;
    }
    let d = addr::plan().dns;
    let text = alloc::format!("nameserver {}.{}.{}.{}\n", d[0], d[1], d[2], d[3]);
    // Made once per boot and kept for the machine's life (a file's
    // initial bytes are static, as the initramfs's are).
    let text: &'static str = alloc::boxed::Box::leak(text.into_boxed_str());
    let node = crate::fs::inode::Inode::new_file(0o644, text.as_bytes(), 0);
    crate::fs::tree::add_at(b"/etc/resolv.conf", node);
}

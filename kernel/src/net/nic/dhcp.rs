//! DHCP on the NIC: `gometal run -net tap=IFNAME` without `ip=` passes
//! the kernel option `net=dhcp`, and at boot, before any program runs,
//! the kernel asks the tap's network for a lease with smoltcp's DHCPv4
//! client socket (in socket set 0, beside the raw UDP socket: smoltcp
//! hands the client's packets to it before any address check, so the
//! offer reaches it while the interface has no IPv4 address yet). The
//! wait polls the NIC itself, for at most LIMIT_NS.
//!
//! The client stays for the machine's life, as Linux's does: smoltcp
//! renews the lease at T1, rebinds at T2, and starts over when it expires
//! (or, with no lease at boot, keeps asking). A timer event (`watch`)
//! looks at its news every WATCH_EVERY_NS; a lease that brings another
//! address, prefix, gateway or DNS server, or one that is lost, becomes
//! the interface's plan (addr::apply: its IPv4 address and default
//! route), with one line on the console.

use super::{poll, shard, Nic, NIC};
use crate::sched::clock::monotonic_ns;
use crate::sched::event::TimerEvent;
use gometal_core::net::netplan::{Lease, NetPlan};
use smoltcp::iface::SocketHandle;
use smoltcp::socket::dhcpv4;

/// How long the boot waits for a lease.
pub const LIMIT_NS: u64 = 15_000_000_000;

/// How often the lease's news is looked at after boot.
const WATCH_EVERY_NS: u64 = 500_000_000;

/// The client socket (in set 0), once the boot made it.
static CLIENT: spin::Once<SocketHandle> = spin::Once::new();
static WATCH: TimerEvent = TimerEvent::new(watch);

/// Asks for a lease and waits for it; None after LIMIT_NS (the interface
/// has no IPv4 address then; the client keeps asking). Either way the
/// client's later news is watched from now on.
pub(super) fn acquire(nic: &mut Nic) -> Option<Lease> {
    let h = shard::set(0).lock().sockets.add(dhcpv4::Socket::new());
    CLIENT.call_once(|| h);
    let limit = monotonic_ns() + LIMIT_NS;
    let mut got = None;
    while got.is_none() && monotonic_ns() < limit {
        shard::mark(0);
        poll::poll(nic);
        got = news(h).flatten();
        let pause = monotonic_ns() + 1_000_000;
        while got.is_none() && monotonic_ns() < pause {
            core::hint::spin_loop();
        }
    }
    WATCH.arm(monotonic_ns() + WATCH_EVERY_NS);
    got
}

/// The client's news since the last look: Some(Some): a lease (first,
/// renewed or new), Some(None): the lease is lost.
fn news(h: SocketHandle) -> Option<Option<Lease>> {
    match shard::set(0).lock().sockets.get_mut::<dhcpv4::Socket>(h).poll()? {
        dhcpv4::Event::Configured(c) => Some(Some(Lease {
            addr: c.address.address().octets(),
            prefix: c.address.prefix_len(),
            gateway: c.router.map(|r| r.octets()),
            dns: c.dns_servers.first().map(|d| d.octets()),
            server: c.server.address.octets(),
        })),
        dhcpv4::Event::Deconfigured => Some(None),
    }
}

/// The timer event: applies the client's news, if any. It never spins
/// for the NIC's lock: while a poll holds it, it looks again in 1 ms.
fn watch() {
    let Some(&h) = CLIENT.get() else { return };
    let Some(mut guard) = NIC.try_lock() else {
        WATCH.arm(monotonic_ns() + 1_000_000);
        return;
    };
    if let (Some(nic), Some(lease)) = (guard.as_mut(), news(h)) {
        let old = super::addr::plan();
        if let Some(new) = old.after(lease.as_ref()) {
            super::addr::apply(&mut nic.iface, new);
            drop(guard);
            report(&old, &new, lease.as_ref());
        }
    }
    WATCH.arm(monotonic_ns() + WATCH_EVERY_NS);
}

/// The one console line of a change.
fn report(old: &NetPlan, new: &NetPlan, lease: Option<&Lease>) {
    let (o, a, g, d) = (old.addr, new.addr, new.gateway, new.dns);
    match lease {
        Some(l) => crate::println!(
            "gometal: net: DHCP lease {}.{}.{}.{}/{} from server {}.{}.{}.{} (was {}.{}.{}.{}/{}), gateway {}.{}.{}.{}, DNS {}.{}.{}.{}",
            a[0], a[1], a[2], a[3], new.prefix, l.server[0], l.server[1], l.server[2], l.server[3], o[0], o[1], o[2], o[3], old.prefix,
            g[0], g[1], g[2], g[3], d[0], d[1], d[2], d[3]
        ),
        None => crate::println!(
            "gometal: net: DHCP lease {}.{}.{}.{}/{} lost: the device has no IPv4 address (the client keeps asking)",
            o[0], o[1], o[2], o[3], old.prefix
        ),
    }
}

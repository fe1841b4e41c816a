//! DHCP on the NIC: `gometal run -net tap=IFNAME` without `ip=` passes
//! the kernel option `net=dhcp`, and at boot, before any program runs,
//! the kernel asks the tap's network for a lease with smoltcp's DHCPv4
//! client socket (in socket set 0, beside the raw UDP socket: smoltcp
//! hands the client's packets to it before any address check, so the
//! offer reaches it while the interface has no IPv4 address yet). The
//! wait polls the NIC itself, for at most LIMIT_NS. The socket stays, so
//! smoltcp renews the lease; an address changed at renewal is not applied
//! (the plan is fixed once the boot has it, addr.rs).

use super::{poll, shard, Nic};
use smoltcp::socket::dhcpv4;

/// What the server gave.
pub struct Lease {
    pub addr: [u8; 4],
    pub prefix: u8,
    pub gateway: Option<[u8; 4]>,
    pub dns: Option<[u8; 4]>,
    pub server: [u8; 4],
}

/// How long the boot waits for a lease.
pub const LIMIT_NS: u64 = 15_000_000_000;

/// Asks for a lease and waits for it; None after LIMIT_NS (the client is
/// then removed: the interface stays without an IPv4 address).
pub(super) fn acquire(nic: &mut Nic) -> Option<Lease> {
    let clock = crate::sched::clock::monotonic_ns;
    let h = shard::set(0).lock().sockets.add(dhcpv4::Socket::new());
    let limit = clock() + LIMIT_NS;
    while clock() < limit {
        shard::mark(0);
        poll::poll(nic);
        let mut set = shard::set(0).lock();
        if let Some(dhcpv4::Event::Configured(c)) = set.sockets.get_mut::<dhcpv4::Socket>(h).poll() {
            return Some(Lease {
                addr: c.address.address().octets(),
                prefix: c.address.prefix_len(),
                gateway: c.router.map(|r| r.octets()),
                dns: c.dns_servers.first().map(|d| d.octets()),
                server: c.server.address.octets(),
            });
        }
        drop(set);
        let pause = clock() + 1_000_000;
        while clock() < pause {
            core::hint::spin_loop();
        }
    }
    shard::set(0).lock().sockets.remove(h);
    None
}

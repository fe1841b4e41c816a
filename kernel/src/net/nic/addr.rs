//! The guest's own addresses on its network and which destinations the
//! NIC carries, for every protocol. IPv4 follows the plan (kernel/core
//! `netplan.rs`): QEMU's user network's fixed one unless the `net=` kernel
//! option (`gometal run -net tap=IFNAME,ip=...`) gave another, or a DHCP
//! server's lease (dhcp.rs), which may change while the machine runs. A
//! packet to one of our own
//! addresses never leaves the machine (Linux routes it through `lo`), so
//! sockets treat 10.0.2.15 and fec0::15 like 127.0.0.1 and ::1: they may be
//! bound, and traffic to them is delivered in the kernel.
//!
//! IPv6: slirp's network is fec0::/64 with the host (and router) at
//! fec0::2 and DNS at fec0::3; the guest takes fec0::15, the IPv6 twin of
//! 10.0.2.15, statically (slirp's router advertisements would let it
//! derive an address from its MAC, which nothing would know in advance).

use gometal_core::net::netplan::{NetPlan, SLIRP};
use gometal_core::linux::sockaddr::InetAddr;
use core::sync::atomic::{AtomicU64, Ordering};
use smoltcp::iface::Interface;
use smoltcp::wire::{IpAddress, IpCidr, IpEndpoint, Ipv4Address, Ipv6Address};

pub const ADDR6: [u8; 16] = [0xfe, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x15];
pub const PREFIX6: u8 = 64;
pub const GATEWAY6: [u8; 16] = [0xfe, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02];

/// The IPv4 plan in force, packed (NetPlan::pack): set at boot, and
/// changed by a DHCP lease that moves or is lost (dhcp.rs). Read for every
/// packet, so two atomic words, no lock: a reader racing a change may see
/// the new address with the old gateway for that moment.
static PLAN: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];

/// The IPv4 plan in force.
pub fn plan() -> NetPlan {
    NetPlan::unpack([PLAN[0].load(Ordering::Acquire), PLAN[1].load(Ordering::Acquire)]).unwrap_or(SLIRP)
}

/// Makes `p` the plan in force, and the interface's IPv4 address (none
/// for 0.0.0.0) and default route (none for 0.0.0.0) its, as Linux's
/// DHCP client does with `ip addr` and `ip route`. Sockets bound to the
/// old address keep it (their packets go nowhere, as on Linux).
pub fn apply(iface: &mut Interface, p: NetPlan) {
    set_plan(p);
    let a = p.addr;
    iface.update_ip_addrs(|addrs| {
        addrs.retain(|c| !matches!(c.address(), IpAddress::Ipv4(_)));
        if a != [0; 4] {
            let _ = addrs.push(IpCidr::new(IpAddress::v4(a[0], a[1], a[2], a[3]), p.prefix));
        }
    });
    let g = p.gateway;
    if g != [0; 4] {
        let _ = iface.routes_mut().add_default_ipv4_route(Ipv4Address::new(g[0], g[1], g[2], g[3]));
    } else {
        iface.routes_mut().remove_default_ipv4_route();
    }
}

/// Makes `p` the plan in force where there is no interface.
pub fn set_plan(p: NetPlan) {
    let w = p.pack();
    PLAN[1].store(w[1], Ordering::Release);
    PLAN[0].store(w[0], Ordering::Release);
}

/// Our IPv4 address.
pub fn v4() -> [u8; 4] {
    plan().addr
}

/// An address smoltcp gave, as the socket layer writes it.
pub fn inet_of(e: IpEndpoint) -> InetAddr {
    match e.addr {
        IpAddress::Ipv4(a) => InetAddr::v4(a.octets(), e.port),
        IpAddress::Ipv6(a) => InetAddr::v6(a.octets(), e.port),
    }
}

/// A socket-layer address as smoltcp takes it.
pub fn endpoint_of(a: &InetAddr) -> IpEndpoint {
    let ip = if a.is_v4() {
        let v: [u8; 4] = a.ip[12..].try_into().unwrap_or([0; 4]);
        IpAddress::Ipv4(v.into())
    } else {
        IpAddress::Ipv6(Ipv6Address::from(a.ip))
    };
    IpEndpoint::new(ip, a.port)
}

/// Our address in the family of `peer` (with `port`).
pub fn own_for(peer: &InetAddr, port: u16) -> InetAddr {
    if peer.is_v4() {
        InetAddr::v4(v4(), port)
    } else {
        InetAddr::v6(ADDR6, port)
    }
}

/// Is `a` this machine's address on the network (10.0.2.15 or fec0::15,
/// with a NIC)?
pub fn is_own(a: &InetAddr) -> bool {
    super::present() && if a.is_v4() { a.ip[12..] == v4() } else { a.ip == ADDR6 }
}

/// Does a datagram or connection to `a` go out through the NIC: a NIC is
/// present and `a` is neither loopback, unspecified, our own address nor
/// link-local (fe80::/10, which would need a scope).
pub fn routes(a: &InetAddr) -> bool {
    let link_local = !a.is_v4() && a.ip[0] == 0xfe && a.ip[1] & 0xc0 == 0x80;
    super::present() && !a.is_loopback() && !a.is_unspecified() && !is_own(a) && !link_local
}

/// The address packets to `to` leave from (its own address for a local
/// destination, else ours on the NIC), as an IPv4 address.
pub fn source_v4(to: &InetAddr) -> [u8; 4] {
    let ip: [u8; 4] = to.ip[12..].try_into().unwrap_or([127, 0, 0, 1]);
    match to.ip[12..] {
        [0, 0, 0, 0] => [127, 0, 0, 1],
        [127, ..] => ip,
        _ => v4(),
    }
}

/// Gives the interface fec0::15/64 and a default route through fec0::2.
pub fn add_ipv6(iface: &mut smoltcp::iface::Interface) {
    iface.update_ip_addrs(|a| {
        let _ = a.push(smoltcp::wire::IpCidr::new(IpAddress::Ipv6(Ipv6Address::from(ADDR6)), PREFIX6));
    });
    let _ = iface.routes_mut().add_default_ipv6_route(Ipv6Address::from(GATEWAY6));
}

//! The machine's network interfaces as a program sees them: `lo`
//! (index 1: 127.0.0.1/8 and ::1/128) always, and with the network
//! device `eth0` (index 2: the IPv4 plan's address, slirp's 10.0.2.15/24
//! unless `-net tap` gave another, and fec0::15/64; MAC from the device). rtnetlink (netlink.rs), /proc/net and the UDP control
//! messages (the arriving interface's index) describe them from here.

use super::nic;
use alloc::vec::Vec;
use gometal_core::net::netlink::{ARPHRD_ETHER, ARPHRD_LOOPBACK, IFF_BROADCAST, IFF_LOOPBACK, IFF_LOWER_UP, IFF_MULTICAST, IFF_RUNNING, IFF_UP};

pub const LOOPBACK_INDEX: u32 = 1;
pub const ETH_INDEX: u32 = 2;

pub struct Interface {
    pub index: u32,
    pub name: &'static str,
    pub kind: u16,
    pub flags: u32,
    pub mtu: u32,
    pub mac: [u8; 6],
    pub ipv4: ([u8; 4], u8),
    pub ipv6: ([u8; 16], u8),
    /// The IPv4 default gateway and the IPv6 router, for the routes.
    pub gateways: Option<([u8; 4], [u8; 16])>,
}

const LOOPBACK6: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];

pub fn list() -> Vec<Interface> {
    let mut out = alloc::vec![Interface {
        index: LOOPBACK_INDEX,
        name: "lo",
        kind: ARPHRD_LOOPBACK,
        flags: IFF_UP | IFF_LOOPBACK | IFF_RUNNING | IFF_LOWER_UP,
        mtu: 65536,
        mac: [0; 6],
        ipv4: ([127, 0, 0, 1], 8),
        ipv6: (LOOPBACK6, 128),
        gateways: None,
    }];
    if let Some(mac) = nic::mac() {
        let plan = nic::addr::plan();
        out.push(Interface {
            index: ETH_INDEX,
            name: "eth0",
            kind: ARPHRD_ETHER,
            flags: IFF_UP | IFF_BROADCAST | IFF_RUNNING | IFF_MULTICAST | IFF_LOWER_UP,
            mtu: 1500,
            mac,
            ipv4: (plan.addr, plan.prefix),
            ipv6: (nic::addr::ADDR6, nic::addr::PREFIX6),
            gateways: Some((plan.gateway, nic::addr::GATEWAY6)),
        });
    }
    out
}

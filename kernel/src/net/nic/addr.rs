//! The guest's own addresses on slirp's network and which destinations
//! the NIC carries, for every protocol. A packet to one of our own
//! addresses never leaves the machine (Linux routes it through `lo`), so
//! sockets treat 10.0.2.15 like 127.0.0.1: it may be bound, and traffic to
//! it is delivered in the kernel.

use super::ADDR;
use gometal_core::sockaddr::InetAddr;

/// Is `a` this machine's address on the network (10.0.2.15, with a NIC)?
pub fn is_own(a: &InetAddr) -> bool {
    super::present() && a.is_v4() && a.ip[12..] == ADDR
}

/// Does a datagram or connection to `a` go out through the NIC: a NIC is
/// present and `a` is neither loopback, unspecified nor our own address.
pub fn routes(a: &InetAddr) -> bool {
    super::present() && a.is_v4() && !a.is_loopback() && !a.is_unspecified() && !is_own(a)
}

/// The address packets to `to` leave from (its own address for a local
/// destination, else ours on the NIC), as an IPv4 address.
pub fn source_v4(to: &InetAddr) -> [u8; 4] {
    let ip: [u8; 4] = to.ip[12..].try_into().unwrap_or([127, 0, 0, 1]);
    match to.ip[12..] {
        [0, 0, 0, 0] => [127, 0, 0, 1],
        [127, ..] => ip,
        _ => ADDR,
    }
}

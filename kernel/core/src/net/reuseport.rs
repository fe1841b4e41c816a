//! SO_REUSEPORT's choice: which socket of a group bound to one address
//! and port gets a new connection or a datagram. As on Linux, a hash of
//! the sender's address and port and the local port picks it, so one
//! sender (one TCP connection, one UDP peer such as a QUIC client) always
//! reaches the same socket, and different senders spread over the group.

/// The index in a group of `members` sockets (at least 1) for a sender
/// at `from`:`from_port` to `to_port`.
pub fn pick(from: &[u8; 16], from_port: u16, to_port: u16, members: usize) -> usize {
    // FNV-1a, then a final mix so consecutive ports spread.
    let mut h: u32 = 0x811c_9dc5;
    for &b in from.iter().chain(from_port.to_be_bytes().iter()).chain(to_port.to_be_bytes().iter()) {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h ^= h >> 15;
    h = h.wrapping_mul(0x2c1b_3c6d);
    h ^= h >> 12;
    h as usize % members.max(1)
}

#[cfg(test)]
mod tests {
    use super::pick;

    #[test]
    fn same_sender_same_socket() {
        let a = [0u8; 16];
        assert_eq!(pick(&a, 40000, 53, 4), pick(&a, 40000, 53, 4));
        assert_eq!(pick(&a, 40000, 53, 1), 0);
    }

    #[test]
    fn consecutive_ports_spread_evenly() {
        let mut ip = [0u8; 16];
        ip[10] = 0xff;
        ip[11] = 0xff;
        ip[12] = 127;
        ip[15] = 1;
        let mut counts = [0usize; 4];
        for port in 32768..32768 + 4000u16 {
            counts[pick(&ip, port, 8080, 4)] += 1;
        }
        assert!(counts.iter().all(|&c| (800..1200).contains(&c)), "{counts:?}");
    }
}

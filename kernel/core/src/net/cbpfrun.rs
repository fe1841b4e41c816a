//! Running a checked classic BPF program (cbpf.rs) over a packet, with the
//! semantics Linux gives it (Linux translates classic programs to eBPF;
//! these are that translation's rules): A and X start at 0; loads are
//! big-endian; a load past the packet's end (or before a header that is
//! not there) ends the program with 0; division or remainder by an X of 0
//! ends it with 0; a shift by X uses X's low 5 bits; arithmetic wraps at
//! 32 bits. The value returned is how many bytes of the packet to keep
//! (0: drop it); sk_filter_trim_cap in the kernel applies it.

use crate::net::cbpf::*;

/// The packet a filter sees. `data` is what Linux's skb->data covers when
/// the filter runs (for UDP: the UDP header and payload; for a raw IPv4
/// socket: the IP header on); `net` is the same packet from its network
/// header on (ends with `data`), for loads at SKF_NET_OFF + n. There is no
/// link-layer header: loads at SKF_LL_OFF + n read past the packet.
#[derive(Clone, Copy, Debug)]
pub struct Packet<'a> {
    pub data: &'a [u8],
    pub net: &'a [u8],
}

/// What the ancillary loads read (SKF_AD_*): facts of the packet and the
/// receiving device, and where random numbers come from.
#[derive(Clone, Copy, Debug)]
pub struct Facts {
    /// skb->protocol (ETH_P_IP 0x0800, ETH_P_IPV6 0x86dd; 0 for AF_UNIX).
    pub protocol: u16,
    /// PACKET_HOST 0, PACKET_BROADCAST 1, PACKET_MULTICAST 2.
    pub pkt_type: u32,
    /// The receiving device's index and ARPHRD_* type (772 loopback, 1
    /// Ethernet); None for AF_UNIX, which has no device: a load of either
    /// then ends the program with A, as Linux's translation does.
    pub device: Option<(u32, u32)>,
    /// The CPU the filter runs on.
    pub cpu: u32,
    pub random: fn() -> u32,
}

/// Runs `filter` over `pkt`: the number of bytes to keep.
pub fn run(filter: &Filter, pkt: &Packet, facts: &Facts) -> u32 {
    let insns = filter.insns();
    let (mut a, mut x) = (0u32, 0u32);
    let mut m = [0u32; MEM_WORDS];
    let mut pc = 0;
    // Every jump is forward and lands inside (cbpf::check): this ends.
    while let Some(i) = insns.get(pc) {
        pc += 1;
        let src = if i.code & X != 0 { x } else { i.k };
        match i.code & 0x07 {
            LD => match i.code & 0xe0 {
                IMM => a = i.k,
                MEM => a = m[i.k as usize % MEM_WORDS],
                LEN => a = pkt.data.len() as u32,
                ABS if i.k >= SKF_AD_OFF => match ancillary(i.k, a, x, facts) {
                    Some(v) => a = v,
                    None => return a,
                },
                mode => {
                    let at = if mode == IND { x.wrapping_add(i.k) } else { i.k };
                    match load(pkt, at, size_of(i.code)) {
                        Some(v) => a = v,
                        None => return 0,
                    }
                }
            },
            LDX => match i.code & 0xe0 {
                IMM => x = i.k,
                MEM => x = m[i.k as usize % MEM_WORDS],
                LEN => x = pkt.data.len() as u32,
                _ => match load(pkt, i.k, 1) {
                    Some(v) => x = (v & 0xf) * 4, // MSH: an IPv4 header's length
                    None => return 0,
                },
            },
            ST => m[i.k as usize % MEM_WORDS] = a,
            STX => m[i.k as usize % MEM_WORDS] = x,
            ALU => match alu(i.code & 0xf0, a, src) {
                Some(v) => a = v,
                None => return 0,
            },
            JMP if i.code & 0xf0 == JA => pc += i.k as usize,
            JMP => {
                let taken = match i.code & 0xf0 {
                    JEQ => a == src,
                    JGT => a > src,
                    JGE => a >= src,
                    _ => a & src != 0, // JSET
                };
                pc += usize::from(if taken { i.jt } else { i.jf });
            }
            RET => return if i.code & RET_A != 0 { a } else { i.k },
            _ => {
                if i.code & 0xf8 == TXA {
                    a = x;
                } else {
                    x = a;
                }
            }
        }
    }
    0 // not reached: a checked program ends in a return
}

#[cfg(test)]
#[path = "cbpfrun_tests.rs"]
mod tests;

fn size_of(code: u16) -> usize {
    match code & 0x18 {
        B => 1,
        H => 2,
        _ => 4,
    }
}

/// A 32-bit operation; None for a division by zero (the program returns 0).
fn alu(op: u16, a: u32, v: u32) -> Option<u32> {
    Some(match op {
        ADD => a.wrapping_add(v),
        SUB => a.wrapping_sub(v),
        MUL => a.wrapping_mul(v),
        DIV => a.checked_div(v)?,
        MOD => a.checked_rem(v)?,
        OR => a | v,
        AND => a & v,
        XOR => a ^ v,
        LSH => a << (v & 31),
        RSH => a >> (v & 31),
        _ => a.wrapping_neg(), // NEG
    })
}

/// `size` bytes at offset `at` (an offset at or above SKF_LL_OFF, as a
/// negative number, counts from a header instead), big-endian.
fn load(pkt: &Packet, at: u32, size: usize) -> Option<u32> {
    let (bytes, off) = if at < 0x8000_0000 {
        (pkt.data, at as usize)
    } else if at >= SKF_NET_OFF {
        (pkt.net, (at - SKF_NET_OFF) as usize)
    } else {
        return None; // SKF_LL_OFF: no link-layer header is kept
    };
    let b = bytes.get(off..off.checked_add(size)?)?;
    Some(b.iter().fold(0, |v, &byte| (v << 8) | u32::from(byte)))
}

/// An ancillary load's value; None ends the program (with A).
fn ancillary(k: u32, a: u32, x: u32, facts: &Facts) -> Option<u32> {
    Some(match Anc::at(k) {
        Some(Anc::Protocol) => u32::from(facts.protocol),
        Some(Anc::PktType) => facts.pkt_type,
        Some(Anc::IfIndex) => facts.device?.0,
        Some(Anc::HaType) => facts.device?.1,
        Some(Anc::Cpu) => facts.cpu,
        Some(Anc::AluXorX) => a ^ x,
        Some(Anc::Random) => (facts.random)(),
        // No marks, queues, hashes or VLANs on gometal's packets.
        Some(Anc::Mark | Anc::Queue | Anc::RxHash | Anc::VlanTag | Anc::VlanTagPresent | Anc::VlanTpid) | None => 0,
    })
}

/// The packet a UDP socket's filter sees: an IP header (IPv4 without
/// options, or IPv6) and the UDP header, built from what the datagram
/// carried, then the payload; the `Packet` views are `net` (all of it)
/// and `data` (from the UDP header on). The UDP checksum reads 0.
#[allow(clippy::too_many_arguments)]
pub fn udp_packet(v4: bool, src: &[u8; 16], dst: &[u8; 16], ports: (u16, u16), tos: u8, ttl: u8, payload: &[u8]) -> alloc::vec::Vec<u8> {
    let udp_len = 8 + payload.len();
    let mut p = alloc::vec::Vec::with_capacity(40 + udp_len);
    if v4 {
        let mut h = crate::net::icmp::ipv4_header(src[12..].try_into().unwrap_or([0; 4]), dst[12..].try_into().unwrap_or([0; 4]), 17, udp_len);
        h[1] = tos;
        h[8] = ttl;
        h[10..12].fill(0);
        let c = crate::net::icmp::checksum(&h);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        p.extend_from_slice(&h);
    } else {
        let flow = u32::from(tos) << 20 | 6 << 28;
        p.extend_from_slice(&flow.to_be_bytes());
        p.extend_from_slice(&(udp_len.min(0xffff) as u16).to_be_bytes());
        p.extend_from_slice(&[17, ttl]);
        p.extend_from_slice(src);
        p.extend_from_slice(dst);
    }
    p.extend_from_slice(&ports.0.to_be_bytes());
    p.extend_from_slice(&ports.1.to_be_bytes());
    p.extend_from_slice(&(udp_len.min(0xffff) as u16).to_be_bytes());
    p.extend_from_slice(&[0, 0]);
    p.extend_from_slice(payload);
    p
}

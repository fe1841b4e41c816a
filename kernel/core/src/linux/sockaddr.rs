//! Socket addresses as Linux lays them out (struct sockaddr_in,
//! sockaddr_in6, sockaddr_un): decoding what a program passes to bind,
//! connect and sendto, and encoding what getsockname, getpeername, accept
//! and recvfrom hand back.
//!
//! An Internet address is kept in one form for both families: IPv4 as the
//! IPv4-mapped IPv6 address (::ffff:a.b.c.d) plus the family it came in, so
//! matching a dual-stack listener against an IPv4 peer is one comparison.

use crate::linux::errno::{Errno, EAFNOSUPPORT, EINVAL};
use alloc::vec::Vec;

pub const AF_UNSPEC: u16 = 0;
pub const AF_UNIX: u16 = 1;
pub const AF_INET: u16 = 2;
pub const AF_INET6: u16 = 10;

/// sizeof(struct sockaddr_in), sizeof(struct sockaddr_in6), the RFC 2133
/// sockaddr_in6 without scope id (Linux accepts it), and the largest
/// sockaddr_un.
pub const INET_LEN: usize = 16;
pub const INET6_LEN: usize = 28;
const INET6_MIN_LEN: usize = 24;
pub const UNIX_LEN: usize = 110;

const V4_MAPPED_PREFIX: [u8; 12] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/// An IPv4 or IPv6 address and port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InetAddr {
    /// Came as (and is encoded back as) sockaddr_in6.
    pub v6: bool,
    /// IPv4 addresses as ::ffff:a.b.c.d.
    pub ip: [u8; 16],
    pub port: u16,
    pub scope_id: u32,
}

impl InetAddr {
    pub fn v4(ip: [u8; 4], port: u16) -> Self {
        let mut m = [0u8; 16];
        m[..12].copy_from_slice(&V4_MAPPED_PREFIX);
        m[12..].copy_from_slice(&ip);
        InetAddr { v6: false, ip: m, port, scope_id: 0 }
    }

    pub fn v6(ip: [u8; 16], port: u16) -> Self {
        InetAddr { v6: true, ip, port, scope_id: 0 }
    }

    /// An IPv4 address (a sockaddr_in, or an IPv4-mapped IPv6 one).
    pub fn is_v4(&self) -> bool {
        self.ip[..12] == V4_MAPPED_PREFIX
    }

    /// 0.0.0.0 or ::.
    pub fn is_unspecified(&self) -> bool {
        if self.is_v4() {
            self.ip[12..] == [0; 4]
        } else {
            self.ip == [0; 16]
        }
    }

    /// 127.0.0.0/8 or ::1.
    pub fn is_loopback(&self) -> bool {
        if self.is_v4() {
            self.ip[12] == 127
        } else {
            self.ip == Self::V6_LOOPBACK
        }
    }

    pub const V6_LOOPBACK: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];

    /// The same address with another port.
    pub fn with_port(self, port: u16) -> Self {
        InetAddr { port, ..self }
    }

    /// This address as a socket of family `v6` reports it: an IPv4 peer of
    /// an IPv6 socket is ::ffff:a.b.c.d in a sockaddr_in6.
    pub fn as_family(self, v6: bool) -> Self {
        InetAddr { v6, ..self }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(INET6_LEN);
        if self.v6 {
            b.extend_from_slice(&AF_INET6.to_le_bytes());
            b.extend_from_slice(&self.port.to_be_bytes());
            b.extend_from_slice(&[0; 4]); // flow info
            b.extend_from_slice(&self.ip);
            b.extend_from_slice(&self.scope_id.to_le_bytes());
        } else {
            b.extend_from_slice(&AF_INET.to_le_bytes());
            b.extend_from_slice(&self.port.to_be_bytes());
            b.extend_from_slice(&self.ip[12..]);
            b.extend_from_slice(&[0; 8]);
        }
        b
    }
}

/// An AF_UNIX address.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum UnixAddr {
    /// No name (an unbound socket, or bind with an empty path: autobind).
    Unnamed,
    /// A file-system path (without its terminating NUL).
    Path(Vec<u8>),
    /// Linux's abstract namespace: the name after the leading NUL.
    Abstract(Vec<u8>),
}

impl UnixAddr {
    pub fn encode(&self) -> Vec<u8> {
        let mut b = AF_UNIX.to_le_bytes().to_vec();
        match self {
            UnixAddr::Unnamed => {}
            UnixAddr::Path(p) => {
                b.extend_from_slice(p);
                b.push(0); // Linux counts the NUL in the length it reports
            }
            UnixAddr::Abstract(n) => {
                b.push(0);
                b.extend_from_slice(n);
            }
        }
        b
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SockAddr {
    Inet(InetAddr),
    Unix(UnixAddr),
    /// AF_UNSPEC: connect's "dissolve the association" (datagram sockets).
    Unspec,
}

impl SockAddr {
    pub fn encode(&self) -> Vec<u8> {
        match self {
            SockAddr::Inet(a) => a.encode(),
            SockAddr::Unix(u) => u.encode(),
            SockAddr::Unspec => AF_UNSPEC.to_le_bytes().to_vec(),
        }
    }
}

fn be16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}

/// The address a program passed (its first `bytes.len()` bytes, the
/// addrlen argument). EINVAL when too short for its family, EAFNOSUPPORT
/// for a family gometal does not speak.
pub fn decode(bytes: &[u8]) -> Result<SockAddr, Errno> {
    if bytes.len() < 2 {
        return Err(EINVAL);
    }
    match u16::from_le_bytes([bytes[0], bytes[1]]) {
        AF_INET if bytes.len() < INET_LEN => Err(EINVAL),
        AF_INET => {
            let ip: [u8; 4] = bytes[4..8].try_into().map_err(|_| EINVAL)?;
            Ok(SockAddr::Inet(InetAddr::v4(ip, be16(&bytes[2..]))))
        }
        AF_INET6 if bytes.len() < INET6_MIN_LEN => Err(EINVAL),
        AF_INET6 => {
            let ip: [u8; 16] = bytes[8..24].try_into().map_err(|_| EINVAL)?;
            let scope_id = match bytes.get(24..28) {
                Some(s) => u32::from_le_bytes(s.try_into().map_err(|_| EINVAL)?),
                None => 0,
            };
            Ok(SockAddr::Inet(InetAddr { v6: true, ip, port: be16(&bytes[2..]), scope_id }))
        }
        AF_UNIX if bytes.len() > UNIX_LEN => Err(EINVAL),
        AF_UNIX => Ok(SockAddr::Unix(decode_unix(&bytes[2..]))),
        AF_UNSPEC => Ok(SockAddr::Unspec),
        _ => Err(EAFNOSUPPORT),
    }
}

fn decode_unix(path: &[u8]) -> UnixAddr {
    match path.first() {
        None => UnixAddr::Unnamed,
        Some(0) => UnixAddr::Abstract(path[1..].to_vec()),
        Some(_) => {
            let end = path.iter().position(|&c| c == 0).unwrap_or(path.len());
            UnixAddr::Path(path[..end].to_vec())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linux::errno::*;

    #[test]
    fn inet_round_trip() {
        let raw = [2, 0, 0x1f, 0x90, 127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
        let SockAddr::Inet(a) = decode(&raw).unwrap() else { panic!("not inet") };
        assert_eq!(a.port, 8080);
        assert!(a.is_v4() && a.is_loopback() && !a.v6);
        assert_eq!(a.encode(), raw);
    }

    #[test]
    fn inet6_round_trip_and_short_form() {
        let mut raw = [0u8; 28];
        raw[0] = 10;
        raw[2..4].copy_from_slice(&443u16.to_be_bytes());
        raw[23] = 1;
        let SockAddr::Inet(a) = decode(&raw).unwrap() else { panic!("not inet6") };
        assert!(a.v6 && a.is_loopback() && !a.is_v4());
        assert_eq!(a.encode(), raw);
        assert_eq!(decode(&raw[..24]).unwrap(), SockAddr::Inet(a));
        assert_eq!(decode(&raw[..23]), Err(EINVAL));
    }

    #[test]
    fn v4_mapped_and_unspecified() {
        let any4 = InetAddr::v4([0; 4], 0);
        assert!(any4.is_unspecified() && any4.is_v4());
        let any6 = InetAddr::v6([0; 16], 0);
        assert!(any6.is_unspecified() && !any6.is_v4());
        let mapped = InetAddr::v4([10, 0, 2, 15], 1).as_family(true);
        assert!(mapped.v6 && mapped.is_v4());
        assert_eq!(&mapped.encode()[8..24], &[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 2, 15]);
    }

    #[test]
    fn unix_forms() {
        let mut raw = alloc::vec![1, 0];
        raw.extend_from_slice(b"/tmp/s\0garbage");
        assert_eq!(decode(&raw).unwrap(), SockAddr::Unix(UnixAddr::Path(b"/tmp/s".to_vec())));
        assert_eq!(UnixAddr::Path(b"/tmp/s".to_vec()).encode(), b"\x01\x00/tmp/s\0");
        assert_eq!(decode(b"\x01\x00\0name").unwrap(), SockAddr::Unix(UnixAddr::Abstract(b"name".to_vec())));
        assert_eq!(UnixAddr::Abstract(b"name".to_vec()).encode(), b"\x01\x00\0name");
        assert_eq!(decode(&[1, 0]).unwrap(), SockAddr::Unix(UnixAddr::Unnamed));
        assert_eq!(decode(&[1, 0].repeat(56)), Err(EINVAL)); // 112 bytes
    }

    #[test]
    fn bad_input() {
        assert_eq!(decode(&[2]), Err(EINVAL));
        assert_eq!(decode(&[2, 0, 0, 80]), Err(EINVAL));
        assert_eq!(decode(&[17, 0, 0, 0]), Err(EAFNOSUPPORT)); // AF_PACKET
        assert_eq!(decode(&[0, 0]), Ok(SockAddr::Unspec));
    }
}

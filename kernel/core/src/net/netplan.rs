//! The guest's IPv4 plan on its network device: address and prefix,
//! default gateway, DNS server. By default QEMU's user network's fixed one
//! (10.0.2.15/24, gateway 10.0.2.2, DNS 10.0.2.3); `gometal run -net
//! tap=IFNAME,ip=A.B.C.D/P,gw=A.B.C.D,dns=A.B.C.D` passes another as the
//! kernel option `net=ip=...,gw=...,dns=...`, which `parse` reads (any
//! part left out keeps its default; a DNS server left out is the gateway
//! when the gateway was given). `net=dhcp` (a tap without ip=) asks the
//! network's DHCP server for all three instead (kernel net/nic/dhcp.rs):
//! the plan is then the lease's, and changes when a renewal brings another
//! lease or the lease is lost (`NetPlan::after`).

/// Address, prefix length, gateway and DNS server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NetPlan {
    pub addr: [u8; 4],
    pub prefix: u8,
    pub gateway: [u8; 4],
    pub dns: [u8; 4],
    /// Ask a DHCP server (`dhcp`); the rest is then the lease's.
    pub dhcp: bool,
}

/// QEMU's user network (slirp) plan.
pub const SLIRP: NetPlan = NetPlan { addr: [10, 0, 2, 15], prefix: 24, gateway: [10, 0, 2, 2], dns: [10, 0, 2, 3], dhcp: false };

impl Default for NetPlan {
    fn default() -> Self {
        SLIRP
    }
}

/// The plan of a DHCP client with no lease: no IPv4 address.
pub const NO_LEASE: NetPlan = NetPlan { addr: [0; 4], prefix: 0, gateway: [0; 4], dns: [0; 4], dhcp: true };

/// What a DHCP server's lease gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lease {
    pub addr: [u8; 4],
    pub prefix: u8,
    pub gateway: Option<[u8; 4]>,
    pub dns: Option<[u8; 4]>,
    pub server: [u8; 4],
}

impl NetPlan {
    /// The plan a lease gives (no DNS server in it: the router, as for
    /// `gw=` without `dns=`).
    pub fn from_lease(l: &Lease) -> NetPlan {
        NetPlan { addr: l.addr, prefix: l.prefix, gateway: l.gateway.unwrap_or([0; 4]), dns: l.dns.or(l.gateway).unwrap_or([0; 4]), dhcp: true }
    }

    /// The plan after the DHCP client's news (`Some`: a lease, first or
    /// renewed; `None`: the lease is lost), or None when it changes
    /// nothing (a renewal of the same lease).
    pub fn after(&self, news: Option<&Lease>) -> Option<NetPlan> {
        let next = news.map_or(NO_LEASE, NetPlan::from_lease);
        (next != *self).then_some(next)
    }

    /// The plan in two words, for a kernel that keeps it in atomics (the
    /// first word's low bit says a plan is there: `unpack` of zeros is
    /// None).
    pub fn pack(&self) -> [u64; 2] {
        let word = |a: [u8; 4]| u32::from_be_bytes(a) as u64;
        [word(self.addr) << 32 | (self.prefix as u64) << 8 | (self.dhcp as u64) << 1 | 1, word(self.gateway) << 32 | word(self.dns)]
    }

    pub fn unpack(w: [u64; 2]) -> Option<NetPlan> {
        let addr = |x: u64| (x as u32).to_be_bytes();
        (w[0] & 1 == 1).then(|| NetPlan { addr: addr(w[0] >> 32), prefix: (w[0] >> 8) as u8, gateway: addr(w[1] >> 32), dns: addr(w[1]), dhcp: w[0] & 2 != 0 })
    }
}

/// A dotted-quad IPv4 address.
pub fn parse_v4(s: &[u8]) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut parts = s.split(|&b| b == b'.');
    for o in out.iter_mut() {
        let p = parts.next()?;
        if p.is_empty() || p.len() > 3 || !p.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let v = p.iter().fold(0u32, |a, &d| a * 10 + (d - b'0') as u32);
        *o = u8::try_from(v).ok()?;
    }
    parts.next().is_none().then_some(out)
}

/// Reads `ip=A.B.C.D[/P],gw=A.B.C.D,dns=A.B.C.D` (any subset, any order),
/// or `dhcp`.
pub fn parse(spec: &[u8]) -> Option<NetPlan> {
    let mut plan = SLIRP;
    let mut dns_given = false;
    for item in spec.split(|&b| b == b',').filter(|i| !i.is_empty()) {
        if item == b"dhcp" {
            plan.dhcp = true;
            continue;
        }
        let eq = item.iter().position(|&b| b == b'=')?;
        let (k, v) = (&item[..eq], &item[eq + 1..]);
        match k {
            b"ip" => {
                let (a, p) = match v.iter().position(|&b| b == b'/') {
                    Some(i) => (&v[..i], Some(&v[i + 1..])),
                    None => (v, None),
                };
                plan.addr = parse_v4(a)?;
                plan.prefix = match p {
                    None => 24,
                    Some(p) if !p.is_empty() && p.len() <= 2 && p.iter().all(u8::is_ascii_digit) => {
                        let n = p.iter().fold(0u8, |a, &d| a * 10 + (d - b'0'));
                        if n == 0 || n > 32 {
                            return None;
                        }
                        n
                    }
                    Some(_) => return None,
                };
            }
            b"gw" => {
                plan.gateway = parse_v4(v)?;
                if !dns_given {
                    plan.dns = plan.gateway;
                }
            }
            b"dns" => {
                plan.dns = parse_v4(v)?;
                dns_given = true;
            }
            _ => return None,
        }
    }
    Some(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_parts() {
        assert_eq!(parse(b""), Some(SLIRP));
        let p = parse(b"ip=192.168.100.2/24,gw=192.168.100.1").unwrap();
        assert_eq!(p, NetPlan { addr: [192, 168, 100, 2], prefix: 24, gateway: [192, 168, 100, 1], dns: [192, 168, 100, 1], dhcp: false });
        assert!(parse(b"dhcp").is_some_and(|p| p.dhcp));
        let p = parse(b"dns=1.1.1.1,gw=10.9.0.1,ip=10.9.0.5/16").unwrap();
        assert_eq!((p.addr, p.prefix, p.gateway, p.dns), ([10, 9, 0, 5], 16, [10, 9, 0, 1], [1, 1, 1, 1]));
        assert_eq!(parse(b"ip=10.1.2.3").map(|p| p.prefix), Some(24));
    }

    #[test]
    fn leases() {
        let l = Lease { addr: [10, 77, 0, 50], prefix: 24, gateway: Some([10, 77, 0, 1]), dns: None, server: [10, 77, 0, 1] };
        let first = NO_LEASE.after(Some(&l)).unwrap();
        assert_eq!(first, NetPlan { addr: [10, 77, 0, 50], prefix: 24, gateway: [10, 77, 0, 1], dns: [10, 77, 0, 1], dhcp: true });
        assert_eq!(first.after(Some(&l)), None, "a renewal of the same lease changes nothing");
        let moved = Lease { addr: [10, 77, 0, 51], dns: Some([9, 9, 9, 9]), ..l };
        assert_eq!(first.after(Some(&moved)).map(|p| (p.addr, p.dns)), Some(([10, 77, 0, 51], [9, 9, 9, 9])));
        assert_eq!(first.after(None), Some(NO_LEASE));
        assert_eq!(NO_LEASE.after(None), None);
        let bare = Lease { gateway: None, dns: None, ..l };
        assert_eq!(NetPlan::from_lease(&bare).gateway, [0; 4]);
    }

    #[test]
    fn packs() {
        for p in [SLIRP, NO_LEASE, parse(b"ip=192.168.100.2/30,gw=192.168.100.1,dns=1.1.1.1").unwrap()] {
            assert_eq!(NetPlan::unpack(p.pack()), Some(p));
        }
        assert_eq!(NetPlan::unpack([0, 0]), None);
    }

    #[test]
    fn refuses_what_is_not_an_address() {
        for bad in [&b"ip=10.0.0.256"[..], b"ip=10.0.0", b"ip=10.0.0.1.2", b"ip=10.0.0.1/33", b"ip=10.0.0.1/0", b"ip=a.b.c.d", b"gw", b"mtu=9000", b"ip=10.0.0.1/"] {
            assert_eq!(parse(bad), None, "{}", String::from_utf8_lossy(bad));
        }
        assert_eq!(parse_v4(b"1.2.3.4"), Some([1, 2, 3, 4]));
        assert_eq!(parse_v4(b"01.2.3.4"), Some([1, 2, 3, 4]));
        assert_eq!(parse_v4(b"1..3.4"), None);
    }
}

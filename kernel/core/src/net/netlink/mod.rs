//! rtnetlink's wire format (NETLINK_ROUTE, rtnetlink(7)): parsing the
//! requests a program sends and encoding the link, address and route
//! messages of a dump, as Linux lays them out. Go's net.Interfaces and
//! net.InterfaceAddrs (syscall.NetlinkRIB) and libraries such as
//! vishvananda/netlink read these. All numbers are host order
//! (little-endian on every architecture gometal runs on), as netlink is.

use alloc::vec::Vec;

pub const NLMSG_HDRLEN: usize = 16;
pub const NLMSG_NOOP: u16 = 1;
pub const NLMSG_ERROR: u16 = 2;
pub const NLMSG_DONE: u16 = 3;
pub const NLM_F_REQUEST: u16 = 0x1;
pub const NLM_F_MULTI: u16 = 0x2;
pub const NLM_F_ACK: u16 = 0x4;
pub const NLM_F_DUMP: u16 = 0x300;

pub const RTM_NEWLINK: u16 = 16;
pub const RTM_GETLINK: u16 = 18;
pub const RTM_NEWADDR: u16 = 20;
pub const RTM_GETADDR: u16 = 22;
pub const RTM_NEWROUTE: u16 = 24;
pub const RTM_GETROUTE: u16 = 26;

pub const AF_UNSPEC: u8 = 0;
pub const AF_INET: u8 = 2;
pub const AF_INET6: u8 = 10;

// Interface flags (IFF_*).
pub const IFF_UP: u32 = 0x1;
pub const IFF_BROADCAST: u32 = 0x2;
pub const IFF_LOOPBACK: u32 = 0x8;
pub const IFF_RUNNING: u32 = 0x40;
pub const IFF_MULTICAST: u32 = 0x1000;
pub const IFF_LOWER_UP: u32 = 0x10000;

pub const ARPHRD_ETHER: u16 = 1;
pub const ARPHRD_LOOPBACK: u16 = 772;

const IFLA_ADDRESS: u16 = 1;
const IFLA_BROADCAST: u16 = 2;
const IFLA_IFNAME: u16 = 3;
const IFLA_MTU: u16 = 4;
const IFLA_TXQLEN: u16 = 13;
const IFLA_OPERSTATE: u16 = 16;
const IFLA_LINKMODE: u16 = 17;

const IFA_ADDRESS: u16 = 1;
const IFA_LOCAL: u16 = 2;
const IFA_LABEL: u16 = 3;
const IFA_BROADCAST: u16 = 4;
const IFA_FLAGS: u16 = 8;
pub const IFA_F_PERMANENT: u32 = 0x80;

const RTA_DST: u16 = 1;
const RTA_OIF: u16 = 4;
const RTA_GATEWAY: u16 = 5;
const RTA_PRIORITY: u16 = 6;
const RTA_PREFSRC: u16 = 7;
const RTA_TABLE: u16 = 15;

pub const RT_SCOPE_UNIVERSE: u8 = 0;
pub const RT_SCOPE_SITE: u8 = 200;
pub const RT_SCOPE_LINK: u8 = 253;
pub const RT_SCOPE_HOST: u8 = 254;
pub const RT_TABLE_MAIN: u8 = 254;
pub const RT_TABLE_LOCAL: u8 = 255;
pub const RTPROT_KERNEL: u8 = 2;
pub const RTPROT_BOOT: u8 = 3;
pub const RTN_UNICAST: u8 = 1;
pub const RTN_LOCAL: u8 = 2;

/// One message of a request: its header and body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub kind: u16,
    pub flags: u16,
    pub seq: u32,
    pub pid: u32,
    /// The header's 16 bytes, which an error or acknowledgement repeats.
    pub header: [u8; 16],
    pub body: Vec<u8>,
}

impl Request {
    /// The address family the request asks about (the first byte of
    /// rtgenmsg, ifinfomsg, ifaddrmsg and rtmsg alike).
    pub fn family(&self) -> u8 {
        self.body.first().copied().unwrap_or(AF_UNSPEC)
    }

    pub fn is_dump(&self) -> bool {
        self.flags & NLM_F_DUMP == NLM_F_DUMP
    }

    /// RTM_GETLINK's interface index (ifinfomsg.ifi_index), 0 if none.
    pub fn link_index(&self) -> u32 {
        self.body.get(4..8).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// RTM_GETLINK's IFLA_IFNAME attribute, if any.
    pub fn link_name(&self) -> Option<&[u8]> {
        attributes(self.body.get(16..)?).find(|(t, _)| *t == IFLA_IFNAME).map(|(_, v)| v.split(|&b| b == 0).next().unwrap_or(v))
    }
}

fn align4(n: usize) -> usize {
    (n + 3) & !3
}

/// The (type, value) attributes in `b`.
fn attributes(mut b: &[u8]) -> impl Iterator<Item = (u16, &[u8])> {
    core::iter::from_fn(move || {
        if b.len() < 4 {
            return None;
        }
        let len = u16::from_le_bytes([b[0], b[1]]) as usize;
        let kind = u16::from_le_bytes([b[2], b[3]]) & 0x3fff;
        if len < 4 || len > b.len() {
            return None;
        }
        let value = &b[4..len];
        b = &b[align4(len).min(b.len())..];
        Some((kind, value))
    })
}

/// A message whose length does not fit the buffer it came in.
#[derive(Debug, PartialEq, Eq)]
pub struct Malformed;

/// The messages of one send; Err for a malformed one (the send fails
/// with EINVAL).
pub fn parse(mut b: &[u8]) -> Result<Vec<Request>, Malformed> {
    let mut out = Vec::new();
    while b.len() >= NLMSG_HDRLEN {
        let len = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
        if len < NLMSG_HDRLEN || len > b.len() {
            return Err(Malformed);
        }
        let mut header = [0u8; 16];
        header.copy_from_slice(&b[..16]);
        out.push(Request {
            kind: u16::from_le_bytes([b[4], b[5]]),
            flags: u16::from_le_bytes([b[6], b[7]]),
            seq: u32::from_le_bytes([b[8], b[9], b[10], b[11]]),
            pid: u32::from_le_bytes([b[12], b[13], b[14], b[15]]),
            header,
            body: b[16..len].to_vec(),
        });
        b = &b[align4(len).min(b.len())..];
    }
    Ok(out)
}

/// A message being built: header, fixed part, attributes.
struct Message(Vec<u8>);

impl Message {
    fn new(kind: u16, flags: u16, seq: u32, pid: u32) -> Message {
        let mut b = Vec::with_capacity(128);
        b.extend_from_slice(&0u32.to_le_bytes());
        b.extend_from_slice(&kind.to_le_bytes());
        b.extend_from_slice(&flags.to_le_bytes());
        b.extend_from_slice(&seq.to_le_bytes());
        b.extend_from_slice(&pid.to_le_bytes());
        Message(b)
    }

    fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.0.extend_from_slice(b);
        self
    }

    fn attr(&mut self, kind: u16, value: &[u8]) -> &mut Self {
        self.0.extend_from_slice(&((4 + value.len()) as u16).to_le_bytes());
        self.0.extend_from_slice(&kind.to_le_bytes());
        self.0.extend_from_slice(value);
        self.0.resize(align4(self.0.len()), 0);
        self
    }

    fn finish(&mut self) -> Vec<u8> {
        let len = self.0.len() as u32;
        self.0[..4].copy_from_slice(&len.to_le_bytes());
        core::mem::take(&mut self.0)
    }
}

/// Who a reply goes to: the request's sequence number and the socket's
/// port id; `flags` NLM_F_MULTI for the parts of a dump.
#[derive(Clone, Copy, Debug)]
pub struct Reply {
    pub seq: u32,
    pub pid: u32,
    pub flags: u16,
}

/// A network interface, as RTM_NEWLINK describes it.
#[derive(Clone, Copy, Debug)]
pub struct Link<'a> {
    pub index: u32,
    pub name: &'a str,
    pub kind: u16,
    pub flags: u32,
    pub mtu: u32,
    pub address: [u8; 6],
    pub broadcast: [u8; 6],
    pub txqlen: u32,
    /// IF_OPER_UP (6), or IF_OPER_UNKNOWN (0) as Linux reports lo.
    pub operstate: u8,
}

pub fn link(r: Reply, l: &Link) -> Vec<u8> {
    let mut m = Message::new(RTM_NEWLINK, r.flags, r.seq, r.pid);
    // struct ifinfomsg: family, pad, type, index, flags, change.
    m.bytes(&[AF_UNSPEC, 0]).bytes(&l.kind.to_le_bytes()).bytes(&l.index.to_le_bytes()).bytes(&l.flags.to_le_bytes()).bytes(&0u32.to_le_bytes());
    let mut name = Vec::from(l.name.as_bytes());
    name.push(0);
    m.attr(IFLA_IFNAME, &name)
        .attr(IFLA_TXQLEN, &l.txqlen.to_le_bytes())
        .attr(IFLA_OPERSTATE, &[l.operstate])
        .attr(IFLA_LINKMODE, &[0])
        .attr(IFLA_MTU, &l.mtu.to_le_bytes())
        .attr(IFLA_ADDRESS, &l.address)
        .attr(IFLA_BROADCAST, &l.broadcast);
    m.finish()
}

/// An address of an interface, as RTM_NEWADDR describes it.
#[derive(Clone, Copy, Debug)]
pub struct Addr<'a> {
    pub family: u8,
    pub prefix: u8,
    pub scope: u8,
    pub index: u32,
    /// 4 or 16 bytes.
    pub address: &'a [u8],
    /// IPv4: the broadcast address, if the network has one.
    pub broadcast: Option<[u8; 4]>,
    /// IPv4: the interface's name.
    pub label: &'a str,
}

pub fn addr(r: Reply, a: &Addr) -> Vec<u8> {
    let mut m = Message::new(RTM_NEWADDR, r.flags, r.seq, r.pid);
    // struct ifaddrmsg: family, prefixlen, flags, scope, index.
    m.bytes(&[a.family, a.prefix, IFA_F_PERMANENT as u8, a.scope]).bytes(&a.index.to_le_bytes());
    m.attr(IFA_ADDRESS, a.address);
    if a.family == AF_INET {
        m.attr(IFA_LOCAL, a.address);
        if let Some(b) = a.broadcast {
            m.attr(IFA_BROADCAST, &b);
        }
        let mut label = Vec::from(a.label.as_bytes());
        label.push(0);
        m.attr(IFA_LABEL, &label);
    }
    m.attr(IFA_FLAGS, &IFA_F_PERMANENT.to_le_bytes());
    m.finish()
}

/// A route, as RTM_NEWROUTE describes it.
#[derive(Clone, Copy, Debug)]
pub struct Route<'a> {
    pub family: u8,
    pub dst_len: u8,
    pub table: u8,
    pub protocol: u8,
    pub scope: u8,
    pub kind: u8,
    /// Absent for a default route.
    pub dst: Option<&'a [u8]>,
    pub gateway: Option<&'a [u8]>,
    pub prefsrc: Option<&'a [u8]>,
    pub oif: u32,
    pub priority: Option<u32>,
}

pub fn route(r: Reply, rt: &Route) -> Vec<u8> {
    let mut m = Message::new(RTM_NEWROUTE, r.flags, r.seq, r.pid);
    // struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags.
    m.bytes(&[rt.family, rt.dst_len, 0, 0, rt.table, rt.protocol, rt.scope, rt.kind]).bytes(&0u32.to_le_bytes());
    m.attr(RTA_TABLE, &(rt.table as u32).to_le_bytes());
    if let Some(d) = rt.dst {
        m.attr(RTA_DST, d);
    }
    if let Some(p) = rt.priority {
        m.attr(RTA_PRIORITY, &p.to_le_bytes());
    }
    if let Some(s) = rt.prefsrc {
        m.attr(RTA_PREFSRC, s);
    }
    if let Some(g) = rt.gateway {
        m.attr(RTA_GATEWAY, g);
    }
    m.attr(RTA_OIF, &rt.oif.to_le_bytes());
    m.finish()
}

/// The end of a dump: NLMSG_DONE with an int 0.
pub fn done(r: Reply) -> Vec<u8> {
    Message::new(NLMSG_DONE, NLM_F_MULTI, r.seq, r.pid).bytes(&0i32.to_le_bytes()).finish()
}

/// An error (errno > 0) or acknowledgement (0) of `req`: NLMSG_ERROR with
/// -errno, then the request: its header alone for an acknowledgement
/// (flagged NLM_F_CAPPED), the whole request for an error, as Linux does.
pub fn error(pid: u32, req: &Request, errno: i32) -> Vec<u8> {
    const NLM_F_CAPPED: u16 = 0x100;
    let mut m = Message::new(NLMSG_ERROR, if errno == 0 { NLM_F_CAPPED } else { 0 }, req.seq, pid);
    m.bytes(&(-errno).to_le_bytes()).bytes(&req.header);
    if errno != 0 {
        m.bytes(&req.body);
    }
    m.finish()
}

/// Messages grouped into datagrams of at most `max` bytes each (a reader
/// gets one datagram per recv; a message is never split).
pub fn pack(messages: Vec<Vec<u8>>, max: usize) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    for m in messages {
        match out.last_mut() {
            Some(d) if d.len() + m.len() <= max => d.extend_from_slice(&m),
            _ => out.push(m),
        }
    }
    out
}

#[cfg(test)]
mod tests;

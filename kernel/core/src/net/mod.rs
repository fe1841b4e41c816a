//! Pure logic of the network (kernel/src/net/): ICMP, connection
//! buffers, the DHCP plan, socket-set shards, SO_REUSEPORT, classic BPF,
//! netlink.

pub mod cbpf;
pub mod cbpfrun;
pub mod icmp;
pub mod netbuf;
pub mod netlink;
pub mod netplan;
pub mod netshard;
pub mod reuseport;

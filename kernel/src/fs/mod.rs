//! Files: the in-memory tree unpacked from the initramfs (writable, like
//! Linux's rootfs), host directories shared live over 9P (share.rs),
//! device nodes, pipes, and the kernel objects behind file descriptors
//! (eventfd, epoll).

pub mod epoll;
pub mod pollhub;
pub mod eventfd;
pub mod fd;
pub mod hostfile;
pub mod hostops;
pub mod inode;
pub mod locks;
pub mod p9client;
pub mod path;
pub mod pipe;
pub mod readonly;
pub mod share;
pub mod sharedir;
pub mod tree;

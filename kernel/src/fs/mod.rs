//! Files: the in-memory tree unpacked from the initramfs (writable, like
//! Linux's rootfs), host directories shared live over 9P (share.rs),
//! device nodes, pipes, and the kernel objects behind file descriptors
//! (eventfd, epoll). Every open file is a `file::File`, whatever its kind.

pub mod context;
pub mod devfiles;
pub mod dir;
pub mod epoll;
pub mod etcfiles;
pub mod eventfd;
pub mod fd;
pub mod file;
pub mod filemap;
pub mod hostfile;
pub mod hostops;
pub mod inode;
pub mod locks;
pub mod open;
pub mod p9client;
pub mod path;
pub mod pathfile;
pub mod pidfd;
pub mod pipe;
pub mod pipefile;
pub mod pollhub;
pub mod readonly;
pub mod regular;
pub mod share;
pub mod sharecache;
pub mod sharedir;
pub mod sharefile;
pub mod stat;
pub mod synth;
pub mod tree;

//! Files: the initramfs (read-only), device files, and the kernel objects
//! that live behind file descriptors (eventfd, epoll).

pub mod epoll;
pub mod eventfd;
pub mod fd;
pub mod initramfs;
pub mod path;

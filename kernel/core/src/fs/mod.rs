//! Pure logic of files (kernel/src/fs/): epoll's event masks, advisory
//! locks, 9P messages.

pub mod epollmask;
pub mod filelock;
pub mod p9;
pub mod sharecache;

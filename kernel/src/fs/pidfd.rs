//! A pidfd (pidfd_open): a descriptor naming a process. The only process
//! is the program itself, which is alive as long as anyone can ask, so a
//! pidfd never becomes readable (Linux: readable once the process exits);
//! read and write are EINVAL, as on Linux.

use super::fd::OpenFile;
use super::file::File;
use super::pollhub::{Hub, PollHub};
use alloc::sync::Arc;

pub struct PidFd {
    /// The pid it names.
    pub pid: u32,
    hub: Arc<Hub>,
}

impl PidFd {
    pub fn new(pid: u32) -> Self {
        PidFd { pid, hub: Arc::new(Hub::new()) }
    }
}

impl File for PidFd {
    fn poll_hub(&self) -> Option<PollHub> {
        Some(PollHub::Own(self.hub.clone()))
    }

    fn poll(&self, _: &OpenFile) -> (u32, u64) {
        (0, 0)
    }
}

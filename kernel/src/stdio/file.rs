//! The standard streams as files (fds 0, 1 and 2 at start): reads and
//! writes go to their console port (mod.rs). A stream whose host side is
//! a terminal looks like one (a pseudo-terminal's numbers, the terminal
//! ioctls); any other looks like a pipe, as a redirected stream on Linux.

use super::Stream;
use crate::fs::epoll::{global_generation, in_out};
use crate::fs::fd::{OpenFile, O_RDONLY, O_WRONLY};
use crate::fs::file::File;
use crate::fs::pollhub::PollHub;
use crate::fs::stat::Stat;
use crate::mm::uaccess::UserSpace;
use alloc::sync::Arc;
use gometal_core::linux::errno::{Errno, ENOTTY};

struct StdStream(Stream);

impl File for StdStream {
    fn read(&self, of: &OpenFile, buf: &mut [u8], _: Option<u64>) -> Result<usize, Errno> {
        super::read(self.0, buf, of.nonblocking())
    }

    fn write(&self, _: &OpenFile, data: &[u8], _: Option<u64>) -> Result<usize, Errno> {
        super::write(self.0, data)
    }

    fn ioctl(&self, user: &mut UserSpace, request: u32, arg: u64) -> Result<usize, Errno> {
        if !super::is_tty(self.0) {
            return Err(ENOTTY);
        }
        super::tty::ioctl(user, request, arg)
    }

    fn stat(&self) -> Stat {
        if !super::is_tty(self.0) {
            return Stat::pipe();
        }
        Stat::char_device(0o620, (136, self.0 as u32))
    }

    fn poll_hub(&self) -> Option<PollHub> {
        Some(PollHub::Global)
    }

    fn poll(&self, _: &OpenFile) -> (u32, u64) {
        let generation = global_generation(); // before the look
        let input = self.0 == Stream::In;
        (in_out(input && super::readable(self.0), !input), generation)
    }
}

/// The program's fds 0, 1 and 2 as it starts.
pub fn open_files() -> [Arc<OpenFile>; 3] {
    [(Stream::In, O_RDONLY), (Stream::Out, O_WRONLY), (Stream::Err, O_WRONLY)].map(|(s, mode)| OpenFile::new(Arc::new(StdStream(s)), mode))
}

//! A pipe's ends as files (pipe2, and a FIFO opened by name): which end(s)
//! a description is, is its access mode. Closing the last description of
//! an end is what readers see as end of file and writers as EPIPE.

use super::epoll::{in_out, EPOLLERR, EPOLLHUP};
use super::fd::OpenFile;
use super::file::File;
use super::pipe::Pipe;
use super::pollhub::PollHub;
use super::stat::Stat;
use core::sync::atomic::Ordering;
use gometal_core::linux::errno::{Errno, ESPIPE};

impl File for Pipe {
    fn read(&self, of: &OpenFile, buf: &mut [u8], _: Option<u64>) -> Result<usize, Errno> {
        Pipe::read(self, buf, of.nonblocking())
    }

    fn write(&self, of: &OpenFile, data: &[u8], _: Option<u64>) -> Result<usize, Errno> {
        Pipe::write(self, data, of.nonblocking())
    }

    fn stat(&self) -> Stat {
        Stat::pipe()
    }

    fn allocate(&self, _: u64, _: u64, _: bool) -> Result<(), Errno> {
        Err(ESPIPE)
    }

    fn poll_hub(&self) -> Option<PollHub> {
        Some(PollHub::Own(self.hub.clone()))
    }

    fn poll(&self, of: &OpenFile) -> (u32, u64) {
        let (r, w) = (of.readable(), of.writable());
        let hup = if r && self.hung_up_for_reader() { EPOLLHUP } else { 0 };
        let err = if w && self.broken_for_writer() { EPOLLERR } else { 0 };
        (in_out(r && self.readable(), w && self.writable()) | hup | err, self.generation.load(Ordering::Acquire))
    }

    /// The last descriptor (and dup) of a pipe end is gone: readers may
    /// see the end of file, writers EPIPE (`changed` tells epoll).
    fn closed(&self, of: &OpenFile) {
        if of.readable() {
            self.close_end(false);
        }
        if of.writable() {
            self.close_end(true);
        }
    }

    fn splice_target(&self) -> bool {
        true
    }
}


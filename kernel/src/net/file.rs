//! A socket as a file: read and write are recv and send without flags
//! (data.rs), epoll watches its own hub, FIONREAD says what a read would
//! return, and splice moves bytes between it and a pipe.

use super::data;
use super::socket::Socket;
use crate::fs::fd::OpenFile;
use crate::fs::file::File;
use crate::fs::pollhub::PollHub;
use crate::fs::stat::Stat;
use crate::mm::uaccess::{UserPtr, UserSlice, UserSpace};
use gometal_core::linux::errno::{Errno, EBADF, ENOTTY};
use gometal_core::linux::msgflags::RecvFlags;

const FIONREAD: u32 = 0x541b;
const S_IFSOCK: u32 = 0o140000;

impl File for Socket {
    fn read(&self, of: &OpenFile, buf: &mut [u8], _: Option<u64>) -> Result<usize, Errno> {
        Ok(data::recv(self, buf, RecvFlags { nonblock: of.nonblocking(), ..RecvFlags::default() })?.copied)
    }

    fn read_user(&self, of: &OpenFile, user: &mut UserSpace, buf: UserSlice) -> Option<Result<usize, Errno>> {
        data::recv_user(self, user, buf, of.nonblocking())
    }

    fn write(&self, of: &OpenFile, bytes: &[u8], _: Option<u64>) -> Result<usize, Errno> {
        // A datagram names its sender: send takes the socket as a reference.
        let me = of.downcast_arc::<Socket>().ok_or(EBADF)?;
        data::send(&me, bytes, None, of.nonblocking())
    }

    fn write_user(&self, of: &OpenFile, user: &mut UserSpace, buf: UserSlice) -> Option<Result<usize, Errno>> {
        data::send_user(self, user, buf, of.nonblocking())
    }

    fn ioctl(&self, user: &mut UserSpace, request: u32, arg: u64) -> Result<usize, Errno> {
        if request != FIONREAD {
            return Err(ENOTTY);
        }
        user.write(UserPtr::<i32>::new(arg), &(data::pending(self) as i32))?;
        Ok(0)
    }

    fn stat(&self) -> Stat {
        Stat { mode: S_IFSOCK | 0o777, nlink: 1, ..Stat::default() }
    }

    fn poll_hub(&self) -> Option<PollHub> {
        Some(PollHub::Own(self.hub.clone()))
    }

    fn poll(&self, _: &OpenFile) -> (u32, u64) {
        self.readiness()
    }

    fn splice_source(&self) -> bool {
        true
    }

    fn splice_target(&self) -> bool {
        true
    }
}

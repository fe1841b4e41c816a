//! The bytes of one queued datagram or message, held on the kernel heap
//! under a budget shared by every datagram and message queue. Each queue
//! has its own cap (net.core.rmem_default), but thousands of sockets could
//! together ask for far more than the kernel heap has, and an infallible
//! copy would then panic the kernel; here a copy that does not fit the
//! budget or the heap is ENOBUFS, as Linux answers when it cannot get an
//! skb. (Pipes, and so stream sockets, have their own budget in
//! fs/pipe.rs.)

use alloc::vec::Vec;
use core::ops::Deref;
use core::sync::atomic::{AtomicUsize, Ordering};
use gometal_core::linux::errno::{Errno, ENOBUFS};

/// The share of the kernel heap all queued datagrams and messages may use.
const HEAP_SHARE: usize = 4;

static BYTES: AtomicUsize = AtomicUsize::new(0);

pub struct MsgBuf(Vec<u8>);

impl MsgBuf {
    /// A charged copy of `data`; ENOBUFS past the budget or the heap.
    pub fn copy_of(data: &[u8]) -> Result<MsgBuf, Errno> {
        let budget = crate::mm::heap::total() / HEAP_SHARE;
        if BYTES.fetch_add(data.len(), Ordering::Relaxed) + data.len() > budget {
            BYTES.fetch_sub(data.len(), Ordering::Relaxed);
            return Err(ENOBUFS);
        }
        let mut v = Vec::new();
        if v.try_reserve_exact(data.len()).is_err() {
            BYTES.fetch_sub(data.len(), Ordering::Relaxed);
            return Err(ENOBUFS);
        }
        v.extend_from_slice(data);
        Ok(MsgBuf(v))
    }
}

impl Deref for MsgBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl Drop for MsgBuf {
    fn drop(&mut self) {
        BYTES.fetch_sub(self.0.len(), Ordering::Relaxed);
    }
}

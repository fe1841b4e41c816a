//! virtio-9p devices (the CLI adds one per `-mount`): the crate's
//! `VirtIO9p` driver moves one request and its reply at a time; the 9P
//! client on top of it is fs/p9client.rs, used by the live shares
//! (fs/share.rs) at each system call that touches them. A request is
//! polled to its end (no interrupt): the CPU spins for the round trip
//! through QEMU instead of switching threads, and one share's requests go
//! one at a time (its client's lock).

use super::hal::KernelHal;
use super::Mmio;
use alloc::string::String;
use alloc::vec::Vec;
use spin::Mutex;
use virtio_drivers::device::virtio_9p::VirtIO9p;

pub type Device = VirtIO9p<KernelHal, Mmio>;

/// The devices found, with their mount tags, until a mount takes one.
static FOUND: Mutex<Vec<(String, Device)>> = Mutex::new(Vec::new());

pub fn add(transport: Mmio) {
    match VirtIO9p::<KernelHal, _>::new(transport) {
        Ok(dev) => {
            let tag = String::from(dev.mount_tag());
            FOUND.lock().push((tag, dev));
        }
        Err(e) => crate::println!("gometal: virtio-9p device did not start: {e:?}"),
    }
}

/// The device whose mount tag is `tag`, taken for one mount.
pub fn take(tag: &[u8]) -> Option<Device> {
    let mut found = FOUND.lock();
    let i = found.iter().position(|(t, _)| t.as_bytes() == tag)?;
    Some(found.swap_remove(i).1)
}

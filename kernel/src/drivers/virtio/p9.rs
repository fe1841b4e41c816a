//! virtio-9p devices (the CLI adds one per `-mount`), with several requests
//! in flight: each request gets a 9P tag and its own descriptor chain, the
//! sending thread sleeps on the device's wait queue (sched/wait.rs), and
//! the device's used-buffer interrupt wakes it. So N threads' file I/O
//! overlaps in QEMU's 9P server, and no CPU spins for a round trip.
//!
//! Our own driver over the `virtio-drivers` crate's transport and split
//! virtqueue, not the crate's `VirtIO9p`: its `request` adds one chain and
//! polls the used ring until that chain comes back (`add_notify_wait_pop`,
//! with the queue borrowed for the whole round trip), and it keeps the
//! transport to itself, so there is no way to acknowledge an interrupt or
//! to have a second request in flight. The tags and slots are kernel/core's
//! p9tags.rs (host-tested); the 9P client on top is fs/p9client.rs.
//!
//! A sender whose CPU has nothing else to run polls for its reply for up
//! to POLL_NS before it sleeps, with no lock held between looks (the idle
//! loop's halt polling, done where the reply is awaited): a short request
//! costs no interrupt and no wakeup, as when every request was polled. The
//! device's used-buffer interrupts are turned on only while a sender
//! sleeps (VIRTQ_AVAIL_F_NO_INTERRUPT otherwise), so polled replies cost
//! no trap either.
//!
//! One lock per device (`Ring`, class NinePRing) guards the queue and the
//! in-flight table; it is held to add a chain or reap used ones, never
//! across a round trip. A caller that cannot sleep (a page fault holding
//! the address-space lock) sends with `Wait::Poll`: it reaps the used ring
//! itself until its reply is there, with no lock held between looks.

use super::hal::KernelHal;
use super::VirtioTransport;
use crate::sched::wait::WaitQueue;
use crate::sched::{clock, cpu, runqueue};
use crate::sync::{Lock, LockClass};
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;
use core::sync::atomic::{fence, AtomicBool, AtomicU64, Ordering};
use gometal_core::fs::p9;
use gometal_core::drivers::p9tags::InFlight;
use virtio_drivers::queue::VirtQueue;
use virtio_drivers::transport::{DeviceStatus, Transport};

/// Descriptors in the queue: a request and its reply take one each.
const QUEUE_SIZE: usize = 32;
/// Requests in flight at once (each holds a request and a reply buffer).
pub const MAX_IN_FLIGHT: usize = QUEUE_SIZE / 2;
const F_VERSION_1: u64 = 1 << 32;
/// How long a sender whose CPU is otherwise idle polls for its reply
/// before it sleeps (the idle loop's longest halt-polling window).
const POLL_NS: u64 = 200_000;

/// How a sender waits for its reply.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Sleep until the interrupt (any caller that holds no spin lock).
    Sleep,
    /// Poll the used ring (a caller holding a spin lock: a page fault).
    Poll,
}

/// A request's buffers while the device owns them: the message and the
/// space for its reply.
struct Bufs {
    req: Vec<u8>,
    reply: Vec<u8>,
    tag: u16,
}

struct Ring {
    transport: VirtioTransport,
    queue: VirtQueue<KernelHal, QUEUE_SIZE>,
    flight: InFlight<Bufs>,
    /// Reply buffers of finished requests, reused (they are 64 KiB each).
    spare: Vec<Vec<u8>>,
    /// Senders asleep for their reply: the device interrupts only while
    /// there is one (a poller needs no interrupt, and each costs a trap).
    sleepers: usize,
}

pub struct Device {
    ring: Lock<Ring>,
    /// Senders waiting for a tag or for their reply.
    waiters: WaitQueue,
    tag: String,
    irq: u32,
    /// Mounted: a second mount of the same tag finds no device.
    taken: AtomicBool,
    /// Requests sent (the `stats` report).
    sent: AtomicU64,
}

/// Why a request got no reply.
#[derive(Debug)]
pub enum Error {
    /// The queue refused the chain or the reply's tag is not the request's.
    Device,
}

/// The devices found, with their mount tags; a mount takes one, the
/// interrupt handler finds it by its line.
static DEVICES: Lock<Vec<Arc<Device>>> = Lock::new(LockClass::NinePDevices, Vec::new());

pub fn add(transport: VirtioTransport, irq: u32) {
    let Some(dev) = start(transport, irq) else {
        crate::println!("gometal: virtio-9p device did not start");
        return;
    };
    let dev = Arc::new(dev);
    DEVICES.lock().push(dev.clone());
    crate::drivers::irq::attach_shared(irq, on_interrupt);
}

/// Negotiates features (none but VERSION_1: no indirect descriptors, no
/// event index) and sets up the request queue.
fn start(mut transport: VirtioTransport, irq: u32) -> Option<Device> {
    transport.set_status(DeviceStatus::empty());
    transport.set_status(DeviceStatus::ACKNOWLEDGE | DeviceStatus::DRIVER);
    let offered = transport.read_device_features();
    transport.write_driver_features(offered & F_VERSION_1);
    transport.set_status(DeviceStatus::ACKNOWLEDGE | DeviceStatus::DRIVER | DeviceStatus::FEATURES_OK);
    transport.set_guest_page_size(crate::memlayout::PAGE_SIZE as u32);
    let queue = VirtQueue::new(&mut transport, 0, false, false).ok()?;
    transport.finish_init();
    let tag = read_mount_tag(&transport)?;
    let mut ring = Ring { transport, queue, flight: InFlight::new(MAX_IN_FLIGHT, QUEUE_SIZE), spare: Vec::new(), sleepers: 0 };
    ring.queue.set_dev_notify(false); // until a sender sleeps
    Some(Device { ring: Lock::new(LockClass::NinePRing, ring), waiters: WaitQueue::new(), tag, irq, taken: AtomicBool::new(false), sent: AtomicU64::new(0) })
}

fn read_mount_tag(transport: &VirtioTransport) -> Option<String> {
    let len: u16 = transport.read_config_space(0).ok()?;
    let bytes: Option<Vec<u8>> = (0..len as usize).map(|i| transport.read_config_space::<u8>(2 + i).ok()).collect();
    String::from_utf8(bytes?).ok()
}

/// The device whose mount tag is `tag`, for one mount.
pub fn take(tag: &[u8]) -> Option<Arc<Device>> {
    let devices = DEVICES.lock();
    let dev = devices.iter().find(|d| d.tag.as_bytes() == tag && !d.taken.swap(true, Ordering::Relaxed))?;
    Some(dev.clone())
}

/// The used-buffer interrupt: reap what the device finished, wake senders
/// (all of them: a sender looking for its own reply may have reaped
/// another's already, which then only waits for this wakeup).
fn on_interrupt(line: u32) {
    let devices: Vec<Arc<Device>> = DEVICES.lock().iter().filter(|d| d.irq == line).cloned().collect();
    for dev in devices {
        {
            let mut ring = dev.ring.lock();
            ring.transport.ack_interrupt();
            ring.reap();
        }
        dev.waiters.wake_all();
    }
}

impl Ring {
    /// Counts a sender going to sleep (+1) or woken (-1); the device's
    /// used-buffer interrupts are on while any sleeps.
    fn sleepers_add(&mut self, n: isize) {
        self.sleepers = self.sleepers.saturating_add_signed(n);
        self.queue.set_dev_notify(self.sleepers > 0);
        // The flag's store before the next look at the used ring (virtio
        // 2.7.10: else a reply used between the two raises no interrupt
        // and is not seen either).
        fence(Ordering::SeqCst);
    }

    /// Moves every chain the device put on the used ring to Done; returns
    /// how many.
    fn reap(&mut self) -> usize {
        let mut n = 0;
        while let Some(token) = self.queue.peek_used() {
            let Some(b) = self.flight.sent(token) else { break };
            // SAFETY: the very buffers added under `token` (send), owned by
            // the in-flight table until now.
            let len = unsafe { self.queue.pop_used(token, &[&b.req], &mut [&mut b.reply]) };
            let Ok(len) = len else { break };
            self.flight.complete(token, len);
            n += 1;
        }
        n
    }
}

impl Device {
    /// Requests sent so far.
    pub fn requests(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    /// Sends `req` (a finished message; its tag is stamped here) and runs
    /// `f` on the reply, which has room for `reply_size` bytes.
    pub fn request<R>(&self, mut req: Vec<u8>, reply_size: usize, wait: Wait, f: impl FnOnce(&[u8]) -> R) -> Result<R, Error> {
        // Only a thread can sleep: the boot sequence (mounting, looking up
        // exec's working directory) runs before the first one, and polls.
        let wait = if cpu::this_cpu().current().is_none() { Wait::Poll } else { wait };
        let (tag, mut reply) = self.reserve(wait);
        self.sent.fetch_add(1, Ordering::Relaxed);
        if reply.len() < reply_size {
            reply.resize(reply_size, 0);
        }
        p9::set_tag(&mut req, tag);
        {
            let mut ring = self.ring.lock();
            let mut b = Bufs { req, reply, tag };
            // SAFETY: the buffers move into the in-flight table, which keeps
            // them (heap memory that does not move) until reap pops them.
            let added = unsafe { ring.queue.add(&[&b.req], &mut [&mut b.reply]) };
            match added {
                Ok(token) => {
                    if ring.flight.insert(tag, token, b).is_err() {
                        // The queue handed out a token in flight: cannot be.
                        panic!("virtio-9p: token {token} or tag {tag} in flight twice");
                    }
                    if ring.queue.should_notify() {
                        ring.transport.notify(0);
                    }
                }
                Err(_) => {
                    ring.flight.release(tag);
                    ring.spare.push(b.reply);
                    return Err(Error::Device);
                }
            }
        }
        let (b, len) = match wait {
            Wait::Sleep => match self.poll_briefly(tag) {
                Some(done) => done,
                None => {
                    // Interrupts on before the look that precedes sleeping:
                    // a reply used earlier is seen by that look, a later
                    // one interrupts.
                    self.ring.lock().sleepers_add(1);
                    let done = self.waiters.wait_uninterruptible(|| self.look(tag));
                    self.ring.lock().sleepers_add(-1);
                    done
                }
            },
            Wait::Poll => loop {
                if let Some(done) = self.look(tag) {
                    break done;
                }
                core::hint::spin_loop();
            },
        };
        let reply = &b.reply[..(len as usize).min(b.reply.len())];
        let result = if p9::tag_of(reply) == Some(b.tag) { Ok(f(reply)) } else { Err(Error::Device) };
        {
            let mut ring = self.ring.lock();
            ring.flight.release(b.tag);
            ring.spare.push(b.reply);
        }
        // A sender may be waiting for the tag just released.
        self.waiters.wake_all();
        result
    }

    /// Request `tag`'s buffers and reply length if the device is done with
    /// it; reaps the used ring, waking the senders of what else it finds.
    fn look(&self, tag: u16) -> Option<(Bufs, u32)> {
        let (done, reaped) = {
            let mut ring = self.ring.lock();
            let reaped = ring.reap();
            (ring.flight.take(tag), reaped)
        };
        if reaped > usize::from(done.is_some()) {
            self.waiters.wake_all(); // replies of other senders
        }
        done
    }

    /// Polls for request `tag`'s reply while this CPU has nothing else to
    /// run, for at most POLL_NS (as an idle CPU halt-polls its queues): a
    /// short request (a stat, a small read) then costs no interrupt and no
    /// wakeup. No lock is held between looks; once a thread waits in this
    /// CPU's run queue the sender sleeps and lets it run.
    fn poll_briefly(&self, tag: u16) -> Option<(Bufs, u32)> {
        let until = clock::monotonic_ns() + POLL_NS;
        loop {
            if let Some(done) = self.look(tag) {
                return Some(done);
            }
            if runqueue::has_local_work(cpu::this_cpu()) || clock::monotonic_ns() >= until {
                return None;
            }
            for _ in 0..32 {
                core::hint::spin_loop();
            }
        }
    }

    /// A tag and a reply buffer, waiting while MAX_IN_FLIGHT are out.
    fn reserve(&self, wait: Wait) -> (u16, Vec<u8>) {
        let take = || {
            let mut ring = self.ring.lock();
            let tag = ring.flight.reserve()?;
            Some((tag, ring.spare.pop()))
        };
        let (tag, spare) = match wait {
            Wait::Sleep => self.waiters.wait_uninterruptible(take),
            Wait::Poll => loop {
                if let Some(t) = take() {
                    break t;
                }
                self.poll();
                core::hint::spin_loop();
            },
        };
        (tag, spare.unwrap_or_else(|| vec![0; 0]))
    }

    /// Reaps the used ring and wakes senders (for a poller, which may be
    /// on the CPU the interrupt goes to and so never takes it).
    fn poll(&self) {
        if self.ring.lock().reap() > 0 {
            self.waiters.wake_all();
        }
    }
}

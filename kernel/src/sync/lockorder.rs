//! The kernel's one lock model. Every spin lock is a `Lock` of a class
//! (`LockClass`), and the classes are in one order: a CPU holding a lock
//! may only take locks of classes listed after it. In debug builds (the
//! checked kernel: `go run ./tools/kernelimage -checked`) every
//! acquisition is checked against the classes this CPU already holds
//! (held.rs: a bit each in its per-CPU set, as many words as the classes
//! need): taking a class while holding the same class or a later one
//! panics with the names, instead of hanging (a lock taken twice by one
//! CPU) or deadlocking two CPUs some day (an inverted order). `block`
//! (sched/block.rs) checks that the set is empty: a thread never sleeps
//! holding a spin lock, since the kernel is not preempted and another
//! thread on that CPU would spin on it for ever. Checked kernels also
//! note every class ever taken, for `make test`'s TestCheckedKernel.
//! Release builds compile the checks away. docs/locking.md tells the story.
//!
//! The order, outermost first (the enum below, with a line on each):
//!
//!   process:  program timers → process threads → signal actions → fd table → NIC (a
//!             connect binds its socket under it) → NIC socket set (a
//!             read copies from smoltcp to the program under it) → socket binding (a Unix
//!             bind makes its file in the tree) → cwd → file offset
//!             → epoll interest → file locks
//!   memory:   address space (a page fault holds it while it fills a page
//!             from a file: file data and host file state come after it)
//!   files:    directory entries → child directory entries → inode metadata
//!             → inode place → file data → host file state → mapped host files
//!   sockets:  socket state → accept queue → socket local address
//!             → socket peer address → socket datagram peer → abstract names
//!             → port table → raw sockets → socket options → accepted socket
//!             options → socket error → keep-alive changes → message queue
//!             → netlink ports → netlink queue
//!   buffers:  pipe buffer → eventfd count → poll links
//!   waking:   poll hub → epoll ready list → futex table → wait queue
//!             → sleep lock → thread state → thread signals → sleepers
//!             → placer → run queue
//!   devices:  9P devices → 9P ring → virtio console → console input
//!             → random → file limit → latency record
//!             → IRQ affinity → IRQ enables
//!   leaves:   mounts → dead fids → share pages → ASIDs → frames
//!             → console output → heap
//!
//! Above every spin lock sit the sleep locks (sched/sleeplock.rs), which a
//! thread may hold while it sleeps (a 9P round trip) and takes with no spin
//! lock held: rename (fs/tree.rs) → file position (fs/sharefile.rs) → host
//! file writes (fs/share.rs's HostLink::writing).
//!
//! A device wait holds no lock: the 9P driver (drivers/virtio/p9.rs) holds
//! its ring lock only to add a request or reap replies, and the sender
//! sleeps on the device's wait queue until the interrupt wakes it. The one
//! caller that must wait under a spin lock, a page fault filling a page of
//! a shared host file under the address-space lock, polls the ring instead.

use super::held;
use core::ops::{Deref, DerefMut};
use spin::{Mutex, MutexGuard};

/// Lock classes in the order they may be nested: a CPU holding one may
/// only take classes listed after it. (docs/locking.md explains the order.)
/// A new class goes in its place here, in `ALL` and in `name`; the
/// numbers after it move up by one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum LockClass {
    /// The program's interval and POSIX timers (itimer.rs); signals are sent after it is released;
    /// a CPU-clock timer looks its thread up under it (process threads).
    ProgramTimers = 0,
    /// A process's thread list (process.rs).
    ProcessThreads = 1,
    /// A process's signal actions (process.rs).
    SignalActions = 2,
    /// A process's descriptor table (process.rs, fs/fd.rs).
    FdTable = 3,
    /// The network interface and smoltcp (net/nic): under it, a connect binds the socket and sets its addresses, and the NIC updates sockets' state.
    Nic = 4,
    /// One of the NIC's socket sets (net/nic/shard.rs): taken under the NIC lock by a poll, one set at a time, and alone by a program's read, which copies out of smoltcp's buffer into the program's memory under it (address space comes after).
    NicSet = 5,
    /// A socket's binding (net/socket.rs): a Unix bind makes its file in the tree under it, an inet bind takes the port table.
    SocketBinding = 6,
    /// A process's working directory (process.rs).
    Cwd = 7,
    /// One open file's offset (fs/fd.rs); never held across a device wait.
    FileOffset = 8,
    /// One epoll instance's interest map (fs/epoll.rs).
    EpollInterest = 9,
    /// The flock/fcntl lock table (fs/locks.rs).
    FileLocks = 10,
    /// A program's memory map and page table (mm/uaccess.rs); a page fault holds it while it reads a file page.
    AddressSpace = 11,
    /// A directory's entries (fs/inode.rs).
    DirEntries = 12,
    /// A directory's entries taken under its parent's (`lock_nested`: rmdir looks into the child).
    DirEntriesChild = 13,
    /// An inode's mode, owner, times, links (fs/inode.rs).
    InodeMeta = 14,
    /// Where a directory hangs in the tree (fs/inode.rs).
    InodePlace = 15,
    /// An in-memory file's bytes (fs/inode.rs).
    FileData = 16,
    /// A share file's fid, size and page cache (fs/hostfile.rs); never held across a 9P round trip.
    HostData = 17,
    /// Share files mapped shared and writable (fs/hostfile.rs).
    MappedFiles = 18,
    /// A socket's state (net/socket.rs).
    SocketState = 19,
    /// A listening stream socket's queue (net/stream.rs).
    AcceptQueue = 20,
    /// A socket's local address (net/socket.rs).
    SocketLocal = 21,
    /// A socket's peer address (net/socket.rs).
    SocketPeer = 22,
    /// A datagram socket's connected peer (net/socket.rs).
    SocketDgramPeer = 23,
    /// The abstract Unix socket names (net/unixns.rs).
    AbstractNames = 24,
    /// The bound ports of a protocol (net/inet.rs): the NIC looks them up under its lock.
    PortTable = 25,
    /// The ping/raw sockets (net/ping.rs).
    RawSockets = 26,
    /// A socket's options (net/socket.rs): the NIC applies keep-alive options under its lock.
    SocketOptions = 27,
    /// The options of a socket being accepted, under its listener's (`lock_nested`: accept copies them).
    AcceptedOptions = 28,
    /// A socket's pending error (net/socket.rs).
    SocketError = 29,
    /// Sockets whose keep-alive changed (net/nic/keepalive.rs).
    KeepaliveChanges = 30,
    /// A datagram or message pipe's queue (net/dgram.rs, net/msgpipe.rs).
    MessageQueue = 31,
    /// The netlink port ids in use (net/netlink.rs).
    NetlinkPorts = 32,
    /// A netlink socket's queued answers (net/netlink.rs).
    NetlinkQueue = 33,
    /// A pipe's bytes (fs/pipe.rs).
    PipeBuffer = 34,
    /// An eventfd's counter (fs/eventfd.rs).
    EventCount = 35,
    /// The poll hubs linked to a pipe or socket pair's ends (fs/pipe.rs, net/msgpipe.rs).
    PollLinks = 36,
    /// The epoll watches on one pollable object (fs/pollhub.rs).
    PollHub = 37,
    /// One epoll instance's ready list (fs/pollhub.rs).
    EpollReady = 38,
    /// The futex table (linux/futex.rs).
    FutexTable = 39,
    /// A wait queue's list of waiters (sched/wait.rs).
    WaitQueue = 40,
    /// The value slot of a sleep lock (sched/sleeplock.rs), held only to take or put back the value.
    SleepLock = 41,
    /// One thread's run state and current wait (sched/thread.rs).
    ThreadState = 42,
    /// One thread's pending and blocked signals (sched/thread.rs).
    ThreadSignals = 43,
    /// The sleepers ordered by deadline (sched/timer.rs).
    Sleepers = 44,
    /// One CPU's placement policy state (sched/place.rs).
    Placer = 45,
    /// One CPU's run queue (sched/runqueue.rs).
    RunQueue = 46,
    /// The virtio-9p devices (drivers/virtio/p9.rs).
    NinePDevices = 47,
    /// One virtio-9p device's queue and requests in flight (drivers/virtio/p9.rs); held to add or reap, never across a round trip.
    NinePRing = 48,
    /// The virtio console's queues and ports (drivers/virtio/console).
    VirtioConsole = 49,
    /// The UART console's input (console.rs).
    ConsoleInput = 50,
    /// The kernel's random generator (random.rs).
    Random = 51,
    /// RLIMIT_NOFILE (fs/fd.rs).
    FileLimit = 52,
    /// The slowest wakeups seen (sched/latency.rs).
    LatencyRecord = 53,
    /// Interrupt affinity changes (uio/affinity.rs).
    IrqAffinity = 54,
    /// The interrupt controller's enable words (arch/<arch>/irq.rs).
    /// Unused where the controller has set/clear registers for them.
    #[allow(dead_code)]
    IrqEnables = 55,
    /// The shares mounted, for /proc/mounts (fs/share.rs).
    Mounts = 56,
    /// Fids of dropped share inodes, to clunk (fs/share.rs): a leaf, since an inode may be dropped under any lock.
    DeadFids = 57,
    /// The page list of cached shares (fs/sharecache.rs): taken under a file's host state, and where a file is dropped; frames are allocated and freed under it.
    SharePages = 58,
    /// The ASID allocator (mm/asid.rs): taken with no lock held, on a
    /// return to user that changes address space.
    Asids = 59,
    /// The physical frame allocator (mm/frames.rs): a leaf, taken under any lock.
    Frames = 60,
    /// Serialises kernel and UART output lines (console.rs).
    ConsoleOutput = 61,
    /// The kernel heap (mm/heap.rs): a leaf, taken under any lock, by every allocation.
    Heap = 62,
}

/// How many classes there are: the held-class sets (held.rs) have a bit
/// for each.
pub const CLASSES: usize = LockClass::ALL.len();

// `ALL` lists every class at its number (a class left out of it or out of
// place fails the build here).
const _: () = {
    let mut i = 0;
    while i < CLASSES {
        assert!(LockClass::ALL[i] as usize == i, "LockClass::ALL is out of step with the enum");
        i += 1;
    }
};

impl LockClass {
    /// Every class, in order (index = discriminant).
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub const ALL: [LockClass; 63] = [LockClass::ProgramTimers, LockClass::ProcessThreads, LockClass::SignalActions, LockClass::FdTable, LockClass::Nic, LockClass::NicSet, LockClass::SocketBinding, LockClass::Cwd, LockClass::FileOffset, LockClass::EpollInterest, LockClass::FileLocks, LockClass::AddressSpace, LockClass::DirEntries, LockClass::DirEntriesChild, LockClass::InodeMeta, LockClass::InodePlace, LockClass::FileData, LockClass::HostData, LockClass::MappedFiles, LockClass::SocketState, LockClass::AcceptQueue, LockClass::SocketLocal, LockClass::SocketPeer, LockClass::SocketDgramPeer, LockClass::AbstractNames, LockClass::PortTable, LockClass::RawSockets, LockClass::SocketOptions, LockClass::AcceptedOptions, LockClass::SocketError, LockClass::KeepaliveChanges, LockClass::MessageQueue, LockClass::NetlinkPorts, LockClass::NetlinkQueue, LockClass::PipeBuffer, LockClass::EventCount, LockClass::PollLinks, LockClass::PollHub, LockClass::EpollReady, LockClass::FutexTable, LockClass::WaitQueue, LockClass::SleepLock, LockClass::ThreadState, LockClass::ThreadSignals, LockClass::Sleepers, LockClass::Placer, LockClass::RunQueue, LockClass::NinePDevices, LockClass::NinePRing, LockClass::VirtioConsole, LockClass::ConsoleInput, LockClass::Random, LockClass::FileLimit, LockClass::LatencyRecord, LockClass::IrqAffinity, LockClass::IrqEnables, LockClass::Mounts, LockClass::DeadFids, LockClass::SharePages, LockClass::Asids, LockClass::Frames, LockClass::ConsoleOutput, LockClass::Heap];

    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub const fn name(self) -> &'static str {
        match self {
            LockClass::ProcessThreads => "process threads",
            LockClass::SignalActions => "signal actions",
            LockClass::FdTable => "fd table",
            LockClass::Nic => "NIC",
            LockClass::NicSet => "NIC socket set",
            LockClass::SocketBinding => "socket binding",
            LockClass::Cwd => "cwd",
            LockClass::FileOffset => "file offset",
            LockClass::EpollInterest => "epoll interest",
            LockClass::FileLocks => "file locks",
            LockClass::AddressSpace => "address space",
            LockClass::DirEntries => "directory entries",
            LockClass::DirEntriesChild => "child directory entries",
            LockClass::InodeMeta => "inode metadata",
            LockClass::InodePlace => "inode place",
            LockClass::FileData => "file data",
            LockClass::HostData => "host file state",
            LockClass::MappedFiles => "mapped host files",
            LockClass::SocketState => "socket state",
            LockClass::AcceptQueue => "accept queue",
            LockClass::SocketLocal => "socket local address",
            LockClass::SocketPeer => "socket peer address",
            LockClass::SocketDgramPeer => "socket datagram peer",
            LockClass::AbstractNames => "abstract names",
            LockClass::PortTable => "port table",
            LockClass::RawSockets => "raw sockets",
            LockClass::SocketOptions => "socket options",
            LockClass::AcceptedOptions => "accepted socket options",
            LockClass::SocketError => "socket error",
            LockClass::KeepaliveChanges => "keep-alive changes",
            LockClass::MessageQueue => "message queue",
            LockClass::PipeBuffer => "pipe buffer",
            LockClass::EventCount => "eventfd count",
            LockClass::PollLinks => "poll links",
            LockClass::PollHub => "poll hub",
            LockClass::EpollReady => "epoll ready list",
            LockClass::FutexTable => "futex table",
            LockClass::WaitQueue => "wait queue",
            LockClass::SleepLock => "sleep lock",
            LockClass::ThreadState => "thread state",
            LockClass::ThreadSignals => "thread signals",
            LockClass::Sleepers => "sleepers",
            LockClass::Placer => "placer",
            LockClass::RunQueue => "run queue",
            LockClass::NinePDevices => "9P devices",
            LockClass::NinePRing => "9P ring",
            LockClass::VirtioConsole => "virtio console",
            LockClass::ConsoleInput => "console input",
            LockClass::Random => "random",
            LockClass::FileLimit => "file limit",
            LockClass::ProgramTimers => "program timers",
            LockClass::LatencyRecord => "latency record",
            LockClass::IrqAffinity => "IRQ affinity",
            LockClass::IrqEnables => "IRQ enables",
            LockClass::Mounts => "mounts",
            LockClass::DeadFids => "dead fids",
            LockClass::SharePages => "share pages",
            LockClass::Asids => "ASIDs",
            LockClass::Frames => "frames",
            LockClass::ConsoleOutput => "console output",
            LockClass::NetlinkPorts => "netlink ports",
            LockClass::NetlinkQueue => "netlink queue",
            LockClass::Heap => "heap",
        }
    }
}

/// A spin lock of a known class.
pub struct Lock<T> {
    class: LockClass,
    inner: Mutex<T>,
}

impl<T> Lock<T> {
    pub const fn new(class: LockClass, value: T) -> Self {
        Lock { class, inner: Mutex::new(value) }
    }

    pub fn lock(&self) -> LockGuard<'_, T> {
        self.lock_nested(self.class)
    }

    /// Takes the lock as class `class` instead of its own: for a lock
    /// taken under another lock of its own class, in a fixed relation (a
    /// child directory's entries under its parent's), as Linux's
    /// mutex_lock_nested.
    pub fn lock_nested(&self, class: LockClass) -> LockGuard<'_, T> {
        held::acquire(class);
        LockGuard { class, inner: self.inner.lock() }
    }

    /// The lock if it is free now: no waiting, so no order to check; the
    /// class is recorded as held, as `lock`'s.
    pub fn try_lock(&self) -> Option<LockGuard<'_, T>> {
        let inner = self.inner.try_lock()?;
        held::record(self.class);
        Some(LockGuard { class: self.class, inner })
    }

    /// The value, for its sole owner (no lock needed).
    pub fn get_mut(&mut self) -> &mut T {
        self.inner.get_mut()
    }
}

pub struct LockGuard<'a, T> {
    class: LockClass,
    inner: MutexGuard<'a, T>,
}

impl<T> Deref for LockGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T> DerefMut for LockGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}

impl<T> Drop for LockGuard<'_, T> {
    fn drop(&mut self) {
        held::release(self.class);
    }
}

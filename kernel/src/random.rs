//! The kernel's random bytes (getrandom, /dev/random, /dev/urandom,
//! AT_RANDOM): rand_chacha's ChaCha20 generator, keyed at boot from real
//! entropy sources: virtio-rng (drivers/virtio/rng.rs) and the seeds a
//! loader leaves in the device tree (/chosen/rng-seed, kaslr-seed: what a
//! board without virtio has). The sources are folded into the 32-byte key
//! by XOR, so none can weaken another; the generator counts as initialised
//! only with 256 bits from them, as Linux's pool. No cryptography of
//! our own. (The Zkr `seed` CSR is not used: S-mode may read it only when
//! the firmware sets mseccfg.SSEED, which QEMU 7.2's OpenSBI 1.1 does not —
//! the read traps — and its raw output would need a vetted conditioner.)
//!
//! Without an entropy source the generator is *not initialised*, and the
//! calls behave as Linux's do before its pool is: getrandom blocks (EAGAIN
//! with GRND_NONBLOCK), /dev/random blocks, while /dev/urandom, AT_RANDOM
//! and GRND_INSECURE get bytes from a generator keyed by the clock — Linux
//! too hands out such bytes before it is seeded. The boot log says so.

use crate::sched::wait::WaitQueue;
use core::sync::atomic::{AtomicBool, Ordering};
use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use crate::sync::{Lock, LockClass};

static GENERATOR: Lock<Option<ChaCha20Rng>> = Lock::new(LockClass::Random, None);
/// Keyed from an entropy source (never becomes true later: the kernel has
/// no source that appears after boot).
static READY: AtomicBool = AtomicBool::new(false);
/// Readers blocked until the generator is initialised.
pub static READY_WAITERS: WaitQueue = WaitQueue::new();

pub const KEY_LEN: usize = 32;

/// The entropy gathered at boot, folded into one key.
pub struct Pool {
    key: [u8; KEY_LEN],
    bytes: usize,
}

impl Pool {
    pub fn new() -> Pool {
        Pool { key: [0; KEY_LEN], bytes: 0 }
    }

    /// Folds `bytes` from a real entropy source into the key.
    pub fn add(&mut self, bytes: &[u8]) {
        for (i, b) in bytes.iter().enumerate() {
            self.key[(self.bytes + i) % KEY_LEN] ^= b;
        }
        self.bytes += bytes.len();
    }

    /// Folds in `bytes` that are not counted as entropy (a source the
    /// command line distrusts): they can only add to the key.
    pub fn mix(&mut self, bytes: &[u8]) {
        for (i, b) in bytes.iter().enumerate() {
            self.key[i % KEY_LEN] ^= b.rotate_left(3);
        }
    }

    /// Bits of entropy gathered (each source's bytes taken at face value).
    pub fn bits(&self) -> usize {
        self.bytes * 8
    }

    /// Enough to key the generator: 256 bits.
    pub fn is_enough(&self) -> bool {
        self.bytes >= KEY_LEN
    }
}

/// Keys the generator from `pool`; with less than 256 bits in it the
/// clock is folded in too and the generator counts as not initialised.
pub fn init(mut pool: Pool, clock_a: u64, clock_b: u64) {
    let ready = pool.is_enough();
    if !ready {
        for (i, b) in clock_a.to_le_bytes().iter().chain(&clock_b.to_le_bytes()).enumerate() {
            pool.key[(KEY_LEN - 16 + i) % KEY_LEN] ^= b;
        }
    }
    *GENERATOR.lock() = Some(ChaCha20Rng::from_seed(pool.key));
    READY.store(ready, Ordering::Release);
}

/// Whether the generator was keyed from a real entropy source.
pub fn ready() -> bool {
    READY.load(Ordering::Acquire)
}

/// Random bytes whether or not the generator is initialised (AT_RANDOM,
/// /dev/urandom, GRND_INSECURE).
pub fn fill(buf: &mut [u8]) {
    let mut g = GENERATOR.lock();
    match g.as_mut() {
        Some(rng) => rng.fill_bytes(buf),
        // Before init (a bug): zeros would be silently weak, so say it.
        None => panic!("random bytes asked for before random::init"),
    }
}

/// Why a caller that needs an initialised generator cannot have bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotReady {
    /// GRND_NONBLOCK (or O_NONBLOCK): Linux's EAGAIN.
    WouldBlock,
    /// A signal arrived while blocked: EINTR.
    Interrupted,
}

impl NotReady {
    pub fn errno(self) -> gometal_core::linux::errno::Errno {
        match self {
            NotReady::WouldBlock => gometal_core::linux::errno::EAGAIN,
            NotReady::Interrupted => gometal_core::linux::errno::EINTR,
        }
    }
}

/// Random bytes from the initialised generator, waiting for it first
/// (forever, without a source, as Linux would until its pool fills).
pub fn fill_secure(buf: &mut [u8], nonblocking: bool) -> Result<(), NotReady> {
    if !ready() {
        if nonblocking {
            return Err(NotReady::WouldBlock);
        }
        READY_WAITERS.wait_until(None, || ready().then_some(())).map_err(|_| NotReady::Interrupted)?;
    }
    fill(buf);
    Ok(())
}

//! The kernel's random bytes (getrandom, /dev/random, /dev/urandom,
//! AT_RANDOM): rand_chacha's ChaCha20 generator, keyed at boot from a real
//! entropy source, virtio-rng (drivers/virtio/rng.rs). No cryptography of
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
use spin::Mutex;

static GENERATOR: Mutex<Option<ChaCha20Rng>> = Mutex::new(None);
/// Keyed from an entropy source (never becomes true later: the kernel has
/// no source that appears after boot).
static READY: AtomicBool = AtomicBool::new(false);
/// Readers blocked until the generator is initialised.
pub static READY_WAITERS: WaitQueue = WaitQueue::new();

pub const KEY_LEN: usize = 32;

/// Keys the generator from `entropy` (KEY_LEN bytes from a real source),
/// or, with None, from the clock and marks it not initialised.
pub fn init(entropy: Option<[u8; KEY_LEN]>, clock_a: u64, clock_b: u64) {
    let key = entropy.unwrap_or_else(|| {
        let mut k = [0u8; KEY_LEN];
        k[..8].copy_from_slice(&clock_a.to_le_bytes());
        k[8..16].copy_from_slice(&clock_b.to_le_bytes());
        k
    });
    *GENERATOR.lock() = Some(ChaCha20Rng::from_seed(key));
    READY.store(entropy.is_some(), Ordering::Release);
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
    pub fn errno(self) -> gometal_core::errno::Errno {
        match self {
            NotReady::WouldBlock => gometal_core::errno::EAGAIN,
            NotReady::Interrupted => gometal_core::errno::EINTR,
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

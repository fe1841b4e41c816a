//! Random bytes for AT_RANDOM, getrandom and /dev/urandom: a xoshiro-style
//! generator seeded from the RTC and the cycle-exact `time` CSR at boot.
//! Not cryptographically strong — QEMU virt has no entropy source unless a
//! virtio-rng device is added (a later driver); documented in docs/syscalls.md.

use spin::Mutex;

static STATE: Mutex<[u64; 2]> = Mutex::new([0x9e37_79b9_7f4a_7c15, 0xbf58_476d_1ce4_e5b9]);

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

pub fn seed(a: u64, b: u64) {
    let mut s = STATE.lock();
    s[0] = splitmix(a);
    s[1] = splitmix(b ^ s[0]);
}

fn next(s: &mut [u64; 2]) -> u64 {
    // xorshift128+, re-stirred with the time CSR so sequences differ per call site.
    let (mut x, y) = (s[0], s[1]);
    s[0] = y;
    x ^= x << 23;
    s[1] = x ^ y ^ (x >> 17) ^ (y >> 26);
    s[1].wrapping_add(y) ^ splitmix(crate::arch::csr::time())
}

pub fn fill(buf: &mut [u8]) {
    let mut s = STATE.lock();
    for chunk in buf.chunks_mut(8) {
        let v = next(&mut s).to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
}

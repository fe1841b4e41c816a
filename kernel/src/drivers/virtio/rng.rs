//! virtio-rng (the CLI adds `-device virtio-rng-device` or `virtio-rng-pci`, backed by the
//! host's /dev/urandom): read once at boot to key the kernel's generator
//! (random.rs), with the crate's `VirtIORng` driver, then left alone.

use super::hal::KernelHal;
use super::VirtioTransport;
use virtio_drivers::device::rng::VirtIORng;

/// Fills `out` from the device; returns how many bytes it gave (0 if the
/// device failed, which the caller reports).
pub fn take_entropy(transport: VirtioTransport, out: &mut [u8]) -> usize {
    let Ok(mut rng) = VirtIORng::<KernelHal, _>::new(transport) else { return 0 };
    let mut filled = 0;
    // The device may return fewer bytes than asked; a device that returns
    // none at all is treated as absent rather than waited on forever.
    for _ in 0..16 {
        if filled == out.len() {
            break;
        }
        match rng.request_entropy(&mut out[filled..]) {
            Ok(n) if n > 0 => filled += n,
            _ => break,
        }
    }
    filled
}

//! Entropy the loader leaves in the device tree for the kernel's random
//! generator: `/chosen/rng-seed` (QEMU's virt machine and U-Boot put 32
//! or more random bytes there) and `/chosen/kaslr-seed` (a 64-bit random
//! number U-Boot puts there when its board has a hardware RNG). As Linux
//! does, each is erased from the tree once read, so nothing that reads the
//! tree later (a program through UIO) can learn the generator's key.

use alloc::vec::Vec;
use fdt::Fdt;

const SEEDS: [&str; 2] = ["rng-seed", "kaslr-seed"];

/// Copies each seed out of the device tree `blob` and zeroes it there.
pub fn take(blob: &mut [u8]) -> Vec<(&'static str, Vec<u8>)> {
    let mut found: Vec<(&'static str, usize, usize)> = Vec::new();
    if let Ok(fdt) = Fdt::new(blob) {
        if let Some(chosen) = fdt.find_node("/chosen") {
            for name in SEEDS {
                if let Some(p) = chosen.property(name) {
                    let offset = p.value.as_ptr() as usize - blob.as_ptr() as usize;
                    found.push((name, offset, p.value.len()));
                }
            }
        }
    }
    found
        .into_iter()
        .filter(|&(_, _, len)| len > 0)
        .map(|(name, offset, len)| {
            let bytes = blob[offset..offset + len].to_vec();
            blob[offset..offset + len].fill(0);
            (name, bytes)
        })
        .collect()
}

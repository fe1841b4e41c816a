//! The kernel's own image: where the loader put it, how much memory it
//! claims (the Image header's image_size), and the payload a one-file
//! image carries after the kernel (`gometal build`: the program's command
//! line and initramfs), checked against the descriptor's checksum before
//! anything uses it. gometal_core::boot::bootimage has the layout.

use super::machine::Range;
use gometal_core::boot::bootimage::{self, Descriptor, DescriptorError};

extern "C" {
    /// The image's first byte (entry.S of every architecture).
    static _head: u8;
    /// The kernel's own size, .bss included (kernel.ld).
    static kernel_virt_end: u8;
}

/// What the image says about itself.
pub struct Image {
    /// The physical memory it occupies, payload included.
    pub extent: Range,
    pub payload: Option<Payload>,
}

/// What a one-file image carries besides the kernel.
pub struct Payload {
    pub cmdline: &'static [u8],
    pub initramfs: Range,
}

/// Why the payload cannot be used.
#[derive(Clone, Copy, Debug)]
pub enum ImageError {
    /// The descriptor is not there or describes an impossible layout.
    BadDescriptor,
    /// The payload does not match its checksum (truncated or corrupt).
    Damaged,
}

impl core::fmt::Display for ImageError {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str(match self {
            ImageError::BadDescriptor => "its descriptor is damaged",
            ImageError::Damaged => "its program does not match its checksum: a truncated or corrupt file?",
        })
    }
}

/// The first `N` bytes of the image, through the kernel's window.
fn head<const N: usize>(offset: usize) -> [u8; N] {
    let mut out = [0u8; N];
    let base = core::ptr::addr_of!(_head);
    for (i, b) in out.iter_mut().enumerate() {
        // SAFETY: the header and descriptor are the image's first 128 bytes,
        // mapped in the kernel window and never written after the loader.
        *b = unsafe { core::ptr::read_volatile(base.add(offset + i)) };
    }
    out
}

/// The kernel's own size in memory (its .bss included).
fn kernel_size() -> u64 {
    core::ptr::addr_of!(kernel_virt_end) as u64 - core::ptr::addr_of!(_head) as u64
}

/// Reads the image's header and descriptor, and checks the payload.
pub fn read() -> Result<Image, ImageError> {
    let load = crate::arch::kernel_load_address();
    let image_size = u64::from_le_bytes(head::<8>(bootimage::IMAGE_SIZE_OFFSET)).max(kernel_size());
    let extent = Range { start: load, end: load + image_size };
    let desc = Descriptor::parse(&head::<{ bootimage::DESCRIPTOR_LEN }>(bootimage::DESCRIPTOR_OFFSET))
        .map_err(|_| ImageError::BadDescriptor)?;
    let layout = match desc.payload(kernel_size(), image_size) {
        Ok(Some(l)) => l,
        Ok(None) => return Ok(Image { extent, payload: None }),
        Err(DescriptorError::NoMagic | DescriptorError::BadLayout) => return Err(ImageError::BadDescriptor),
    };
    let checked = physical_bytes(load + layout.checked.0, layout.checked.1 - layout.checked.0);
    if bootimage::checksum(checked) != desc.payload_sum {
        return Err(ImageError::Damaged);
    }
    let cmdline = physical_bytes(load + layout.cmdline.0, layout.cmdline.1);
    let initramfs = Range { start: load + layout.initramfs.0, end: load + layout.initramfs.0 + layout.initramfs.1 };
    Ok(Image { extent, payload: Some(Payload { cmdline, initramfs }) })
}

/// Borrows physical memory of the image (through the linear map) for the
/// rest of the boot: mm::init reserves the image's extent, so nothing
/// else is ever put there.
fn physical_bytes(pa: u64, len: u64) -> &'static [u8] {
    let va = crate::memlayout::phys_to_virt(pa) as *const u8;
    // SAFETY: [pa, pa+len) lies inside the image's extent (checked by
    // Descriptor::payload against image_size), which the loader filled,
    // the linear map maps, and mm::init keeps out of the allocators.
    unsafe { core::slice::from_raw_parts(va, len as usize) }
}

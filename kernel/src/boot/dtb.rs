//! Finding the device tree the loader passed: a physical address in the
//! boot CPU's second argument register. A loader that passes none (or
//! something else: U-Boot's `go` passes argc/argv) gets one clear line
//! instead of a kernel that reads garbage.

/// The flattened device tree's magic number (big endian).
const FDT_MAGIC: u32 = 0xd00d_feed;
/// Larger than any real device tree; a bigger totalsize is garbage.
const MAX_SIZE: u32 = 16 << 20;
/// The linear map reaches this far (arch: 64 GiB of gigapages).
const LINEAR_MAP_END: u64 = 64 << 30;

/// Why there is no device tree at the address the loader passed.
pub enum NoDeviceTree {
    /// The address is 0, misaligned or beyond physical memory the kernel maps.
    BadAddress,
    /// Something is there, but not a device tree.
    BadMagic,
}

impl core::fmt::Display for NoDeviceTree {
    fn fmt(&self, f: &mut core::fmt::Formatter) -> core::fmt::Result {
        f.write_str(match self {
            NoDeviceTree::BadAddress => "no device tree address",
            NoDeviceTree::BadMagic => "no device tree at the address the loader passed",
        })
    }
}

fn read_be32(pa: u64) -> u32 {
    let p = crate::memlayout::phys_to_virt(pa) as *const u32;
    // SAFETY: pa is 4-byte aligned and below LINEAR_MAP_END (checked by
    // the caller), so the linear map covers it; a read of RAM has no effect.
    u32::from_be(unsafe { core::ptr::read_volatile(p) })
}

/// The device tree blob at `pa`, borrowed for the rest of the boot
/// (mm::init keeps its memory out of the allocators).
pub fn locate(pa: u64) -> Result<&'static mut [u8], NoDeviceTree> {
    if pa == 0 || !pa.is_multiple_of(8) || pa + 8 > LINEAR_MAP_END {
        return Err(NoDeviceTree::BadAddress);
    }
    if read_be32(pa) != FDT_MAGIC {
        return Err(NoDeviceTree::BadMagic);
    }
    let size = read_be32(pa + 4);
    if !(40..=MAX_SIZE).contains(&size) || pa + size as u64 > LINEAR_MAP_END {
        return Err(NoDeviceTree::BadMagic);
    }
    let va = crate::memlayout::phys_to_virt(pa) as *mut u8;
    // SAFETY: [pa, pa+size) is the blob the loader left for us (its header
    // says so), mapped by the linear map, and only the boot CPU touches it,
    // once, before anything could allocate that memory.
    Ok(unsafe { core::slice::from_raw_parts_mut(va, size as usize) })
}

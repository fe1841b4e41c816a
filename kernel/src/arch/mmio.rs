//! Volatile access to device registers through the linear map.

use super::phys_to_virt;

/// A block of device registers at a physical address found in the device tree.
#[derive(Clone, Copy, Debug)]
pub struct Mmio {
    base: u64,
}

impl Mmio {
    /// # Safety
    /// `pa` must be the physical base of a device's register block, mapped by
    /// the kernel's linear map, and `read`/`write` offsets must be registers of
    /// that device.
    pub const unsafe fn new(pa: u64) -> Self {
        Mmio { base: phys_to_virt(pa) }
    }

    pub fn read8(&self, off: usize) -> u8 {
        // SAFETY: a device register of this block (see `new`).
        unsafe { core::ptr::read_volatile((self.base as usize + off) as *const u8) }
    }
    pub fn write8(&self, off: usize, v: u8) {
        // SAFETY: a device register of this block (see `new`).
        unsafe { core::ptr::write_volatile((self.base as usize + off) as *mut u8, v) }
    }
    pub fn write16(&self, off: usize, v: u16) {
        // SAFETY: a device register of this block (see `new`).
        unsafe { core::ptr::write_volatile((self.base as usize + off) as *mut u16, v) }
    }
    pub fn read32(&self, off: usize) -> u32 {
        // SAFETY: a device register of this block (see `new`).
        unsafe { core::ptr::read_volatile((self.base as usize + off) as *const u32) }
    }
    pub fn write32(&self, off: usize, v: u32) {
        // SAFETY: a device register of this block (see `new`).
        unsafe { core::ptr::write_volatile((self.base as usize + off) as *mut u32, v) }
    }
}

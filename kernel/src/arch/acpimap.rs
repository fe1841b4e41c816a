//! How the `acpi` crate reaches ACPI's tables: through the kernel's linear
//! map, which covers the firmware's ACPI memory, so nothing is mapped or
//! unmapped. Shared by every architecture that reads ACPI (boot/acpi.rs,
//! each folder's acpi.rs).

use acpi::{AcpiHandler, PhysicalMapping};
use core::ptr::NonNull;

/// Physical memory is reached through the linear map: nothing to map.
#[derive(Clone, Copy)]
pub struct LinearMap;

impl AcpiHandler for LinearMap {
    unsafe fn map_physical_region<T>(&self, pa: usize, size: usize) -> PhysicalMapping<Self, T> {
        let va = super::phys_to_virt(pa as u64) as *mut T;
        // SAFETY: the linear map covers all of physical memory the kernel
        // maps, firmware tables included; va is never null.
        unsafe { PhysicalMapping::new(pa, NonNull::new_unchecked(va), size, size, LinearMap) }
    }

    fn unmap_physical_region<T>(_region: &PhysicalMapping<Self, T>) {}
}

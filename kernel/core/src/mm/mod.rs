//! Memory (kernel/src/mm/): page-table walks over an abstract entry
//! format, the map of virtual-memory areas, ASID generations.

pub mod asid;
pub mod pagetable;
pub mod vma;

//! Memory (kernel/src/mm/): page-table walks over an abstract entry
//! format, the map of virtual-memory areas, ASID generations, the user
//! half's range check (access_ok).

pub mod asid;
pub mod pagetable;
pub mod useraddr;
pub mod vma;

//! /sys/devices/system/cpu/cpuN/topology: where each CPU sits, from the
//! device tree's cpu-map as Linux reads it (boot/topology.rs; without a
//! map, or booted by ACPI, each CPU is its own core in package 0, as
//! Linux's fallback). The files and formats are Linux 6.6's on riscv64 and
//! arm64 (drivers/base/topology.c with GENERIC_ARCH_TOPOLOGY): ids, then
//! each sibling set as a mask and as a list. `die_id` is not there (only
//! x86 and s390 have it); the die's CPUs are the package's. The text is
//! made once at boot: it never changes.

use crate::fs::inode::Inode;
use crate::fs::synth::{self, Generate};
use crate::fs::tree::add_at;
use crate::mm::uaccess::UserSpace;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use gometal_core::linux::errno::Errno;
use gometal_core::procfs::{cpu_list, cpu_mask_padded};
use gometal_core::boot::topology::{places, siblings, Level, Place};

/// A file whose text was made at boot.
struct Fixed(Vec<u8>);

impl Generate for Fixed {
    fn generate(&self, _: &mut UserSpace) -> Result<Vec<u8>, Errno> {
        Ok(self.0.clone())
    }
}

fn fixed(text: String) -> Arc<Inode> {
    synth::text_node(Arc::new(Fixed(text.into_bytes())))
}

/// Puts cpuN/topology/ in the tree for each of the `cpus` CPUs found.
pub fn publish(cpus: usize) {
    let from_boot = crate::boot::topology::places();
    let all: Vec<Place> = if from_boot.len() == cpus { from_boot.to_vec() } else { places(&alloc::vec![None; cpus]) };
    for (cpu, p) in all.iter().enumerate() {
        let dir = format!("/sys/devices/system/cpu/cpu{cpu}/topology");
        let put = |name: &str, text: String| add_at(format!("{dir}/{name}").as_bytes(), fixed(text));
        put("physical_package_id", format!("{}\n", p.package));
        put("cluster_id", format!("{}\n", p.cluster));
        put("core_id", format!("{}\n", p.core));
        let sets = [
            ("core_cpus", Level::Core),
            ("thread_siblings", Level::Core),
            ("cluster_cpus", Level::Cluster),
            ("core_siblings", Level::Package),
            ("package_cpus", Level::Package),
            ("die_cpus", Level::Package),
        ];
        for (name, level) in sets {
            let set = siblings(&all, cpu, level);
            put(name, format!("{}\n", cpu_mask_padded(set.iter().copied(), cpus)));
            put(&format!("{name}_list"), format!("{}\n", cpu_list(set)));
        }
    }
}

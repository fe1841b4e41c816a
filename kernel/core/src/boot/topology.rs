//! Which CPUs share a cache, from what the device tree says (the kernel's
//! boot/topology.rs reads the nodes; this decides). The adaptive placement
//! policy moves a CPU-bound thread that must leave its CPU to one sharing
//! a cache with it first, where its working set may still be.
//!
//! Two sources, best first (the devicetree specification, §3.7-3.8, and
//! Linux's Documentation/devicetree/bindings/cpu/cpu-topology.txt):
//!
//! 1. **Cache nodes**: a CPU node's `next-level-cache` names its next cache,
//!    whose own `next-level-cache` names the one after. Two CPUs whose
//!    chains meet share that cache (and every one after it).
//! 2. **cpu-map**: with no cache nodes at all, CPUs in the same cluster
//!    (the innermost `clusterN` holding their `coreN`) are taken to share
//!    one, as Linux's cluster scheduling domain assumes.
//!
//! With neither, every CPU is its own group: nothing is known to be shared.
//! QEMU's `virt` machine has a cpu-map (one cluster per socket) and no
//! cache nodes.
//!
//! The same cpu-map gives each CPU its place (package, cluster, core,
//! thread) for /sys/devices/system/cpu/cpuN/topology, as Linux's
//! drivers/base/arch_topology.c reads it (`places`).

use alloc::vec::Vec;

/// What the device tree says about one CPU (phandles; 0 means none).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CpuCaches {
    /// The `next-level-cache` chain from the CPU outwards.
    pub caches: Vec<u32>,
    /// A number for the cpu-map cluster holding the CPU (None: not listed).
    pub cluster: Option<u32>,
}

/// A cache-sharing group number for each CPU (same number: shared), in
/// the order given; the numbers are small (< the number of CPUs).
pub fn cache_groups(cpus: &[CpuCaches]) -> Vec<u16> {
    let n = cpus.len();
    let mut parent: Vec<usize> = (0..n).collect();
    let any_cache = cpus.iter().any(|c| !c.caches.is_empty());
    for i in 0..n {
        for j in 0..i {
            let shared = if any_cache {
                cpus[i].caches.iter().any(|c| *c != 0 && cpus[j].caches.contains(c))
            } else {
                cpus[i].cluster.is_some() && cpus[i].cluster == cpus[j].cluster
            };
            if shared {
                union(&mut parent, i, j);
            }
        }
    }
    // Renumber the roots 0, 1, 2... in order of first appearance.
    let mut roots: Vec<usize> = Vec::new();
    (0..n)
        .map(|i| {
            let r = find(&mut parent, i);
            match roots.iter().position(|&x| x == r) {
                Some(k) => k as u16,
                None => {
                    roots.push(r);
                    (roots.len() - 1) as u16
                }
            }
        })
        .collect()
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        parent[ra.max(rb)] = ra.min(rb);
    }
}

/// Where a CPU sits, as Linux's cpu_topology entry: -1 for "not known".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub package: i32,
    pub cluster: i32,
    pub core: i32,
    pub thread: i32,
}

/// Each CPU's place. `mapped[i]` is what the cpu-map said about CPU i
/// (None: not listed). As Linux's parse_dt_topology, a map that leaves
/// any CPU out counts for none, and then (or with no map at all) each CPU
/// is a core of its own, numbered by the CPU, in package 0
/// (store_cpu_topology's fallback on riscv64 and arm64 device trees).
pub fn places(mapped: &[Option<Place>]) -> Vec<Place> {
    if !mapped.is_empty() && mapped.iter().all(Option::is_some) {
        return mapped.iter().flatten().copied().collect();
    }
    (0..mapped.len()).map(|i| Place { package: 0, cluster: -1, core: i as i32, thread: -1 }).collect()
}

/// The CPUs sharing `cpu`'s package, cluster or core (Linux's
/// package_cpus, cluster_cpus, core_cpus / thread_siblings).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Package,
    Cluster,
    Core,
}

pub fn siblings(places: &[Place], cpu: usize, level: Level) -> Vec<usize> {
    let Some(me) = places.get(cpu) else { return Vec::new() };
    let same = |p: &Place| {
        p.package == me.package
            && match level {
                Level::Package => true,
                Level::Cluster => p.cluster == me.cluster,
                Level::Core => p.cluster == me.cluster && p.core == me.core,
            }
    };
    (0..places.len()).filter(|&i| same(&places[i])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu(caches: &[u32], cluster: Option<u32>) -> CpuCaches {
        CpuCaches { caches: caches.to_vec(), cluster }
    }

    #[test]
    fn nothing_known_means_nothing_shared() {
        assert_eq!(cache_groups(&[cpu(&[], None), cpu(&[], None), cpu(&[], None)]), vec![0, 1, 2]);
    }

    #[test]
    fn qemu_virt_one_cluster_shares() {
        let c = [cpu(&[], Some(7)), cpu(&[], Some(7)), cpu(&[], Some(7)), cpu(&[], Some(7))];
        assert_eq!(cache_groups(&c), vec![0, 0, 0, 0]);
        let two = [cpu(&[], Some(1)), cpu(&[], Some(2)), cpu(&[], Some(1)), cpu(&[], Some(2))];
        assert_eq!(cache_groups(&two), vec![0, 1, 0, 1]);
    }

    #[test]
    fn cache_chains_that_meet_share() {
        // Two pairs with private L2s (10, 11) under one L3 (20), and a CPU
        // with its own L2 and no L3.
        let c = [cpu(&[10, 20], None), cpu(&[10, 20], None), cpu(&[11, 20], None), cpu(&[12], None)];
        assert_eq!(cache_groups(&c), vec![0, 0, 0, 1]);
    }

    #[test]
    fn places_from_a_map_or_each_its_own_core() {
        let p = |package, cluster, core, thread| Some(Place { package, cluster, core, thread });
        // QEMU virt: cpu-map/cluster0/core0..3 (riscv64), socket0/cluster0/core0..3 (arm64).
        let virt: Vec<_> = (0..4).map(|c| p(0, 0, c, -1)).collect();
        let got = places(&virt);
        assert_eq!(got[3], Place { package: 0, cluster: 0, core: 3, thread: -1 });
        assert_eq!(siblings(&got, 2, Level::Core), vec![2]);
        assert_eq!(siblings(&got, 2, Level::Package), vec![0, 1, 2, 3]);
        // Two threads per core, two clusters.
        let smt = [p(0, 0, 0, 0), p(0, 0, 0, 1), p(0, 1, 0, 0), p(0, 1, 0, 1)];
        let got = places(&smt);
        assert_eq!(siblings(&got, 1, Level::Core), vec![0, 1]);
        assert_eq!(siblings(&got, 2, Level::Cluster), vec![2, 3]);
        // A CPU missing from the map: the map counts for none.
        let partial = [p(0, 0, 0, -1), None];
        assert_eq!(places(&partial), vec![Place { package: 0, cluster: -1, core: 0, thread: -1 }, Place { package: 0, cluster: -1, core: 1, thread: -1 }]);
        assert_eq!(siblings(&places(&partial), 1, Level::Cluster), vec![0, 1]);
    }

    #[test]
    fn cache_nodes_win_over_clusters() {
        let c = [cpu(&[10], Some(1)), cpu(&[11], Some(1))];
        assert_eq!(cache_groups(&c), vec![0, 1]);
    }
}

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
    fn cache_nodes_win_over_clusters() {
        let c = [cpu(&[10], Some(1)), cpu(&[11], Some(1))];
        assert_eq!(cache_groups(&c), vec![0, 1]);
    }
}

//! Which CPUs share a cache: reads each CPU's `next-level-cache` chain and
//! the `/cpus/cpu-map` clusters from the device tree, lets
//! gometal_core::topology decide the groups; sched::cpu::set_cache_groups
//! gives each CPU its group (Cpu::cache_group) for the adaptive placement
//! policy. A tree with
//! neither (or a malformed one) leaves every CPU in a group of its own.

use alloc::vec::Vec;
use fdt::node::FdtNode;
use fdt::Fdt;
use gometal_core::topology::CpuCaches;

/// Longest `next-level-cache` chain followed (a loop in a bad tree ends here).
const MAX_LEVELS: usize = 4;
/// Deepest cpu-map nesting followed (socket, cluster, cluster, core, thread).
const MAX_DEPTH: usize = 6;

/// What the tree says about each CPU, in device-tree order (the order of
/// Machine::hwids: the CPUs `okay` accepts).
pub fn read(fdt: &Fdt, okay: impl Fn(&fdt::standard_nodes::Cpu) -> bool) -> Vec<CpuCaches> {
    let mut clusters = Vec::new();
    if let Some(map) = fdt.find_node("/cpus/cpu-map") {
        walk_map(map, None, &mut 0, &mut clusters, 0);
    }
    let cell = |n: Option<fdt::node::NodeProperty>| n.and_then(|p| p.as_usize()).map(|v| v as u32);
    fdt.cpus()
        .filter(|c| okay(c))
        .map(|c| {
            let mut caches = Vec::new();
            let mut next = cell(c.property("next-level-cache"));
            while let Some(ph) = next.filter(|&p| p != 0 && caches.len() < MAX_LEVELS) {
                caches.push(ph);
                next = fdt.find_phandle(ph).and_then(|n| cell(n.property("next-level-cache")));
            }
            let phandle = cell(c.property("phandle")).unwrap_or(0);
            let cluster = clusters.iter().find(|&&(p, _)| p == phandle && p != 0).map(|&(_, k)| k);
            CpuCaches { caches, cluster }
        })
        .collect()
}

/// Collects (cpu phandle, innermost socket or cluster number) under `node`.
fn walk_map(node: FdtNode, cluster: Option<u32>, next: &mut u32, out: &mut Vec<(u32, u32)>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    for child in node.children() {
        if child.name.starts_with("cluster") || child.name.starts_with("socket") {
            *next += 1;
            walk_map(child, Some(*next), next, out, depth + 1);
        } else {
            if let (Some(c), Some(p)) = (cluster, child.property("cpu").and_then(|p| p.as_usize())) {
                out.push((p as u32, c));
            }
            walk_map(child, cluster, next, out, depth + 1); // threads under a core
        }
    }
}

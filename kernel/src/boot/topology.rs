//! Which CPUs share a cache: reads each CPU's `next-level-cache` chain and
//! the `/cpus/cpu-map` clusters from the device tree, lets
//! gometal_core::boot::topology decide the groups; sched::cpu::set_cache_groups
//! gives each CPU its group (Cpu::cache_group) for the adaptive placement
//! policy. A tree with
//! neither (or a malformed one) leaves every CPU in a group of its own.
//!
//! `record_places` reads the same cpu-map as Linux's parse_dt_topology
//! (socketN: package N; clusterN: cluster N; coreN: the cluster's next
//! core; threadN: thread N) for /sys/devices/system/cpu/cpuN/topology.

use alloc::vec::Vec;
use fdt::node::FdtNode;
use fdt::Fdt;
use gometal_core::boot::topology::{CpuCaches, Place};
use spin::Once;

static PLACES: Once<Vec<Place>> = Once::new();

/// Each CPU's place, by CPU index (empty before boot recorded them).
pub fn places() -> &'static [Place] {
    PLACES.get().map_or(&[], |p| p.as_slice())
}

/// Reads and keeps each CPU's place (the CPUs `okay` accepts, in the
/// order of Machine::hwids).
pub fn record_places(fdt: &Fdt, okay: impl Fn(&fdt::standard_nodes::Cpu) -> bool) {
    let mut found = Vec::new();
    if let Some(map) = fdt.find_node("/cpus/cpu-map") {
        let sockets = numbered(map, "socket");
        if sockets.is_empty() {
            walk_places(map, 0, -1, 0, &mut found);
        }
        for (n, socket) in sockets {
            walk_places(socket, n, -1, 0, &mut found);
        }
    }
    let cell = |n: Option<fdt::node::NodeProperty>| n.and_then(|p| p.as_usize()).map(|v| v as u32);
    let mapped: Vec<Option<Place>> = fdt
        .cpus()
        .filter(|c| okay(c))
        .map(|c| {
            let phandle = cell(c.property("phandle")).unwrap_or(0);
            found.iter().find(|&&(p, _)| p == phandle && p != 0).map(|&(_, place)| place)
        })
        .collect();
    PLACES.call_once(|| gometal_core::boot::topology::places(&mapped));
}

/// The children of `node` named `prefix`0, `prefix`1... with their
/// numbers, in that order (Linux looks them up by name, 0 upwards).
fn numbered<'a>(node: FdtNode<'a, 'a>, prefix: &str) -> Vec<(i32, FdtNode<'a, 'a>)> {
    let mut v: Vec<_> = node.children().filter_map(|c| Some((c.name.strip_prefix(prefix)?.parse::<i32>().ok()?, c))).collect();
    v.sort_by_key(|&(n, _)| n);
    v
}

/// Linux's parse_cluster: nested clusters, then the cores of a leaf
/// cluster (each core's threads, or the core itself as its CPU).
fn walk_places(node: FdtNode, package: i32, cluster: i32, depth: usize, out: &mut Vec<(u32, Place)>) {
    if depth > MAX_DEPTH {
        return;
    }
    for (n, c) in numbered(node, "cluster") {
        walk_places(c, package, n, depth + 1, out);
    }
    let cpu_of = |n: &FdtNode| n.property("cpu").and_then(|p| p.as_usize()).map(|p| p as u32);
    for (core, (_, c)) in numbered(node, "core").into_iter().enumerate() {
        let threads = numbered(c, "thread");
        if threads.is_empty() {
            if let Some(p) = cpu_of(&c) {
                out.push((p, Place { package, cluster, core: core as i32, thread: -1 }));
            }
        }
        for (t, th) in threads {
            if let Some(p) = cpu_of(&th) {
                out.push((p, Place { package, cluster, core: core as i32, thread: t }));
            }
        }
    }
}

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

//! What riscv_hwprobe (linux/arch/riscv64.rs) reports of each hart: its
//! extensions, from its device-tree node (`riscv,isa-extensions` where the
//! tree has it, else `riscv,isa`, parsed by gometal_core's hwprobe.rs as
//! Linux parses them), and its machine ids (mvendorid, marchid, mimpid),
//! which only the hart itself can ask the SBI for: each hart records its
//! own as it starts, keyed by its per-CPU pointer, the one thing a hart
//! knows about itself in S-mode.

use crate::param::MAX_CPUS;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use fdt::standard_nodes::Cpu;
use gometal_core::arch::riscv64::hwprobe::{self, Hart};

/// (hart id, extensions) of every hart the kernel may run on.
static ISAS: spin::Once<Vec<(usize, Hart)>> = spin::Once::new();

/// One hart's ids, under the per-CPU pointer of the CPU it runs.
struct IdSlot {
    cpu: AtomicUsize,
    ids: [AtomicU64; 3],
}

static IDS: [IdSlot; MAX_CPUS] = [const { IdSlot { cpu: AtomicUsize::new(0), ids: [const { AtomicU64::new(0) }; 3] } }; MAX_CPUS];
static RECORDED: AtomicUsize = AtomicUsize::new(0);

/// A hart's extensions from its device-tree node (none if unreadable).
fn isa_of(cpu: &Cpu) -> Hart {
    if let Some(list) = cpu.property("riscv,isa-extensions") {
        let names = list.value.split(|&b| b == 0).filter_map(|s| core::str::from_utf8(s).ok()).filter(|s| !s.is_empty());
        return hwprobe::parse_extension_list(names);
    }
    cpu.property("riscv,isa").and_then(|p| p.as_str()).and_then(hwprobe::parse_isa).unwrap_or_default()
}

/// Records the extensions of the device tree's harts (once, at boot).
pub fn record_isas<'b, 'a: 'b>(cpus: impl Iterator<Item = Cpu<'b, 'a>>) {
    ISAS.call_once(|| cpus.map(|c| (c.ids().first(), isa_of(&c))).collect());
}

/// Records the running hart's machine ids (each hart, as it starts).
pub fn record_ids() {
    let slot = RECORDED.fetch_add(1, Ordering::Relaxed);
    let Some(s) = IDS.get(slot) else { return };
    let ids = [sbi_rt::get_mvendorid(), sbi_rt::get_marchid(), sbi_rt::get_mimpid()];
    for (to, v) in s.ids.iter().zip(ids) {
        to.store(v as u64, Ordering::Relaxed);
    }
    s.cpu.store(super::cpu::cpu_local(), Ordering::Release);
}

/// What hwprobe knows of the hart with id `hwid`, running as the CPU whose
/// per-CPU pointer is `cpu`.
pub fn hart(hwid: usize, cpu: usize) -> Hart {
    let mut h = ISAS.get().and_then(|v| v.iter().find(|(id, _)| *id == hwid)).map(|&(_, h)| h).unwrap_or_default();
    if let Some(s) = IDS.iter().find(|s| s.cpu.load(Ordering::Acquire) == cpu) {
        h.ids = core::array::from_fn(|i| s.ids[i].load(Ordering::Relaxed));
    }
    h
}

//! Talking to other CPUs: IPIs that wake an idle CPU or make a busy one
//! trap (to deliver a signal promptly), and TLB shootdown.
//!
//! Shootdown protocol: the initiator bumps a global generation, records it
//! as each target's request and IPIs them; a target flushes its whole TLB
//! and records the generation as done, either in its IPI handler or in any
//! wait loop. The initiator holds no lock while it waits (so a target
//! spinning on a lock cannot deadlock it) and frees the unmapped frames only
//! after every target has flushed: a stale TLB entry can never reach a
//! frame that was reused.

use crate::arch;
use crate::sched::cpu::{self, Cpu};
use core::sync::atomic::{AtomicU64, Ordering};
use spin::Once;

static TLB_GENERATION: AtomicU64 = AtomicU64::new(0);

/// How this machine sends an IPI to a CPU (by hardware id): the CPU's
/// own way or the interrupt controller's, which only the driver layer
/// knows (drivers/irqchip::send_ipi, registered at boot).
static IPI_SENDER: Once<fn(usize)> = Once::new();

/// Registers how IPIs are sent (once, at boot, before a second CPU starts).
pub fn set_ipi_sender(send: fn(usize)) {
    IPI_SENDER.call_once(|| send);
}

/// Sends a software interrupt to `target`.
pub fn send_ipi(target: &Cpu) {
    let me = cpu::this_cpu();
    me.stats.ipis_sent.fetch_add(1, Ordering::Relaxed);
    if let Some(send) = IPI_SENDER.get() {
        send(target.hwid());
    }
}

/// Makes sure idle `target` notices new work: IPI it if it naps in `wfi`
/// (or is about to); a polling idle CPU sees its queue by itself.
pub fn kick(target: &Cpu) {
    let me = cpu::this_cpu();
    if core::ptr::eq(me, target) {
        return;
    }
    if target.napping.load(Ordering::SeqCst) {
        let now = crate::sched::clock::monotonic_ns();
        let _ = target.kicked_at.compare_exchange(0, now, Ordering::Relaxed, Ordering::Relaxed);
        send_ipi(target);
    }
}

/// Makes `target` trap soon if it is running a user thread (signal delivery).
pub fn interrupt(target: &Cpu) {
    if !core::ptr::eq(cpu::this_cpu(), target) {
        send_ipi(target);
    }
}

/// Called when this CPU takes or polls an IPI: does requested work.
pub fn handle_ipi(me: &Cpu) {
    me.stats.ipis_received.fetch_add(1, Ordering::Relaxed);
    let kicked = me.kicked_at.swap(0, Ordering::Relaxed);
    if kicked != 0 {
        let now = crate::sched::clock::monotonic_ns();
        crate::sched::latency::IPI_TO_WAKE.record(now.saturating_sub(kicked));
        me.awake_at.store(now, Ordering::Relaxed);
        me.kick_answered.store(kicked, Ordering::Relaxed);
    }
    serve_flush(me);
    halt_if_requested();
}

/// Flushes this CPU's TLB if a shootdown asked for it.
pub fn serve_flush(me: &Cpu) {
    let requested = me.tlb_requested.load(Ordering::Acquire);
    if requested > me.tlb_done.load(Ordering::Relaxed) {
        arch::flush_tlb_all();
        me.tlb_done.store(requested, Ordering::Release);
    }
}

/// Flushes every other CPU's TLB entries for the address space `root` and
/// waits until all have. The caller must hold no lock.
pub fn shootdown(root: u64) {
    if arch::flush_tlb_all_cpus() {
        return; // the architecture broadcast the flush (aarch64's TLBI ...IS)
    }
    let me = cpu::this_cpu();
    let generation = TLB_GENERATION.fetch_add(1, Ordering::AcqRel) + 1;
    let mut targets = [false; crate::param::MAX_CPUS];
    for (i, h) in cpu::all().iter().enumerate() {
        if core::ptr::eq(h, me) || h.page_table.load(Ordering::Acquire) != root {
            continue;
        }
        h.tlb_requested.fetch_max(generation, Ordering::AcqRel);
        send_ipi(h);
        targets[i] = true;
    }
    for (i, h) in cpu::all().iter().enumerate() {
        while targets[i] && h.tlb_done.load(Ordering::Acquire) < generation {
            serve_flush(me); // another CPU may be waiting for us meanwhile
            core::hint::spin_loop();
        }
    }
    arch::flush_tlb_all();
}

/// Set when the program exits: every other CPU stops at its next trap or
/// in its idle loop, so nothing the program's other threads do (print,
/// allocate) runs after exit_group — as Linux kills them first.
static HALTING: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);
static HALTED: core::sync::atomic::AtomicUsize = core::sync::atomic::AtomicUsize::new(0);

/// How long the exiting CPU waits for the others to stop (a CPU busy in
/// the kernel stops when it leaves; this only bounds the wait).
const HALT_WAIT_NS: u64 = 100_000_000;

/// Stops every other CPU (best effort, bounded wait).
pub fn stop_other_cpus() {
    HALTING.store(true, Ordering::SeqCst);
    let me = cpu::this_cpu();
    let mut others = 0;
    for h in cpu::all() {
        if !core::ptr::eq(h, me) && h.state() == cpu::CpuState::Online {
            send_ipi(h);
            others += 1;
        }
    }
    let deadline = crate::sched::clock::monotonic_ns() + HALT_WAIT_NS;
    while HALTED.load(Ordering::Acquire) < others && crate::sched::clock::monotonic_ns() < deadline {
        core::hint::spin_loop();
    }
}

/// Parks this CPU for good if the program is exiting.
pub fn halt_if_requested() {
    if HALTING.load(Ordering::Acquire) {
        park();
    }
}

/// Stops this CPU for good, counted, so the exiting CPU need not wait
/// out HALT_WAIT_NS for it (a thread calling exit while another's exit is
/// already under way parks here).
pub fn park() -> ! {
    HALTED.fetch_add(1, Ordering::AcqRel);
    loop {
        crate::arch::wait_for_interrupt();
    }
}

//! What a placement policy sees of each CPU, and the choice every policy
//! falls back on (the least loaded CPU). Both placement.rs's policies and
//! adaptive.rs read these, so they live here, below both.

/// What a policy may look at for one CPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuLoad {
    /// The CPU runs the kernel and may take threads.
    pub online: bool,
    /// Threads queued plus the one running, if any.
    pub load: usize,
    /// In the idle loop with nothing queued.
    pub idle: bool,
    /// Idle and polling its queue (not napping): takes a thread without an
    /// IPI, so without waiting for the host to run it.
    pub awake: bool,
    /// CPU-bound (Long) threads running or queued here.
    pub long: usize,
    /// Cache-sharing group (topology.rs): equal numbers share a cache.
    pub cache: u16,
}

/// How much busier than the least loaded CPU a thread's last CPU may be
/// before affinity gives way to balance.
pub const AFFINITY_SLACK: usize = 1;

/// The online CPU with the fewest threads; ties go to the first after
/// `cursor`, which then moves there (so ties spread out).
pub fn least_loaded_from(loads: &[CpuLoad], cursor: &mut usize) -> usize {
    let n = loads.len();
    let mut best: Option<usize> = None;
    for step in 1..=n {
        let h = (*cursor + step) % n;
        if loads[h].online && best.is_none_or(|b| loads[h].load < loads[b].load) {
            best = Some(h);
        }
    }
    let h = best.unwrap_or(0);
    *cursor = h;
    h
}

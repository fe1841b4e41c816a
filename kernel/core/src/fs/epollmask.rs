//! epoll's event-mask semantics, apart from the ready-list plumbing: what
//! one watch reports when its file is looked at (kernel fs/epoll.rs calls
//! this for each entry it takes off an instance's ready list).

pub const EPOLLIN: u32 = 0x1;
pub const EPOLLOUT: u32 = 0x4;
pub const EPOLLERR: u32 = 0x8;
pub const EPOLLHUP: u32 = 0x10;
pub const EPOLLEXCLUSIVE: u32 = 1 << 28;
pub const EPOLLONESHOT: u32 = 1 << 30;
pub const EPOLLET: u32 = 1 << 31;

pub const EPOLLWAKEUP: u32 = 1 << 29;

/// The bits EPOLLEXCLUSIVE may be combined with (Linux's
/// EPOLLEXCLUSIVE_OK_BITS).
const EXCLUSIVE_OK: u32 = EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | EPOLLWAKEUP | EPOLLET | EPOLLEXCLUSIVE;

/// Linux's rules for EPOLLEXCLUSIVE: only with EPOLL_CTL_ADD (`adding`),
/// only with the bits above, and a watch added with it cannot be modified
/// (`existing`: the watch's current interest, for a MOD). False: EINVAL.
pub fn exclusive_ok(adding: bool, events: u32, existing: Option<u32>) -> bool {
    if events & EPOLLEXCLUSIVE != 0 && (!adding || events & !EXCLUSIVE_OK != 0) {
        return false;
    }
    existing.is_none_or(|e| e & EPOLLEXCLUSIVE == 0)
}

/// Whether interest `events` is level-triggered: such an entry goes back on
/// the ready list after it is reported, and is reported again for as long
/// as the file stays ready. One-shot interest never goes back.
pub fn is_level(events: u32) -> bool {
    events & (EPOLLET | EPOLLONESHOT) == 0
}

/// What a watch with interest `events` reports for a file whose state is
/// `state` (event bits) and whose change counter is `generation`: the
/// events (EPOLLERR and EPOLLHUP always count, as on Linux), or None.
/// Edge-triggered interest reports a file again only after its counter
/// moved since the last report (`reported_at`, updated here), so a queued
/// entry for a change already reported stays quiet.
pub fn report(events: u32, state: u32, reported_at: &mut Option<u64>, generation: u64) -> Option<u32> {
    let ready = state & (events | EPOLLERR | EPOLLHUP);
    if ready == 0 {
        return None;
    }
    if events & EPOLLET != 0 {
        if *reported_at == Some(generation) {
            return None;
        }
        *reported_at = Some(generation);
    }
    Some(ready)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_reports_while_ready() {
        let mut at = None;
        assert_eq!(report(EPOLLIN, EPOLLIN | EPOLLOUT, &mut at, 1), Some(EPOLLIN));
        assert_eq!(report(EPOLLIN, EPOLLIN, &mut at, 1), Some(EPOLLIN));
        assert_eq!(report(EPOLLIN, EPOLLOUT, &mut at, 2), None);
        assert!(is_level(EPOLLIN));
    }

    #[test]
    fn edge_reports_each_change_once() {
        let mut at = None;
        let ev = EPOLLIN | EPOLLET;
        assert_eq!(report(ev, EPOLLIN, &mut at, 5), Some(EPOLLIN));
        assert_eq!(report(ev, EPOLLIN, &mut at, 5), None);
        assert_eq!(report(ev, EPOLLIN, &mut at, 6), Some(EPOLLIN));
        assert!(!is_level(ev));
    }

    #[test]
    fn errors_and_hangups_always_count() {
        let mut at = None;
        assert_eq!(report(EPOLLIN, EPOLLHUP | EPOLLOUT, &mut at, 0), Some(EPOLLHUP));
        assert_eq!(report(0, EPOLLERR, &mut at, 0), Some(EPOLLERR));
        assert_eq!(report(EPOLLOUT, EPOLLIN, &mut at, 0), None);
    }

    #[test]
    fn exclusive_rules() {
        assert!(exclusive_ok(true, EPOLLIN | EPOLLEXCLUSIVE | EPOLLET, None));
        assert!(!exclusive_ok(true, EPOLLIN | EPOLLEXCLUSIVE | EPOLLONESHOT, None));
        assert!(!exclusive_ok(false, EPOLLIN | EPOLLEXCLUSIVE, Some(EPOLLIN)));
        assert!(!exclusive_ok(false, EPOLLIN, Some(EPOLLIN | EPOLLEXCLUSIVE)));
        assert!(exclusive_ok(false, EPOLLIN | EPOLLONESHOT, Some(EPOLLIN)));
    }

    #[test]
    fn oneshot_is_not_requeued() {
        assert!(!is_level(EPOLLIN | EPOLLONESHOT));
        assert!(!is_level(EPOLLIN | EPOLLONESHOT | EPOLLET));
        assert!(is_level(EPOLLIN | EPOLLEXCLUSIVE));
    }
}

//! How big a TCP connection's buffers through the NIC are, and how many
//! connections there may be (the kernel's net/nic/buffers.rs holds the
//! page frames; it says why sizes are chosen once, at the SYN). Counts are
//! in 4 KiB pages.

const PAGE: usize = 4096;

/// Each way, for the first connections: covers the bandwidth-delay
/// product and 62 KiB segments handed to the device for segmentation.
pub const BIG_BYTES: usize = 256 * 1024;
pub const BIG_PAGES: usize = 2 * BIG_BYTES / PAGE;
/// Big blocks may take 1/BIG_SHARE of the page frames, but at least
/// BIG_LEAST blocks (8 bulk streams and a few more) and at most 1/16. Idle
/// connections hold theirs too, so fewer is less memory per connection
/// for a server holding many (1/16 before: 128 blocks, 64 MiB at 1G).
const BIG_SHARE: usize = 128;
const BIG_LEAST: usize = 16;
/// Each way, while fewer than MID_CONNS connections are open.
pub const MID_BYTES: usize = 16 * 1024;
pub const MID_PAGES: usize = 2 * MID_BYTES / PAGE;
pub const MID_CONNS: usize = 128;
/// Each way, for the rest: Linux's floor (tcp_rmem[0], tcp_wmem[0]).
pub const SMALL_BYTES: usize = 4 * 1024;
pub const SMALL_PAGES: usize = 2 * SMALL_BYTES / PAGE;
/// Connection buffers may take 1/FRAME_SHARE of the page frames.
const FRAME_SHARE: usize = 2;
/// Kernel heap a connection's objects take, about (smoltcp's socket in
/// its set, the program's socket and descriptor, the two directions and
/// the epoll watch: 2.7 KiB measured), and the share of the heap all
/// connections may take (2/3; the rest is the kernel's and loopback's).
const HEAP_PER_CONN: usize = 3 * 1024;

/// Pages all big blocks together may take, of `frames` page frames.
pub fn big_budget(frames: usize) -> usize {
    (frames / BIG_SHARE).max(BIG_LEAST * BIG_PAGES).min(frames / 16)
}

/// (pages, bytes each way) of a connection that gets no big block, made
/// while `open` connections are open.
pub fn after_big(open: usize) -> (usize, usize) {
    if open < MID_CONNS {
        (MID_PAGES, MID_BYTES)
    } else {
        (SMALL_PAGES, SMALL_BYTES)
    }
}

/// The most connections (opening, open, closing and listening sockets)
/// with `frames` page frames and a kernel heap of `heap` bytes.
pub fn max_conns(frames: usize, heap: usize) -> usize {
    (frames / FRAME_SHARE / SMALL_PAGES).min(heap * 2 / 3 / HEAP_PER_CONN)
}

/// Half-open connections all socket sets together may hold: half of the
/// frames' share counted in 32 KiB blocks, as before the small blocks.
pub fn half_open_budget(frames: usize) -> usize {
    frames / FRAME_SHARE / MID_PAGES / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Page frames at -mem 1G, 256M and 128M (RAM less the heap and kernel).
    const G1: usize = 245_248;
    const M256: usize = 56_832;
    const M128: usize = 27_900;

    #[test]
    fn big_blocks() {
        assert_eq!(big_budget(G1) / BIG_PAGES, 16);
        assert_eq!(big_budget(4 * G1) / BIG_PAGES, 59);
        assert_eq!(big_budget(M256) / BIG_PAGES, 16);
        assert_eq!(big_budget(M128) / BIG_PAGES, 13); // the 1/16 ceiling
    }

    #[test]
    fn sizes_by_count() {
        assert_eq!(after_big(0), (8, 16 * 1024));
        assert_eq!(after_big(MID_CONNS - 1), (8, 16 * 1024));
        assert_eq!(after_big(MID_CONNS), (2, 4 * 1024));
        assert_eq!(after_big(9_999), (2, 4 * 1024));
    }

    #[test]
    fn caps() {
        assert_eq!(max_conns(G1, 64 << 20), 14_563); // the heap's limit
        assert_eq!(max_conns(M128, 16 << 20), 3_640);
        assert_eq!(max_conns(1_000, 64 << 20), 250); // the frames' limit
        assert_eq!(half_open_budget(G1) / 256, 29);
        assert_eq!(half_open_budget(M256) / 256, 6);
    }
}

//! virtio-net multiqueue, the pure half (kernel/src/drivers/virtio/net.rs
//! drives it): how many queue pairs to use, which virtqueue is which, and
//! the control-queue command that turns the extra pairs on (virtio 1.2,
//! 5.1.6.5.5 "Automatic receive steering in multiqueue mode").
//!
//! With VIRTIO_NET_F_MQ the device has `max_virtqueue_pairs` (config space,
//! offset 8) receive/transmit pairs, queue 2k receiving and 2k+1
//! transmitting for pair k, and the control queue after all of them, at
//! 2 * max_virtqueue_pairs. Only pair 0 is on until the driver sends
//! VIRTIO_NET_CTRL_MQ / VQ_PAIRS_SET with the number it wants on the
//! control queue, and the device answers VIRTIO_NET_OK in the ack byte.
//! The device then spreads received flows over the pairs (QEMU's tap: by
//! the host kernel's tap queue the packet came from) and a transmitted
//! packet leaves through the queue it was put on.

/// Feature bits (virtio 1.2, 5.1.3): a control virtqueue, and multiqueue
/// (which needs the control queue to turn the pairs on).
pub const F_CTRL_VQ: u64 = 1 << 17;
pub const F_MQ: u64 = 1 << 22;

/// `virtio_net_ctrl_hdr.class` and `.cmd` for the multiqueue command.
pub const CTRL_MQ: u8 = 4;
pub const CTRL_MQ_VQ_PAIRS_SET: u8 = 0;
/// The ack byte the device writes: OK (anything else is an error).
pub const CTRL_OK: u8 = 0;
/// What VQ_PAIRS_SET takes (VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MIN/MAX).
pub const PAIRS_MAX: u16 = 0x8000;

/// Config-space offset of `max_virtqueue_pairs` (after mac[6], status).
pub const MAX_PAIRS_OFFSET: usize = 8;

/// Keeps MQ and CTRL_VQ together: MQ is no use without the control
/// queue, and the control queue is used for nothing else here.
pub fn choose(features: u64) -> u64 {
    if features & (F_MQ | F_CTRL_VQ) == F_MQ | F_CTRL_VQ {
        features
    } else {
        features & !(F_MQ | F_CTRL_VQ)
    }
}

/// The pairs to use: one per CPU, as many as the device has (`max_pairs`,
/// read from config space when MQ was accepted) and as `room` allows (the
/// pairs whose buffers fit the memory set aside for them), at least one.
pub fn pairs(features: u64, max_pairs: u16, cpus: usize, room: usize) -> usize {
    if features & F_MQ == 0 {
        return 1;
    }
    let max = max_pairs.clamp(1, PAIRS_MAX) as usize;
    cpus.min(room).clamp(1, max)
}

/// Pair k's receive queue.
pub fn rx_queue(k: usize) -> u16 {
    (2 * k) as u16
}

/// Pair k's transmit queue.
pub fn tx_queue(k: usize) -> u16 {
    (2 * k + 1) as u16
}

/// The control queue: after all `max_pairs` pairs with MQ, else queue 2.
pub fn ctrl_queue(features: u64, max_pairs: u16) -> u16 {
    if features & F_MQ != 0 {
        2 * max_pairs.clamp(1, PAIRS_MAX)
    } else {
        2
    }
}

/// The pair a frame of flow `key` (its socket set, `netshard::route`) is
/// sent on: always the same for one flow, since the device serves its
/// transmit queues in an order of its own, and a flow spread over several
/// would reach the peer reordered (in a first try, sending on the pair of
/// the CPU that polled, bulk TCP out of the guest fell to a quarter).
///
/// The key is mixed first: socket-set numbers of connections a Linux peer
/// opened share their low bit (it picks even ports for connect()), and
/// `key % pairs` put them all on every other pair.
pub fn pair_of_flow(key: usize, pairs: usize) -> usize {
    let mixed = ((key as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) as usize;
    mixed % pairs.max(1)
}

/// VQ_PAIRS_SET for `n` pairs: the header (class, command) and the data
/// (`virtqueue_pairs`, little-endian), each a descriptor of its own as a
/// legacy device wants; the device answers in a third, one-byte one.
pub fn pairs_set_command(n: usize) -> ([u8; 2], [u8; 2]) {
    ([CTRL_MQ, CTRL_MQ_VQ_PAIRS_SET], (n as u16).to_le_bytes())
}

/// Whether the device's ack says the command took.
pub fn ack_ok(ack: u8) -> bool {
    ack == CTRL_OK
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mq_needs_the_control_queue() {
        assert_eq!(choose(F_MQ | F_CTRL_VQ | 1), F_MQ | F_CTRL_VQ | 1);
        assert_eq!(choose(F_MQ | 1), 1);
        assert_eq!(choose(F_CTRL_VQ | 1), 1);
        assert_eq!(choose(1), 1);
    }

    #[test]
    fn one_pair_per_cpu_as_far_as_the_device_goes() {
        assert_eq!(pairs(F_MQ, 4, 4, 64), 4);
        assert_eq!(pairs(F_MQ, 8, 2, 64), 2);
        assert_eq!(pairs(F_MQ, 2, 4, 64), 2);
        assert_eq!(pairs(F_MQ, 0, 4, 64), 1, "a device saying 0 gets one");
        assert_eq!(pairs(F_MQ, 4, 0, 64), 1);
        assert_eq!(pairs(0, 4, 4, 64), 1, "without MQ one pair");
        assert_eq!(pairs(F_MQ, 64, 64, 5), 5, "no more than fit in memory");
        assert_eq!(pairs(F_MQ, 4, 4, 0), 1, "one pair whatever the memory");
    }

    #[test]
    fn queue_numbers() {
        assert_eq!((rx_queue(0), tx_queue(0)), (0, 1));
        assert_eq!((rx_queue(3), tx_queue(3)), (6, 7));
        assert_eq!(ctrl_queue(F_MQ, 4), 8);
        assert_eq!(ctrl_queue(0, 4), 2);
        assert_eq!(ctrl_queue(F_MQ, 0), 2);
    }

    #[test]
    fn flows_spread_over_every_pair() {
        for pairs in [2, 3, 4, 8] {
            // Odd keys alone (what a peer's even ports gave) reach every pair.
            let mut hit = vec![0; pairs];
            for k in (1..256).step_by(2) {
                hit[pair_of_flow(k, pairs)] += 1;
            }
            assert!(hit.iter().all(|&n| n >= 128 / pairs / 2), "{pairs} pairs: {hit:?}");
        }
        assert_eq!(pair_of_flow(5, 1), 0);
        assert_eq!(pair_of_flow(5, 0), 0);
        assert_eq!(pair_of_flow(77, 4), pair_of_flow(77, 4), "one flow, one pair");
    }

    #[test]
    fn pairs_set_encoding() {
        assert_eq!(pairs_set_command(4), ([4, 0], [4, 0]));
        assert_eq!(pairs_set_command(0x102), ([4, 0], [2, 1]));
        assert!(ack_ok(0));
        assert!(!ack_ok(1));
        assert!(!ack_ok(0xff), "an ack the device never wrote");
    }
}

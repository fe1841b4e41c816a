//! Tests for `cbpfrun`: Linux's semantics for each kind of instruction,
//! and the programs golang.org/x/net/bpf and tcpdump -dd produce.

use super::*;
use alloc::vec::Vec;

fn i(code: u16, jt: u8, jf: u8, k: u32) -> Insn {
    Insn { code, jt, jf, k }
}

fn ret_a() -> Insn {
    i(RET | RET_A, 0, 0, 0)
}

fn four() -> u32 {
    4
}

const FACTS: Facts = Facts { protocol: 0x0800, pkt_type: 0, device: Some((1, 772)), cpu: 3, random: four };

fn run_on(prog: Vec<Insn>, data: &[u8]) -> u32 {
    run(&Filter::new(prog).unwrap(), &Packet { data, net: data }, &FACTS)
}

/// A UDP datagram from port 1000 to 53 with payload `p`, and its IPv4 header.
fn udp(p: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut d = alloc::vec![0x03, 0xe8, 0, 53, 0, (8 + p.len()) as u8, 0, 0];
    d.extend_from_slice(p);
    let mut net = alloc::vec![0x45, 0, 0, (28 + p.len()) as u8, 0, 0, 0x40, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1];
    net.extend_from_slice(&d);
    (d, net)
}

#[test]
fn loads_are_big_endian_and_bounded() {
    let (d, _) = udp(b"\x01\x02\x03\x04");
    assert_eq!(run_on(alloc::vec![i(LD | H | ABS, 0, 0, 2), ret_a()], &d), 53);
    assert_eq!(run_on(alloc::vec![i(LD | W | ABS, 0, 0, 8), ret_a()], &d), 0x0102_0304);
    assert_eq!(run_on(alloc::vec![i(LD | B | ABS, 0, 0, 11), ret_a()], &d), 4);
    // Past the end: the program ends with 0 there and then.
    assert_eq!(run_on(alloc::vec![i(LD | H | ABS, 0, 0, 11), i(RET | K, 0, 0, 99)], &d), 0);
    assert_eq!(run_on(alloc::vec![i(LD | W | ABS, 0, 0, 0x8000_0000), i(RET | K, 0, 0, 99)], &d), 0);
    assert_eq!(run_on(alloc::vec![i(LD | W | LEN, 0, 0, 0), ret_a()], &d), 12);
}

#[test]
fn indirect_and_header_loads() {
    let (d, net) = udp(b"ab");
    let pkt = Packet { data: &d, net: &net };
    // ldx 4*([0]&0xf) of the IP header, then the UDP destination port after it.
    let f = Filter::new(alloc::vec![i(LDX | B | MSH, 0, 0, 0), i(LD | H | IND, 0, 0, 2), ret_a()]).unwrap();
    assert_eq!(run(&f, &Packet { data: &net, net: &net }, &FACTS), 53);
    // The protocol byte through the network header, from a UDP socket's view.
    let f = Filter::new(alloc::vec![i(LD | B | ABS, 0, 0, SKF_NET_OFF + 9), ret_a()]).unwrap();
    assert_eq!(run(&f, &pkt, &FACTS), 17);
    // No link-layer header: 0.
    let f = Filter::new(alloc::vec![i(LD | B | ABS, 0, 0, SKF_LL_OFF), i(RET | K, 0, 0, 9)]).unwrap();
    assert_eq!(run(&f, &pkt, &FACTS), 0);
    // X + k below zero is a header offset too.
    let f = Filter::new(alloc::vec![i(LDX | IMM, 0, 0, SKF_NET_OFF), i(LD | B | IND, 0, 0, 8), ret_a()]).unwrap();
    assert_eq!(run(&f, &pkt, &FACTS), 64);
}

#[test]
fn arithmetic() {
    let prog = |code, a, k| alloc::vec![i(LD | IMM, 0, 0, a), i(ALU | code, 0, 0, k), ret_a()];
    assert_eq!(run_on(prog(ADD | K, u32::MAX, 2), &[]), 1);
    assert_eq!(run_on(prog(SUB | K, 1, 2), &[]), u32::MAX);
    assert_eq!(run_on(prog(MUL | K, 0x8000_0000, 2), &[]), 0);
    assert_eq!(run_on(prog(DIV | K, 7, 2), &[]), 3);
    assert_eq!(run_on(prog(MOD | K, 7, 4), &[]), 3);
    assert_eq!(run_on(prog(XOR | K, 0xff, 0x0f), &[]), 0xf0);
    assert_eq!(run_on(prog(LSH | K, 1, 31), &[]), 0x8000_0000);
    assert_eq!(run_on(alloc::vec![i(LD | IMM, 0, 0, 5), i(ALU | NEG, 0, 0, 0), ret_a()], &[]), 5u32.wrapping_neg());
    // Division by an X of 0 ends the program with 0.
    let div_x = alloc::vec![i(LD | IMM, 0, 0, 7), i(ALU | DIV | X, 0, 0, 0), i(RET | K, 0, 0, 9)];
    assert_eq!(run_on(div_x, &[]), 0);
    // A shift by X takes its low 5 bits.
    let shl_x = alloc::vec![i(LD | IMM, 0, 0, 1), i(LDX | IMM, 0, 0, 33), i(ALU | LSH | X, 0, 0, 0), ret_a()];
    assert_eq!(run_on(shl_x, &[]), 2);
}

#[test]
fn jumps_scratch_and_moves() {
    // if A > 10 then 1 else 2, through scratch memory and X.
    let prog = |a| {
        alloc::vec![
            i(LD | IMM, 0, 0, a),
            i(ST, 0, 0, 15),
            i(LDX | MEM, 0, 0, 15),
            i(MISC | TXA, 0, 0, 0),
            i(JMP | JGT | K, 0, 1, 10),
            i(RET | K, 0, 0, 1),
            i(RET | K, 0, 0, 2),
        ]
    };
    assert_eq!(run_on(prog(11), &[]), 1);
    assert_eq!(run_on(prog(10), &[]), 2);
    let jset = alloc::vec![i(LD | IMM, 0, 0, 6), i(LDX | IMM, 0, 0, 2), i(JMP | JSET | X, 1, 0, 0), i(RET | K, 0, 0, 0), i(RET | K, 0, 0, 7)];
    assert_eq!(run_on(jset, &[]), 7);
    let ja = alloc::vec![i(JMP | JA, 0, 0, 1), i(RET | K, 0, 0, 0), i(MISC | TAX, 0, 0, 0), i(RET | K, 0, 0, 3)];
    assert_eq!(run_on(ja, &[]), 3);
}

#[test]
fn ancillary_loads() {
    let anc = |n| run_on(alloc::vec![i(LD | W | ABS, 0, 0, SKF_AD_OFF + n), ret_a()], &[]);
    assert_eq!(anc(0), 0x0800);
    assert_eq!(anc(8), 1);
    assert_eq!(anc(28), 772);
    assert_eq!(anc(36), 3);
    assert_eq!(anc(56), 4);
    assert_eq!(anc(20), 0); // mark
    // No device (AF_UNIX): the program ends there with A.
    let unix = Facts { device: None, ..FACTS };
    let f = Filter::new(alloc::vec![i(LD | IMM, 0, 0, 77), i(LD | W | ABS, 0, 0, SKF_AD_OFF + 8), i(RET | K, 0, 0, 1)]).unwrap();
    assert_eq!(run(&f, &Packet { data: &[], net: &[] }, &unix), 77);
    let xor = alloc::vec![i(LD | IMM, 0, 0, 0xf0), i(LDX | IMM, 0, 0, 0xff), i(LD | W | ABS, 0, 0, SKF_AD_OFF + 40), ret_a()];
    assert_eq!(run_on(xor, &[]), 0x0f);
}

#[test]
fn a_udp_port_filter_from_x_net_bpf() {
    // bpf.Assemble of: LoadAbsolute{Off: 8, Size: 1}; JumpIf{Cond: JumpEqual,
    // Val: 'K', SkipFalse: 1}; RetConstant{Val: 4096}; RetConstant{Val: 0}.
    let raw: [[u8; 8]; 4] = [[0x30, 0, 0, 0, 8, 0, 0, 0], [0x15, 0, 0, 1, b'K', 0, 0, 0], [0x06, 0, 0, 0, 0, 0x10, 0, 0], [0x06, 0, 0, 0, 0, 0, 0, 0]];
    let f = Filter::new(raw.iter().map(|b| Insn::decode(b)).collect()).unwrap();
    let (keep, _) = udp(b"Keep");
    let (drop, _) = udp(b"drop");
    assert_eq!(run(&f, &Packet { data: &keep, net: &keep }, &FACTS), 4096);
    assert_eq!(run(&f, &Packet { data: &drop, net: &drop }, &FACTS), 0);
}

#[test]
fn udp_packets_as_a_filter_sees_them() {
    let mut src = [0u8; 16];
    src[10..].copy_from_slice(&[0xff, 0xff, 10, 0, 2, 2]);
    let mut dst = src;
    dst[15] = 15;
    let p = udp_packet(true, &src, &dst, (1000, 53), 0x10, 63, b"hi");
    assert_eq!(p.len(), 20 + 8 + 2);
    assert_eq!(&p[..2], &[0x45, 0x10]);
    assert_eq!(p[8], 63);
    assert_eq!(p[9], 17);
    assert_eq!(crate::net::icmp::checksum(&p[..20]), 0); // a valid header sums to 0
    assert_eq!(&p[12..20], &[10, 0, 2, 2, 10, 0, 2, 15]);
    assert_eq!(&p[20..28], &[0x03, 0xe8, 0, 53, 0, 10, 0, 0]);
    let v6 = udp_packet(false, &[1; 16], &[2; 16], (1, 2), 0, 64, b"");
    assert_eq!(v6.len(), 48);
    assert_eq!(&v6[..8], &[0x60, 0, 0, 0, 0, 8, 17, 64]);
}

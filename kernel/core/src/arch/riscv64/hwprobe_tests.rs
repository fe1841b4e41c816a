//! Host tests of hwprobe.rs: ISA strings as QEMU and boards write them, and
//! the answers Linux 6.11 gives for them.

use super::*;

/// QEMU 7.2's `virt` default CPU (its device tree's riscv,isa).
const QEMU_72: &str = "rv64imafdch_zicsr_zifencei_zihintpause_zba_zbb_zbc_zbs_sstc";

const ZBA: u64 = 1 << 3;
const ZBB: u64 = 1 << 4;
const ZBS: u64 = 1 << 5;
const ZICBOZ: u64 = 1 << 6;
const ZBC: u64 = 1 << 7;
const ZIHINTPAUSE: u64 = 1 << 36;
const ZCA: u64 = 1 << 43;
const ZCD: u64 = 1 << 45;

fn machine(harts: &[Hart]) -> Machine<'_> {
    Machine { harts, online: (1 << harts.len()) - 1, timebase_hz: 10_000_000, user_end: 0x40_0000_0000 }
}

#[test]
fn qemu_72_default_cpu() {
    let h = parse_isa(QEMU_72).unwrap();
    let harts = [h; 4];
    let m = machine(&harts);
    let (key, value) = m.answer(KEY_IMA_EXT_0, 0b1111);
    assert_eq!(key, KEY_IMA_EXT_0);
    assert_eq!(value, IMA_FD | IMA_C | ZBA | ZBB | ZBS | ZBC | ZIHINTPAUSE | ZCA | ZCD);
    assert_eq!(m.answer(KEY_BASE_BEHAVIOR, 1), (KEY_BASE_BEHAVIOR, BASE_BEHAVIOR_IMA));
    assert_eq!(m.answer(KEY_TIME_CSR_FREQ, 1), (KEY_TIME_CSR_FREQ, 10_000_000));
    assert_eq!(m.answer(KEY_HIGHEST_VIRT_ADDRESS, 1), (KEY_HIGHEST_VIRT_ADDRESS, 0x40_0000_0000));
    assert_eq!(m.answer(KEY_CPUPERF_0, 1), (KEY_CPUPERF_0, MISALIGNED_UNKNOWN));
    assert_eq!(m.answer(KEY_MISALIGNED_SCALAR_PERF, 1), (KEY_MISALIGNED_SCALAR_PERF, MISALIGNED_UNKNOWN));
}

#[test]
fn versions_and_case_are_ignored() {
    let a = parse_isa("RV64I2P1M2P0A2P1F2P2D2P2C2P0_ZICSR2P0_ZBA1P0_ZBB1P0").unwrap();
    let b = parse_isa("rv64imafdc_zicsr_zba_zbb").unwrap();
    assert_eq!(a, b);
    assert_eq!(a.ext, ZBA | ZBB | ZCA | ZCD);
}

#[test]
fn g_and_bundles_expand() {
    let h = parse_isa("rv64gc_zk_zfh").unwrap();
    assert_eq!(h, parse_isa("rv64imafdc_zbkb_zbkc_zbkx_zkne_zknd_zknh_zkt_zfh_zfhmin").unwrap());
    assert_eq!(parse_isa("rv64imafdcb").unwrap().ext & (ZBA | ZBB | ZBS), ZBA | ZBB | ZBS);
}

#[test]
fn not_rv64_is_refused() {
    assert_eq!(parse_isa("rv32imafdc"), None);
    assert_eq!(parse_isa(""), None);
}

#[test]
fn the_extensions_list_reads_the_same() {
    let list = parse_extension_list(["i", "m", "a", "f", "d", "c", "h", "zicsr", "zifencei", "zihintpause", "zba", "zbb", "zbc", "zbs", "sstc"]);
    assert_eq!(list, parse_isa(QEMU_72).unwrap());
}

#[test]
fn vector_and_zicboz_are_never_reported() {
    // A CPU with V and Zicboz (QEMU -cpu rv64,v=true,zicboz=true).
    let h = parse_isa("rv64imafdcv_zicboz_zve32f_zve64d_zvbb_zba").unwrap();
    let harts = [h];
    let v = machine(&harts).answer(KEY_IMA_EXT_0, 1).1;
    assert_eq!(v, IMA_FD | IMA_C | ZBA | ZCA | ZCD, "{v:#x}");
    assert_eq!(v & (IMA_V | ZICBOZ), 0);
    assert_eq!(machine(&harts).answer(KEY_ZICBOZ_BLOCK_SIZE, 1), (KEY_ZICBOZ_BLOCK_SIZE, 0));
}

#[test]
fn extensions_only_where_every_cpu_of_the_set_has_them() {
    let with = parse_isa("rv64imafdc_zba_zbb").unwrap();
    let without = parse_isa("rv64imafdc_zba").unwrap();
    let harts = [with, without];
    let m = machine(&harts);
    assert_eq!(m.answer(KEY_IMA_EXT_0, 0b01).1 & (ZBA | ZBB), ZBA | ZBB);
    assert_eq!(m.answer(KEY_IMA_EXT_0, 0b10).1 & (ZBA | ZBB), ZBA);
    assert_eq!(m.answer(KEY_IMA_EXT_0, 0b11).1 & (ZBA | ZBB), ZBA);
    // WHICH_CPUS: who has Zbb? Only CPU 0. Who has Zba? Both.
    assert_eq!(m.cpus_matching(KEY_IMA_EXT_0, ZBB, 0b11), 0b01);
    assert_eq!(m.cpus_matching(KEY_IMA_EXT_0, ZBA, 0b11), 0b11);
    assert_eq!(m.cpus_matching(KEY_IMA_EXT_0, ZBA, 0b10), 0b10);
}

#[test]
fn fd_and_c_come_from_every_cpu() {
    // Linux reads FD and C from the ISA common to all harts, whatever the set.
    let harts = [parse_isa("rv64imafdc").unwrap(), parse_isa("rv64imac").unwrap()];
    let m = machine(&harts);
    assert_eq!(m.answer(KEY_IMA_EXT_0, 0b01).1 & (IMA_FD | IMA_C), IMA_C);
}

#[test]
fn ids_agree_or_are_minus_one() {
    let mut a = parse_isa("rv64gc").unwrap();
    a.ids = [0, 0x70216, 0x70216];
    let mut b = a;
    b.ids[2] = 1;
    let harts = [a, b];
    let m = machine(&harts);
    assert_eq!(m.answer(KEY_MARCHID, 0b11), (KEY_MARCHID, 0x70216));
    assert_eq!(m.answer(KEY_MIMPID, 0b11), (KEY_MIMPID, u64::MAX));
    assert_eq!(m.answer(KEY_MIMPID, 0b10), (KEY_MIMPID, 1));
    assert_eq!(m.cpus_matching(KEY_MIMPID, 0x70216, 0b11), 0b01);
}

#[test]
fn offline_cpus_are_not_asked() {
    let harts = [parse_isa("rv64imafdc_zbb").unwrap(), parse_isa("rv64imafdc").unwrap()];
    let m = Machine { online: 0b01, ..machine(&harts) };
    assert_eq!(m.answer(KEY_IMA_EXT_0, 0b11).1 & ZBB, ZBB, "CPU 1 is not online");
    assert_eq!(m.cpus_matching(KEY_IMA_EXT_0, ZBB, 0b11), 0b01);
}

#[test]
fn unknown_keys_come_back_as_minus_one() {
    let harts = [parse_isa("rv64gc").unwrap()];
    let m = machine(&harts);
    assert_eq!(m.answer(10, 1), (-1, 0));
    assert_eq!(m.answer(-5, 1), (-1, 0));
    assert_eq!(m.answer(1 << 40, 1), (-1, 0));
    assert!(key_is_valid(0) && key_is_valid(MAX_KEY));
    assert!(!key_is_valid(-1) && !key_is_valid(MAX_KEY + 1));
}

//! Classic BPF socket filters (SO_ATTACH_FILTER): the instruction format
//! and Linux's checks of a program before it is attached
//! (net/core/filter.c: `bpf_check_basics_ok`, `chk_code_allowed`,
//! `bpf_check_classic`, `check_load_and_stores`). cbpfrun.rs runs a
//! checked program over a packet.
//!
//! Hand-written: crates.io has no fitting crate. `bpf` and `classic_bpf`
//! only build programs and attach them through libc on a host kernel;
//! `tk-axcbpf` (a no_std verifier and interpreter) is a single 0.1.0
//! release that needs a nightly compiler (rust-version 1.100), where this
//! kernel is pinned to stable 1.95, and it does not follow Linux's rules
//! (scratch memory read before written, ancillary loads).
//!
//! What Linux refuses with EINVAL, so do we: no instructions or more than
//! 4,096; an opcode outside Linux's list (e.g. `ret x`, `neg x`); a
//! division or remainder by a constant 0; a shift by a constant of 32 or
//! more; scratch memory M[k] with k ≥ 16, or read on some path before it
//! was written; a jump that is not forward or lands past the end; a last
//! instruction that is not a return; an absolute load at or above
//! SKF_AD_OFF that is not an ancillary load gometal offers (see `Anc`).

use crate::linux::errno::{Errno, EINVAL};
use alloc::vec::Vec;

/// BPF_MAXINSNS.
pub const MAX_INSNS: usize = 4096;
/// BPF_MEMWORDS: scratch memory M[0..16).
pub const MEM_WORDS: usize = 16;
/// The size of one `struct sock_filter`.
pub const INSN_BYTES: usize = 8;

// Instruction classes, sizes, modes, operations and sources (linux/bpf_common.h).
pub const LD: u16 = 0x00;
pub const LDX: u16 = 0x01;
pub const ST: u16 = 0x02;
pub const STX: u16 = 0x03;
pub const ALU: u16 = 0x04;
pub const JMP: u16 = 0x05;
pub const RET: u16 = 0x06;
pub const MISC: u16 = 0x07;
pub const W: u16 = 0x00;
pub const H: u16 = 0x08;
pub const B: u16 = 0x10;
pub const IMM: u16 = 0x00;
pub const ABS: u16 = 0x20;
pub const IND: u16 = 0x40;
pub const MEM: u16 = 0x60;
pub const LEN: u16 = 0x80;
pub const MSH: u16 = 0xa0;
pub const ADD: u16 = 0x00;
pub const SUB: u16 = 0x10;
pub const MUL: u16 = 0x20;
pub const DIV: u16 = 0x30;
pub const OR: u16 = 0x40;
pub const AND: u16 = 0x50;
pub const LSH: u16 = 0x60;
pub const RSH: u16 = 0x70;
pub const NEG: u16 = 0x80;
pub const MOD: u16 = 0x90;
pub const XOR: u16 = 0xa0;
pub const JA: u16 = 0x00;
pub const JEQ: u16 = 0x10;
pub const JGT: u16 = 0x20;
pub const JGE: u16 = 0x30;
pub const JSET: u16 = 0x40;
pub const K: u16 = 0x00;
pub const X: u16 = 0x08;
/// RET's source: the accumulator.
pub const RET_A: u16 = 0x10;
pub const TAX: u16 = 0x00;
pub const TXA: u16 = 0x80;

/// Where ancillary data starts among absolute load offsets (SKF_AD_OFF, -0x1000).
pub const SKF_AD_OFF: u32 = 0xffff_f000;
/// Loads relative to the network header (SKF_NET_OFF, -0x100000).
pub const SKF_NET_OFF: u32 = 0xfff0_0000;
/// Loads relative to the link-layer header (SKF_LL_OFF, -0x200000).
pub const SKF_LL_OFF: u32 = 0xffe0_0000;

/// One instruction, `struct sock_filter`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Insn {
    pub code: u16,
    pub jt: u8,
    pub jf: u8,
    pub k: u32,
}

impl Insn {
    /// From its 8 bytes in memory (little-endian, as on both our targets).
    pub fn decode(b: &[u8]) -> Insn {
        let at = |i: usize| b.get(i).copied().unwrap_or(0);
        Insn { code: u16::from_le_bytes([at(0), at(1)]), jt: at(2), jf: at(3), k: u32::from_le_bytes([at(4), at(5), at(6), at(7)]) }
    }

    pub fn encode(&self) -> [u8; INSN_BYTES] {
        let c = self.code.to_le_bytes();
        let k = self.k.to_le_bytes();
        [c[0], c[1], self.jt, self.jf, k[0], k[1], k[2], k[3]]
    }

    fn is_cond_jump(&self) -> bool {
        self.code & 0x07 == JMP && self.code & 0xf0 != JA
    }
}

/// The ancillary loads (`ld [SKF_AD_OFF + n]`) gometal offers; each reads
/// a fact of the packet or the machine instead of packet bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anc {
    Protocol,
    PktType,
    IfIndex,
    Mark,
    Queue,
    HaType,
    RxHash,
    Cpu,
    AluXorX,
    VlanTag,
    VlanTagPresent,
    Random,
    VlanTpid,
}

impl Anc {
    /// The ancillary load at offset `k`, if it is one gometal offers. Not
    /// offered (EINVAL at attach time, where Linux accepts them):
    /// SKF_AD_NLATTR and SKF_AD_NLATTR_NEST (netlink attribute walks; no
    /// netlink socket takes filters here) and SKF_AD_PAY_OFFSET (Linux's
    /// flow dissector).
    pub fn at(k: u32) -> Option<Anc> {
        use Anc::*;
        Some(match k.wrapping_sub(SKF_AD_OFF) {
            0 => Protocol,
            4 => PktType,
            8 => IfIndex,
            20 => Mark,
            24 => Queue,
            28 => HaType,
            32 => RxHash,
            36 => Cpu,
            40 => AluXorX,
            44 => VlanTag,
            48 => VlanTagPresent,
            56 => Random,
            60 => VlanTpid,
            _ => return None,
        })
    }
}

/// Linux's list of the opcodes a classic program may use (chk_code_allowed).
pub fn code_allowed(code: u16) -> bool {
    let alu_ops = [ADD, SUB, MUL, DIV, MOD, AND, OR, XOR, LSH, RSH];
    match code & 0x07 {
        ALU => code == ALU | NEG || (alu_ops.contains(&(code & 0xf0)) && code & !0xf8 == ALU),
        LD => [W | ABS, H | ABS, B | ABS, W | LEN, W | IND, H | IND, B | IND, IMM, MEM].iter().any(|&m| code == LD | m),
        LDX => [W | LEN, B | MSH, IMM, MEM].iter().any(|&m| code == LDX | m),
        ST | STX => code & !0x07 == 0,
        MISC => code == MISC | TAX || code == MISC | TXA,
        RET => code == RET | K || code == RET | RET_A,
        JMP => code == JMP | JA || ([JEQ, JGT, JGE, JSET].contains(&(code & 0xf0)) && code & !0xf8 == JMP),
        _ => false,
    }
}

/// A program that passed Linux's checks, ready to run (cbpfrun.rs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    insns: Vec<Insn>,
}

impl Filter {
    /// Checks `insns` as Linux's sk_attach_filter does.
    pub fn new(insns: Vec<Insn>) -> Result<Filter, Errno> {
        check(&insns)?;
        Ok(Filter { insns })
    }

    /// The program as attached (SO_GET_FILTER gives it back).
    pub fn insns(&self) -> &[Insn] {
        &self.insns
    }
}

/// bpf_check_basics_ok and bpf_check_classic.
pub fn check(insns: &[Insn]) -> Result<(), Errno> {
    let n = insns.len();
    if n == 0 || n > MAX_INSNS {
        return Err(EINVAL);
    }
    for (pc, i) in insns.iter().enumerate() {
        if !code_allowed(i.code) {
            return Err(EINVAL);
        }
        let left = (n - pc - 1) as u32; // instructions after this one
        let bad = match i.code {
            c if c == ALU | DIV | K || c == ALU | MOD | K => i.k == 0,
            c if c == ALU | LSH | K || c == ALU | RSH | K => i.k >= 32,
            c if c == LD | MEM || c == LDX | MEM || c == ST || c == STX => i.k as usize >= MEM_WORDS,
            c if c == JMP | JA => i.k >= left,
            _ if i.is_cond_jump() => u32::from(i.jt) >= left || u32::from(i.jf) >= left,
            c if c == LD | W | ABS || c == LD | H | ABS || c == LD | B | ABS => i.k >= SKF_AD_OFF && Anc::at(i.k).is_none(),
            _ => false,
        };
        if bad {
            return Err(EINVAL);
        }
    }
    let last = insns[n - 1].code;
    if last != RET | K && last != RET | RET_A {
        return Err(EINVAL);
    }
    check_load_and_stores(insns)
}

/// Scratch memory may only be read where every path to the read wrote it
/// (check_load_and_stores: one bit per word, intersected where jumps meet).
fn check_load_and_stores(insns: &[Insn]) -> Result<(), Errno> {
    let mut masks: Vec<u16> = Vec::new();
    masks.try_reserve_exact(insns.len()).map_err(|_| crate::linux::errno::ENOMEM)?;
    masks.resize(insns.len(), u16::MAX);
    let mut valid: u16 = 0;
    for (pc, i) in insns.iter().enumerate() {
        valid &= masks[pc];
        match i.code {
            c if c == ST || c == STX => valid |= 1 << i.k,
            c if (c == LD | MEM || c == LDX | MEM) && valid & (1 << i.k) == 0 => return Err(EINVAL),
            c if c == JMP | JA => {
                masks[pc + 1 + i.k as usize] &= valid;
                valid = u16::MAX;
            }
            _ if i.is_cond_jump() => {
                masks[pc + 1 + i.jt as usize] &= valid;
                masks[pc + 1 + i.jf as usize] &= valid;
                valid = u16::MAX;
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "cbpf_tests.rs"]
mod tests;

//! Tests for `cbpf`: Linux's attach-time checks, each refusal shown once
//! next to the nearest program Linux accepts.

use super::*;
use crate::linux::errno::EINVAL;

fn i(code: u16, jt: u8, jf: u8, k: u32) -> Insn {
    Insn { code, jt, jf, k }
}

fn ret(k: u32) -> Insn {
    i(RET | K, 0, 0, k)
}

#[test]
fn encode_round_trips() {
    let x = i(JMP | JEQ | K, 3, 7, 0x1234_5678);
    assert_eq!(x.encode(), [0x15, 0, 3, 7, 0x78, 0x56, 0x34, 0x12]);
    assert_eq!(Insn::decode(&x.encode()), x);
}

#[test]
fn sizes() {
    assert_eq!(check(&[]), Err(EINVAL));
    assert!(check(&[ret(0)]).is_ok());
    let mut long = alloc::vec![i(LD | IMM, 0, 0, 1); MAX_INSNS - 1];
    long.push(ret(1));
    assert!(check(&long).is_ok());
    long.insert(0, i(LD | IMM, 0, 0, 1));
    assert_eq!(check(&long), Err(EINVAL));
}

#[test]
fn opcodes() {
    for ok in [0x00, 0x01, 0x02, 0x03, 0x04, 0x0c, 0x84, 0x94, 0x9c, 0xa4, 0xac, 0x20, 0x28, 0x30, 0x40, 0x48, 0x50, 0x80, 0x81, 0xb1, 0x07, 0x87, 0x06, 0x16] {
        assert!(code_allowed(ok), "{ok:#x}");
    }
    // ret x, neg x, ld [k] of size 3, ldx abs, ja x, an unknown ALU op, misc 0x17.
    for bad in [0x0e, 0x8c, 0x38, 0x21, 0x0d, 0xb4, 0x17, 0x1_06, 0x08] {
        assert!(!code_allowed(bad), "{bad:#x}");
    }
    assert_eq!(check(&[i(0x0e, 0, 0, 0)]), Err(EINVAL));
}

#[test]
fn constants_checked() {
    assert_eq!(check(&[i(ALU | DIV | K, 0, 0, 0), ret(1)]), Err(EINVAL));
    assert_eq!(check(&[i(ALU | MOD | K, 0, 0, 0), ret(1)]), Err(EINVAL));
    assert!(check(&[i(ALU | DIV | X, 0, 0, 0), ret(1)]).is_ok()); // checked when it runs
    assert_eq!(check(&[i(ALU | LSH | K, 0, 0, 32), ret(1)]), Err(EINVAL));
    assert!(check(&[i(ALU | RSH | K, 0, 0, 31), ret(1)]).is_ok());
    assert_eq!(check(&[i(ST, 0, 0, 16), ret(1)]), Err(EINVAL));
}

#[test]
fn jumps_forward_and_inside() {
    assert!(check(&[i(JMP | JA, 0, 0, 1), ret(0), ret(1)]).is_ok());
    assert_eq!(check(&[i(JMP | JA, 0, 0, 2), ret(0), ret(1)]), Err(EINVAL));
    assert_eq!(check(&[i(JMP | JA, 0, 0, u32::MAX), ret(1)]), Err(EINVAL)); // "backwards"
    assert!(check(&[i(JMP | JEQ | K, 0, 1, 5), ret(0), ret(1)]).is_ok());
    assert_eq!(check(&[i(JMP | JEQ | K, 2, 0, 5), ret(0), ret(1)]), Err(EINVAL));
    assert_eq!(check(&[i(JMP | JSET | X, 0, 2, 5), ret(0), ret(1)]), Err(EINVAL));
}

#[test]
fn ends_in_a_return() {
    assert_eq!(check(&[i(LD | IMM, 0, 0, 1)]), Err(EINVAL));
    assert!(check(&[i(LD | IMM, 0, 0, 1), i(RET | RET_A, 0, 0, 0)]).is_ok());
}

#[test]
fn ancillary_offsets() {
    let load = |k| check(&[i(LD | W | ABS, 0, 0, k), ret(1)]);
    assert!(load(SKF_AD_OFF).is_ok()); // protocol
    assert!(load(SKF_AD_OFF + 56).is_ok()); // random
    assert!(check(&[i(LD | B | ABS, 0, 0, SKF_AD_OFF + 4), ret(1)]).is_ok()); // any size
    assert_eq!(load(SKF_AD_OFF + 12), Err(EINVAL)); // NLATTR: not offered
    assert_eq!(load(SKF_AD_OFF + 52), Err(EINVAL)); // PAY_OFFSET: not offered
    assert_eq!(load(SKF_AD_OFF + 64), Err(EINVAL)); // past SKF_AD_MAX
    assert_eq!(load(SKF_AD_OFF + 2), Err(EINVAL));
    assert!(load(SKF_NET_OFF + 9).is_ok()); // a header load, not ancillary
    assert!(check(&[i(LD | W | IND, 0, 0, SKF_AD_OFF), ret(1)]).is_ok()); // indirect: never ancillary
}

#[test]
fn scratch_written_before_read() {
    assert_eq!(check(&[i(LD | MEM, 0, 0, 3), ret(1)]), Err(EINVAL));
    assert!(check(&[i(ST, 0, 0, 3), i(LDX | MEM, 0, 0, 3), ret(1)]).is_ok());
    // Written on one branch only: the read where they meet is refused.
    let one_branch = [i(JMP | JEQ | K, 0, 1, 0), i(ST, 0, 0, 2), i(LD | MEM, 0, 0, 2), ret(1)];
    assert_eq!(check(&one_branch), Err(EINVAL));
    let both = [i(STX, 0, 0, 2), i(JMP | JEQ | K, 0, 1, 0), i(ST, 0, 0, 2), i(LD | MEM, 0, 0, 2), ret(1)];
    assert!(check(&both).is_ok());
    // Past an unconditional jump only what the jump carried counts.
    let over = [i(JMP | JA, 0, 0, 1), i(ST, 0, 0, 1), i(LD | MEM, 0, 0, 1), ret(1)];
    assert_eq!(check(&over), Err(EINVAL));
}

#[test]
fn filter_keeps_the_program() {
    let prog = alloc::vec![i(LD | H | ABS, 0, 0, 2), ret(1)];
    assert_eq!(Filter::new(prog.clone()).unwrap().insns(), &prog[..]);
    assert_eq!(Filter::new(alloc::vec![i(LD | H | ABS, 0, 0, 2)]), Err(EINVAL));
}

//! riscv64's own system calls: riscv_hwprobe (258), as Linux 6.11 answers
//! it (arch/riscv/kernel/sys_hwprobe.c). What each key means, and what
//! gometal leaves out (the vector extension, Zicboz), is in
//! gometal_core::arch::riscv64::hwprobe; each hart's extensions and ids in
//! arch/riscv64/hartinfo.rs. This file copies the pairs and the CPU set in
//! and out as Linux does: pair by pair (what was answered before a fault
//! stays answered), the set clamped to the kernel's CPU-set size.

use crate::arch::riscv64::hartinfo;
use crate::linux::SysResult;
use crate::memlayout::USER_END;
use crate::mm::uaccess::{UserPtr, UserSpace, UserValue};
use crate::param::MAX_CPUS;
use crate::sched::clock;
use crate::sched::cpu::{self, Cpu, CpuState};
use alloc::vec::Vec;
use gometal_core::arch::riscv64::hwprobe::{key_is_valid, Hart, Machine, WHICH_CPUS};
use gometal_core::linux::errno::{Errno, EINVAL};

/// struct riscv_hwprobe: a key and its value.
pub struct Pair {
    key: i64,
    value: u64,
}

impl UserValue for Pair {
    const SIZE: usize = 16;
    fn decode(b: &[u8]) -> Self {
        Pair { key: i64::decode(&b[..8]), value: u64::decode(&b[8..]) }
    }
    fn encode(&self, out: &mut [u8]) {
        self.key.encode(&mut out[..8]);
        self.value.encode(&mut out[8..]);
    }
}

/// cpumask_size(): the bytes of a CPU set the kernel reads and writes.
const SET_BYTES: usize = MAX_CPUS / 8;

/// riscv_hwprobe(pairs, pair_count, cpusetsize, cpus, flags). Without
/// flags: each pair's key answered over the CPU set (NULL and 0: every
/// online CPU); with RISCV_HWPROBE_WHICH_CPUS: the set narrowed to the CPUs
/// that have every pair's value.
pub fn hwprobe(user: &mut UserSpace, pairs: UserPtr<Pair>, count: usize, setsize: usize, cpus: UserPtr<u8>, flags: u32) -> SysResult {
    let (harts, online) = harts();
    let m = Machine { harts: &harts, online, timebase_hz: clock::timebase_hz(), user_end: USER_END };
    if flags & WHICH_CPUS != 0 {
        which_cpus(user, &m, pairs, count, setsize, cpus, flags)
    } else {
        values(user, &m, pairs, count, setsize, cpus, flags)
    }
}

/// Every CPU's hart, by CPU number, and the online ones as a set.
fn harts() -> (Vec<Hart>, u64) {
    let mut online = 0;
    let harts = cpu::all()
        .iter()
        .map(|c| {
            if c.state() == CpuState::Online {
                online |= 1 << c.index();
            }
            hartinfo::hart(c.hwid(), c as *const Cpu as usize)
        })
        .collect();
    (harts, online)
}

/// The program's CPU set: its first `setsize` bytes (at most SET_BYTES).
fn read_set(user: &mut UserSpace, setsize: usize, cpus: UserPtr<u8>) -> Result<u64, Errno> {
    let n = setsize.min(SET_BYTES);
    let mut set = [0u8; 8];
    set[..n].copy_from_slice(&user.read_bytes(cpus.slice(n))?);
    Ok(u64::from_le_bytes(set))
}

fn values(user: &mut UserSpace, m: &Machine, pairs: UserPtr<Pair>, count: usize, setsize: usize, cpus: UserPtr<u8>, flags: u32) -> SysResult {
    if flags != 0 {
        return Err(EINVAL);
    }
    let set = if setsize == 0 && cpus.is_null() {
        m.online
    } else {
        match read_set(user, setsize, cpus)? & m.online {
            0 => return Err(EINVAL), // no online CPU to answer for
            s => s,
        }
    };
    for i in 0..count {
        let at = pairs.at(i).addr();
        let key = user.read(UserPtr::<i64>::new(at))?;
        let (key, value) = m.answer(key, set);
        user.write(UserPtr::<i64>::new(at), &key)?;
        user.write(UserPtr::<u64>::new(at + 8), &value)?;
    }
    Ok(0)
}

fn which_cpus(user: &mut UserSpace, m: &Machine, pairs: UserPtr<Pair>, count: usize, setsize: usize, cpus: UserPtr<u8>, flags: u32) -> SysResult {
    if flags != WHICH_CPUS || setsize == 0 || cpus.is_null() {
        return Err(EINVAL);
    }
    let mut set = match read_set(user, setsize, cpus)? {
        0 => m.online, // an empty set asks about every CPU
        s => s & m.online,
    };
    let mut unknown_key = false;
    for i in 0..count {
        let pair = user.read(pairs.at(i))?;
        if !key_is_valid(pair.key) {
            unknown_key = true;
            user.write(pairs.at(i), &Pair { key: -1, value: 0 })?;
        }
        if !unknown_key {
            set = m.cpus_matching(pair.key, pair.value, set);
        }
    }
    if unknown_key {
        set = 0; // no CPU has a value for a key Linux does not know
    }
    let n = setsize.min(SET_BYTES);
    user.write_bytes(cpus.slice(n), &set.to_le_bytes()[..n])?;
    Ok(0)
}

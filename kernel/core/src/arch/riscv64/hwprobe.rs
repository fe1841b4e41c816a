//! riscv_hwprobe (riscv64 system call 258) as Linux 6.11 answers it
//! (arch/riscv/kernel/sys_hwprobe.c, include/uapi/asm/hwprobe.h): the pure
//! part. Each hart's ISA comes from its device-tree `riscv,isa` string (or
//! `riscv,isa-extensions` list), parsed as Linux's riscv_parse_isa_string
//! does; its machine ids from the SBI. Keys 0 to 9 are answered over a set
//! of CPUs (a value only if every CPU in the set agrees; extensions only if
//! every one has them); any other key comes back as key -1, value 0.
//!
//! What gometal leaves out, as a Linux built without the support would:
//! the vector extension and everything that needs it (V, Zve*, Zv*: the
//! kernel does not enable the vector unit, and Go's bytealg uses V once it
//! is reported), and Zicboz (the kernel does not let user mode run cbo.zero:
//! senvcfg.CBZE). Misaligned-access speed is not timed (Linux times it at
//! boot): UNKNOWN, Linux's answer for a CPU it did not probe.

pub const KEY_MVENDORID: i64 = 0;
pub const KEY_MARCHID: i64 = 1;
pub const KEY_MIMPID: i64 = 2;
pub const KEY_BASE_BEHAVIOR: i64 = 3;
pub const KEY_IMA_EXT_0: i64 = 4;
pub const KEY_CPUPERF_0: i64 = 5;
pub const KEY_ZICBOZ_BLOCK_SIZE: i64 = 6;
pub const KEY_HIGHEST_VIRT_ADDRESS: i64 = 7;
pub const KEY_TIME_CSR_FREQ: i64 = 8;
pub const KEY_MISALIGNED_SCALAR_PERF: i64 = 9;
/// The highest key Linux 6.11 knows.
pub const MAX_KEY: i64 = 9;

pub const BASE_BEHAVIOR_IMA: u64 = 1;
pub const IMA_FD: u64 = 1 << 0;
pub const IMA_C: u64 = 1 << 1;
pub const IMA_V: u64 = 1 << 2;
pub const MISALIGNED_UNKNOWN: u64 = 0;

/// flags: the call asks which CPUs have the given values.
pub const WHICH_CPUS: u32 = 1;

/// The multi-letter extensions of IMA_EXT_0 (bit n = 1 << n), by name.
const EXTENSIONS: &[(&str, u32)] = &[
    ("zba", 3), ("zbb", 4), ("zbs", 5), ("zicboz", 6), ("zbc", 7), ("zbkb", 8), ("zbkc", 9), ("zbkx", 10),
    ("zknd", 11), ("zkne", 12), ("zknh", 13), ("zksed", 14), ("zksh", 15), ("zkt", 16), ("zvbb", 17),
    ("zvbc", 18), ("zvkb", 19), ("zvkg", 20), ("zvkned", 21), ("zvknha", 22), ("zvknhb", 23), ("zvksed", 24),
    ("zvksh", 25), ("zvkt", 26), ("zfh", 27), ("zfhmin", 28), ("zihintntl", 29), ("zvfh", 30), ("zvfhmin", 31),
    ("zfa", 32), ("ztso", 33), ("zacas", 34), ("zicond", 35), ("zihintpause", 36), ("zve32x", 37),
    ("zve32f", 38), ("zve64x", 39), ("zve64f", 40), ("zve64d", 41), ("zimop", 42), ("zca", 43), ("zcb", 44),
    ("zcd", 45), ("zcf", 46), ("zcmop", 47), ("zawrs", 48),
];

/// Names that stand for several extensions (Linux's superset entries).
const BUNDLES: &[(&str, &[&str])] = &[
    ("zk", &["zkn", "zkr", "zkt"]),
    ("zkn", &["zbkb", "zbkc", "zbkx", "zkne", "zknd", "zknh"]),
    ("zks", &["zbkb", "zbkc", "zbkx", "zksed", "zksh"]),
    ("zfh", &["zfhmin"]),
];

/// Everything that needs the vector unit, which gometal does not enable.
const NEEDS_VECTOR: u64 = bits(&[17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 30, 31, 37, 38, 39, 40, 41]);
/// Zicboz: cbo.zero is not enabled for user mode.
const NOT_ENABLED: u64 = 1 << 6;
/// Zcf exists on RV32 only (Linux's riscv_ext_zcf_validate).
const RV32_ONLY: u64 = 1 << 46;

const fn bits(list: &[u32]) -> u64 {
    let mut v = 0;
    let mut i = 0;
    while i < list.len() {
        v |= 1 << list[i];
        i += 1;
    }
    v
}

fn ext_bit(name: &str) -> u64 {
    EXTENSIONS.iter().find(|(n, _)| *n == name).map_or(0, |&(_, b)| 1 << b)
}

fn letter(l: char) -> u32 {
    1 << (l as u32 - 'a' as u32)
}

/// A hart as hwprobe sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hart {
    /// Single-letter extensions, bit n = 'a' + n.
    pub letters: u32,
    /// IMA_EXT_0's multi-letter bits the hart has (before filtering).
    pub ext: u64,
    /// mvendorid, marchid, mimpid.
    pub ids: [u64; 3],
}

impl Hart {
    fn has(&self, l: char) -> bool {
        self.letters & letter(l) != 0
    }

    fn add(&mut self, name: &str) {
        if let Some((_, parts)) = BUNDLES.iter().find(|(n, _)| *n == name) {
            parts.iter().for_each(|p| self.add(p));
        }
        match name.len() {
            1 => self.add_letter(name.chars().next().unwrap_or('?')),
            _ => self.ext |= ext_bit(name),
        }
    }

    fn add_letter(&mut self, l: char) {
        match l {
            'g' => "imafd".chars().for_each(|c| self.add_letter(c)),
            'b' => ["zba", "zbb", "zbs"].iter().for_each(|e| self.add(e)),
            'a'..='z' => self.letters |= letter(l),
            _ => {}
        }
    }

    /// C implies Zca, and with D Zcd (the Zc* specification, as Linux).
    fn imply(&mut self) {
        if self.has('c') {
            self.ext |= ext_bit("zca");
            if self.has('d') {
                self.ext |= ext_bit("zcd");
            }
        }
    }
}

/// A hart's extensions from its `riscv,isa` string, or None if it is not
/// RV64. Single letters come first (with optional versions, `i2p1`), then
/// `_`-separated multi-letter names (their versions stripped).
pub fn parse_isa(isa: &str) -> Option<Hart> {
    let isa = isa.to_ascii_lowercase();
    let rest = isa.strip_prefix("rv64")?;
    let mut hart = Hart::default();
    let (singles, multi) = match rest.find(['_', 'z', 's', 'x']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let mut chars = singles.chars().peekable();
    while let Some(c) = chars.next() {
        hart.add_letter(c);
        // A version: digits, optionally 'p' and more digits.
        while chars.next_if(|d| d.is_ascii_digit()).is_some() {}
        if chars.peek() == Some(&'p') {
            let mut ahead = chars.clone();
            ahead.next();
            if ahead.peek().is_some_and(|d| d.is_ascii_digit()) {
                chars = ahead;
                while chars.next_if(|d| d.is_ascii_digit()).is_some() {}
            }
        }
    }
    for name in multi.split('_').filter(|n| !n.is_empty()) {
        hart.add(strip_version(name));
    }
    hart.imply();
    Some(hart)
}

/// A multi-letter name without its version ("zba1p0" → "zba"): trailing
/// digits, and a 'p' with digits before them.
fn strip_version(name: &str) -> &str {
    let trimmed = name.trim_end_matches(|c: char| c.is_ascii_digit());
    if trimmed.len() == name.len() {
        return name;
    }
    match trimmed.strip_suffix('p') {
        Some(before) if before.ends_with(|c: char| c.is_ascii_digit()) => before.trim_end_matches(|c: char| c.is_ascii_digit()),
        _ => trimmed,
    }
}

/// A hart's extensions from `riscv,isa-extensions` (one name each).
pub fn parse_extension_list<'a>(names: impl IntoIterator<Item = &'a str>) -> Hart {
    let mut hart = Hart::default();
    for n in names {
        hart.add(&n.to_ascii_lowercase());
    }
    hart.imply();
    hart
}

/// The machine hwprobe describes: `harts[i]` is CPU i (gometal's CPU
/// numbers, as sched_getaffinity's mask has them), `online` one bit each.
pub struct Machine<'a> {
    pub harts: &'a [Hart],
    pub online: u64,
    pub timebase_hz: u64,
    /// One past the highest user address (Linux: TASK_SIZE).
    pub user_end: u64,
}

impl Machine<'_> {
    fn in_set(&self, cpus: u64) -> impl Iterator<Item = &Hart> + '_ {
        let set = cpus & self.online;
        self.harts.iter().enumerate().filter(move |(i, _)| *i < 64 && set & (1 << i) != 0).map(|(_, h)| h)
    }

    fn all(&self) -> impl Iterator<Item = &Hart> + '_ {
        self.in_set(u64::MAX)
    }

    /// IMA_EXT_0 over `cpus`: FD and C from every hart the kernel runs on
    /// (Linux's riscv_isa), the rest only if every CPU of the set has it.
    fn ext0(&self, cpus: u64) -> u64 {
        let mut value = 0;
        let fpu = self.all().all(|h| h.has('f') || h.has('d'));
        if fpu {
            value |= IMA_FD;
        }
        if self.all().all(|h| h.has('c')) {
            value |= IMA_C;
        }
        let mut exts = u64::MAX;
        for h in self.in_set(cpus) {
            exts &= h.ext;
        }
        let mut hide = NEEDS_VECTOR | NOT_ENABLED | RV32_ONLY;
        if !fpu {
            hide |= ext_bit("zcd") | ext_bit("zcf") | ext_bit("zfa") | ext_bit("zfh") | ext_bit("zfhmin");
        }
        value | (exts & !hide & !(IMA_FD | IMA_C | IMA_V))
    }

    /// One id (0, 1, 2) if every CPU of the set has the same, else -1.
    fn id(&self, which: usize, cpus: u64) -> u64 {
        let mut ids = self.in_set(cpus).map(|h| h.ids[which]);
        let first = ids.next().unwrap_or(u64::MAX);
        if ids.all(|v| v == first) {
            first
        } else {
            u64::MAX
        }
    }

    /// The (key, value) Linux writes back for `key` over `cpus`.
    pub fn answer(&self, key: i64, cpus: u64) -> (i64, u64) {
        let value = match key {
            KEY_MVENDORID | KEY_MARCHID | KEY_MIMPID => self.id(key as usize, cpus),
            KEY_BASE_BEHAVIOR => BASE_BEHAVIOR_IMA,
            KEY_IMA_EXT_0 => self.ext0(cpus),
            KEY_CPUPERF_0 | KEY_MISALIGNED_SCALAR_PERF => MISALIGNED_UNKNOWN,
            KEY_ZICBOZ_BLOCK_SIZE => 0, // Zicboz is not reported
            KEY_HIGHEST_VIRT_ADDRESS => self.user_end,
            KEY_TIME_CSR_FREQ => self.timebase_hz,
            _ => return (-1, 0),
        };
        (key, value)
    }

    /// RISCV_HWPROBE_WHICH_CPUS for one pair: the CPUs of `cpus` whose own
    /// answer has the pair's value (for the bitmask keys, every bit of it).
    pub fn cpus_matching(&self, key: i64, value: u64, cpus: u64) -> u64 {
        let mut keep = 0;
        for i in 0..self.harts.len().min(64) {
            let one = 1 << i;
            if cpus & self.online & one == 0 {
                continue;
            }
            let (k, v) = self.answer(key, one);
            let bitmask = matches!(key, KEY_BASE_BEHAVIOR | KEY_IMA_EXT_0 | KEY_CPUPERF_0);
            if k == key && (if bitmask { v & value == value } else { v == value }) {
                keep |= one;
            }
        }
        keep
    }
}

/// Whether Linux knows `key` (WHICH_CPUS clears the whole set otherwise).
pub fn key_is_valid(key: i64) -> bool {
    (0..=MAX_KEY).contains(&key)
}

#[cfg(test)]
#[path = "hwprobe_tests.rs"]
mod tests;

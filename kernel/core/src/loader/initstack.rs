//! The initial user stack of a new process, laid out as Linux does and as
//! Go's `_rt0_riscv64_linux` reads it: argc at sp, then argv pointers, NULL,
//! envp pointers, NULL, the auxiliary vector (tag, value) pairs ending in
//! AT_NULL, and above all that the argument/environment strings and the 16
//! AT_RANDOM bytes. `build` returns the bytes to copy to [sp, stack_top); the
//! pointers inside are already the final user addresses.

use alloc::vec::Vec;

pub const AT_NULL: u64 = 0;
pub const AT_PHDR: u64 = 3;
pub const AT_PHENT: u64 = 4;
pub const AT_PHNUM: u64 = 5;
pub const AT_PAGESZ: u64 = 6;
pub const AT_ENTRY: u64 = 9;
pub const AT_UID: u64 = 11;
pub const AT_EUID: u64 = 12;
pub const AT_GID: u64 = 13;
pub const AT_EGID: u64 = 14;
/// More HWCAP bits (aarch64 has them; riscv64 Linux does not send it).
pub const AT_HWCAP2: u64 = 26;
pub const AT_HWCAP: u64 = 16;
pub const AT_CLKTCK: u64 = 17;
pub const AT_SECURE: u64 = 23;
pub const AT_RANDOM: u64 = 25;
pub const AT_EXECFN: u64 = 31;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitStack {
    /// The user sp at entry; 16-byte aligned as the RISC-V psABI requires.
    pub sp: u64,
    /// Bytes to copy to [sp, stack_top).
    pub image: Vec<u8>,
}

/// Lays out the initial stack below `stack_top` (which must be 16-aligned).
/// AT_RANDOM and AT_EXECFN are appended to `auxv`, then AT_NULL.
pub fn build(
    stack_top: u64,
    argv: &[&[u8]],
    envp: &[&[u8]],
    auxv: &[(u64, u64)],
    random: [u8; 16],
) -> InitStack {
    // The random bytes sit at the very top; Go writes to them, which is
    // fine because they belong to the process.
    let random_addr = stack_top - 16;
    let strings_len: u64 = argv.iter().chain(envp).map(|s| s.len() as u64 + 1).sum();
    let strings_addr = random_addr - strings_len;

    let mut string_ptrs = Vec::with_capacity(argv.len() + envp.len());
    let mut strings = Vec::with_capacity(strings_len as usize);
    for s in argv.iter().chain(envp) {
        string_ptrs.push(strings_addr + strings.len() as u64);
        strings.extend_from_slice(s);
        strings.push(0);
    }
    let (argv_ptrs, envp_ptrs) = string_ptrs.split_at(argv.len());
    let execfn = argv_ptrs.first().copied().unwrap_or(0);

    let mut words: Vec<u64> = Vec::new();
    words.push(argv.len() as u64);
    words.extend_from_slice(argv_ptrs);
    words.push(0);
    words.extend_from_slice(envp_ptrs);
    words.push(0);
    for &(tag, value) in auxv
        .iter()
        .chain(&[(AT_RANDOM, random_addr), (AT_EXECFN, execfn)])
    {
        words.extend_from_slice(&[tag, value]);
    }
    words.extend_from_slice(&[AT_NULL, 0]);

    let sp = (strings_addr - words.len() as u64 * 8) & !15;
    let mut image = Vec::with_capacity((stack_top - sp) as usize);
    for w in &words {
        image.extend_from_slice(&w.to_le_bytes());
    }
    // Padding between the vectors and the strings (alignment slack).
    image.resize((strings_addr - sp) as usize, 0);
    image.extend_from_slice(&strings);
    image.extend_from_slice(&random);
    InitStack { sp, image }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOP: u64 = 0x3f_ffff_f000;

    /// Reads the image as user memory would appear at [sp, TOP).
    struct View<'a>(&'a InitStack);

    impl View<'_> {
        fn word(&self, addr: u64) -> u64 {
            let off = (addr - self.0.sp) as usize;
            u64::from_le_bytes(self.0.image[off..off + 8].try_into().unwrap())
        }

        fn cstr(&self, addr: u64) -> &[u8] {
            assert!(
                addr >= self.0.sp && addr < TOP,
                "pointer {addr:#x} outside stack"
            );
            let off = (addr - self.0.sp) as usize;
            let len = self.0.image[off..].iter().position(|&b| b == 0).unwrap();
            &self.0.image[off..off + len]
        }
    }

    /// (argv, envp, auxv) as read back from the image.
    type Decoded = (Vec<Vec<u8>>, Vec<Vec<u8>>, Vec<(u64, u64)>);

    fn decode(st: &InitStack) -> Decoded {
        let v = View(st);
        let mut at = st.sp;
        let argc = v.word(at);
        at += 8;
        let mut argv = Vec::new();
        for _ in 0..argc {
            argv.push(v.cstr(v.word(at)).to_vec());
            at += 8;
        }
        assert_eq!(v.word(at), 0);
        at += 8;
        let mut envp = Vec::new();
        while v.word(at) != 0 {
            envp.push(v.cstr(v.word(at)).to_vec());
            at += 8;
        }
        at += 8;
        let mut auxv = Vec::new();
        loop {
            let (tag, val) = (v.word(at), v.word(at + 8));
            at += 16;
            if tag == AT_NULL {
                break;
            }
            auxv.push((tag, val));
        }
        (argv, envp, auxv)
    }

    #[test]
    fn round_trip() {
        let random = *b"0123456789abcdef";
        let aux = [(AT_PAGESZ, 4096), (AT_PHDR, 0x10040), (AT_PHNUM, 7)];
        let st = build(
            TOP,
            &[b"/init", b"-v", b""],
            &[b"A=1", b"GOGC=off"],
            &aux,
            random,
        );
        assert_eq!(st.sp % 16, 0);
        assert_eq!(st.sp + st.image.len() as u64, TOP);
        let (argv, envp, auxv) = decode(&st);
        assert_eq!(argv, vec![b"/init".to_vec(), b"-v".to_vec(), b"".to_vec()]);
        assert_eq!(envp, vec![b"A=1".to_vec(), b"GOGC=off".to_vec()]);
        assert_eq!(&auxv[..3], &aux);
        assert_eq!(auxv.len(), 5);
        let v = View(&st);
        let (tag, rnd) = auxv[3];
        assert_eq!(tag, AT_RANDOM);
        assert_eq!(rnd, TOP - 16);
        let off = (rnd - st.sp) as usize;
        assert_eq!(&st.image[off..off + 16], &random);
        assert_eq!(auxv[4].0, AT_EXECFN);
        assert_eq!(v.cstr(auxv[4].1), b"/init");
        assert_eq!(auxv[4].1, v.word(st.sp + 8));
    }

    #[test]
    fn alignment_for_every_string_length() {
        for extra in 0..40usize {
            let arg = vec![b'x'; extra];
            let st = build(TOP, &[b"/init", &arg], &[], &[(AT_PAGESZ, 4096)], [7; 16]);
            assert_eq!(st.sp % 16, 0, "extra {extra}");
            let (argv, envp, auxv) = decode(&st);
            assert_eq!(argv[1], arg);
            assert!(envp.is_empty());
            assert_eq!(auxv[0], (AT_PAGESZ, 4096));
        }
    }

    #[test]
    fn empty_argv_and_envp() {
        let st = build(TOP, &[], &[], &[], [0; 16]);
        let (argv, envp, auxv) = decode(&st);
        assert!(argv.is_empty() && envp.is_empty());
        assert_eq!(auxv, vec![(AT_RANDOM, TOP - 16), (AT_EXECFN, 0)]);
    }
}

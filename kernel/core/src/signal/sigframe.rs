//! What every 64-bit Linux signal frame shares (asm-generic): the 128-byte
//! siginfo, then a ucontext whose head is uc_flags, uc_link, stack_t
//! (24 B) and a sigset of which Linux uses 8 B and reserves 128; the
//! architecture's mcontext (registers) follows at `MCONTEXT`, 16-aligned.
//! riscv64 and aarch64 both lay out rt_sigframe this way; each arch's
//! sigframe.rs (arch/<arch>/) writes its registers after this head.

pub const SI_SIGNO: usize = 0;
pub const SI_ERRNO: usize = 4;
pub const SI_CODE: usize = 8;
/// si_pid (u32) for sent signals, si_addr (u64) for faults.
pub const SI_PID: usize = 16;
pub const SI_ADDR: usize = 16;
pub const SI_UID: usize = 20;
/// For timers (SI_TIMER): si_tid, si_overrun, then the sigval.
pub const SI_TIMERID: usize = 16;
pub const SI_OVERRUN: usize = 20;
pub const SI_VALUE: usize = 24;
pub const SIGINFO_SIZE: usize = 128;

pub const UCONTEXT: usize = 128;
pub const UC_FLAGS: usize = 128;
pub const UC_LINK: usize = 136;
pub const UC_STACK_SP: usize = 144;
pub const UC_STACK_FLAGS: usize = 152;
pub const UC_STACK_SIZE: usize = 160;
pub const UC_SIGMASK: usize = 168;
/// uc_mcontext: after the 128-byte sigset area (168 + 128 = 296), aligned
/// to 16 as both ABIs' sigcontext is.
pub const MCONTEXT: usize = 304;
const _: () = assert!(MCONTEXT.is_multiple_of(16) && MCONTEXT >= UC_SIGMASK + 128);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SigInfo {
    pub signo: i32,
    pub code: i32,
    /// The sender's pid, or the faulting address when `addr_is_fault`.
    pub pid_or_addr: u64,
    /// si_uid; for a timer (SI_TIMER) the overrun count.
    pub uid: u32,
    pub addr_is_fault: bool,
    /// si_value: a timer's sigev_value (0 for other signals).
    pub value: u64,
}

/// The thread's alternate signal stack as uc_stack reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StackT {
    pub sp: u64,
    pub flags: i32,
    pub size: u64,
}

pub fn put_u32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

pub fn put_u64(buf: &mut [u8], at: usize, v: u64) {
    buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

pub fn get_u32(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
}

pub fn get_u64(buf: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&buf[at..at + 8]);
    u64::from_le_bytes(b)
}

/// Zeroes `buf` and writes the siginfo and the ucontext head.
pub fn write_head(buf: &mut [u8], info: &SigInfo, blocked_mask: u64, altstack: StackT) {
    buf.fill(0);
    put_u32(buf, SI_SIGNO, info.signo as u32);
    put_u32(buf, SI_CODE, info.code as u32);
    if info.addr_is_fault {
        put_u64(buf, SI_ADDR, info.pid_or_addr);
    } else {
        put_u32(buf, SI_PID, info.pid_or_addr as u32);
        put_u32(buf, SI_UID, info.uid);
        put_u64(buf, SI_VALUE, info.value);
    }
    put_u64(buf, UC_STACK_SP, altstack.sp);
    put_u32(buf, UC_STACK_FLAGS, altstack.flags as u32);
    put_u64(buf, UC_STACK_SIZE, altstack.size);
    put_u64(buf, UC_SIGMASK, blocked_mask);
}

/// The signal mask saved in (and perhaps edited by the handler in) a frame.
pub fn read_mask(buf: &[u8]) -> u64 {
    get_u64(buf, UC_SIGMASK)
}

/// Where a frame of `size` bytes goes below `top`: 16-aligned, as both
/// psABIs require for sp.
pub fn frame_sp(top: u64, size: usize) -> u64 {
    (top - size as u64) & !15
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn siginfo_and_ucontext_head() {
        let mut buf = [0xaau8; 400];
        let tkill = SigInfo { signo: 23, code: -6, pid_or_addr: 1, uid: 0, addr_is_fault: false, value: 0 };
        write_head(&mut buf, &tkill, !0, StackT { sp: 0x7000_0000, flags: 0, size: 32768 });
        assert_eq!(get_u32(&buf, 0), 23);
        assert_eq!(get_u32(&buf, 4), 0);
        assert_eq!(get_u32(&buf, 8) as i32, -6);
        assert_eq!(get_u32(&buf, 16), 1);
        assert_eq!(get_u32(&buf, 20), 0);
        assert_eq!(get_u64(&buf, 128), 0); // uc_flags
        assert_eq!(get_u64(&buf, 136), 0); // uc_link
        assert_eq!(get_u64(&buf, 144), 0x7000_0000);
        assert_eq!(get_u32(&buf, 152), 0);
        assert_eq!(get_u64(&buf, 160), 32768);
        assert_eq!(read_mask(&buf), !0);
        assert_eq!(get_u64(&buf, 176), 0); // unused part of the sigset
        let fault = SigInfo { signo: 11, code: 1, pid_or_addr: 0xdead_beef_0008, uid: 0, addr_is_fault: true, value: 0 };
        write_head(&mut buf, &fault, 0, StackT { sp: 0, flags: 2, size: 0 });
        assert_eq!(get_u64(&buf, 16), 0xdead_beef_0008);
        assert_eq!(get_u32(&buf, 152), 2);
    }

    #[test]
    fn frame_sp_is_aligned_below_top() {
        assert_eq!(frame_sp(0x10000, 1088), 0x10000 - 1088);
        let sp = frame_sp(0x10008, 1088);
        assert_eq!(sp % 16, 0);
        assert!(sp + 1088 <= 0x10008);
    }
}

//! The riscv64 signal frame (Linux's struct rt_sigframe: siginfo, then
//! ucontext) that the kernel writes on the thread's alternate stack before
//! running a handler, and reads back in rt_sigreturn. Go's handler reads
//! and edits it through its own structs (runtime/defs_linux_riscv64.go:
//! siginfo, ucontext, sigcontext), so every offset below must match those:
//! ucontext = uc_flags, uc_link, stack_t (24 B), sigset (8 B) + 120 B unused,
//! then 8 B of padding to the 16-aligned mcontext = 32 x-registers (x0's
//! slot holds pc) and a 528-byte FP union of which Linux fills the D view
//! (f0..f31, then fcsr). 128 + 960 = 1088 bytes.

pub const FRAME_SIZE: usize = 1088;

pub const SI_SIGNO: usize = 0;
pub const SI_ERRNO: usize = 4;
pub const SI_CODE: usize = 8;
/// si_pid (u32) for sent signals, si_addr (u64) for faults.
pub const SI_PID: usize = 16;
pub const SI_ADDR: usize = 16;
pub const SI_UID: usize = 20;
pub const SIGINFO_SIZE: usize = 128;

pub const UCONTEXT: usize = 128;
pub const UC_FLAGS: usize = 128;
pub const UC_LINK: usize = 136;
pub const UC_STACK_SP: usize = 144;
pub const UC_STACK_FLAGS: usize = 152;
pub const UC_STACK_SIZE: usize = 160;
pub const UC_SIGMASK: usize = 168;
/// sc_regs: pc, then x1..x31 (ra, sp, gp, tp, t0, ...).
pub const MC_PC: usize = 304;
pub const MC_X: usize = 304;
pub const MC_F: usize = 560;
pub const MC_FCSR: usize = 816;

/// The registers of an interrupted user thread.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserContext {
    pub pc: u64,
    /// x[0] is unused (always zero).
    pub x: [u64; 32],
    /// f0..f31 as raw bits (D extension).
    pub f: [u64; 32],
    pub fcsr: u32,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SigInfo {
    pub signo: i32,
    pub code: i32,
    /// The sender's pid, or the faulting address when `addr_is_fault`.
    pub pid_or_addr: u64,
    pub uid: u32,
    pub addr_is_fault: bool,
}

fn put_u32(buf: &mut [u8], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_u64(buf: &mut [u8], at: usize, v: u64) {
    buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn get_u32(buf: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
}

fn get_u64(buf: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&buf[at..at + 8]);
    u64::from_le_bytes(b)
}

/// Fills `buf` with a complete frame; bytes not named here are zero.
/// `altstack` is the thread's sigaltstack (sp, flags, size), reported in
/// uc_stack as Linux does.
pub fn write_frame(
    buf: &mut [u8; FRAME_SIZE],
    info: &SigInfo,
    ctx: &UserContext,
    blocked_mask: u64,
    altstack: (u64, i32, u64),
) {
    buf.fill(0);
    put_u32(buf, SI_SIGNO, info.signo as u32);
    put_u32(buf, SI_CODE, info.code as u32);
    if info.addr_is_fault {
        put_u64(buf, SI_ADDR, info.pid_or_addr);
    } else {
        put_u32(buf, SI_PID, info.pid_or_addr as u32);
        put_u32(buf, SI_UID, info.uid);
    }
    put_u64(buf, UC_STACK_SP, altstack.0);
    put_u32(buf, UC_STACK_FLAGS, altstack.1 as u32);
    put_u64(buf, UC_STACK_SIZE, altstack.2);
    put_u64(buf, UC_SIGMASK, blocked_mask);
    put_u64(buf, MC_PC, ctx.pc);
    for n in 1..32 {
        put_u64(buf, MC_X + 8 * n, ctx.x[n]);
    }
    for (n, f) in ctx.f.iter().enumerate() {
        put_u64(buf, MC_F + 8 * n, *f);
    }
    put_u32(buf, MC_FCSR, ctx.fcsr);
}

/// Reads the (possibly handler-edited) registers and signal mask back, for
/// rt_sigreturn.
pub fn read_frame(buf: &[u8; FRAME_SIZE]) -> (UserContext, u64) {
    let mut ctx = UserContext {
        pc: get_u64(buf, MC_PC),
        ..UserContext::default()
    };
    for n in 1..32 {
        ctx.x[n] = get_u64(buf, MC_X + 8 * n);
    }
    for n in 0..32 {
        ctx.f[n] = get_u64(buf, MC_F + 8 * n);
    }
    ctx.fcsr = get_u32(buf, MC_FCSR);
    (ctx, get_u64(buf, UC_SIGMASK))
}

/// Where the frame goes: just below the alternate stack's top, aligned to
/// 16 bytes as the psABI requires for sp.
pub fn frame_sp(altstack_top: u64) -> u64 {
    (altstack_top - FRAME_SIZE as u64) & !15
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_ctx() -> UserContext {
        let mut ctx = UserContext {
            pc: 0x4_1234,
            fcsr: 0x1f,
            ..Default::default()
        };
        for n in 1..32 {
            ctx.x[n] = 0x1000 + n as u64;
            ctx.f[n] = 0xf000_0000_0000_0000 | n as u64;
        }
        ctx.f[0] = 0x3ff0_0000_0000_0000; // 1.0
        ctx
    }

    #[test]
    fn layout_matches_go_and_linux() {
        // sizeof(siginfo) + sizeof(ucontext) on linux/riscv64.
        assert_eq!(FRAME_SIZE, SIGINFO_SIZE + 960);
        assert_eq!(MC_PC % 16, 0);
        assert_eq!(MC_F, MC_X + 32 * 8);
        assert_eq!(MC_FCSR, MC_F + 32 * 8);
        // The FP area is a 528-byte union (Q state); Linux fills the D view.
        assert_eq!(MC_F + 528, FRAME_SIZE);
    }

    #[test]
    fn register_offsets() {
        let mut buf = [0u8; FRAME_SIZE];
        let ctx = sample_ctx();
        write_frame(&mut buf, &SigInfo::default(), &ctx, 0, (0, 0, 0));
        assert_eq!(get_u64(&buf, 304), 0x4_1234); // pc
        assert_eq!(get_u64(&buf, 312), 0x1001); // ra = x1
        assert_eq!(get_u64(&buf, 320), 0x1002); // sp = x2
        assert_eq!(get_u64(&buf, 520), 0x1000 + 27); // g = x27
        assert_eq!(get_u64(&buf, 552), 0x1000 + 31); // t6 = x31
        assert_eq!(get_u64(&buf, 560), 0x3ff0_0000_0000_0000); // f0
        assert_eq!(get_u32(&buf, 816), 0x1f);
    }

    #[test]
    fn siginfo_and_ucontext_fields() {
        let mut buf = [0xaau8; FRAME_SIZE];
        let tkill = SigInfo {
            signo: 23,
            code: -6,
            pid_or_addr: 1,
            uid: 0,
            addr_is_fault: false,
        };
        write_frame(&mut buf, &tkill, &sample_ctx(), !0, (0x7000_0000, 0, 32768));
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
        assert_eq!(get_u64(&buf, 168), !0);
        assert_eq!(get_u64(&buf, 176), 0); // unused part of the sigset
        let fault = SigInfo {
            signo: 11,
            code: 1,
            pid_or_addr: 0xdead_beef_0008,
            uid: 0,
            addr_is_fault: true,
        };
        write_frame(&mut buf, &fault, &sample_ctx(), 0, (0, 2, 0));
        assert_eq!(get_u64(&buf, 16), 0xdead_beef_0008);
        assert_eq!(get_u32(&buf, 152), 2);
    }

    #[test]
    fn round_trip_with_handler_edits() {
        let mut buf = [0u8; FRAME_SIZE];
        let ctx = sample_ctx();
        write_frame(&mut buf, &SigInfo::default(), &ctx, 0x40_0000, (0, 0, 0));
        let (back, mask) = read_frame(&buf);
        assert_eq!(back, ctx);
        assert_eq!(mask, 0x40_0000);
        // Go's preemption handler rewrites pc, ra and sp (sigctxt.pushCall).
        put_u64(&mut buf, MC_PC, 0x5_0000);
        put_u64(&mut buf, MC_X + 8, 0x4_1234);
        put_u64(&mut buf, MC_X + 16, 0x7fff_0000);
        let (back, _) = read_frame(&buf);
        assert_eq!(
            (back.pc, back.x[1], back.x[2]),
            (0x5_0000, 0x4_1234, 0x7fff_0000)
        );
        assert_eq!(back.x[0], 0);
    }

    #[test]
    fn frame_sp_is_aligned_below_top() {
        assert_eq!(frame_sp(0x10000), 0x10000 - 1088);
        assert_eq!(frame_sp(0x10000) % 16, 0);
        let sp = frame_sp(0x10008);
        assert_eq!(sp % 16, 0);
        assert!(sp + FRAME_SIZE as u64 <= 0x10008);
    }
}

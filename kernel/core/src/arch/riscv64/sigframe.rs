//! The riscv64 signal frame (Linux's struct rt_sigframe: siginfo, then
//! ucontext) that the kernel writes before running a handler and reads
//! back in rt_sigreturn. Go's handler reads and edits it through its own
//! structs (runtime/defs_linux_riscv64.go), so the offsets must match:
//! after the common head (../../sigframe.rs) the 16-aligned mcontext holds
//! 32 x-registers (x0's slot holds pc) and a 528-byte FP union of which
//! Linux fills the D view (f0..f31, then fcsr). 128 + 960 = 1088 bytes.

use crate::signal::sigframe::{get_u32, get_u64, put_u32, put_u64, read_mask, write_head, SigInfo, StackT, MCONTEXT};

pub const FRAME_SIZE: usize = 1088;
/// sc_regs: pc, then x1..x31 (ra, sp, gp, tp, t0, ...).
pub const MC_PC: usize = MCONTEXT;
pub const MC_X: usize = MCONTEXT;
pub const MC_F: usize = MC_X + 32 * 8;
pub const MC_FCSR: usize = MC_F + 32 * 8;

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

/// Fills `buf` with a complete frame; bytes not named here are zero.
/// `altstack` is the thread's sigaltstack, reported in uc_stack as Linux does.
pub fn write_frame(buf: &mut [u8; FRAME_SIZE], info: &SigInfo, ctx: &UserContext, blocked_mask: u64, altstack: StackT) {
    write_head(buf, info, blocked_mask, altstack);
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
    let mut ctx = UserContext { pc: get_u64(buf, MC_PC), ..UserContext::default() };
    for n in 1..32 {
        ctx.x[n] = get_u64(buf, MC_X + 8 * n);
    }
    for n in 0..32 {
        ctx.f[n] = get_u64(buf, MC_F + 8 * n);
    }
    ctx.fcsr = get_u32(buf, MC_FCSR);
    (ctx, read_mask(buf))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal::sigframe::SIGINFO_SIZE;

    fn sample_ctx() -> UserContext {
        let mut ctx = UserContext { pc: 0x4_1234, fcsr: 0x1f, ..Default::default() };
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
        assert_eq!(MC_PC, 304);
        assert_eq!(MC_F, 560);
        assert_eq!(MC_FCSR, 816);
        // The FP area is a 528-byte union (Q state); Linux fills the D view.
        assert_eq!(MC_F + 528, FRAME_SIZE);
    }

    #[test]
    fn register_offsets() {
        let mut buf = [0u8; FRAME_SIZE];
        write_frame(&mut buf, &SigInfo::default(), &sample_ctx(), 0, StackT::default());
        assert_eq!(get_u64(&buf, 304), 0x4_1234); // pc
        assert_eq!(get_u64(&buf, 312), 0x1001); // ra = x1
        assert_eq!(get_u64(&buf, 320), 0x1002); // sp = x2
        assert_eq!(get_u64(&buf, 520), 0x1000 + 27); // g = x27
        assert_eq!(get_u64(&buf, 552), 0x1000 + 31); // t6 = x31
        assert_eq!(get_u64(&buf, 560), 0x3ff0_0000_0000_0000); // f0
        assert_eq!(get_u32(&buf, 816), 0x1f);
    }

    #[test]
    fn round_trip_with_handler_edits() {
        let mut buf = [0u8; FRAME_SIZE];
        let ctx = sample_ctx();
        write_frame(&mut buf, &SigInfo::default(), &ctx, 0x40_0000, StackT::default());
        let (back, mask) = read_frame(&buf);
        assert_eq!(back, ctx);
        assert_eq!(mask, 0x40_0000);
        // Go's preemption handler rewrites pc, ra and sp (sigctxt.pushCall).
        put_u64(&mut buf, MC_PC, 0x5_0000);
        put_u64(&mut buf, MC_X + 8, 0x4_1234);
        put_u64(&mut buf, MC_X + 16, 0x7fff_0000);
        let (back, _) = read_frame(&buf);
        assert_eq!((back.pc, back.x[1], back.x[2]), (0x5_0000, 0x4_1234, 0x7fff_0000));
        assert_eq!(back.x[0], 0);
    }
}

//! The arm64 signal frame (Linux's struct rt_sigframe: siginfo, then
//! ucontext, then a frame record) that the kernel writes before running a
//! handler and reads back in rt_sigreturn. Go's handler reads and edits it
//! through runtime/defs_linux_arm64.go's sigcontext: after the common head
//! (../../sigframe.rs) the mcontext holds fault_address, x0..x30, sp, pc,
//! pstate, then a 16-aligned 4096-byte `__reserved` area of records; Linux
//! puts the FPSIMD record first (magic 0x46508001, 528 bytes: fpsr, fpcr,
//! v0..v31) and ends the list with a zero header. The frame record (x29,
//! x30) after the ucontext is what Linux links the handler's frame to.

use crate::signal::sigframe::{get_u32, get_u64, put_u32, put_u64, read_mask, write_head, SigInfo, StackT, MCONTEXT};

pub const MC_FAULT_ADDRESS: usize = MCONTEXT;
pub const MC_X: usize = MCONTEXT + 8;
pub const MC_SP: usize = MC_X + 31 * 8;
pub const MC_PC: usize = MC_SP + 8;
pub const MC_PSTATE: usize = MC_PC + 8;
/// `__reserved`: the records, 16-aligned.
pub const MC_RESERVED: usize = (MC_PSTATE + 8 + 15) & !15;
pub const FPSIMD_MAGIC: u32 = 0x4650_8001;
pub const FPSIMD_SIZE: usize = 528;
const FP_FPSR: usize = MC_RESERVED + 8;
const FP_FPCR: usize = MC_RESERVED + 12;
const FP_V: usize = MC_RESERVED + 16;
/// siginfo + ucontext (the mcontext's reserved area is 4096 bytes).
pub const UCONTEXT_END: usize = MC_RESERVED + 4096;
/// The whole frame: with the 16-byte frame record after the ucontext.
pub const FRAME_SIZE: usize = UCONTEXT_END + 16;
/// Where the frame record (saved x29, x30) is.
pub const FRAME_RECORD: usize = UCONTEXT_END;

/// The registers of an interrupted user thread.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserContext {
    pub x: [u64; 31],
    pub sp: u64,
    pub pc: u64,
    pub pstate: u64,
    /// v0..v31, each as (low, high) 64-bit halves.
    pub v: [[u64; 2]; 32],
    pub fpsr: u32,
    pub fpcr: u32,
    pub fault_address: u64,
}

/// Fills `buf` with a complete frame; bytes not named here are zero.
pub fn write_frame(buf: &mut [u8; FRAME_SIZE], info: &SigInfo, ctx: &UserContext, blocked_mask: u64, altstack: StackT) {
    write_head(buf, info, blocked_mask, altstack);
    put_u64(buf, MC_FAULT_ADDRESS, ctx.fault_address);
    for (n, x) in ctx.x.iter().enumerate() {
        put_u64(buf, MC_X + 8 * n, *x);
    }
    put_u64(buf, MC_SP, ctx.sp);
    put_u64(buf, MC_PC, ctx.pc);
    put_u64(buf, MC_PSTATE, ctx.pstate);
    put_u32(buf, MC_RESERVED, FPSIMD_MAGIC);
    put_u32(buf, MC_RESERVED + 4, FPSIMD_SIZE as u32);
    put_u32(buf, FP_FPSR, ctx.fpsr);
    put_u32(buf, FP_FPCR, ctx.fpcr);
    for (n, v) in ctx.v.iter().enumerate() {
        put_u64(buf, FP_V + 16 * n, v[0]);
        put_u64(buf, FP_V + 16 * n + 8, v[1]);
    }
    // The terminating record header after it stays zero.
    put_u64(buf, FRAME_RECORD, ctx.x[29]);
    put_u64(buf, FRAME_RECORD + 8, ctx.x[30]);
}

/// Reads the (possibly handler-edited) registers and signal mask back, for
/// rt_sigreturn, and whether the FPSIMD record was there (without it the
/// thread keeps its FP registers).
pub fn read_frame(buf: &[u8; FRAME_SIZE]) -> (UserContext, u64, bool) {
    let mut ctx = UserContext {
        sp: get_u64(buf, MC_SP),
        pc: get_u64(buf, MC_PC),
        pstate: get_u64(buf, MC_PSTATE),
        fault_address: get_u64(buf, MC_FAULT_ADDRESS),
        ..UserContext::default()
    };
    for n in 0..31 {
        ctx.x[n] = get_u64(buf, MC_X + 8 * n);
    }
    let has_fp = get_u32(buf, MC_RESERVED) == FPSIMD_MAGIC;
    if has_fp {
        ctx.fpsr = get_u32(buf, FP_FPSR);
        ctx.fpcr = get_u32(buf, FP_FPCR);
        for n in 0..32 {
            ctx.v[n] = [get_u64(buf, FP_V + 16 * n), get_u64(buf, FP_V + 16 * n + 8)];
        }
    }
    (ctx, read_mask(buf), has_fp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal::sigframe::SIGINFO_SIZE;

    fn sample_ctx() -> UserContext {
        let mut ctx = UserContext { sp: 0x7fff_0000, pc: 0x4_1234, pstate: 0, fpsr: 0x10, fpcr: 0x0300_0000, ..Default::default() };
        for n in 0..31 {
            ctx.x[n] = 0x1000 + n as u64;
        }
        for n in 0..32 {
            ctx.v[n] = [0xf000 + n as u64, 0xe000 + n as u64];
        }
        ctx
    }

    #[test]
    fn layout_matches_go_and_linux() {
        // runtime/defs_linux_arm64.go: sigcontext {fault_address, regs[31],
        // sp, pc, pstate, __reserved [4096]byte (16-aligned)}; ucontext's
        // uc_mcontext at 176, siginfo 128 bytes before it.
        assert_eq!(SIGINFO_SIZE + 176, MC_FAULT_ADDRESS);
        assert_eq!(MC_X, 312);
        assert_eq!(MC_SP, 560);
        assert_eq!(MC_PC, 568);
        assert_eq!(MC_PSTATE, 576);
        assert_eq!(MC_RESERVED, 592);
        // sizeof(struct ucontext) on linux/arm64 is 4560.
        assert_eq!(UCONTEXT_END - SIGINFO_SIZE, 4560);
        assert_eq!(FRAME_SIZE % 16, 0);
    }

    #[test]
    fn round_trip_with_handler_edits() {
        let mut buf = [0u8; FRAME_SIZE];
        let ctx = sample_ctx();
        write_frame(&mut buf, &SigInfo::default(), &ctx, 0x40_0000, StackT::default());
        assert_eq!(get_u32(&buf, MC_RESERVED), FPSIMD_MAGIC);
        assert_eq!(get_u32(&buf, MC_RESERVED + 4), 528);
        assert_eq!(get_u64(&buf, MC_RESERVED + FPSIMD_SIZE), 0);
        let (back, mask, has_fp) = read_frame(&buf);
        assert_eq!(back, ctx);
        assert_eq!(mask, 0x40_0000);
        assert!(has_fp);
        // Go's preemption handler (sigctxt.pushCall) rewrites pc, lr (x30) and sp.
        put_u64(&mut buf, MC_PC, 0x5_0000);
        put_u64(&mut buf, MC_X + 8 * 30, 0x4_1234);
        put_u64(&mut buf, MC_SP, 0x7ffe_fff0);
        let (back, _, _) = read_frame(&buf);
        assert_eq!((back.pc, back.x[30], back.sp), (0x5_0000, 0x4_1234, 0x7ffe_fff0));
    }
}

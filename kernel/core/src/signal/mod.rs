//! Signal numbers, flags and default actions as Linux defines them for
//! riscv64 (asm-generic), the 24-byte `struct sigaction` the kernel reads in
//! rt_sigaction, and signal-set helpers. Go installs handlers for nearly
//! every signal and relies on SIGURG for preemption and SIGSEGV for nil
//! checks, so these must match Linux exactly.

pub mod sigframe;

pub const SIGHUP: usize = 1;
pub const SIGINT: usize = 2;
pub const SIGQUIT: usize = 3;
pub const SIGILL: usize = 4;
pub const SIGTRAP: usize = 5;
pub const SIGABRT: usize = 6;
pub const SIGBUS: usize = 7;
pub const SIGFPE: usize = 8;
pub const SIGKILL: usize = 9;
pub const SIGUSR1: usize = 10;
pub const SIGSEGV: usize = 11;
pub const SIGUSR2: usize = 12;
pub const SIGPIPE: usize = 13;
pub const SIGALRM: usize = 14;
pub const SIGTERM: usize = 15;
pub const SIGSTKFLT: usize = 16;
pub const SIGCHLD: usize = 17;
pub const SIGCONT: usize = 18;
pub const SIGSTOP: usize = 19;
pub const SIGTSTP: usize = 20;
pub const SIGTTIN: usize = 21;
pub const SIGTTOU: usize = 22;
pub const SIGURG: usize = 23;
pub const SIGXCPU: usize = 24;
pub const SIGXFSZ: usize = 25;
pub const SIGVTALRM: usize = 26;
pub const SIGPROF: usize = 27;
pub const SIGWINCH: usize = 28;
pub const SIGIO: usize = 29;
pub const SIGPWR: usize = 30;
pub const SIGSYS: usize = 31;
/// Highest signal number (real-time signals run up to it).
pub const NSIG: usize = 64;

/// sa_flags bits (riscv64 has no SA_RESTORER: the kernel supplies the
/// return trampoline).
pub const SA_SIGINFO: u64 = 4;
pub const SA_ONSTACK: u64 = 0x0800_0000;
pub const SA_RESTART: u64 = 0x1000_0000;
pub const SA_NODEFER: u64 = 0x4000_0000;
pub const SA_RESETHAND: u64 = 0x8000_0000;

pub const SIG_DFL: u64 = 0;
pub const SIG_IGN: u64 = 1;

/// rt_sigprocmask `how`.
pub const SIG_BLOCK: usize = 0;
pub const SIG_UNBLOCK: usize = 1;
pub const SIG_SETMASK: usize = 2;

/// sigaltstack ss_flags.
pub const SS_ONSTACK: i32 = 1;
pub const SS_DISABLE: i32 = 2;

/// si_code values.
pub const SI_USER: i32 = 0;
pub const SI_KERNEL: i32 = 0x80;
pub const SI_TKILL: i32 = -6;
pub const SEGV_MAPERR: i32 = 1;
pub const SEGV_ACCERR: i32 = 2;
pub const BUS_ADRALN: i32 = 1;
pub const BUS_ADRERR: i32 = 2;
pub const ILL_ILLOPC: i32 = 1;

/// A set of signals: bit (sig - 1) stands for signal `sig`.
pub type SigSet = u64;

/// The set holding only `sig` (1..=64); empty for out-of-range numbers.
pub fn bit(sig: usize) -> SigSet {
    if (1..=NSIG).contains(&sig) {
        1 << (sig - 1)
    } else {
        0
    }
}

pub fn contains(set: SigSet, sig: usize) -> bool {
    set & bit(sig) != 0
}

/// Signals that can never be blocked; masks from user space lose them.
pub const UNBLOCKABLE: SigSet = (1 << (SIGKILL - 1)) | (1 << (SIGSTOP - 1));

/// The lowest-numbered signal in `set`, which Linux delivers first.
pub fn lowest(set: SigSet) -> Option<usize> {
    (set != 0).then(|| set.trailing_zeros() as usize + 1)
}

/// True for signals a handler may be installed for or that may be ignored.
pub fn can_catch(sig: usize) -> bool {
    (1..=NSIG).contains(&sig) && sig != SIGKILL && sig != SIGSTOP
}

/// The kernel's `struct sigaction` on riscv64: handler, flags, mask, with
/// no sa_restorer (Go's sigactiont has a trailing restorer field, but the
/// kernel reads only these 24 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SigAction {
    pub handler: u64,
    pub flags: u64,
    pub mask: u64,
}

impl SigAction {
    pub const SIZE: usize = 24;

    pub fn from_bytes(b: &[u8; 24]) -> SigAction {
        let word = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap_or([0; 8]));
        SigAction {
            handler: word(0),
            flags: word(1),
            mask: word(2),
        }
    }

    pub fn to_bytes(&self) -> [u8; 24] {
        let mut b = [0u8; 24];
        b[0..8].copy_from_slice(&self.handler.to_le_bytes());
        b[8..16].copy_from_slice(&self.flags.to_le_bytes());
        b[16..24].copy_from_slice(&self.mask.to_le_bytes());
        b
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultAction {
    Terminate,
    Ignore,
    CoreDump,
    Stop,
    Continue,
}

/// What SIG_DFL does for `sig`, per signal(7). Real-time signals terminate.
pub fn default_action(sig: usize) -> DefaultAction {
    match sig {
        SIGCHLD | SIGURG | SIGWINCH => DefaultAction::Ignore,
        SIGQUIT | SIGILL | SIGTRAP | SIGABRT | SIGBUS | SIGFPE | SIGSEGV | SIGXCPU | SIGXFSZ
        | SIGSYS => DefaultAction::CoreDump,
        SIGSTOP | SIGTSTP | SIGTTIN | SIGTTOU => DefaultAction::Stop,
        SIGCONT => DefaultAction::Continue,
        _ => DefaultAction::Terminate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets() {
        assert_eq!(bit(1), 1);
        assert_eq!(bit(SIGURG), 1 << 22);
        assert_eq!(bit(64), 1 << 63);
        assert_eq!(bit(0), 0);
        assert_eq!(bit(65), 0);
        assert!(contains(bit(SIGSEGV) | bit(SIGURG), SIGURG));
        assert!(!contains(bit(SIGSEGV), SIGURG));
        assert_eq!(UNBLOCKABLE, bit(SIGKILL) | bit(SIGSTOP));
        assert_eq!(lowest(bit(SIGURG) | bit(SIGPROF)), Some(SIGURG));
        assert_eq!(lowest(bit(64)), Some(64));
        assert_eq!(lowest(0), None);
    }

    #[test]
    fn catching() {
        assert!(can_catch(SIGURG) && can_catch(1) && can_catch(64));
        assert!(!can_catch(SIGKILL) && !can_catch(SIGSTOP));
        assert!(!can_catch(0) && !can_catch(65));
    }

    #[test]
    fn defaults_follow_signal7() {
        use DefaultAction::*;
        assert_eq!(default_action(SIGURG), Ignore);
        assert_eq!(default_action(SIGCHLD), Ignore);
        assert_eq!(default_action(SIGSEGV), CoreDump);
        assert_eq!(default_action(SIGABRT), CoreDump);
        assert_eq!(default_action(SIGKILL), Terminate);
        assert_eq!(default_action(SIGPIPE), Terminate);
        assert_eq!(default_action(SIGTERM), Terminate);
        assert_eq!(default_action(SIGSTOP), Stop);
        assert_eq!(default_action(SIGCONT), Continue);
        assert_eq!(default_action(40), Terminate);
    }

    #[test]
    fn sigaction_bytes() {
        // What Go's initsig passes: {sigtramp, SIGINFO|ONSTACK|RESTART, ~0}.
        let sa = SigAction {
            handler: 0x7_6540,
            flags: 0x1800_0004,
            mask: !0,
        };
        assert_eq!(sa.flags, SA_SIGINFO | SA_ONSTACK | SA_RESTART);
        let b = sa.to_bytes();
        assert_eq!(&b[0..8], &0x7_6540u64.to_le_bytes());
        assert_eq!(&b[8..12], &[4, 0, 0, 0x18]);
        assert_eq!(&b[16..24], &[0xff; 8]);
        assert_eq!(SigAction::from_bytes(&b), sa);
    }
}

/// The conventional name of a signal, for messages.
pub fn name(sig: usize) -> &'static str {
    const NAMES: [&str; 32] = [
        "?", "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
        "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT",
        "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU",
        "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS",
    ];
    NAMES.get(sig).copied().filter(|_| sig != 0).unwrap_or("a real-time signal")
}

#[cfg(test)]
mod name_tests {
    use super::*;
    #[test]
    fn names() {
        assert_eq!(name(SIGSEGV), "SIGSEGV");
        assert_eq!(name(SIGURG), "SIGURG");
        assert_eq!(name(40), "a real-time signal");
    }
}

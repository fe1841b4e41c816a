//! The kernel command line (from the device tree's /chosen/bootargs): kernel
//! options first, then `--`, then the program's arguments. Tokens are split
//! on ASCII whitespace; `"` toggles quoting so arguments may hold spaces, and
//! `\xHH` / `\\` escapes let any byte through (QEMU's -append cannot carry
//! newlines or arbitrary bytes otherwise). `quote` is the exact inverse, used
//! by tests and by tooling that builds command lines.

use alloc::string::String;
use alloc::vec::Vec;

/// The `wakesteal=` setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WakeSteal {
    Off,
    AfterUs(usize),
}

/// Everything the kernel learned from its command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BootArgs {
    pub cores: Option<usize>,
    pub sched: Option<String>,
    /// `idlepoll=US`: longest halt-polling window of an idle CPU and its
    /// timer advance, in µs (0: nap at once, wake at the deadline).
    pub idle_poll_us: Option<usize>,
    /// `wakesteal=US|off`: how long a thread handed to the waker's CPU
    /// because its own CPU naps may wait there before that CPU preempts its
    /// thread for it, in µs (0: at once); `off`: no hand-off, the thread
    /// waits for the napping CPU.
    pub wake_steal: Option<WakeSteal>,
    /// Path of the program to run; also its argv[0].
    pub init: Vec<u8>,
    pub verbose: bool,
    pub quiet: bool,
    pub stats: bool,
    /// The program's working directory (absolute; default "/").
    pub cwd: Option<Vec<u8>>,
    /// Log every system call (strace-like) to the console.
    pub trace: bool,
    /// `tty=0,1,2`: which of stdin, stdout, stderr are terminals on the host.
    pub tty: [bool; 3],
    /// `stderr=stdout`: the host's stderr is the same file as its stdout.
    pub stderr_to_stdout: bool,
    /// `mount=TAG:/GUEST[:ro]` (repeatable): host directories on virtio-9p
    /// devices, each as given (p9::parse_mount reads it).
    pub mounts: Vec<Vec<u8>>,
    /// argv[1..] of the program (everything after the first `--`).
    pub args: Vec<Vec<u8>>,
    /// `KEY=VALUE` tokens that are not kernel options, in order.
    pub env: Vec<Vec<u8>>,
    /// `net=ip=A.B.C.D/P,gw=A.B.C.D,dns=A.B.C.D`: the network device's
    /// IPv4 plan (netplan.rs reads it; absent: QEMU's user network's).
    pub net: Option<Vec<u8>>,
    /// `uio=SPEC` (repeatable): devices to hand to the program through UIO
    /// (uiospec.rs reads them).
    pub uio: Vec<Vec<u8>>,
    /// `onexit=poweroff|reboot|halt`: what the machine does when the
    /// program ends (default: power off).
    pub on_exit: OnExit,
    /// `random.trust_bootloader=off` (Linux's option): the loader's seeds
    /// (/chosen/rng-seed, kaslr-seed) are mixed in but not counted as
    /// entropy. Default on, as Linux's.
    pub distrust_bootloader: bool,
    /// `semihosting`: the host enabled Arm semihosting in QEMU, so the
    /// kernel may end QEMU with the exit status through it (the
    /// architecture decides whether it uses it).
    pub semihosting: bool,
    /// Tokens the kernel did not understand, kept whole so they can be logged.
    pub unknown: Vec<Vec<u8>>,
}

/// What the machine does when the program has ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnExit {
    /// Power off (QEMU exits with the program's status where it can).
    #[default]
    PowerOff,
    /// Reset the machine (a board boots again, QEMU -no-reboot exits).
    Reboot,
    /// Stop every CPU and wait (the console stays readable).
    Halt,
}

impl OnExit {
    pub fn parse(v: &[u8]) -> Option<OnExit> {
        match v {
            b"poweroff" => Some(OnExit::PowerOff),
            b"reboot" => Some(OnExit::Reboot),
            b"halt" => Some(OnExit::Halt),
            _ => None,
        }
    }
}

/// Parses a command line; never fails (bad tokens land in `unknown`).
pub fn parse(cmdline: &[u8]) -> BootArgs {
    let mut out = BootArgs {
        init: b"/init".to_vec(),
        ..BootArgs::default()
    };
    let mut after_separator = false;
    for token in tokens(cmdline) {
        if after_separator {
            out.args.push(token);
        } else if token == b"--" {
            after_separator = true;
        } else {
            kernel_option(&mut out, token);
        }
    }
    out
}

fn kernel_option(out: &mut BootArgs, token: Vec<u8>) {
    match token.as_slice() {
        b"verbose" => out.verbose = true,
        b"quiet" => out.quiet = true,
        b"stats" => out.stats = true,
        b"trace" => out.trace = true,
        b"semihosting" => out.semihosting = true,
        t => match split_key(t) {
            Some((b"cores", v)) => match parse_usize(v) {
                Some(n) => out.cores = Some(n),
                None => out.unknown.push(token),
            },
            Some((b"idlepoll", v)) => match parse_usize(v) {
                Some(n) => out.idle_poll_us = Some(n),
                None => out.unknown.push(token),
            },
            Some((b"wakesteal", b"off")) => out.wake_steal = Some(WakeSteal::Off),
            Some((b"wakesteal", v)) => match parse_usize(v) {
                Some(n) => out.wake_steal = Some(WakeSteal::AfterUs(n)),
                None => out.unknown.push(token),
            },
            Some((b"sched", v)) => match core::str::from_utf8(v) {
                Ok(name) if !name.is_empty() => out.sched = Some(String::from(name)),
                _ => out.unknown.push(token),
            },
            Some((b"rdinit", v)) if !v.is_empty() => out.init = v.to_vec(),
            Some((b"uio", v)) if !v.is_empty() => out.uio.push(v.to_vec()),
            Some((b"cwd", v)) if v.starts_with(b"/") => out.cwd = Some(v.to_vec()),
            Some((b"cwd", _)) => out.unknown.push(token),
            Some((b"tty", v)) => match parse_tty(v) {
                Some(t) => out.tty = t,
                None => out.unknown.push(token),
            },
            Some((b"mount", v)) => out.mounts.push(v.to_vec()),
            Some((b"net", v)) => out.net = Some(v.to_vec()),
            Some((b"random.trust_bootloader", v)) => match v {
                b"on" | b"1" | b"y" => out.distrust_bootloader = false,
                b"off" | b"0" | b"n" => out.distrust_bootloader = true,
                _ => out.unknown.push(token),
            },
            Some((b"onexit", v)) => match OnExit::parse(v) {
                Some(o) => out.on_exit = o,
                None => out.unknown.push(token),
            },
            Some((b"stderr", b"stdout")) => out.stderr_to_stdout = true,
            Some((b"stderr", _)) => out.unknown.push(token),
            Some((b"rdinit", _)) => out.unknown.push(token),
            Some(_) => out.env.push(token),
            None => out.unknown.push(token),
        },
    }
}

/// `0,2` → stdin and stderr are terminals; empty → none.
fn parse_tty(v: &[u8]) -> Option<[bool; 3]> {
    let mut t = [false; 3];
    for item in v.split(|&b| b == b',').filter(|i| !i.is_empty()) {
        match item {
            b"0" | b"1" | b"2" => t[(item[0] - b'0') as usize] = true,
            _ => return None,
        }
    }
    Some(t)
}

/// Splits `KEY=VALUE` at the first '='; None unless KEY is non-empty.
fn split_key(t: &[u8]) -> Option<(&[u8], &[u8])> {
    let eq = t.iter().position(|&b| b == b'=')?;
    if eq == 0 {
        return None;
    }
    Some((&t[..eq], &t[eq + 1..]))
}

fn parse_usize(v: &[u8]) -> Option<usize> {
    if v.is_empty() {
        return None;
    }
    v.iter().try_fold(0usize, |acc, &b| {
        let d = (b as char).to_digit(10)? as usize;
        acc.checked_mul(10)?.checked_add(d)
    })
}

fn hex_value(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Splits and decodes the command line into tokens.
pub fn tokens(cmdline: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    // A token exists once any character of it was seen, so `""` yields an
    // empty token rather than nothing.
    let mut started = false;
    let mut quoted = false;
    let mut i = 0;
    while i < cmdline.len() {
        let b = cmdline[i];
        i += 1;
        match b {
            b'"' => {
                quoted = !quoted;
                started = true;
            }
            b'\\' => {
                started = true;
                let rest = &cmdline[i..];
                if rest.first() == Some(&b'\\') {
                    cur.push(b'\\');
                    i += 1;
                } else if let [b'x', h, l, ..] = rest {
                    match (hex_value(*h), hex_value(*l)) {
                        (Some(h), Some(l)) => {
                            cur.push(h << 4 | l);
                            i += 3;
                        }
                        // Not an escape: keep the backslash literally.
                        _ => cur.push(b'\\'),
                    }
                } else {
                    cur.push(b'\\');
                }
            }
            b if b.is_ascii_whitespace() && !quoted => {
                if started {
                    out.push(core::mem::take(&mut cur));
                    started = false;
                }
            }
            b => {
                cur.push(b);
                started = true;
            }
        }
    }
    if started {
        out.push(cur);
    }
    out
}

/// Encodes `token` so that `tokens` decodes it back to exactly these bytes.
/// Bytes >= 0x80 stay raw (UTF-8 text stays readable); control bytes, DEL,
/// `"` and `\` are escaped.
pub fn quote(token: &[u8]) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let wrap = token.is_empty() || token.contains(&b' ');
    let mut out = Vec::with_capacity(token.len() + 2);
    if wrap {
        out.push(b'"');
    }
    for &b in token {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'"' | 0..=0x1f | 0x7f => out.extend_from_slice(&[
                b'\\',
                b'x',
                HEX[(b >> 4) as usize],
                HEX[(b & 15) as usize],
            ]),
            _ => out.push(b),
        }
    }
    if wrap {
        out.push(b'"');
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn stdio_options() {
        let a = parse(b"tty=0,2 stderr=stdout");
        assert_eq!(a.tty, [true, false, true]);
        assert!(a.stderr_to_stdout);
        assert!(a.env.is_empty() && a.unknown.is_empty());
        assert_eq!(parse(b"tty=").tty, [false; 3]);
        let bad = parse(b"tty=3 stderr=file");
        assert_eq!(bad.unknown, [b"tty=3".to_vec(), b"stderr=file".to_vec()]);
        assert_eq!(bad.tty, [false; 3]);
    }

    #[test]
    fn cwd_option() {
        let a = parse(b"cwd=/src/pkg -- x");
        assert_eq!(a.cwd.as_deref(), Some(&b"/src/pkg"[..]));
        assert_eq!(parse(b"cwd=rel").unknown, vec![b"cwd=rel".to_vec()]);
    }

    use super::*;

    fn join(parts: &[&[u8]]) -> Vec<u8> {
        let mut v = Vec::new();
        for p in parts {
            if !v.is_empty() {
                v.push(b' ');
            }
            v.extend_from_slice(&quote(p));
        }
        v
    }

    #[test]
    fn defaults() {
        let a = parse(b"");
        assert_eq!(a.init, b"/init");
        assert_eq!(a.cores, None);
        assert!(a.args.is_empty() && a.env.is_empty() && a.unknown.is_empty());
        assert!(!a.verbose && !a.quiet && !a.stats);
        assert_eq!(a.on_exit, OnExit::PowerOff);
    }

    #[test]
    fn on_exit_option() {
        assert_eq!(parse(b"onexit=reboot").on_exit, OnExit::Reboot);
        assert_eq!(parse(b"onexit=halt").on_exit, OnExit::Halt);
        assert_eq!(parse(b"onexit=poweroff").on_exit, OnExit::PowerOff);
        let bad = parse(b"onexit=explode");
        assert_eq!(bad.on_exit, OnExit::PowerOff);
        assert_eq!(bad.unknown, vec![b"onexit=explode".to_vec()]);
    }

    #[test]
    fn trust_bootloader_option() {
        assert!(!parse(b"").distrust_bootloader);
        assert!(parse(b"random.trust_bootloader=off").distrust_bootloader);
        assert!(!parse(b"random.trust_bootloader=off random.trust_bootloader=on").distrust_bootloader);
        assert_eq!(parse(b"random.trust_bootloader=maybe").unknown.len(), 1);
    }

    #[test]
    fn kernel_options_env_and_args() {
        let a = parse(
            b"  cores=4 sched=rr verbose quiet stats rdinit=/bin/x GOMAXPROCS=2 \
                        GODEBUG=a=1,b=2 junk -- -v  x=1 --",
        );
        assert_eq!(a.cores, Some(4));
        assert_eq!(a.sched.as_deref(), Some("rr"));
        assert_eq!(parse(b"idlepoll=150").idle_poll_us, Some(150));
        assert_eq!(parse(b"idlepoll=x").unknown, vec![b"idlepoll=x".to_vec()]);
        assert_eq!(parse(b"wakesteal=0").wake_steal, Some(WakeSteal::AfterUs(0)));
        assert_eq!(parse(b"wakesteal=off").wake_steal, Some(WakeSteal::Off));
        assert_eq!(parse(b"wakesteal=-1").unknown, vec![b"wakesteal=-1".to_vec()]);
        assert!(a.verbose && a.quiet && a.stats);
        assert_eq!(a.init, b"/bin/x");
        assert_eq!(
            a.env,
            vec![b"GOMAXPROCS=2".to_vec(), b"GODEBUG=a=1,b=2".to_vec()]
        );
        assert_eq!(a.unknown, vec![b"junk".to_vec()]);
        assert_eq!(
            a.args,
            vec![b"-v".to_vec(), b"x=1".to_vec(), b"--".to_vec()]
        );
    }

    #[test]
    fn bad_values_are_unknown() {
        let a = parse(b"cores=x cores= cores=99999999999999999999999 sched= rdinit= =v");
        assert_eq!(a.cores, None);
        assert_eq!(a.sched, None);
        assert_eq!(a.init, b"/init");
        assert_eq!(a.unknown.len(), 6);
        assert_eq!(a.unknown[0], b"cores=x");
        assert_eq!(a.unknown[5], b"=v");
    }

    #[test]
    fn quotes_and_escapes() {
        let t = tokens(b"a\"b c\"d \"\" \\x41\\\\ \"\\x22\" tab\\x09x \\q \\x4");
        let want: Vec<&[u8]> = vec![b"ab cd", b"", b"A\\", b"\"", b"tab\tx", b"\\q", b"\\x4"];
        assert_eq!(t, want);
        assert_eq!(tokens(b"\t a \n b\r"), vec![b"a".to_vec(), b"b".to_vec()]);
    }

    #[test]
    fn quote_round_trips_any_bytes() {
        let cases: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"hello world".to_vec(),
            b"\"quoted\"".to_vec(),
            b"back\\slash\\".to_vec(),
            b"--".to_vec(),
            b"-- x".to_vec(),
            "héllo ünïcode".as_bytes().to_vec(),
            b"\\x41 not an escape".to_vec(),
            (0u8..=255).collect(),
        ];
        for c in &cases {
            assert_eq!(tokens(&quote(c)), vec![c.clone()], "{c:?}");
        }
    }

    #[test]
    fn args_round_trip_through_parse() {
        let args: Vec<&[u8]> = vec![b"", b"a b", b"--", b"\"", b"\\", b"x=y", b"verbose", b"\n"];
        let mut line = b"cores=2 -- ".to_vec();
        line.extend_from_slice(&join(&args));
        let a = parse(&line);
        assert_eq!(a.cores, Some(2));
        let got: Vec<&[u8]> = a.args.iter().map(|v| v.as_slice()).collect();
        assert_eq!(got, args);
        assert!(a.env.is_empty() && a.unknown.is_empty());
    }

    #[test]
    fn env_with_spaces_round_trips() {
        let line = join(&[b"MSG=hi there", b"--", b"x"]);
        let a = parse(&line);
        assert_eq!(a.env, vec![b"MSG=hi there".to_vec()]);
        assert_eq!(a.args, vec![b"x".to_vec()]);
    }
}

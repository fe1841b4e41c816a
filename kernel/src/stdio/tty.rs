//! The terminal ioctls for a standard stream whose host side is a terminal
//! (mod.rs): enough for isatty and for programs that read the settings.
//! The line discipline is the host terminal's own (the CLI leaves it in its
//! normal cooked mode, so echo, line editing and Ctrl-C/Ctrl-D behave as
//! the user's terminal does); settings written here are accepted and not
//! applied, since the guest cannot change the host's terminal.

use crate::mm::uaccess::{UserPtr, UserSpace};
use gometal_core::linux::errno::{Errno, ENOTTY};

const TCGETS: u32 = 0x5401;
const TCSETS: u32 = 0x5402;
const TCSETSW: u32 = 0x5403;
const TCSETSF: u32 = 0x5404;
const TIOCGWINSZ: u32 = 0x5413;
const TIOCSWINSZ: u32 = 0x5414;

/// struct termios (36 bytes on riscv64): Linux's defaults for a terminal
/// in cooked mode, as `stty sane` leaves it.
fn default_termios() -> [u8; 36] {
    let iflag: u32 = 0o400 | 0o2000; // ICRNL | IXON
    let oflag: u32 = 0o1 | 0o4; // OPOST | ONLCR
    let cflag: u32 = 0o17 | 0o60 | 0o200; // B38400 | CS8 | CREAD
    let lflag: u32 = 0o1 | 0o2 | 0o10 | 0o20 | 0o40 | 0o1000 | 0o4000 | 0o100000; // ISIG ICANON ECHO ECHOE ECHOK ECHOCTL ECHOKE IEXTEN
    let mut t = [0u8; 36];
    for (i, v) in [iflag, oflag, cflag, lflag].into_iter().enumerate() {
        t[4 * i..4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
    // c_line = 0, then c_cc: VINTR ^C, VQUIT ^\, VERASE DEL, VKILL ^U,
    // VEOF ^D, VTIME 0, VMIN 1.
    t[17..24].copy_from_slice(&[0x03, 0x1c, 0x7f, 0x15, 0x04, 0, 1]);
    t
}

pub fn ioctl(user: &mut UserSpace, request: u32, arg: u64) -> Result<usize, Errno> {
    match request {
        TCGETS => {
            user.write(UserPtr::<[u8; 36]>::new(arg), &default_termios())?;
            Ok(0)
        }
        TCSETS | TCSETSW | TCSETSF | TIOCSWINSZ => Ok(0),
        // The size is unknown to the guest: 0 x 0, as a serial terminal reports.
        TIOCGWINSZ => {
            user.write(UserPtr::<[u8; 8]>::new(arg), &[0u8; 8])?;
            Ok(0)
        }
        _ => Err(ENOTTY),
    }
}

//! Reading and writing AArch64 system registers by name, and the barriers
//! the rest of this folder uses.

/// Reads system register `$name` (a literal such as "cntvct_el0").
macro_rules! read_sysreg {
    ($name:literal) => {{
        let v: u64;
        // SAFETY: reading a system register has no memory effects; every
        // register named here is readable at EL1.
        unsafe { core::arch::asm!(concat!("mrs {}, ", $name), out(reg) v, options(nomem, nostack)) };
        v
    }};
}

/// Writes system register `$name`, then an `isb` so the change is seen.
macro_rules! write_sysreg {
    ($name:literal, $v:expr) => {{
        let v: u64 = $v;
        // SAFETY: callers write only registers whose new value keeps the
        // kernel running (documented at each use).
        unsafe { core::arch::asm!(concat!("msr ", $name, ", {}"), "isb", in(reg) v, options(nostack)) };
    }};
}

pub(crate) use read_sysreg;
pub(crate) use write_sysreg;

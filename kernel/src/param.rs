//! Every fixed limit of the kernel, in one place.

/// CPUs the kernel can manage; CPUs beyond this stay parked.
pub const MAX_CPUS: usize = 64;
/// Kernel stack of each thread, as Linux's on 64-bit machines: the deepest
/// use measured is under 5 KiB (clone; `-kernel-args stats` reports
/// kernel_stack_peak), and the scheduler panics on an overflow.
pub const KERNEL_STACK_SIZE: usize = 16 * 1024;
/// What the Go runtime touches for each thread beyond its kernel stack
/// (its g0 and signal stacks, the M): about 18 KiB measured with 10,000
/// locked threads; the thread limit counts 24 KiB, so that it, not an out
/// of memory, is what a program making threads runs into.
pub const THREAD_USER_BYTES: usize = 24 * 1024;
/// Stack each CPU's scheduler loop runs on (other than the boot CPU's).
pub const CPU_STACK_SIZE: usize = 32 * 1024;
/// The fewest threads a program may have (process::max_threads sizes the
/// limit from memory; Go needs GOMAXPROCS + a few dozen).
pub const MIN_THREADS: usize = 64;
/// Memory areas per process (Linux's default vm.max_map_count): bounds the
/// kernel heap a program can make the kernel use for bookkeeping.
pub const MAX_MAP_COUNT: usize = 65530;
/// The scheduler tick: time slice length and the longest a CPU sleeps
/// without looking at its timers. Go preempts goroutines after 10 ms.
pub const TICK_NS: u64 = 4_000_000;
/// Largest kernel heap; the rest of RAM is page frames for programs. A
/// connection through the NIC takes about 3 KiB of heap (smoltcp's socket,
/// the pipes, the sockets and their epoll watch): 64 MiB holds 10,000 of
/// them beside everything else (32 MiB stopped at 9,800).
pub const MAX_KERNEL_HEAP: usize = 64 << 20;
/// Exit status QEMU reports when the kernel itself panics.
pub const KERNEL_PANIC_STATUS: u32 = 101;
/// The program's process id: it is the machine's only process, the first
/// one, as a container's init is.
pub const PROGRAM_PID: u32 = 1;

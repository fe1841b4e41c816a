// Package uio drives devices from Go through Linux's UIO interface
// (/dev/uioN and /sys/class/uio), the same on gometal and on Linux with
// uio_pci_generic: open a device by name, map its registers, wait for its
// interrupts (blocking or on a channel), and allocate DMA memory.
//
// # Register access and what Go guarantees
//
// Go has no volatile. The compiler may keep a value loaded through a plain
// pointer in a register, drop a store it believes nobody reads, or merge and
// reorder plain accesses: right for memory only the program sees, wrong
// for a device register whose reads have side effects or whose value
// changes under the program (a status bit polled in a loop). The Go memory
// model only promises anything for synchronising operations, so Region's
// 32- and 64-bit accessors use sync/atomic loads and stores on the mapped
// memory: an atomic access is never elided, merged or split, has exactly
// the width asked for, and is sequentially consistent with the program's
// other atomics. On riscv64 (Go 1.26, checked with go tool objdump) an
// atomic load is one LR.W.aq / LR.D.aq and an atomic store one
// AMOSWAP.W.aqrl / AMOSWAP.D.aqrl, with no FENCE. The RISC-V spec says
// aq/rl order accesses only within the address domain (memory or I/O) the
// instruction touches, so on real hardware a doorbell store does not by
// itself order earlier stores to DMA memory, and a platform's I/O regions
// may not support LR or AMOs at all (a PMA). QEMU (TCG) runs them in
// order and supports both, which is all gometal runs on today: a known
// limit, not a guarantee. sync/atomic has no 8-
// or 16-bit operations: Read8/Write8/Read16/Write16 are single loads or
// stores in functions the compiler may not inline (//go:noinline), which in
// practice are neither removed nor merged, but Go does not promise it; use
// the 32-bit accessors where the device allows.
//
// # gometal and Linux
//
// On gometal, /dev/uioN exists for each device given with
// `gometal run -device NAME`; on Linux, after loading uio and
// uio_pci_generic and binding the device (see docs/devices.md). Linux's
// uio_pci_generic has no irqcontrol: EnableInterrupts then clears the PCI
// command register's Interrupt Disable bit through
// /sys/class/uio/uioN/device/config, which gometal also accepts. The DMA
// map (the last map, named "dma") is gometal's: Linux's uio_pci_generic
// has none, so DMA returns ErrNoDMA there.
package uio

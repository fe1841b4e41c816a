// The first bytes of the kernel Image, and the boot entry points.
//
// A loader (QEMU's own boot code behind -kernel, U-Boot's booti) puts the
// image at a physical address (text_offset past a 2 MiB boundary, as
// Linux asks; any 4 KiB aligned address works here) and jumps to its
// first byte at EL1 (or EL2, which is left at once) with the MMU off:
// x0 = the device tree's physical address. Other CPUs enter at
// secondary_start (PSCI CPU_ON) with x0 = the stack top they were given.
//
// The kernel is linked in its own window at the top of TTBR1's 39-bit
// half (KERNEL_BASE, see kernel.ld). Until the MMU is on this code runs
// at the load address and uses only PC-relative addressing (adr, adrp):
// a symbol's PC-relative address is its physical address. It checks where
// it is and what the loader passed, checks the image, builds the boot
// tables (TTBR1: the linear map of physical memory in 1 GiB blocks and the
// kernel window in 2 MiB blocks, or 4 KiB pages where the load address is
// not 2 MiB aligned; TTBR0: an identity block for the instruction after
// the MMU turns on), turns the MMU on and jumps to Rust in the window
// through absolute addresses stored as data.
//
// What cannot go on before the device tree is read (an address that is
// not 4 KiB aligned, no device tree) is said on the early console, a UART
// the image names (early_console below, `gometal build -earlycon`, the
// counterpart of Linux's earlycon=), with the MMU off; then PSCI
// SYSTEM_OFF, or a halt.

    .equ GIB, 1 << 30
    .equ MEGAPAGE2, 1 << 21
    .equ LINEAR_MAP_GIB, 510            // PHYS_OFFSET 0xffff_ff80_0000_0000: root 0..510
    .equ WINDOW_ROOT, 510               // KERNEL_BASE 0xffff_ffff_8000_0000
    // Block descriptors: valid block, AF, inner shareable; Normal
    // (AttrIndx 0) executable at EL1, or Device-nGnRE (AttrIndx 1), never executable.
    .equ BLOCK_NORMAL, 0x0040000000000701
    .equ BLOCK_DEVICE, 0x0060000000000405
    .equ PAGE_NORMAL, 0x0040000000000703   // the same as a 4 KiB page
    .equ WINDOW_PAGE_TABLES, 4          // the window in pages: up to 8 MiB (kernel.ld checks)
    .equ TABLE, 0x3
    // MAIR_EL1: attribute 0 Normal write-back, attribute 1 Device-nGnRE.
    .equ MAIR_VALUE, 0x04ff
    // TCR_EL1: T0SZ = T1SZ = 25 (39-bit spaces), 4 KiB granules, walks
    // write-back inner shareable; IPS filled in from ID_AA64MMFR0_EL1.
    .equ TCR_VALUE, (25 | (1 << 8) | (1 << 10) | (3 << 12) | (25 << 16) | (1 << 24) | (1 << 26) | (3 << 28) | (2 << 30))
    // SCTLR_EL1: MMU, caches, EL0 may use DC ZVA, CTR_EL0, WFI/WFE and
    // cache maintenance; the RES1 bits of ARMv8.0.
    .equ SCTLR_VALUE, ((1 << 0) | (1 << 2) | (1 << 12) | (1 << 14) | (1 << 15) | (1 << 16) | (1 << 18) | (1 << 26) | (1 << 29) | (1 << 28) | (1 << 23) | (1 << 22) | (1 << 20) | (1 << 11))
    .equ SCTLR_MMU_OFF, ((1 << 29) | (1 << 28) | (1 << 23) | (1 << 22) | (1 << 20) | (1 << 11))

// The Image header (Linux's Documentation/arch/arm64/booting.rst) and
// gometal's image descriptor after it (boot/image.rs reads it; the host's
// internal/bootimage writes the fields marked "stamped").
    .section .text.head, "ax"
    .global _head
_head:
    ccmp    x18, #0, #0xd, pl           // code0: "MZ", the PE/COFF magic, as a
                                        // harmless instruction (efi.rs)
    b       _start                      // code1
    .quad   0x200000                    // text_offset: 2 MiB into RAM
    .quad   kernel_image_size           // image_size (stamped larger with a payload)
    .quad   0xa                         // flags: little endian, 4 KiB pages, anywhere in RAM
    .quad   0, 0, 0                     // res2..res4
    .ascii  "ARM\x64"                   // magic at 0x38
    .word   efi_pe_offset               // res5: the PE/COFF header (efi.rs)
    .global image_descriptor
image_descriptor:                       // offset 0x40
    .ascii  "GOMETAL\0"                 // 0x40 magic
    .quad   kernel_checked_size         // 0x48 the checksum covers [0x80, this)
    .quad   0                           // 0x50 checksum (stamped; 0: unchecked)
    .quad   0                           // 0x58 payload offset (stamped; 0: none)
    .quad   0                           // 0x60 payload: command line length
    .quad   0                           // 0x68 payload: initramfs offset in it
    .quad   0                           // 0x70 payload: initramfs length
    .quad   0                           // 0x78 payload checksum

// The boot CPU. Not in the first page: that holds only the headers (the
// PE header follows the descriptor, efi.rs), as some EFI loaders (U-Boot's)
// copy no more of it than the headers.
    .section .text.entry, "ax"
// The early console (offset 0x1000, the first bytes of .text.entry;
// internal/bootimage's SetEarlyConsole writes it, under the checksum):
// kind 0 none, 1 PL011, 2 16550 with 8-bit registers, 3 16550 with 32-bit
// registers; its physical address. QEMU virt's PL011 unless the image
// says otherwise.
    .equ EARLYCON_PL011, 1
    .equ EARLYCON_8250, 2
    .equ EARLYCON_8250_32, 3
    .balign 8
    .global early_console
early_console:
    .ascii  "GMEARLYC"
    .quad   EARLYCON_PL011              // kind
    .quad   0x09000000                  // address
    .quad   0                           // reserved

_start:
    msr     daifset, #0xf
    mov     x19, x0                     // device tree
    mrs     x21, CurrentEL              // the PSCI conduit, should early_fail need it
    mov     x22, xzr                    // early_fail not entered
    bl      leave_el2
    adr     x20, _head                  // where the loader put us
    tst     x20, #0xfff
    b.ne    misaligned
    lsr     x0, x20, #39                // the identity block must be in TTBR0's 512 GiB
    cbnz    x0, too_high
    adr     x0, early_vectors           // a fault reading what x0 points at is said, too
    msr     vbar_el1, x0
    isb
    bl      check_device_tree
    bl      check_image
    bl      build_page_tables
    adrp    x0, kernel_phys_base
    add     x0, x0, :lo12:kernel_phys_base
    str     x20, [x0]
    bl      mmu_on
    ldr     x0, .Lboot_stack_top
    mov     sp, x0
    mrs     x0, mpidr_el1
    ldr     x1, =0xff00ffffff           // the affinity fields: the hardware id
    and     x0, x0, x1
    mov     x1, x19
    ldr     x2, .Lrust_boot
    br      x2

misaligned:
    adr     x0, msg_misaligned
    mov     x1, x20
    adr     x2, msg_end
    b       early_fail
too_high:
    adr     x0, msg_too_high
    mov     x1, x20
    adr     x2, msg_end
    b       early_fail

// What the loader passed in x0 is a device tree (its magic, at an 8-byte
// aligned address the linear map reaches: boot/dtb.rs checks the rest),
// or the EFI entry started the kernel (efi.rs: its handoff says where
// the device tree or the ACPI tables are). U-Boot's `go` passes argc.
check_device_tree:
    adrp    x0, efi_handoff
    add     x0, x0, :lo12:efi_handoff
    ldr     x0, [x0]
    ldr     x1, =0x50414d4946454d47     // "GMEFIMAP"
    cmp     x0, x1
    b.eq    1f
    cbz     x19, 2f
    tst     x19, #7
    b.ne    2f
    ldr     x0, =((64 << 30) - 8)
    cmp     x19, x0
    b.hi    2f
    ldr     w0, [x19]
    ldr     w1, =0xedfe0dd0             // 0xd00dfeed, big endian
    cmp     w0, w1
    b.ne    2f
1:  ret
2:  adr     x0, msg_no_dt
    mov     x1, x19
    adr     x2, msg_end
    b       early_fail

// Entered at EL2 (a hypervisor-capable loader): run the kernel at EL1
// with the counters and GICv3's system registers open to it.
leave_el2:
    mrs     x0, CurrentEL
    cmp     x0, #(2 << 2)
    b.ne    1f
    mov     x0, #(1 << 31)              // HCR_EL2.RW: EL1 is AArch64
    msr     hcr_el2, x0
    mov     x0, #3                      // EL1PCTEN, EL1PCEN
    msr     cnthctl_el2, x0
    msr     cntvoff_el2, xzr
    mrs     x0, id_aa64pfr0_el1
    ubfx    x0, x0, #24, #4             // GIC system registers implemented?
    cbz     x0, 2f
    mrs     x0, S3_4_C12_C9_5           // ICC_SRE_EL2
    orr     x0, x0, #0x1                // SRE
    orr     x0, x0, #0x8                // Enable: EL1 may use them
    msr     S3_4_C12_C9_5, x0
    isb
2:  ldr     x0, =SCTLR_MMU_OFF
    msr     sctlr_el1, x0
    mov     x0, #0x3c5                  // EL1h, DAIF masked
    msr     spsr_el2, x0
    msr     elr_el2, lr
    eret
1:  ret

// The checksum of the code and constants ([0x80, kernel_checked_size)):
// FNV-1a over 64-bit words, as internal/bootimage computes it.
check_image:
    ldr     x2, [x20, #0x50]
    cbz     x2, 2f                      // not stamped (the bare ELF)
    add     x0, x20, #0x80
    ldr     x1, [x20, #0x48]
    add     x1, x20, x1
    ldr     x3, =0xcbf29ce484222325
    ldr     x4, =0x100000001b3
1:  cmp     x0, x1
    b.hs    3f
    ldr     x5, [x0], #8
    eor     x3, x3, x5
    mul     x3, x3, x4
    b       1b
3:  cmp     x3, x2
    b.ne    4f
2:  ret
// A damaged image boots on, flagged, so that the kernel can say so on the
// console the device tree names (imagecheck.rs) — at the risk that the
// damage is in the code that would say it.
4:  adrp    x0, kernel_code_damaged
    add     x0, x0, :lo12:kernel_code_damaged
    mov     x1, #1
    str     x1, [x0]
    ret

// The boot tables. TTBR1's root (boot_page_table): entries 0..509 map
// physical 0..510 GiB in 1 GiB blocks at PHYS_OFFSET — Device memory
// below the GiB holding the kernel (QEMU virt's devices lie below its RAM
// at 1 GiB) and from 256 GiB up (virt's high PCIe), Normal memory between;
// entry 510 is the kernel window, 2 MiB blocks of the image. TTBR0's
// root (identity_table): the GiB holding the image, identity-mapped.
build_page_tables:
    adrp    x0, boot_page_table
    lsr     x6, x20, #30                // the kernel's GiB
    ldr     x3, =BLOCK_NORMAL
    ldr     x4, =BLOCK_DEVICE
    mov     x1, #0                      // GiB index
1:  lsl     x2, x1, #30
    cmp     x1, x6
    b.lo    2f
    cmp     x1, #256
    b.hs    2f
    orr     x2, x2, x3
    b       3f
2:  orr     x2, x2, x4
3:  str     x2, [x0, x1, lsl #3]
    add     x1, x1, #1
    cmp     x1, #LINEAR_MAP_GIB
    b.lo    1b
    adrp    x1, kernel_window_table
    orr     x2, x1, #TABLE
    str     x2, [x0, #(8 * WINDOW_ROOT)]
    adrp    x5, kernel_virt_end         // the kernel alone (a payload is
    add     x5, x5, :lo12:kernel_virt_end  // reached through the linear map)
    sub     x5, x5, x20
    mov     x2, x20
    tst     x20, #(MEGAPAGE2 - 1)
    b.ne    5f
4:  orr     x7, x2, x3
    str     x7, [x1], #8
    add     x2, x2, #MEGAPAGE2
    subs    x5, x5, #MEGAPAGE2
    b.gt    4b
    b       6f
// Loaded 4 KiB but not 2 MiB aligned: each 2 MiB of the window is a
// table of 4 KiB pages (kernel_window_pages, one after the other).
5:  adrp    x8, kernel_window_pages
    ldr     x9, =PAGE_NORMAL
7:  orr     x7, x8, #TABLE
    str     x7, [x1], #8
    mov     x10, #512
8:  orr     x7, x2, x9
    str     x7, [x8], #8
    add     x2, x2, #4096
    subs    x5, x5, #4096
    b.le    6f
    subs    x10, x10, #1
    b.ne    8b
    b       7b
6:  adrp    x0, identity_table
    lsl     x2, x6, #30
    orr     x2, x2, x3
    str     x2, [x0, x6, lsl #3]
    dsb     sy
    ret

// Memory attributes, translation control and both roots; then the MMU.
// x0-x2 are clobbered; returns through the identity map.
mmu_on:
    ldr     x0, =MAIR_VALUE
    msr     mair_el1, x0
    ldr     x0, =TCR_VALUE
    mrs     x1, id_aa64mmfr0_el1
    and     x1, x1, #7                  // PARange
    bfi     x0, x1, #32, #3             // IPS
    msr     tcr_el1, x0
    adrp    x0, identity_table
    msr     ttbr0_el1, x0
    adrp    x0, boot_page_table
    msr     ttbr1_el1, x0
    mov     x0, #(3 << 20)              // CPACR_EL1.FPEN: FP/SIMD at EL0 and EL1
    msr     cpacr_el1, x0
    isb
    tlbi    vmalle1
    dsb     nsh
    isb
    ldr     x0, =SCTLR_VALUE
    msr     sctlr_el1, x0
    isb
    ic      iallu
    dsb     nsh
    isb
    ret

// The early console: one line and a power-off, before the device tree
// is read. x0: the message, x1: a value printed after it in hex, x2: the
// rest of the line. The PSCI conduit is the one a loader at that EL
// offers (SMC when entered at EL2, HVC at EL1); where there is none, the
// call faults (or returns) and the CPU halts after a last line.
early_fail:
    mov     x22, #1
    mov     x23, x1
    mov     x24, x2
    bl      early_puts
    mov     x0, x23
    bl      early_puthex
    mov     x0, x24
    bl      early_puts
    adr     x0, msg_off
    bl      early_puts
    ldr     x0, =0x84000008             // PSCI SYSTEM_OFF
    cmp     x21, #(2 << 2)
    b.eq    1f
    hvc     #0
    b       early_halt
1:  smc     #0
early_halt:
    adr     x0, msg_halted
    bl      early_puts
2:  wfe
    b       2b

// An exception before the MMU is on (reading a device tree address that
// is not memory, or PSCI's call where there is no PSCI).
early_exception:
    cbnz    x22, early_halt
    adr     x0, msg_exception
    mrs     x1, esr_el1
    adr     x2, msg_end
    b       early_fail

// early_putc: writes the byte in w0 to the early console; clobbers
// x9-x14. A UART that never gets ready is given up on.
early_putc:
    adr     x9, early_console
    ldp     x10, x11, [x9, #8]          // kind, address
    cbz     x11, 9f
    mov     x14, #0x100000
    cmp     x10, #EARLYCON_PL011
    b.eq    1f
    cmp     x10, #EARLYCON_8250
    b.eq    3f
    cmp     x10, #EARLYCON_8250_32
    b.eq    5f
    ret
1:  ldr     w13, [x11, #0x18]           // UARTFR
    tbz     w13, #5, 2f                 // TXFF clear
    subs    x14, x14, #1
    b.ne    1b
2:  str     w0, [x11]                   // UARTDR
    ret
3:  ldrb    w13, [x11, #5]              // LSR
    tbnz    w13, #5, 4f                 // THRE
    subs    x14, x14, #1
    b.ne    3b
4:  strb    w0, [x11]                   // THR
    ret
5:  ldr     w13, [x11, #(5 << 2)]
    tbnz    w13, #5, 6f
    subs    x14, x14, #1
    b.ne    5b
6:  str     w0, [x11]
9:  ret

// early_puts: the NUL-terminated string at x0; clobbers x0, x9-x16.
early_puts:
    mov     x15, lr
    mov     x16, x0
1:  ldrb    w0, [x16], #1
    cbz     w0, 2f
    bl      early_putc
    b       1b
2:  ret     x15

// early_puthex: x0 as 0x and hex digits; clobbers x0, x6-x17.
early_puthex:
    mov     x15, lr
    mov     x16, x0
    mov     w0, #'0'
    bl      early_putc
    mov     w0, #'x'
    bl      early_putc
    mov     x17, #60
    mov     x7, #0                      // a digit printed
1:  lsr     x0, x16, x17
    and     x0, x0, #0xf
    orr     x6, x0, x7
    cbnz    x6, 2f
    cbnz    x17, 3f                     // a leading zero (not the last digit)
2:  mov     x7, #1
    add     x8, x0, #'0'
    add     x6, x0, #('a' - 10)
    cmp     x0, #10
    csel    x0, x6, x8, hs
    bl      early_putc
3:  subs    x17, x17, #4
    b.ge    1b
    ret     x15

msg_misaligned: .asciz "gometal: the kernel image must be loaded at a 4 KiB aligned address (it is at "
msg_too_high:   .asciz "gometal: the kernel image must be loaded below 512 GiB (it is at "
msg_no_dt:      .asciz "gometal: no device tree at the address the loader passed (x0 = "
msg_exception:  .asciz "gometal: an exception before the kernel's memory was set up (ESR "
msg_end:        .asciz ")\r\n"
msg_off:        .asciz "gometal: powering off\r\n"
msg_halted:     .asciz "gometal: no PSCI firmware to power off with; halted\r\n"

// Until the MMU is on: every exception is early_exception.
    .balign 2048
early_vectors:
    .rept   16
    b       early_exception
    .balign 128
    .endr

    .global secondary_start
secondary_start:
    msr     daifset, #0xf
    mov     x19, x0                     // this CPU's stack top (virtual)
    bl      leave_el2
    bl      mmu_on
    mov     sp, x19
    mrs     x0, mpidr_el1
    ldr     x1, =0xff00ffffff
    and     x0, x0, x1
    ldr     x2, .Lrust_secondary
    br      x2

    .ltorg
    .balign 8
.Lrust_boot:        .quad rust_boot
.Lrust_secondary:   .quad rust_secondary
.Lboot_stack_top:   .quad boot_stack_top

    .section .data.boot, "aw"
    .balign 8
// Where the loader put the image (mmu.rs turns window addresses into
// physical ones with it).
    .global kernel_phys_base
kernel_phys_base:
    .quad   0
    .global kernel_code_damaged
kernel_code_damaged:
    .quad   0

    .section .data.pagetable, "aw"
    .balign 4096
    .global boot_page_table
boot_page_table:
    .zero   4096
kernel_window_table:
    .zero   4096
    .global identity_table
identity_table:
    .zero   4096
kernel_window_pages:
    .zero   (4096 * WINDOW_PAGE_TABLES)

    .section .bss.stack, "aw", @nobits
    .balign 4096
boot_stack:
    .space  65536
    .global boot_stack_top
boot_stack_top:

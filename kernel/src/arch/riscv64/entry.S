# The first bytes of the kernel Image, and the boot entry points.
#
# A loader (OpenSBI's fw_dynamic behind QEMU -kernel, U-Boot's booti) puts
# the image at a 2 MiB aligned physical address of its choosing and jumps
# to its first byte in S-mode with the MMU off: a0 = hart id, a1 = the
# device tree's physical address. Other harts enter at secondary_start
# (SBI HSM hart_start) with a1 = the stack top they were given.
#
# The kernel is linked in its own upper-half window (KERNEL_BASE, see
# kernel.ld). Until paging is on this code runs at the load address, so
# it uses only PC-relative addressing (lla): a symbol's PC-relative
# address is its physical address, because the image is mapped as one
# piece. It checks the image, builds the boot page table (the kernel
# window, the linear map of physical memory, and an identity gigapage for
# the instruction after `csrw satp`), turns paging on and jumps to Rust in
# the window through absolute addresses stored as data.

    .equ SATP_SV39, 8 << 60
    .equ PTE_KERNEL, 0xef               # V R W X G A D
    .equ PTE_IDENTITY, 0xcf             # V R W X A D (not global)
    .equ PTE_TABLE, 0x01                # V: points to the next level
    .equ MEGAPAGE, 1 << 21
    .equ LINEAR_MAP_ROOT, 256           # PHYS_OFFSET 0xffff_ffc0_0000_0000
    .equ LINEAR_MAP_GIB, 64
    .equ WINDOW_ROOT, 510               # KERNEL_BASE 0xffff_ffff_8000_0000
    .equ MAX_HARTS, 64                  # param::MAX_CPUS

# The Image header (Linux's Documentation/arch/riscv/boot-image-header.rst)
# and gometal's image descriptor after it (boot/image.rs reads it; the
# host's internal/bootimage writes the fields marked "stamped").
    .section .text.head, "ax"
    .option arch, +a, +m
    .option push
    .option norvc
    .global _head
_head:
    j       _start                      # code0
    .word   0                           # code1
    .dword  0x200000                    # text_offset: 2 MiB into RAM, as Linux
    .dword  kernel_image_size           # image_size (stamped larger with a payload)
    .dword  0                           # flags: little endian
    .word   2                           # version 0.2
    .word   0                           # res1
    .dword  0                           # res2
    .ascii  "RISCV\0\0\0"               # magic (deprecated, still checked by some)
    .ascii  "RSC\x05"                   # magic2
    .word   0                           # res3: no PE/COFF header
    .global image_descriptor
image_descriptor:                       # offset 0x40
    .ascii  "GOMETAL\0"                 # 0x40 magic
    .dword  kernel_checked_size         # 0x48 the checksum covers [0x80, this)
    .dword  0                           # 0x50 checksum (stamped; 0: unchecked)
    .dword  0                           # 0x58 payload offset (stamped; 0: none)
    .dword  0                           # 0x60 payload: command line length
    .dword  0                           # 0x68 payload: initramfs offset in it
    .dword  0                           # 0x70 payload: initramfs length
    .dword  0                           # 0x78 payload checksum
    .option pop

# Offset 0x80: the boot hart.
_start:
    csrw    sie, zero
    # Only the first hart to arrive here is the boot hart. OpenSBI 1.1 can
    # release a hart that is being started with SBI hart_start into this
    # cold-boot entry instead of secondary_start (it marks the hart
    # START_PENDING before it stores the start address); such a hart must
    # not run the boot sequence (which clears .bss under everyone's feet).
    lla     t0, boot_claimed
    li      t1, 1
    amoswap.w.aqrl t1, t1, (t0)
    bnez    t1, misdirected
    mv      s0, a0                      # hart id
    mv      s1, a1                      # device tree
    lla     s2, _head                   # where the loader put us
    li      t0, MEGAPAGE - 1
    and     t0, s2, t0
    lla     a0, msg_misaligned
    bnez    t0, early_fail
    srli    t0, s2, 38                  # the identity gigapage must be in the lower half
    lla     a0, msg_too_high
    bnez    t0, early_fail
    call    check_image
    call    build_page_table
    lla     t0, kernel_phys_base
    sd      s2, 0(t0)
    lla     t0, boot_page_table
    srli    t0, t0, 12
    li      t1, SATP_SV39
    or      t0, t0, t1
    sfence.vma
    csrw    satp, t0
    sfence.vma
    ld      sp, .Lboot_stack_top
    ld      t0, .Lrust_boot
    mv      a0, s0
    mv      a1, s1
    jr      t0

# The checksum of the code and constants ([0x80, kernel_checked_size)):
# FNV-1a over 64-bit words, as internal/bootimage computes it. A damaged
# or truncated file says so here instead of jumping into garbage.
check_image:
    ld      t2, 0x50(s2)
    beqz    t2, 2f                      # not stamped (the bare ELF)
    addi    t0, s2, 0x80
    ld      t1, 0x48(s2)
    add     t1, s2, t1
    li      t3, 0xcbf29ce484222325
    li      t4, 0x100000001b3
1:  bgeu    t0, t1, 3f
    ld      t5, 0(t0)
    xor     t3, t3, t5
    mul     t3, t3, t4
    addi    t0, t0, 8
    j       1b
3:  lla     a0, msg_corrupt
    bne     t3, t2, early_fail
2:  ret

# The boot page table (all but the identity entry is shared by every
# address space: user roots copy root entries 256..511):
#   the identity gigapage holding the image, only for the switch;
#   256..319: physical 0..64 GiB at PHYS_OFFSET in gigapages, global;
#   510: the kernel window, megapages of the image at KERNEL_BASE.
build_page_table:
    lla     t0, boot_page_table
    srli    t1, s2, 30
    slli    t2, t1, 3
    add     t2, t0, t2
    slli    t1, t1, 28                  # gigapage PPN = pa >> 12, at bit 10
    ori     t1, t1, PTE_IDENTITY
    sd      t1, 0(t2)
    li      t2, 8 * LINEAR_MAP_ROOT
    add     t2, t0, t2
    li      t1, 0
    li      t3, LINEAR_MAP_GIB
1:  slli    t4, t1, 28
    ori     t4, t4, PTE_KERNEL
    sd      t4, 0(t2)
    addi    t2, t2, 8
    addi    t1, t1, 1
    bltu    t1, t3, 1b
    lla     t1, kernel_window_table
    srli    t2, t1, 12
    slli    t2, t2, 10
    ori     t2, t2, PTE_TABLE
    li      t3, 8 * WINDOW_ROOT
    add     t3, t0, t3
    sd      t2, 0(t3)
    lla     t3, kernel_virt_end         # the kernel alone (a payload is
    sub     t3, t3, s2                  # reached through the linear map)
    li      t5, MEGAPAGE
    mv      t2, s2
2:  srli    t4, t2, 12
    slli    t4, t4, 10
    ori     t4, t4, PTE_KERNEL
    sd      t4, 0(t1)
    addi    t1, t1, 8
    add     t2, t2, t5
    sub     t3, t3, t5
    bgtz    t3, 2b
    ret

# Prints the NUL-terminated message at a0 on the firmware's console (the
# SBI legacy putchar: OpenSBI has it; no UART is known yet) and shuts the
# machine down (SBI SRST, "system failure"); waits forever if it cannot.
early_fail:
    mv      s3, a0
1:  lbu     a0, 0(s3)
    beqz    a0, 2f
    li      a7, 0x01
    ecall
    addi    s3, s3, 1
    j       1b
2:  li      a7, 0x53525354
    li      a6, 0
    li      a0, 0
    li      a1, 1
    ecall
3:  wfi
    j       3b

msg_misaligned:
    .asciz  "\r\ngometal: the kernel image must be loaded at a 2 MiB aligned address; this loader did not\r\n"
msg_too_high:
    .asciz  "\r\ngometal: the kernel image was loaded above 256 GiB, which it cannot map\r\n"
msg_corrupt:
    .asciz  "\r\ngometal: the image is damaged (its code does not match its checksum): a truncated or corrupt file?\r\n"
    .balign 4

# A misdirected hart (a0 = hart id): wait until the boot hart has published
# the stack it gave this hart to hart_start, then take the secondary path.
misdirected:
    li      t1, MAX_HARTS
    bgeu    a0, t1, park
    lla     t0, secondary_stacks
    slli    t1, a0, 3
    add     t0, t0, t1
1:  ld      a1, 0(t0)
    bnez    a1, secondary_start
    j       1b
park:
    wfi
    j       park

    .global secondary_start
secondary_start:
    csrw    sie, zero
    lla     t0, boot_page_table
    srli    t0, t0, 12
    li      t1, SATP_SV39
    or      t0, t0, t1
    sfence.vma
    csrw    satp, t0
    sfence.vma
    mv      sp, a1                      # opaque = this hart's stack top (virtual)
    ld      t0, .Lrust_secondary
    jr      t0

    .balign 8
.Lrust_boot:        .dword rust_boot
.Lrust_secondary:   .dword rust_secondary
.Lboot_stack_top:   .dword boot_stack_top

    .section .data.boot, "aw"
    .balign 8
boot_claimed:
    .dword  0
# Where the loader put the image (mmu.rs turns window addresses into
# physical ones with it).
    .global kernel_phys_base
kernel_phys_base:
    .dword  0
# The stack top each hart was started with, by hart id (see misdirected).
    .global secondary_stacks
secondary_stacks:
    .zero   8 * MAX_HARTS

    .section .data.pagetable, "aw"
    .balign 4096
    .global boot_page_table
boot_page_table:
    .zero   4096
kernel_window_table:
    .zero   4096

    .section .bss.stack, "aw", @nobits
    .balign 4096
boot_stack:
    .space  65536
    .global boot_stack_top
boot_stack_top:

# Boot entry points. OpenSBI enters here with the MMU off, a0 = hart id and
# a1 = the device tree's physical address (boot hart) or the opaque value given
# to SBI hart_start (other harts). This code runs at its physical address, so it
# uses only PC-relative addressing until paging is on; then it jumps to Rust in
# the upper half through absolute addresses stored as data.

    .section .text.boot, "ax"
    .option arch, +a
    .global _start
_start:
    csrw    sie, zero
    # Only the first hart to arrive here is the boot hart. OpenSBI 1.1 can
    # release a hart that is being started with SBI hart_start into this
    # cold-boot entry instead of secondary_start (it marks the hart
    # START_PENDING before it stores the start address); such a hart must
    # not run the boot sequence (which clears .bss under everyone's feet).
    la      t0, boot_claimed
    li      t1, 1
    amoswap.w.aqrl t1, t1, (t0)
    bnez    t1, misdirected
    la      t0, boot_page_table
    srli    t0, t0, 12
    li      t1, 8 << 60                 # satp.MODE = Sv39
    or      t0, t0, t1
    sfence.vma
    csrw    satp, t0
    sfence.vma
    ld      sp, .Lboot_stack_top
    ld      t0, .Lrust_boot
    jr      t0

# A misdirected hart (a0 = hart id): wait until the boot hart has published
# the stack it gave this hart to hart_start, then take the secondary path.
misdirected:
    li      t1, 64                      # param::MAX_HARTS
    bgeu    a0, t1, park
    la      t0, secondary_stacks
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
    la      t0, boot_page_table
    srli    t0, t0, 12
    li      t1, 8 << 60
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

# The boot page table: gigapages only. Entry 2 identity-maps the first GiB of
# RAM (0x8000_0000) so the instruction after `csrw satp` still executes;
# entries 256..319 map physical 0..64 GiB at PHYS_OFFSET (0xffff_ffc0_0000_0000)
# with the global bit: the kernel's linear map, shared by every address space.
    .section .data.boot, "aw"
    .balign 8
boot_claimed:
    .dword  0
# The stack top each hart was started with, by hart id (see misdirected).
    .global secondary_stacks
secondary_stacks:
    .zero   8 * 64

    .balign 4096
    .global boot_page_table
boot_page_table:
    .quad   0
    .quad   0
    .quad   (0x80000 << 10) | 0xcf      # V R W X A D
    .zero   8 * 253
    .set    gib, 0
    .rept   64
    .quad   ((gib << 18) << 10) | 0xef  # V R W X G A D
    .set    gib, gib + 1
    .endr
    .zero   8 * (512 - 256 - 64)

    .section .bss.stack, "aw", @nobits
    .balign 4096
boot_stack:
    .space  65536
    .global boot_stack_top
boot_stack_top:

# Physical addresses of boot-section symbols, for the kernel proper: it is
# linked too far away (the upper half) to reach them PC-relatively.
    .section .rodata
    .balign 8
    .global secondary_start_pa, boot_page_table_pa, secondary_stacks_pa
secondary_start_pa:     .dword secondary_start
boot_page_table_pa:     .dword boot_page_table
secondary_stacks_pa:    .dword secondary_stacks

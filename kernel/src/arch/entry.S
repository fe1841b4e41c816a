# Boot entry points. OpenSBI enters here with the MMU off, a0 = hart id and
# a1 = the device tree's physical address (boot hart) or the opaque value given
# to SBI hart_start (other harts). This code runs at its physical address, so it
# uses only PC-relative addressing until paging is on; then it jumps to Rust in
# the upper half through absolute addresses stored as data.

    .section .text.boot, "ax"
    .global _start
_start:
    csrw    sie, zero
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
    .global secondary_start_pa, boot_page_table_pa
secondary_start_pa:     .dword secondary_start
boot_page_table_pa:     .dword boot_page_table

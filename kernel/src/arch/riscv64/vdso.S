# The vDSO: a tiny ELF shared object the kernel maps into every program and
# names in AT_SYSINFO_EHDR. Go looks up __vdso_clock_gettime (version
# LINUX_4.15) in it and then reads the clocks without a system call — on
# gometal that was 9 of every 10 system calls a timer-heavy program made.
#
# The whole image is assembled here, headers included, as one 4 KiB blob;
# offsets are label differences, so the bytes are position independent. The
# kernel copies the blob into a page and fills in the two data words at the
# end (vdso.rs). Layout: ELF header, program headers, dynamic section,
# symbols, hash, version tables, strings, code, data.

    .section .rodata.vdso, "a"
    .option push
    .option arch, +m
    .balign 4096
    .global vdso_start, vdso_end, vdso_data_offset, vdso_sigreturn_offset
vdso_start:
# Elf64_Ehdr
    .byte   0x7f, 'E', 'L', 'F', 2, 1, 1, 0
    .zero   8
    .half   3                           # ET_DYN
    .half   243                         # EM_RISCV
    .word   1                           # EV_CURRENT
    .quad   0                           # e_entry
    .quad   phdrs - vdso_start          # e_phoff
    .quad   0                           # e_shoff
    .word   5                           # RVC | double-float ABI
    .half   64, 56, 2                   # ehsize, phentsize, phnum
    .half   64, 0, 0                    # shentsize, shnum, shstrndx
phdrs:
# PT_LOAD: the whole page, read + execute
    .word   1, 5
    .quad   0, 0, 0
    .quad   vdso_end - vdso_start, vdso_end - vdso_start, 4096
# PT_DYNAMIC
    .word   2, 4
    .quad   dynamic - vdso_start, dynamic - vdso_start, dynamic - vdso_start
    .quad   dynamic_end - dynamic, dynamic_end - dynamic, 8
dynamic:
    .quad   4, hash - vdso_start        # DT_HASH
    .quad   5, strings - vdso_start     # DT_STRTAB
    .quad   6, symbols - vdso_start     # DT_SYMTAB
    .quad   10, strings_end - strings   # DT_STRSZ
    .quad   11, 24                      # DT_SYMENT
    .quad   0x6ffffff0, versym - vdso_start     # DT_VERSYM
    .quad   0x6ffffffc, verdef - vdso_start     # DT_VERDEF
    .quad   0x6ffffffd, 2               # DT_VERDEFNUM
    .quad   0, 0                        # DT_NULL
dynamic_end:
symbols:
    .zero   24                          # symbol 0: none
    .word   name_clock_gettime - strings
    .byte   0x12, 0                     # STB_GLOBAL, STT_FUNC
    .half   1                           # any defined section
    .quad   clock_gettime - vdso_start
    .quad   clock_gettime_end - clock_gettime
hash:
    .word   1, 2                        # nbucket, nchain
    .word   1                           # bucket[0] -> symbol 1
    .word   0, 0                        # chain
versym:
    .half   0, 2                        # symbol 1 has version LINUX_4.15
    .balign 4
verdef:
    .half   1, 1, 1, 1                  # version, VER_FLG_BASE, ndx 1, cnt
    .word   0                           # hash (unused for the base)
    .word   20, 28                      # aux, next
    .word   name_soname - strings, 0
    .half   1, 0, 2, 1                  # version, flags, ndx 2, cnt
    .word   0x0ae77f75                  # ELF hash of "LINUX_4.15"
    .word   20, 0
    .word   name_version - strings, 0
strings:
    .byte   0
name_clock_gettime:
    .asciz  "__vdso_clock_gettime"
name_version:
    .asciz  "LINUX_4.15"
name_soname:
    .asciz  "linux-vdso.so.1"
strings_end:

# int __vdso_clock_gettime(clockid_t clock, struct timespec *ts)
# Monotonic clocks (1, 4, 6, 7) read the time CSR; realtime (0, 5) adds the
# boot-time offset from the RTC; anything else makes the system call.
    .balign 4
clock_gettime:
    li      t0, 7
    bgtu    a0, t0, 9f
    li      t0, 2
    beq     a0, t0, 9f                  # CLOCK_PROCESS_CPUTIME_ID
    li      t0, 3
    beq     a0, t0, 9f                  # CLOCK_THREAD_CPUTIME_ID
    li      t2, 0
    beqz    a0, 1f                      # CLOCK_REALTIME
    li      t0, 5
    bne     a0, t0, 2f                  # not CLOCK_REALTIME_COARSE
1:  lla     t1, data_realtime_offset
    ld      t2, 0(t1)
2:  rdtime  t0
    lla     t1, data_ns_factor
    ld      t1, 0(t1)
    # ns = (ticks * factor) >> 32, factor = 2^32 * 1e9 / timebase, in 128 bits
    mul     t3, t0, t1
    mulhu   t4, t0, t1
    srli    t3, t3, 32
    slli    t4, t4, 32
    or      t3, t3, t4
    add     t3, t3, t2
    li      t0, 1000000000
    divu    t4, t3, t0
    remu    t5, t3, t0
    sd      t4, 0(a1)
    sd      t5, 8(a1)
    li      a0, 0
    ret
9:  li      a7, 113                     # clock_gettime
    ecall
    ret
clock_gettime_end:

# Where a signal handler returns to (the kernel points ra here): the
# rt_sigreturn system call, as Linux's riscv64 vDSO has it.
    .balign 4
sigreturn:
    li      a7, 139                     # rt_sigreturn
    ecall

# Filled in by the kernel when it maps the page.
    .balign 8
vdso_data:
data_ns_factor:
    .quad   0
data_realtime_offset:
    .quad   0
    .balign 4096
vdso_end:
    .option pop

vdso_data_offset:
    .quad   vdso_data - vdso_start
vdso_sigreturn_offset:
    .quad   sigreturn - vdso_start

// The vDSO: a tiny ELF shared object the kernel maps into every program and
// names in AT_SYSINFO_EHDR. Go looks up __kernel_clock_gettime (version
// LINUX_2.6.39) in it and then reads the clocks without a system call;
// signal handlers return through its __kernel_rt_sigreturn, as on Linux.
//
// The whole image is assembled here, headers included, as one 4 KiB blob;
// offsets are label differences, so the bytes are position independent. The
// kernel copies the blob into a page and fills in the two data words at the
// end (vdso.rs). Layout: ELF header, program headers, dynamic section,
// symbols, hash, version tables, strings, code, data.

    .section .rodata.vdso, "a"
    .balign 4096
    .global vdso_start, vdso_end, vdso_data_offset, vdso_sigreturn_offset
vdso_start:
// Elf64_Ehdr
    .byte   0x7f, 'E', 'L', 'F', 2, 1, 1, 0
    .zero   8
    .hword   3                           // ET_DYN
    .hword   183                         // EM_AARCH64
    .word   1                           // EV_CURRENT
    .quad   0                           // e_entry
    .quad   phdrs - vdso_start          // e_phoff
    .quad   0                           // e_shoff
    .word   0                           // e_flags
    .hword   64, 56, 2                   // ehsize, phentsize, phnum
    .hword   64, 0, 0                    // shentsize, shnum, shstrndx
phdrs:
// PT_LOAD: the whole page, read + execute
    .word   1, 5
    .quad   0, 0, 0
    .quad   vdso_end - vdso_start, vdso_end - vdso_start, 4096
// PT_DYNAMIC
    .word   2, 4
    .quad   dynamic - vdso_start, dynamic - vdso_start, dynamic - vdso_start
    .quad   dynamic_end - dynamic, dynamic_end - dynamic, 8
dynamic:
    .quad   4, hash - vdso_start        // DT_HASH
    .quad   5, strings - vdso_start     // DT_STRTAB
    .quad   6, symbols - vdso_start     // DT_SYMTAB
    .quad   10, strings_end - strings   // DT_STRSZ
    .quad   11, 24                      // DT_SYMENT
    .quad   0x6ffffff0, versym - vdso_start     // DT_VERSYM
    .quad   0x6ffffffc, verdef - vdso_start     // DT_VERDEF
    .quad   0x6ffffffd, 2               // DT_VERDEFNUM
    .quad   0, 0                        // DT_NULL
dynamic_end:
symbols:
    .zero   24                          // symbol 0: none
    .word   name_clock_gettime - strings
    .byte   0x12, 0                     // STB_GLOBAL, STT_FUNC
    .hword   1                           // any defined section
    .quad   clock_gettime - vdso_start
    .quad   clock_gettime_end - clock_gettime
    .word   name_sigreturn - strings
    .byte   0x12, 0                     // STB_GLOBAL, STT_FUNC
    .hword   1
    .quad   sigreturn - vdso_start
    .quad   8
hash:
    .word   1, 3                        // nbucket, nchain
    .word   1                           // bucket[0] -> symbol 1
    .word   0, 2, 0                     // chain: 1 -> 2 -> end
versym:
    .hword   0, 2, 2                     // symbols 1 and 2 have version LINUX_2.6.39
    .balign 4
verdef:
    .hword   1, 1, 1, 1                  // version, VER_FLG_BASE, ndx 1, cnt
    .word   0                           // hash (unused for the base)
    .word   20, 28                      // aux, next
    .word   name_soname - strings, 0
    .hword   1, 0, 2, 1                  // version, flags, ndx 2, cnt
    .word   0x075fcb89                  // ELF hash of "LINUX_2.6.39"
    .word   20, 0
    .word   name_version - strings, 0
strings:
    .byte   0
name_clock_gettime:
    .asciz  "__kernel_clock_gettime"
name_sigreturn:
    .asciz  "__kernel_rt_sigreturn"
name_version:
    .asciz  "LINUX_2.6.39"
name_soname:
    .asciz  "linux-vdso.so.1"
strings_end:

// int __kernel_clock_gettime(clockid_t clock, struct timespec *ts)
// Monotonic clocks (1, 4, 6, 7) read the virtual counter; realtime (0, 5)
// adds the boot-time offset from the RTC; anything else makes the system call.
    .balign 4
clock_gettime:
    cmp     x0, #7
    b.hi    9f
    cmp     x0, #2                      // CLOCK_PROCESS_CPUTIME_ID
    b.eq    9f
    cmp     x0, #3                      // CLOCK_THREAD_CPUTIME_ID
    b.eq    9f
    mov     x2, #0
    cbz     x0, 1f                      // CLOCK_REALTIME
    cmp     x0, #5
    b.ne    2f                          // not CLOCK_REALTIME_COARSE
1:  adr     x3, data_realtime_offset
    ldr     x2, [x3]
2:  isb
    mrs     x4, cntvct_el0
    adr     x3, data_ns_factor
    ldr     x3, [x3]
    // ns = (ticks * factor) >> 32, factor = 2^32 * 1e9 / frequency, in 128 bits
    mul     x5, x4, x3
    umulh   x6, x4, x3
    extr    x5, x6, x5, #32
    add     x5, x5, x2
    movz    x3, #0xca00
    movk    x3, #0x3b9a, lsl #16        // 1e9
    udiv    x4, x5, x3
    msub    x6, x4, x3, x5
    stp     x4, x6, [x1]
    mov     x0, #0
    ret
9:  mov     x8, #113                    // clock_gettime
    svc     #0
    ret
clock_gettime_end:

// Where a signal handler returns to (the kernel points x30 here): the
// rt_sigreturn system call, as Linux's arm64 vDSO has it.
    .balign 4
sigreturn:
    mov     x8, #139                    // rt_sigreturn
    svc     #0

// Filled in by the kernel when it maps the page.
    .balign 8
vdso_data:
data_ns_factor:
    .quad   0
data_realtime_offset:
    .quad   0
    .balign 4096
vdso_end:

vdso_data_offset:
    .quad   vdso_data - vdso_start
vdso_sigreturn_offset:
    .quad   sigreturn - vdso_start

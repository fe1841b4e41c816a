// The exception vectors, user entry and exit.
//
// While a thread runs at EL0, SP_EL1 points at its TrapFrame, so an
// exception from EL0 saves the user registers there, then loads the
// kernel stack from the frame. The per-CPU pointer stays in TPIDR_EL1,
// which EL0 cannot touch. The kernel runs with interrupts masked, so an
// exception taken at EL1 is always a kernel bug (kernel_trap).
//
// TrapFrame layout (context.rs): x0..x30, sp, pc, pstate, tpidr,
// kernel_sp, kernel_tp, vector.

    .equ TF_SP, 31 * 8
    .equ TF_PC, 32 * 8
    .equ TF_TPIDR, 34 * 8
    .equ TF_KSP, 35 * 8
    .equ TF_VECTOR, 37 * 8
    .equ TF_SIZE, 38 * 8

    .macro save_user vector
    stp     x0, x1, [sp, #0]
    stp     x2, x3, [sp, #16]
    stp     x4, x5, [sp, #32]
    stp     x6, x7, [sp, #48]
    stp     x8, x9, [sp, #64]
    stp     x10, x11, [sp, #80]
    stp     x12, x13, [sp, #96]
    stp     x14, x15, [sp, #112]
    stp     x16, x17, [sp, #128]
    stp     x18, x19, [sp, #144]
    stp     x20, x21, [sp, #160]
    stp     x22, x23, [sp, #176]
    stp     x24, x25, [sp, #192]
    stp     x26, x27, [sp, #208]
    stp     x28, x29, [sp, #224]
    mrs     x0, sp_el0
    stp     x30, x0, [sp, #240]
    mrs     x0, elr_el1
    mrs     x1, spsr_el1
    stp     x0, x1, [sp, #TF_PC]
    mrs     x0, tpidr_el0
    str     x0, [sp, #TF_TPIDR]
    mov     x0, #\vector
    str     x0, [sp, #TF_VECTOR]
    mov     x0, sp
    ldr     x1, [sp, #TF_KSP]
    mov     sp, x1
    mov     x29, #0                     // the kernel's backtraces end here
    bl      user_trap                   // returns through user_return
    .endm

    .macro to_kernel_trap
    sub     sp, sp, #TF_SIZE
    stp     x0, x1, [sp, #0]
    stp     x29, x30, [sp, #232]
    mrs     x0, elr_el1
    str     x0, [sp, #TF_PC]
    add     x0, sp, #TF_SIZE
    str     x0, [sp, #TF_SP]
    mov     x0, sp
    bl      kernel_trap                 // panics; never returns
    .endm

    // If the exception came from user_access_probe's load, resume at its
    // fixup, which returns 1 (PSTATE and the registers are as they were).
    .macro probe_fixup
    stp     x0, x1, [sp, #-16]!
    mrs     x0, elr_el1
    adr     x1, user_access_probe_load
    cmp     x0, x1
    b.ne    1f
    adr     x1, user_access_probe_fault
    msr     elr_el1, x1
    ldp     x0, x1, [sp], #16
    eret
1:  ldp     x0, x1, [sp], #16
    .endm

    .section .text.trap, "ax"
    .balign 2048
    .global trap_vector
trap_vector:
    // Current EL with SP_EL0 (never used): sync, IRQ, FIQ, SError.
    .rept 4
    .balign 128
    to_kernel_trap
    .endr
    // Current EL with SP_EL1: the kernel itself. A synchronous fault at
    // the self-check's probe resumes at its fixup (userguard.rs).
    .balign 128
    probe_fixup
    to_kernel_trap
    .rept 3
    .balign 128
    to_kernel_trap
    .endr
    // Lower EL, AArch64: sync, IRQ, FIQ, SError.
    .balign 128
    save_user 0
    .balign 128
    save_user 1
    .balign 128
    save_user 1
    .balign 128
    save_user 0
    // Lower EL, AArch32: never (programs are AArch64 only).
    .rept 4
    .balign 128
    to_kernel_trap
    .endr

// user_return(frame: *TrapFrame): restore every user register and eret.
// Called with interrupts masked.
    .balign 4
    .global user_return
user_return:
    mov     sp, x0                      // SP_EL1 = the frame while at EL0
    ldp     x1, x2, [sp, #TF_SP]        // sp, pc
    msr     sp_el0, x1
    msr     elr_el1, x2
    ldp     x1, x2, [sp, #(33 * 8)]     // pstate, tpidr
    msr     spsr_el1, x1
    msr     tpidr_el0, x2
    ldp     x2, x3, [sp, #16]
    ldp     x4, x5, [sp, #32]
    ldp     x6, x7, [sp, #48]
    ldp     x8, x9, [sp, #64]
    ldp     x10, x11, [sp, #80]
    ldp     x12, x13, [sp, #96]
    ldp     x14, x15, [sp, #112]
    ldp     x16, x17, [sp, #128]
    ldp     x18, x19, [sp, #144]
    ldp     x20, x21, [sp, #160]
    ldp     x22, x23, [sp, #176]
    ldp     x24, x25, [sp, #192]
    ldp     x26, x27, [sp, #208]
    ldp     x28, x29, [sp, #224]
    ldr     x30, [sp, #240]
    ldp     x0, x1, [sp, #0]
    eret

// user_access_probe(addr) -> 0 if a plain EL1 load from addr read, 1 if it
// faulted (probe_fixup above). The self-check of userguard.rs: PAN on.
    .balign 4
    .global user_access_probe
user_access_probe:
user_access_probe_load:
    ldrb    w1, [x0]
    mov     x0, #0
    ret
user_access_probe_fault:
    mov     x0, #1
    ret

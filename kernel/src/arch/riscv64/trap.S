# Trap entry and return.
#
# While a thread runs in user mode, sscratch holds the address of its
# TrapFrame; while the kernel runs, sscratch is 0. The kernel never enables
# interrupts in S-mode, so a trap taken in S-mode is an exception: a kernel bug.
#
# TrapFrame layout (see arch/frames.rs): regs[0] = pc, regs[n] = xn for
# n = 1..31 (the Linux user_regs_struct order), then kernel_sp, kernel_tp.

    .equ TF_KSP, 32 * 8
    .equ TF_KTP, 33 * 8

    .section .text.trap, "ax"
    .balign 4
    .global trap_vector
trap_vector:
    csrrw   sp, sscratch, sp
    bnez    sp, from_user
    # From S-mode: sscratch was 0. Put the kernel sp back; resume at the
    # fixup if user_access_probe's load faulted, else report.
    csrrw   sp, sscratch, sp
    addi    sp, sp, -16
    sd      t0, 0(sp)
    sd      t1, 8(sp)
    csrr    t0, sepc
    la      t1, user_access_probe_load
    bne     t0, t1, 1f
    la      t1, user_access_probe_fault
    csrw    sepc, t1
    ld      t0, 0(sp)
    ld      t1, 8(sp)
    addi    sp, sp, 16
    sret
1:  ld      t0, 0(sp)
    ld      t1, 8(sp)
    addi    sp, sp, 16
    addi    sp, sp, -36 * 8
    .irp n, 1,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    sd      x\n, \n * 8(sp)
    .endr
    addi    t0, sp, 36 * 8
    sd      t0, 2 * 8(sp)
    csrr    t0, sepc
    sd      t0, 0(sp)
    mv      a0, sp
    call    kernel_trap                 # panics; never returns

from_user:
    .irp n, 1,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    sd      x\n, \n * 8(sp)
    .endr
    csrr    t0, sscratch                # the user sp
    sd      t0, 2 * 8(sp)
    csrr    t0, sepc
    sd      t0, 0(sp)
    csrw    sscratch, zero              # now in the kernel
    ld      tp, TF_KTP(sp)
    mv      a0, sp
    ld      sp, TF_KSP(sp)
    call    user_trap                   # returns through user_return

# user_return(frame: *TrapFrame): restore every user register and sret.
# Called with interrupts disabled and sstatus.SPP = 0, SPIE = 1.
    .global user_return
user_return:
    csrw    sscratch, a0
    ld      t0, 0(a0)
    csrw    sepc, t0
    .irp n, 1,2,3,4,5,6,7,8,9,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    ld      x\n, \n * 8(a0)
    .endr
    ld      a0, 10 * 8(a0)
    sret

# user_access_probe(addr) -> 0 if a plain S-mode load from addr read, 1 if
# it faulted (the fixup above). The self-check of userguard.rs: SUM clear.
    .balign 4
    .global user_access_probe
user_access_probe:
user_access_probe_load:
    lb      t0, 0(a0)
    li      a0, 0
    ret
user_access_probe_fault:
    li      a0, 1
    ret

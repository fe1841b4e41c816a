# switch_context(old: *mut Context, new: *const Context)
# Saves the callee-saved registers of the running kernel thread in *old and
# resumes the one in *new. Context layout: ra, sp, s0..s11 (14 words).
    .section .text
    .balign 4
    .global switch_context
switch_context:
    sd      ra, 0(a0)
    sd      sp, 8(a0)
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11
    sd      s\n, (16 + 8 * \n)(a0)
    .endr
    ld      ra, 0(a1)
    ld      sp, 8(a1)
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11
    ld      s\n, (16 + 8 * \n)(a1)
    .endr
    ret

# thread_trampoline: where a new thread's first switch_context lands. s0 holds
# the argument for thread_first_run (the thread's TrapFrame pointer).
    .global thread_trampoline
thread_trampoline:
    mv      a0, s0
    call    thread_first_run            # never returns

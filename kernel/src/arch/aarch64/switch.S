// switch_context(old: *mut Context, new: *const Context)
// Saves the callee-saved registers of the running kernel thread in *old and
// resumes the one in *new. Context layout: x19..x30, sp (13 words).
    .section .text
    .balign 4
    .global switch_context
switch_context:
    stp     x19, x20, [x0, #0]
    stp     x21, x22, [x0, #16]
    stp     x23, x24, [x0, #32]
    stp     x25, x26, [x0, #48]
    stp     x27, x28, [x0, #64]
    stp     x29, x30, [x0, #80]
    mov     x9, sp
    str     x9, [x0, #96]
    ldp     x19, x20, [x1, #0]
    ldp     x21, x22, [x1, #16]
    ldp     x23, x24, [x1, #32]
    ldp     x25, x26, [x1, #48]
    ldp     x27, x28, [x1, #64]
    ldp     x29, x30, [x1, #80]
    ldr     x9, [x1, #96]
    mov     sp, x9
    ret

// thread_trampoline: where a new thread's first switch_context lands. x19
// holds the argument for thread_first_run (the thread's TrapFrame pointer).
    .global thread_trampoline
thread_trampoline:
    mov     x0, x19
    bl      thread_first_run            // never returns

# fp_save(state: *mut FpState) / fp_restore(state: *const FpState)
# FpState: f0..f31 (32 doublewords), then fcsr. The kernel itself never uses
# floating point, so the registers always hold the current thread's values.
    .section .text
    .option arch, +f, +d
    .balign 4
    .global fp_save
fp_save:
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    fsd     f\n, (8 * \n)(a0)
    .endr
    frcsr   t0
    sd      t0, 256(a0)
    ret

    .global fp_restore
fp_restore:
    .irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    fld     f\n, (8 * \n)(a0)
    .endr
    ld      t0, 256(a0)
    fscsr   t0
    ret

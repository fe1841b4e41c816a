#include "textflag.h"

// Each reads one ID register from EL0: the kernel emulates the MRS.

TEXT ·readMIDR(SB), NOSPLIT, $0-8
	MRS	MIDR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·readMPIDR(SB), NOSPLIT, $0-8
	MRS	MPIDR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·readREVIDR(SB), NOSPLIT, $0-8
	MRS	REVIDR_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·readISAR0(SB), NOSPLIT, $0-8
	MRS	ID_AA64ISAR0_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

TEXT ·readPFR0(SB), NOSPLIT, $0-8
	MRS	ID_AA64PFR0_EL1, R0
	MOVD	R0, ret+0(FP)
	RET

//go:build amd64 && !purego

#include "textflag.h"

// func cpuidVAES() bool
//
// CPUID leaf 7, subleaf 0: ECX bit 9 is VAES. Leaf 7 exists wherever AVX2
// does, which the caller checks first.
TEXT ·cpuidVAES(SB), NOSPLIT, $0-1
	MOVL $7, AX
	XORL CX, CX
	CPUID
	SHRL $9, CX
	ANDL $1, CX
	MOVB CX, ret+0(FP)
	RET

// Command asm generates package vzeroupper's routines: VZEROUPPER after
// golang.org/x/crypto's ChaCha20-Poly1305 Open, and two readers of the
// AVX upper state for its tests. Run it with go generate from
// internal/vzeroupper; it lives in its own module so that avo stays out
// of the main module's dependencies.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	ConstraintExpr("amd64,!purego")

	TEXT("vzeroupper", NOSPLIT, "func()")
	Doc("vzeroupper zeroes the upper halves of the YMM and ZMM registers.")
	VZEROUPPER()
	RET()

	TEXT("upperHalves", NOSPLIT, "func() uint64")
	Doc(
		"upperHalves returns the bits 128 to 255 of Y0 to Y15 ORed together",
		"and folded to 64 bits: zero if the upper halves are clean. It leaves",
		"them clean.",
	)
	ys := []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}
	xs := []VecPhysical{X0, X1, X2, X3, X4, X5, X6, X7, X8, X9, X10, X11, X12, X13, X14, X15}
	for i := range ys {
		VEXTRACTI128(Imm(1), ys[i], xs[i])
	}
	for i := 1; i < len(xs); i++ {
		VPOR(xs[i], X0, X0)
	}
	VMOVQ(X0, RAX)
	VPEXTRQ(Imm(1), X0, RBX)
	ORQ(RBX, RAX)
	Store(RAX, ReturnIndex(0))
	RET()

	TEXT("xinuse", NOSPLIT, "func() (v uint64, ok bool)")
	Doc(
		"xinuse returns XINUSE, XGETBV with ECX = 1 (bit 2: the AVX upper",
		"state is not in its initial, clean configuration), and whether the",
		"CPU has it (CPUID.(EAX=0DH,ECX=1):EAX[2]).",
	)
	MOVL(U32(0xd), EAX)
	MOVL(U32(1), ECX)
	CPUID()
	MOVQ(U32(0), R8) // v; MOVQ leaves the flags alone
	BTL(U8(2), EAX)
	SETCS(R9B)
	Store(R9B, ReturnIndex(1))
	JCC(LabelRef("none"))
	MOVL(U32(1), ECX)
	XGETBV()
	SHLQ(U8(32), RDX)
	ORQ(RDX, RAX)
	MOVQ(RAX, R8)
	Label("none")
	Store(R8, ReturnIndex(0))
	RET()

	Generate()
}

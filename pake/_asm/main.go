// Command _asm generates the AVX2 compaction network of package pake's A1
// sampler with avo. Run it through go generate in the parent directory
// (see a1_amd64.go). It is a module of its own so that avo stays out of the
// main module.
//
// The routine ends with VZEROUPPER; the tests compare it with its Go twin
// (compactRound) on every input they try.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

// slots is the number of A1 candidates (a1Iterations * 2 in package pake).
const slots = 560

// distShift is where a slot's distance starts (bits 12-21; bit 31 is the
// valid flag), as in a1FromBytes.
const distShift = 12

func main() {
	ConstraintExpr("amd64,!purego")
	a1Compact()
	Generate()
}

func a1Compact() {
	TEXT("a1CompactAVX2", NOSPLIT, "func(v *[540]uint64)")
	Pragma("noescape")
	Doc(
		"a1CompactAVX2 runs the ten rounds of A1's compaction network (see",
		"a1FromBytes and compactRound) on the 560 32-bit slots of v[:280],",
		"eight slots per AVX2 register. Slot x takes slot x+s by an unaligned",
		"load 4s bytes on, so v[280:] must be zero: the slots past the end,",
		"never valid. Constant time: the same loads, stores and instructions",
		"for every input.",
	)
	v := Load(Param("v"), GP64())
	x := GP64()
	lo, hi, mlo, mhi, t := YMM(), YMM(), YMM(), YMM(), YMM()
	for r := range 10 {
		s := 1 << r
		sh := distShift + r
		Commentf("round %d: valid slots whose distance has bit %d set move left by %d", r, sh, s)
		XORQ(x, x)
		loop := fmt.Sprintf("round%d", r)
		Label(loop)
		// Slots x .. x+7 and x+s .. x+s+7, both from before this round:
		// ascending order reads a slot before overwriting it.
		VMOVDQU(Mem{Base: v, Index: x, Scale: 4}, lo)
		VMOVDQU(Mem{Base: v, Index: x, Scale: 4, Disp: 4 * s}, hi)
		// The moving masks: all ones where bit 31 (valid) and bit sh are set.
		VPSLLD(U8(31-sh), lo, mlo)
		VPAND(lo, mlo, mlo)
		VPSRAD(U8(31), mlo, mlo)
		VPSLLD(U8(31-sh), hi, mhi)
		VPAND(hi, mhi, mhi)
		VPSRAD(U8(31), mhi, mhi)
		// Slot x takes slot x+s if that moves, else keeps its own value
		// unless it moves away (then it becomes 0, invalid).
		VPOR(mlo, mhi, t)
		VPANDN(lo, t, lo)
		VPAND(hi, mhi, hi)
		VPOR(hi, lo, lo)
		VMOVDQU(lo, Mem{Base: v, Index: x, Scale: 4})
		ADDQ(U8(8), x)
		CMPQ(x, U32(slots))
		JB(LabelRef(loop))
	}
	VZEROUPPER()
	RET()
}

// Command _asm generates the AVX2 code of package pake's samplers with avo:
// A1's compaction network and C1's block reduction. Run it through go
// generate in the parent directory (the directive is in sampler_amd64.go);
// it writes sampler_amd64.s and the Go declarations in
// sampler_stub_amd64.go. It is a module of its own so that avo stays out
// of the main module.
//
// Each routine ends with VZEROUPPER; the tests compare each with its Go
// twin (compactRound, c1BlocksGeneric) on every input they try.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// slots is the number of A1 candidates (a1Iterations * 2 in package pake).
const slots = 560

// distShift is where a slot's distance starts (bits 12-21; bit 31 is the
// valid flag), as in a1FromBytes.
const distShift = 12

func main() {
	ConstraintExpr("amd64,!purego")
	a1Compact()
	c1Blocks()
	Generate()
}

const q = 3329

// qwords declares a 32-byte constant of four 64-bit values.
func qwords(name string, v [4]uint64) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i, x := range v {
		DATA(8*i, U64(x))
	}
	return m
}

// c1Blocks generates c1BlocksAVX2: C1 on one SHAKE128 block of each of the
// four lanes. Chunk c of a block is the little-endian 192-bit integer of
// bytes 24c .. 24c+23, six 32-bit words x_i; its value mod q is that of
// the sum of x_i * (2^(32 i) mod q), below 11777 * 2^32 < 2^46, as in
// c1Sum. A 32-byte load at 24c holds the six words and two of the next
// chunk; VPMULUDQ multiplies the even words (and, after a shift, the odd
// ones) by their weights, and weight 0 drops words 6 and 7. Four chunks'
// partial sums are added across their elements together, then reduced:
// two folds (2^24 = 2385 and 2^16 = 2285 mod q) bring the sum below
// 2^28.2, a Barrett step with floor(2^32 / q) below 2q, and a masked
// subtraction below q.
func c1Blocks() {
	TEXT("c1BlocksAVX2", NOSPLIT, "func(out *[4][8]uint16, b *byte, stride uintptr, lanes uintptr)")
	Pragma("noescape")
	Doc(
		"c1BlocksAVX2 sets out[l][c] to C1's chunk c of the SHAKE128 block",
		"of lane l, the 168 bytes at b + l*stride (chunk c is the",
		"little-endian integer of its bytes 24c .. 24c+23 mod q), for c < 7",
		"and l < lanes (1 to 4); out[l][7] is chunk 6 again, and out[l] for",
		"l >= lanes is left alone. It reads the 8 bytes after each block,",
		"which do not affect the result: the caller checks that all",
		"(lanes-1)*stride + 176 bytes are there. Constant time in the",
		"blocks: the only branches test lanes, which is public (how many",
		"lanes a batch fills), and no address depends on the bytes.",
	)
	out := Load(Param("out"), GP64())
	b := Load(Param("b"), GP64())
	stride := Load(Param("stride"), GP64())
	lanes := Load(Param("lanes"), GP64())
	weven := qwords("c1WeightsEven", [4]uint64{1, 2988, 3095, 0})
	wodd := qwords("c1WeightsOdd", [4]uint64{1353, 1358, 2982, 0})
	m24 := qwords("c1Mask24", [4]uint64{1<<24 - 1, 1<<24 - 1, 1<<24 - 1, 1<<24 - 1})
	f24 := qwords("c1Fold24", [4]uint64{2385, 2385, 2385, 2385})
	m16 := qwords("c1Mask16", [4]uint64{1<<16 - 1, 1<<16 - 1, 1<<16 - 1, 1<<16 - 1})
	f16 := qwords("c1Fold16", [4]uint64{2285, 2285, 2285, 2285})
	mu := qwords("c1Mu", [4]uint64{(1 << 32) / q, (1 << 32) / q, (1 << 32) / q, (1 << 32) / q})
	qv := qwords("c1Q", [4]uint64{q, q, q, q})
	// VPERMD indices: dwords 0, 2, 4, 6 (the low halves of the four
	// results) to the bottom.
	perm := qwords("c1Perm", [4]uint64{0 | 2<<32, 4 | 6<<32, 0, 0})

	we, wo, pv := YMM(), YMM(), YMM()
	VMOVDQU(weven, we)
	VMOVDQU(wodd, wo)
	VMOVDQU(perm, pv)
	for l := range 4 {
		Commentf("lane %d", l)
		if l > 0 {
			// Stop after the last lane asked for (lanes is public).
			CMPQ(lanes, U8(l))
			JBE(LabelRef("c1done"))
			ADDQ(stride, b)
		}
		var half [2]VecVirtual
		for g := range 2 {
			var p [4]VecVirtual
			for i := range 4 {
				c := min(4*g+i, 6) // chunk 7 does not exist: chunk 6 again
				x, o := YMM(), YMM()
				VMOVDQU(Mem{Base: b, Disp: 24 * c}, x)
				VPSRLQ(U8(32), x, o)
				VPMULUDQ(we, x, x)
				VPMULUDQ(wo, o, o)
				VPADDQ(o, x, x)
				p[i] = x
			}
			// Sum each chunk's four elements: element i of s is chunk i's.
			a, c := YMM(), YMM()
			VPUNPCKLQDQ(p[1], p[0], a)
			VPUNPCKHQDQ(p[1], p[0], c)
			VPADDQ(c, a, a) // chunk 0, chunk 1 (low half), the same (high half)
			d, e := YMM(), YMM()
			VPUNPCKLQDQ(p[3], p[2], d)
			VPUNPCKHQDQ(p[3], p[2], e)
			VPADDQ(e, d, d) // chunks 2, 3
			s, t := YMM(), YMM()
			VPERM2I128(U8(0x20), d, a, s)
			VPERM2I128(U8(0x31), d, a, t)
			VPADDQ(t, s, s)
			// Reduce: fold at 2^24, fold at 2^16, Barrett, subtract q.
			for _, f := range []struct {
				shift       uint8
				mask, times Mem
			}{{24, m24, f24}, {16, m16, f16}} {
				VPSRLQ(U8(f.shift), s, t)
				VPAND(f.mask, s, s)
				VPMULUDQ(f.times, t, t)
				VPADDQ(t, s, s)
			}
			VPMULUDQ(mu, s, t)
			VPSRLQ(U8(32), t, t)
			VPMULUDQ(qv, t, t)
			VPSUBQ(t, s, s) // below 2q
			VPSUBD(qv, s, s)
			VPSRAD(U8(31), s, t)
			VPAND(qv, t, t)
			VPADDD(t, s, s)
			half[g] = s
		}
		// The four low dwords of each half to 16-bit words, in order.
		VPERMD(half[0], pv, half[0])
		VPERMD(half[1], pv, half[1])
		VPACKUSDW(half[1], half[0], half[0])
		VMOVDQU(half[0].AsX(), Mem{Base: out, Disp: 16 * l})
	}
	Label("c1done")
	VZEROUPPER()
	RET()
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

// Command _asm generates dot8x2VNNI, key generation's product A·S two rows
// at a time with AVX-512 VNNI, for package frodo with avo. avo v0.5.0 has
// no VPDPWSSD (AVX512_VNNI), which is written as a raw instruction with its
// inputs and outputs. Run it through go generate in the parent directory
// (the directive is in matrix.go); it writes dot_amd64.s and the Go
// declaration in dot_stub_amd64.go. It is a module of its own so that avo
// stays out of the main module. The rest of the package's assembly
// (matrix_amd64.s) is written by hand.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// nbar is FrodoKEM's n̄: the columns of S, the accumulators of a row.
const nbar = 8

// ymm lists the 32 YMM registers that EVEX encoding (AVX-512VL) reaches.
var ymm = [32]reg.VecPhysical{
	reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7,
	reg.Y8, reg.Y9, reg.Y10, reg.Y11, reg.Y12, reg.Y13, reg.Y14, reg.Y15,
	reg.Y16, reg.Y17, reg.Y18, reg.Y19, reg.Y20, reg.Y21, reg.Y22, reg.Y23,
	reg.Y24, reg.Y25, reg.Y26, reg.Y27, reg.Y28, reg.Y29, reg.Y30, reg.Y31,
}

// vpdpwssd adds to each doubleword of acc the two products of the signed
// words of a and b at its position (AVX512_VNNI, on ymm with AVX512VL).
func vpdpwssd(b, a, acc reg.Register) {
	Instruction(&ir.Instruction{
		Opcode:   "VPDPWSSD",
		Operands: []Op{b, a, acc},
		Inputs:   []Op{b, a, acc},
		Outputs:  []Op{acc},
		ISA:      []string{"AVX512VL", "AVX512_VNNI"},
	})
}

func main() {
	ConstraintExpr("amd64,!purego")
	dot8x2VNNI()
	Generate()
}

// dot8x2VNNI generates the product of two rows of A with the n̄ rows of
// S^T.
func dot8x2VNNI() {
	TEXT("dot8x2VNNI", NOSPLIT, "func(out *uint16, rows *uint16, rowStride uint64, st *uint16, n uint64)")
	Doc(
		"dot8x2VNNI is dot8AVX2 for two rows of A at once: for m = 0, 1 and",
		"k = 0..7, out[8m + k] += <rows[m*rowStride:][:n], st[k*n:][:n]>",
		"(mod 2^16); n is a multiple of 16, rowStride is in entries.",
		"",
		"VPDPWSSD (AVX-512 VNNI, on ymm) multiplies the sixteen pairs of signed",
		"words of its sources and adds each pair's two products to a",
		"doubleword of the accumulator. The low 16 bits of a doubleword sum of",
		"two's-complement products are the sum of the words' products mod",
		"2^16, whatever the signs, so the sixteen accumulators (row 0 in",
		"Y0-Y7, row 1 in Y8-Y15, where the VEX-only VPHADDD of the final sums",
		"reaches them) are reduced to words only at the end. Each 16 columns",
		"of S^T are loaded once for both rows: 10 loads for 16 instructions of",
		"16 multiply-adds. The pointers start at the ends of the rows and the",
		"index counts up from -2n to 0, so that each address is one base and",
		"one index.",
	)
	Pragma("noescape")
	n2 := Load(Param("n"), GP64())
	SHLQ(U8(1), n2) // 2n: the byte length of a row
	row0 := Load(Param("rows"), GP64())
	stride := Load(Param("rowStride"), GP64())
	row1 := GP64()
	LEAQ(Mem{Base: row0, Index: stride, Scale: 2}, row1)
	ADDQ(n2, row0)
	ADDQ(n2, row1)
	st := Load(Param("st"), GP64())
	ADDQ(n2, st)
	Comment("The ends of the eight rows of S^T.")
	var stEnd [nbar]reg.Register
	stEnd[0] = st
	for k := 1; k < nbar; k++ {
		stEnd[k] = GP64()
		LEAQ(Mem{Base: stEnd[k-1], Index: n2, Scale: 1}, stEnd[k])
	}
	idx := GP64()
	MOVQ(n2, idx)
	NEGQ(idx)

	acc := ymm[:2*nbar]
	for _, a := range acc {
		VPXOR(a, a, a)
	}
	Label("dot8x2loop")
	r0, r1 := ymm[16], ymm[17]
	VMOVDQU64(Mem{Base: row0, Index: idx, Scale: 1}, r0)
	VMOVDQU64(Mem{Base: row1, Index: idx, Scale: 1}, r1)
	for k := range nbar {
		VMOVDQU64(Mem{Base: stEnd[k], Index: idx, Scale: 1}, ymm[18+k])
	}
	for k := range nbar {
		vpdpwssd(ymm[18+k], r0, acc[k])
		vpdpwssd(ymm[18+k], r1, acc[nbar+k])
	}
	ADDQ(Imm(32), idx)
	JNZ(LabelRef("dot8x2loop"))

	Comment("Horizontal sums, per row: three rounds of pairwise adds leave, in",
		"each 128-bit lane, doubleword k = that lane's part of accumulator k",
		"(k < 4 in one register, k >= 4 in another); the two lanes' parts are",
		"added, truncated to words and added to out.")
	out := Load(Param("out"), GP64())
	for m := range 2 {
		a := acc[nbar*m : nbar*m+nbar]
		VPHADDD(a[1], a[0], a[0])
		VPHADDD(a[3], a[2], a[2])
		VPHADDD(a[5], a[4], a[4])
		VPHADDD(a[7], a[6], a[6])
		VPHADDD(a[2], a[0], a[0])
		VPHADDD(a[6], a[4], a[4])
		VPERM2I128(U8(0x20), a[4], a[0], a[1])
		VPERM2I128(U8(0x31), a[4], a[0], a[3])
		VPADDD(a[3], a[1], a[1])
		w := a[5].AsX()
		VPMOVDW(a[1], w)
		VPADDW(Mem{Base: out, Disp: 16 * m}, w, w)
		VMOVDQU(w, Mem{Base: out, Disp: 16 * m})
	}
	VZEROUPPER()
	RET()
}

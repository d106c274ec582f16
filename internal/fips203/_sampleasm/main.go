// Command _sampleasm generates the AVX2 rejection sampling loop of
// SampleNTT in package fips203 with avo (SamplePolyCBD is in _asm). Run it through go generate in the parent
// directory (see sample_amd64.go). It is a module of its own so that avo
// stays out of the main module, and separate from _asm (the NTT and the
// encodings) so that the two generators can change independently.
//
// Coefficients are uint16 in [0, q), as in the Go code; the tests compare
// every routine with its Go twin bit for bit. Every routine ends with
// VZEROUPPER.
package main

import (
	"math/bits"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

const q = 3329

// words16 declares a 32-byte constant with v in every 16-bit lane.
func words16(name string, v uint16) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i := range 16 {
		DATA(2*i, U16(v))
	}
	return m
}

// bytes32 declares a 32-byte constant.
func bytes32(name string, b [32]byte) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i, v := range b {
		DATA(i, U8(v))
	}
	return m
}

var qWords Mem

func main() {
	ConstraintExpr("amd64,!purego")
	qWords = words16("rejUniformQ", q)
	rejUniform()
	Generate()
}

func rejUniform() {
	// The compaction table: entry m (16 bytes) moves the 16-bit lanes
	// whose bit is set in m to the front, in order; the rest is zeroed.
	table := GLOBL("rejUniformTable", RODATA|NOPTR)
	for m := range 256 {
		var e [16]byte
		for i := range e {
			e[i] = 0xff
		}
		o := 0
		for i := range 8 {
			if m>>i&1 == 1 {
				e[o], e[o+1] = byte(2*i), byte(2*i+1)
				o += 2
			}
		}
		if o != 2*bits.OnesCount8(uint8(m)) {
			panic("table")
		}
		for i, v := range e {
			DATA(16*m+i, U8(v))
		}
	}
	var shuf [32]byte
	for l := range 2 {
		for g := range 4 {
			base := 4*l + 3*g
			copy(shuf[16*l+4*g:], []byte{byte(base), byte(base + 1), byte(base + 1), byte(base + 2)})
		}
	}
	shufMem := bytes32("rejUniformShuffle", shuf)
	m0fff := words16("rejUniformMask", 0x0fff)

	TEXT("rejUniformAVX2", NOSPLIT, "func(a *[256]uint16, k int, b []byte) (int, int)")
	Pragma("noescape")
	Doc(
		"rejUniformAVX2 runs the loop of SampleNTT (FIPS 203, Algorithm 7,",
		"lines 5 to 14) on b, 24 bytes (16 candidates) at a time, appending the",
		"candidates below q to a[k:], while k <= 240 and 24 bytes of b remain",
		"(and b has 32 bytes). It returns the new k and the number of bytes consumed (a",
		"multiple of 24); rejectionSampleGeneric finishes the rest. Like it, it",
		"may leave a rejected candidate in a[k:], which is not part of the",
		"result. Variable time: b comes from the public seed rho.",
	)
	a := Load(Param("a"), GP64())
	k := Load(Param("k"), GP64())
	bp := Load(Param("b").Base(), GP64())
	blen := Load(Param("b").Len(), GP64())
	pos := GP64()
	XORQ(pos, pos)
	tbl := GP64()
	LEAQ(table, tbl)
	qv := YMM()
	VMOVDQU(qWords, qv)
	end := GP64()

	x, t, g := YMM(), YMM(), YMM()
	JMP(LabelRef("rejCheck"))

	Label("rejLoop")
	// Bytes pos .. pos+15 in the low lane, pos+8 .. pos+23 in the high one.
	VPERMQ(Imm(0x94), Mem{Base: bp, Index: pos, Scale: 1}, x)

	Label("rejParse")
	// Each 16-bit lane: the two bytes holding one candidate, then the
	// odd candidates shifted down by 4, and 12 bits kept.
	VPSHUFB(shufMem, x, x)
	VPSRLW(Imm(4), x, t)
	VPBLENDW(Imm(0xaa), t, x, x)
	VPAND(m0fff, x, x)
	// g: all ones in the lanes below q. Packed to bytes (within each
	// 128-bit half, twice), one mask bit per candidate: bits 0-7 are
	// candidates 0-7, bits 16-23 candidates 8-15.
	VPCMPGTW(x, qv, g)
	VPACKSSWB(g, g, g)
	m := GP32()
	VPMOVMSKB(g, m)
	m0, m1 := GP64(), GP64()
	MOVBQZX(m.As8(), m0)
	MOVL(m, m1.As32())
	SHRL(Imm(16), m1.As32())
	ANDL(U32(0xff), m1.As32())
	c0, c1 := GP64(), GP64()
	POPCNTQ(m0, c0)
	POPCNTQ(m1, c1)
	SHLQ(Imm(4), m0)
	SHLQ(Imm(4), m1)
	lo, hi := XMM(), XMM()
	VPSHUFB(Mem{Base: tbl, Index: m0, Scale: 1}, x.AsX(), lo)
	VMOVDQU(lo, Mem{Base: a, Index: k, Scale: 2})
	ADDQ(c0, k)
	VEXTRACTI128(Imm(1), x, hi)
	VPSHUFB(Mem{Base: tbl, Index: m1, Scale: 1}, hi, hi)
	VMOVDQU(hi, Mem{Base: a, Index: k, Scale: 2})
	ADDQ(c1, k)
	ADDQ(Imm(24), pos)

	// Go on while k <= 240 and b has 24 more bytes: with a plain load if
	// it has 32, else (the last 24 bytes of b) with the same layout from the
	// 32 bytes that end there, if b has them.
	Label("rejCheck")
	CMPQ(k, Imm(240))
	JA(LabelRef("rejDone"))
	LEAQ(Mem{Base: pos, Disp: 32}, end)
	CMPQ(end, blen)
	JBE(LabelRef("rejLoop"))
	LEAQ(Mem{Base: pos, Disp: 24}, end)
	CMPQ(end, blen)
	JA(LabelRef("rejDone"))
	CMPQ(pos, Imm(8))
	JB(LabelRef("rejDone"))
	VPERMQ(Imm(0xe9), Mem{Base: bp, Index: pos, Scale: 1, Disp: -8}, x)
	JMP(LabelRef("rejParse"))

	Label("rejDone")
	Store(k, ReturnIndex(0))
	Store(pos, ReturnIndex(1))
	VZEROUPPER()
	RET()
}

// Command _sampleasm generates the AVX2 and AVX-512 rejection sampling
// loops of SampleNTT in package fips203 with avo (SamplePolyCBD is in
// _asm). avo v0.5.0 has no VPCOMPRESSW (AVX-512 VBMI2), which the AVX-512
// loop writes as a raw instruction with its inputs and outputs. Run it
// through go generate in the parent directory (the directive is in
// sample_amd64.go); it writes sample_amd64.s and the Go declarations in
// sample_stub_amd64.go. It is a module of its own so that avo stays out of
// the main module, and separate from _asm (the NTT and the encodings) so
// that the two generators can change independently.
//
// Coefficients are uint16 in [0, q), as in the Go code; the tests compare
// every routine with its Go twin bit for bit. Every routine ends with
// VZEROUPPER.
package main

import (
	"fmt"
	"math/bits"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/ir"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

const q = 3329

// pipeDepth is how many rounds ahead the rejection loop loads its input.
const pipeDepth = 3

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
	rejUniformAVX512()
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
	// The constants live in registers: a load from memory in the loop
	// would wait for the previous round's stores (see below).
	qv, shufv, maskv := YMM(), YMM(), YMM()
	VMOVDQU(qWords, qv)
	VMOVDQU(shufMem, shufv)
	VMOVDQU(m0fff, maskv)

	// xs[0] holds the round being parsed, xs[1:] the next ones.
	var xs [pipeDepth + 1]reg.VecVirtual
	for i := range xs {
		xs[i] = YMM()
	}
	x, t, g := xs[0], YMM(), YMM()
	// avail counts the rounds whose bytes are loaded (in x, x1, x2) and
	// not yet parsed; ld is the offset in b of the next round to load.
	avail, ld := GP64(), GP64()

	// The loop is software-pipelined two rounds deep: the bytes of the
	// round after next are loaded before this round's stores. The stores'
	// addresses depend on k, which depends on this round's load; a load
	// placed after them waits for that address (the CPU does not know
	// that b and a are apart), which chained every round's latency to the
	// next. Now a load waits only for stores two rounds back.
	XORQ(avail, avail)
	XORQ(ld, ld)
	CMPQ(k, Imm(240))
	JA(LabelRef("rejDone"))
	for i := range pipeDepth {
		loadRound(bp, blen, ld, avail, xs[i], fmt.Sprintf("rejFirst%d", i))
	}
	TESTQ(avail, avail)
	JZ(LabelRef("rejDone"))

	Label("rejLoop")
	// Each 16-bit lane: the two bytes holding one candidate, then the
	// odd candidates shifted down by 4, and 12 bits kept.
	VPSHUFB(shufv, x, x)
	VPSRLW(Imm(4), x, t)
	VPBLENDW(Imm(0xaa), t, x, x)
	VPAND(maskv, x, x)
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
	VEXTRACTI128(Imm(1), x, hi)
	VPSHUFB(Mem{Base: tbl, Index: m1, Scale: 1}, hi, hi)
	ADDQ(Imm(24), pos)
	DECQ(avail)
	loadRound(bp, blen, ld, avail, xs[pipeDepth], "rejNext")

	VMOVDQU(lo, Mem{Base: a, Index: k, Scale: 2})
	ADDQ(c0, k)
	VMOVDQU(hi, Mem{Base: a, Index: k, Scale: 2})
	ADDQ(c1, k)
	for i := range pipeDepth {
		VMOVDQA(xs[i+1], xs[i])
	}
	// Go on while k <= 240 and a loaded round remains.
	CMPQ(k, Imm(240))
	JA(LabelRef("rejDone"))
	TESTQ(avail, avail)
	JNZ(LabelRef("rejLoop"))

	Label("rejDone")
	Store(k, ReturnIndex(0))
	Store(pos, ReturnIndex(1))
	VZEROUPPER()
	RET()
}

// loadRound loads the 24 bytes of b at offset ld into x, 16-bit lane i of
// the parser's input holding bytes ld+8*(i/8) on, and advances ld and
// avail, if b has them: with a plain load if it has 32 bytes there, else
// (the last 24 bytes of b) with the same layout from the 32 bytes that
// end there, if b has them. Otherwise it leaves everything as it is.
func loadRound(bp, blen reg.Register, ld, avail reg.GPVirtual, x reg.VecVirtual, label string) {
	end := GP64()
	LEAQ(Mem{Base: ld, Disp: 32}, end)
	CMPQ(end, blen)
	JA(LabelRef(label + "Last"))
	VPERMQ(Imm(0x94), Mem{Base: bp, Index: ld, Scale: 1}, x)
	JMP(LabelRef(label + "Loaded"))
	Label(label + "Last")
	LEAQ(Mem{Base: ld, Disp: 24}, end)
	CMPQ(end, blen)
	JA(LabelRef(label + "Done"))
	CMPQ(ld, Imm(8))
	JB(LabelRef(label + "Done"))
	VPERMQ(Imm(0xe9), Mem{Base: bp, Index: ld, Scale: 1, Disp: -8}, x)
	Label(label + "Loaded")
	ADDQ(Imm(24), ld)
	INCQ(avail)
	Label(label + "Done")
}

// rejUniformAVX512 generates the AVX-512 loop of SampleNTT: 48 bytes (32
// candidates) a round in a zmm register, compacted with VPCOMPRESSW
// (AVX-512 VBMI2) instead of the table of the AVX2 loop.
func rejUniformAVX512() {
	// The byte permutation that puts in 16-bit lane i the two bytes that
	// hold candidate i (from byte 3i/2 on, rounded down), and the shifts
	// that bring the odd candidates down by 4 bits.
	perm := GLOBL("rejUniformPerm512", RODATA|NOPTR)
	for i := range 32 {
		o := 3*(i/2) + i%2
		DATA(2*i, U8(o))
		DATA(2*i+1, U8(o+1))
	}
	shift := GLOBL("rejUniformShift512", RODATA|NOPTR)
	for i := range 32 {
		DATA(2*i, U16(4*(i%2)))
	}
	mask := GLOBL("rejUniformMask512", RODATA|NOPTR)
	for i := range 32 {
		DATA(2*i, U16(0x0fff))
	}
	qs := GLOBL("rejUniformQ512", RODATA|NOPTR)
	for i := range 32 {
		DATA(2*i, U16(q))
	}

	TEXT("rejUniformAVX512", NOSPLIT, "func(a *[256]uint16, k int, b []byte) (int, int)")
	Pragma("noescape")
	Doc(
		"rejUniformAVX512 runs the loop of SampleNTT (FIPS 203, Algorithm 7,",
		"lines 5 to 14) with AVX-512 (F, VL, BW, VBMI and VBMI2) and BMI2: it",
		"parses 48 bytes (32 candidates) of b at a time in a zmm register, and",
		"moves the candidates below q to the front with VPCOMPRESSW, while k",
		"<= 224 and 48 bytes of b remain; then 24 bytes (16 candidates) at a",
		"time in a ymm register while k < 256 and 24 bytes remain, storing",
		"no lane past a[255], so that it fills a whole from b unless b runs",
		"out. It reads no byte of b past the ones it consumes. It returns the",
		"new k (at most 256) and the number of bytes consumed (a multiple of",
		"24); rejectionSampleGeneric parses what is left of b if k < 256.",
		"Like it, it may leave rejected candidates in a[k:], which are not",
		"part of the result. Variable time: b comes from the public seed rho.",
	)
	a := Load(Param("a"), GP64())
	k := Load(Param("k"), GP64())
	bp := Load(Param("b").Base(), GP64())
	blen := Load(Param("b").Len(), GP64())
	pos := GP64()
	XORQ(pos, pos)
	permv, shiftv, maskv, qv := ZMM(), ZMM(), ZMM(), ZMM()
	VMOVDQU64(perm, permv)
	VMOVDQU64(shift, shiftv)
	VMOVDQU64(mask, maskv)
	VMOVDQU64(qs, qv)
	// The load masks: the first 48 and 24 bytes of a register (a masked
	// load reads nothing past them).
	lm48, lm24 := K(), K()
	t := GP64()
	MOVQ(U64(1<<48-1), t)
	KMOVQ(t, lm48)
	MOVQ(U64(1<<24-1), t)
	KMOVQ(t, lm24)

	// parse sets x to the candidates of the bytes loaded in x, each in a
	// 16-bit lane, and m to the mask of those below q, in n lanes.
	parse := func(x reg.VecVirtual, m reg.Register, n int) {
		VPERMB(x, permv, x)
		VPSRLVW(shiftv, x, x)
		VPANDQ(maskv, x, x)
		// q > x, signed: the candidates are below 2^12.
		if n == 32 {
			VPCMPGTW(x, qv, m)
		} else {
			VPCMPGTW(x.AsY(), qv.AsY(), m)
		}
	}
	// compress moves the lanes of x that m selects to the front of y.
	compress := func(x reg.Register, m reg.Register, y reg.Register) {
		Instruction(&ir.Instruction{
			Opcode:   "VPCOMPRESSW",
			Suffixes: []string{"Z"},
			Operands: []Op{x, m, y},
			Inputs:   []Op{x, m},
			Outputs:  []Op{y},
			ISA:      []string{"AVX512VL", "AVX512_VBMI2"},
		})
	}
	// advance adds the number of lanes m selects to k.
	advance := func(m reg.Register) {
		c := GP32()
		KMOVD(m, c)
		POPCNTL(c, c)
		ADDQ(c.As64(), k)
	}

	// x holds the round being parsed, next the one after it, loaded
	// before this round's store (whose address depends on k) so that the
	// load does not wait for it.
	x, next, y := ZMM(), ZMM(), ZMM()
	CMPQ(k, Imm(224))
	JA(LabelRef("rej512Tail"))
	CMPQ(blen, Imm(48))
	JB(LabelRef("rej512Tail"))
	VMOVDQU8_Z(Mem{Base: bp}, lm48, x)

	Label("rej512Loop")
	m := K()
	parse(x, m, 32)
	compress(x, m, y)
	ADDQ(Imm(48), pos)
	LEAQ(Mem{Base: pos, Disp: 48}, t)
	CMPQ(t, blen)
	JA(LabelRef("rej512Store"))
	VMOVDQU8_Z(Mem{Base: bp, Index: pos, Scale: 1}, lm48, next)
	Label("rej512Store")
	VMOVDQU16(y, Mem{Base: a, Index: k, Scale: 2})
	advance(m)
	VMOVDQA64(next, x)
	// Go on while k <= 224 and 48 bytes remain.
	CMPQ(t, blen)
	JA(LabelRef("rej512Tail"))
	CMPQ(k, Imm(224))
	JBE(LabelRef("rej512Loop"))

	Label("rej512Tail")
	// Rounds of 24 bytes while k < 256 and they remain. The store is
	// masked to the lanes below min(16, 256 - k), and k stops at 256: the
	// accepted candidates past a[255] are dropped, as Algorithm 7 stops
	// there.
	CMPQ(k, U32(256))
	JAE(LabelRef("rej512Done"))
	LEAQ(Mem{Base: pos, Disp: 24}, t)
	CMPQ(t, blen)
	JA(LabelRef("rej512Done"))
	VMOVDQU8_Z(Mem{Base: bp, Index: pos, Scale: 1}, lm24, x)
	mt := K()
	parse(x, mt, 16)
	compress(x.AsY(), mt, y.AsY())
	room, sixteen, lanes := GP32(), GP32(), GP32()
	MOVL(U32(256), room)
	SUBL(k.(reg.GPVirtual).As32(), room)
	MOVL(U32(16), sixteen)
	CMPL(room, sixteen)
	CMOVLGT(sixteen, room)
	MOVL(U32(0xffff), lanes)
	BZHIL(room, lanes, lanes)
	sm := K()
	KMOVD(lanes, sm)
	VMOVDQU16(y.AsY(), sm, Mem{Base: a, Index: k, Scale: 2})
	advance(mt)
	full := GP64()
	MOVQ(U32(256), full)
	CMPQ(k, full)
	CMOVQGT(full, k)
	MOVQ(t, pos)
	JMP(LabelRef("rej512Tail"))

	Label("rej512Done")
	Store(k, ReturnIndex(0))
	Store(pos, ReturnIndex(1))
	VZEROUPPER()
	RET()
}

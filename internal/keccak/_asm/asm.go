// Command asm generates the AVX2 and AVX-512 four-way Keccak-f[1600]
// permutations of package keccak and the AVX2 block extraction. Run it
// with go generate from internal/keccak; it lives in its own module so
// that avo stays out of the main module's dependencies.
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// roundConstants are the iota constants RC[0..23] of FIPS 202, section 3.2.5.
var roundConstants = [24]uint64{
	0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
	0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
	0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
	0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
	0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
	0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
}

// rho returns the rotation offsets r[x][y] of FIPS 202, Algorithm 2.
func rho() (r [5][5]int) {
	x, y := 1, 0
	for t := range 24 {
		r[x][y] = ((t + 1) * (t + 2) / 2) % 64
		x, y = y, (2*x+3*y)%5
	}
	return r
}

const laneSize = 32 // four interleaved 64-bit lanes: one YMM register

func main() {
	ConstraintExpr("amd64,!purego")

	// The round constants, each repeated for the four states.
	rcTable := GLOBL("keccakRoundConstants4", RODATA|NOPTR)
	for i, c := range roundConstants {
		for j := range 4 {
			DATA(laneSize*i+8*j, U64(c))
		}
	}
	// VPSHUFB masks that rotate every 64-bit lane left by 8 and by 56 bits,
	// 64 bytes for the ZMM permutation (the others read the first 32).
	rol8 := GLOBL("keccakRol8", RODATA|NOPTR)
	for i := range 64 {
		DATA(i, U8(i&^7+(i+7)%8))
	}
	rol56 := GLOBL("keccakRol56", RODATA|NOPTR)
	for i := range 64 {
		DATA(i, U8(i&^7+(i+1)%8))
	}

	TEXT("keccakF1600x4AVX2", 0, "func(a *[25][4]uint64)")
	Doc(
		"keccakF1600x4AVX2 applies Keccak-f[1600] to four states at once. The",
		"states are interleaved: a[i][j] is lane i (x + 5y) of state j.",
		"",
		"The 25 four-way lanes do not fit in the 16 YMM registers, so each round",
		"reads one copy of the state and writes the next one, in two aligned",
		"buffers on the stack, and keeps only the theta column parities C[x]",
		"in registers: chi computes the next round's C[x] as it writes the",
		"lanes, so theta never reads the state again.",
	)
	Pragma("noescape")
	a := Load(Param("a"), GP64())

	// Two 32-byte aligned 800-byte states on the stack.
	local := AllocLocal(2*25*laneSize + laneSize)
	buf := GP64()
	LEAQ(local, buf)
	ADDQ(Imm(laneSize-1), buf)
	ANDQ(I32(-laneSize), buf)
	bufA := Mem{Base: buf}
	bufE := Mem{Base: buf, Disp: 25 * laneSize}

	var c, d, b [5]VecVirtual
	for i := range 5 {
		c[i], d[i], b[i] = YMM(), YMM(), YMM()
	}
	t := YMM()

	// Copy the state in, computing the column parities on the way.
	Comment("Copy the state to the stack and compute C[x] = xor of column x.")
	for y := range 5 {
		for x := range 5 {
			i := x + 5*y
			src := Mem{Base: a, Disp: laneSize * i}
			if y == 0 {
				VMOVDQU(src, c[x])
				VMOVDQA(c[x], bufA.Offset(laneSize*i))
			} else {
				VMOVDQU(src, t)
				VMOVDQA(t, bufA.Offset(laneSize*i))
				VPXOR(t, c[x], c[x])
			}
		}
	}

	rc := GP64()
	LEAQ(rcTable, rc)
	end := GP64()
	LEAQ(rcTable.Offset(24*laneSize), end)
	r := rho()

	// round applies one round from src to dst with the round constant at
	// rcMem, given C in c and leaving the next round's C in c.
	round := func(src, dst Mem, rcMem Mem) {
		Comment("theta: D[x] = C[x-1] ^ rol(C[x+1], 1)")
		for x := range 5 {
			VPADDQ(c[(x+1)%5], c[(x+1)%5], d[x])
			VPSRLQ(Imm(63), c[(x+1)%5], t)
			VPOR(t, d[x], d[x])
			VPXOR(c[(x+4)%5], d[x], d[x])
		}
		for y := range 5 {
			Comment(fmt.Sprintf("rho, pi: plane %d", y))
			for x := range 5 {
				// B[x, y] = rol(A[x', x] ^ D[x'], r[x'][x]) with
				// x' = x + 3y: the inverse of pi.
				xs := (x + 3*y) % 5
				VPXOR(src.Offset(laneSize*(xs+5*x)), d[xs], b[x])
				switch rot := r[xs][x]; rot {
				case 0:
				case 8:
					VPSHUFB(rol8, b[x], b[x])
				case 56:
					VPSHUFB(rol56, b[x], b[x])
				default:
					VPSRLQ(Imm(uint64(64-rot)), b[x], t)
					VPSLLQ(Imm(uint64(rot)), b[x], b[x])
					VPOR(t, b[x], b[x])
				}
			}
			Comment(fmt.Sprintf("chi, iota: plane %d, accumulating the next C", y))
			for x := range 5 {
				out := t
				if y == 0 {
					out = c[x]
				}
				VPANDN(b[(x+2)%5], b[(x+1)%5], out)
				VPXOR(b[x], out, out)
				if x == 0 && y == 0 {
					VPXOR(rcMem, out, out)
				}
				VMOVDQA(out, dst.Offset(laneSize*(x+5*y)))
				if y > 0 {
					VPXOR(out, c[x], c[x])
				}
			}
		}
	}

	Label("loop")
	round(bufA, bufE, Mem{Base: rc})
	round(bufE, bufA, Mem{Base: rc, Disp: laneSize})
	ADDQ(Imm(2*laneSize), rc)
	CMPQ(rc, end)
	JNE(LabelRef("loop"))

	Comment("Copy the state back.")
	for i := range 25 {
		VMOVDQA(bufA.Offset(laneSize*i), t)
		VMOVDQU(t, Mem{Base: a, Disp: laneSize * i})
	}
	VZEROUPPER()
	RET()

	permuteAVX512(rcTable, rol8, rol56)
	permuteAVX512x8(rcTable, rol8, rol56)
	squeeze(168)
	squeeze(136)

	Generate()
}

// squeeze generates keccakSqueeze<rate>x4, which copies the first rate
// bytes of each of the four interleaved states to its own output: a 4 x 4
// transpose of 64-bit words per four lanes, then the odd last lane word by
// word.
func squeeze(rate int) {
	name := fmt.Sprintf("keccakSqueeze%dx4", rate)
	TEXT(name, NOSPLIT, fmt.Sprintf("func(a *[25][4]uint64, o0, o1, o2, o3 *[%d]byte)", rate))
	Doc(
		fmt.Sprintf("%s copies bytes 0 to %d of state j in a to oj, for j = 0 .. 3:", name, rate-1),
		"the output block of each of the four SHAKE instances.",
	)
	Pragma("noescape")
	a := Load(Param("a"), GP64())
	var o [4]Register
	for j := range o {
		o[j] = Load(Param(fmt.Sprintf("o%d", j)), GP64())
	}
	words := rate / 8
	i := 0
	for ; i+4 <= words; i += 4 {
		Comment(fmt.Sprintf("Words %d .. %d.", i, i+3))
		var r, t, c [4]VecVirtual
		for k := range 4 {
			r[k], t[k], c[k] = YMM(), YMM(), YMM()
			VMOVDQU(Mem{Base: a, Disp: laneSize * (i + k)}, r[k])
		}
		// t0 = [r0[0] r1[0] r0[2] r1[2]], t1 = [r0[1] r1[1] r0[3] r1[3]],
		// t2, t3 the same for r2, r3.
		VPUNPCKLQDQ(r[1], r[0], t[0])
		VPUNPCKHQDQ(r[1], r[0], t[1])
		VPUNPCKLQDQ(r[3], r[2], t[2])
		VPUNPCKHQDQ(r[3], r[2], t[3])
		// c_j = [r0[j] r1[j] r2[j] r3[j]]: words i .. i+3 of state j.
		VPERM2I128(Imm(0x20), t[2], t[0], c[0])
		VPERM2I128(Imm(0x20), t[3], t[1], c[1])
		VPERM2I128(Imm(0x31), t[2], t[0], c[2])
		VPERM2I128(Imm(0x31), t[3], t[1], c[3])
		for j := range 4 {
			VMOVDQU(c[j], Mem{Base: o[j], Disp: 8 * i})
		}
	}
	for ; i < words; i++ {
		Comment(fmt.Sprintf("Word %d.", i))
		for j := range 4 {
			w := GP64()
			MOVQ(Mem{Base: a, Disp: laneSize*i + 8*j}, w)
			MOVQ(w, Mem{Base: o[j], Disp: 8 * i})
		}
	}
	VZEROUPPER()
	RET()
}

package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The VPTERNLOGQ truth tables. With the operands written dst, src2, src3
// (Go order: imm, src3, src2, dst), bit 4*dst + 2*src2 + src3 of the
// immediate is the result.
const (
	ternXOR3 = 0x96 // dst ^ src2 ^ src3
	ternChi  = 0xD2 // dst ^ (^src2 & src3)
)

// ymm lists the 32 YMM registers that EVEX encoding (AVX-512VL) reaches.
var ymm = [32]VecPhysical{
	Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15,
	Y16, Y17, Y18, Y19, Y20, Y21, Y22, Y23, Y24, Y25, Y26, Y27, Y28, Y29, Y30, Y31,
}

// piCycle returns the lanes (x, y) other than (0, 0) in the order pi moves
// them: the lane at piCycle[k] goes to piCycle[k+1], and the last one to
// the first. FIPS 202, Algorithm 3, sets A'[x, y] = A[x + 3y, x], so the
// lane at (x, y) goes to (y, 2x + 3y); from (1, 0) that visits all 24.
func piCycle() (c [24][2]int) {
	x, y := 1, 0
	for k := range c {
		c[k] = [2]int{x, y}
		x, y = y, (2*x+3*y)%5
	}
	if x != 1 || y != 0 {
		panic("pi is not one 24-cycle")
	}
	return c
}

// permuteAVX512 generates keccakF1600x4AVX512: the four-way permutation
// with the 25 four-way lanes held in 25 of the 32 YMM registers for all
// 24 rounds. rcTable holds the round constants at a stride of laneSize,
// rol8 and rol56 the VPSHUFB masks of the rotations by 8 and 56.
func permuteAVX512(rcTable, rol8, rol56 Mem) {
	TEXT("keccakF1600x4AVX512", NOSPLIT, "func(a *[25][4]uint64)")
	Doc(
		"keccakF1600x4AVX512 is keccakF1600x4AVX2 with AVX-512F, VL and BW",
		"on YMM registers: the 25 four-way lanes stay in 25 of the 32",
		"registers for all 24 rounds, VPROLQ rotates (VPSHUFB the two lanes",
		"rotated by 8 and 56 bits, which takes them off the rotate pipes;",
		"EVEX VPSHUFB needs AVX-512BW), and VPTERNLOGQ does chi and the",
		"three-input XORs of theta. pi is a renaming of registers, undone",
		"every second round.",
	)
	Pragma("noescape")
	a := Load(Param("a"), GP64())

	// lane[i] is the register that holds lane i = x + 5y.
	var lane [25]VecPhysical
	copy(lane[:], ymm[:25])
	// free returns the registers that hold no lane.
	free := func() (f []VecPhysical) {
	next:
		for _, r := range ymm {
			for _, l := range lane {
				if l == r {
					continue next
				}
			}
			f = append(f, r)
		}
		return f
	}

	Comment("Load the state.")
	for i := range lane {
		VMOVDQU64(Mem{Base: a, Disp: laneSize * i}, lane[i])
	}

	rc := GP64()
	LEAQ(rcTable, rc)
	end := GP64()
	LEAQ(rcTable.Offset(24*laneSize), end)
	r := rho()
	cycle := piCycle()

	round := func(rcMem Mem) {
		t := free()
		c, rot := t[:5], t[5]
		Comment("theta: C[x] = A[x, 0] ^ ... ^ A[x, 4] (FIPS 202, Algorithm 1)")
		for x := range 5 {
			VMOVDQA64(lane[x], c[x])
			VPTERNLOGQ(U8(ternXOR3), lane[x+10], lane[x+5], c[x])
			VPTERNLOGQ(U8(ternXOR3), lane[x+20], lane[x+15], c[x])
		}
		Comment("theta: A[x, y] ^= C[x-1] ^ rol(C[x+1], 1)")
		for x := range 5 {
			VPROLQ(U8(1), c[(x+1)%5], rot)
			for y := range 5 {
				VPTERNLOGQ(U8(ternXOR3), rot, c[(x+4)%5], lane[x+5*y])
			}
		}

		Comment("rho and pi (Algorithms 2 and 3): rotate each lane into the")
		Comment("register of the lane pi moves it to, the last one into a free")
		Comment("register; chi (Algorithm 4) of each plane as soon as its five")
		Comment("lanes are written.")
		at := func(k int) int { return cycle[k][0] + 5*cycle[k][1] }
		spare := free()[0]
		// chi's two copies go to registers that hold no lane and are not
		// spare. A plane's chi, emitted as soon as rho has written its
		// lanes (rho reads none of them again), runs beside the rotations
		// that are left, on other pipes (Zen 4 rotates and shuffles on two
		// of its four vector pipes): 2% faster than chi after all of rho.
		var tmp []VecPhysical
		for _, f := range free() {
			if f != spare {
				tmp = append(tmp, f)
			}
		}
		chi := func(y int) {
			Comment(fmt.Sprintf("chi (Algorithm 4): plane %d", y))
			b := lane[5*y : 5*y+5]
			VMOVDQA64(b[0], tmp[0])
			VMOVDQA64(b[1], tmp[1])
			VPTERNLOGQ(U8(ternChi), b[2], b[1], b[0])
			VPTERNLOGQ(U8(ternChi), b[3], b[2], b[1])
			VPTERNLOGQ(U8(ternChi), b[4], b[3], b[2])
			VPTERNLOGQ(U8(ternChi), tmp[0], b[4], b[3])
			VPTERNLOGQ(U8(ternChi), tmp[1], tmp[0], b[4])
			if y == 0 {
				Comment("iota (Algorithm 6)")
				VPXORQ_BCST(rcMem, b[0], b[0])
			}
		}
		rotate := func(k int, dst VecPhysical) {
			switch n := r[cycle[k][0]][cycle[k][1]]; n {
			case 8:
				VPSHUFB(rol8, lane[at(k)], dst)
			case 56:
				VPSHUFB(rol56, lane[at(k)], dst)
			default:
				VPROLQ(U8(uint64(n)), lane[at(k)], dst)
			}
		}
		written := [5]int{0: 1} // lane (0, 0) does not move
		last := at(0) / 5      // its lane at(0) comes from spare, at the end
		rotate(23, spare)
		for k := 22; k >= 0; k-- {
			rotate(k, lane[at(k+1)])
			if y := at(k+1) / 5; y != last {
				if written[y]++; written[y] == 5 {
					chi(y)
				}
			}
		}
		lane[at(0)] = spare
		chi(last)
		for y, n := range written {
			if y != last && n != 5 {
				panic("rho left a plane incomplete")
			}
		}
	}

	Label("loop512")
	round(Mem{Base: rc})
	round(Mem{Base: rc, Disp: laneSize})
	for i := range lane {
		if lane[i] != ymm[i] {
			panic("two rounds do not restore the register of every lane")
		}
	}
	ADDQ(Imm(2*laneSize), rc)
	CMPQ(rc, end)
	JNE(LabelRef("loop512"))

	Comment("Store the state.")
	for i := range lane {
		VMOVDQU64(lane[i], Mem{Base: a, Disp: laneSize * i})
	}
	VZEROUPPER()
	RET()
}

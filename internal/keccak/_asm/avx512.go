package main

import (
	"fmt"
	"slices"

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

// piSource returns, for each lane d = x + 5y, the lane that pi moves to
// it: FIPS 202, Algorithm 3, sets A'[x, y] = A[x + 3y, x].
func piSource() (src [25]int) {
	for x := range 5 {
		for y := range 5 {
			src[x+5*y] = (x+3*y)%5 + 5*x
		}
	}
	return src
}

// zmm lists the 32 ZMM registers.
var zmm = [32]VecPhysical{
	Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
	Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31,
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
		"three-input XORs of theta. pi is a renaming of registers: rho",
		"writes each lane to a free register, plane by plane, and chi of a",
		"plane follows its five rotations; moves after every second round",
		"put the lanes back in their registers.",
	)
	Pragma("noescape")
	a := Load(Param("a"), GP64())
	Comment("Load the state.")
	for i := range 25 {
		VMOVDQU64(Mem{Base: a, Disp: laneSize * i}, ymm[i])
	}
	rounds512(ymm, "loop512", rcTable, rol8, rol56)
	Comment("Store the state.")
	for i := range 25 {
		VMOVDQU64(ymm[i], Mem{Base: a, Disp: laneSize * i})
	}
	VZEROUPPER()
	RET()
}

// permuteAVX512x8 generates keccakF1600x8AVX512: the same rounds on the
// ZMM registers, for eight states held as two four-way states, a in the
// low halves of the registers and b in the high halves.
func permuteAVX512x8(rcTable, rol8, rol56 Mem) {
	TEXT("keccakF1600x8AVX512", NOSPLIT, "func(a, b *[25][4]uint64)")
	Doc(
		"keccakF1600x8AVX512 applies Keccak-f[1600] to eight states: the",
		"four-way states a and b, a in the low and b in the high half of",
		"each ZMM register, with the rounds of keccakF1600x4AVX512. It pays",
		"where the CPU runs 512-bit operations at the rate of 256-bit ones.",
	)
	Pragma("noescape")
	a := Load(Param("a"), GP64())
	b := Load(Param("b"), GP64())
	Comment("Load the states: a in the low halves, b in the high halves.")
	for i := range 25 {
		VMOVDQU64(Mem{Base: a, Disp: laneSize * i}, ymm[i])
		VINSERTI64X4(Imm(1), Mem{Base: b, Disp: laneSize * i}, zmm[i], zmm[i])
	}
	rounds512(zmm, "loop512x8", rcTable, rol8, rol56)
	Comment("Store the states.")
	for i := range 25 {
		VMOVDQU64(ymm[i], Mem{Base: a, Disp: laneSize * i})
		VEXTRACTI64X4(Imm(1), zmm[i], Mem{Base: b, Disp: laneSize * i})
	}
	VZEROUPPER()
	RET()
}

// rounds512 generates the 24 rounds of the AVX-512 permutations on the
// state in regs[0..24] (lane i = x + 5y in regs[i]), using regs[25..31]
// as scratch, and leaves the state where it found it.
func rounds512(regs [32]VecPhysical, loop string, rcTable, rol8, rol56 Mem) {
	rc := GP64()
	LEAQ(rcTable, rc)
	end := GP64()
	LEAQ(rcTable.Offset(24*laneSize), end)
	r := rho()
	src := piSource()

	// lane[i] is the register that holds lane i = x + 5y; free lists the
	// other registers, first the one to take first. Every second round
	// starts with lane i in regs[i].
	var lane [25]VecPhysical
	var free []VecPhysical
	take := func() VecPhysical {
		f := free[0]
		free = free[1:]
		return f
	}
	// takeFor takes lane i's own register where it is free (fewer moves
	// at the end of the loop), or the first free one.
	takeFor := func(i int) VecPhysical {
		for k, f := range free {
			if f == regs[i] {
				free = append(free[:k:k], free[k+1:]...)
				return f
			}
		}
		return take()
	}
	give := func(f VecPhysical) { free = append(free, f) }

	round := func(rcMem Mem) {
		var c [5]VecPhysical
		Comment("theta: C[x] = A[x, 0] ^ ... ^ A[x, 4] (FIPS 202, Algorithm 1)")
		for x := range 5 {
			c[x] = take()
			VMOVDQA64(lane[x], c[x])
			VPTERNLOGQ(U8(ternXOR3), lane[x+10], lane[x+5], c[x])
			VPTERNLOGQ(U8(ternXOR3), lane[x+20], lane[x+15], c[x])
		}
		Comment("theta: A[x, y] ^= C[x-1] ^ rol(C[x+1], 1)")
		rot := take()
		for x := range 5 {
			VPROLQ(U8(1), c[(x+1)%5], rot)
			for y := range 5 {
				VPTERNLOGQ(U8(ternXOR3), rot, c[(x+4)%5], lane[x+5*y])
			}
		}
		give(rot)
		for x := range 5 {
			give(c[x])
		}

		// rho and pi, a plane at a time: each lane that pi moves into
		// plane y is rotated into a free register (its own is free once
		// read), then chi runs on the plane, beside the next plane's
		// rotations (Zen 4 rotates and shuffles on two of its four vector
		// pipes, and does chi's ternary logic on all four). Against all
		// of rho and then all of chi in place: 4% to 7% faster on Zen 4
		// in most runs, as fast in the rest.
		var next [25]VecPhysical
		for y := range 5 {
			Comment(fmt.Sprintf("rho and pi (Algorithms 2 and 3) into plane %d", y))
			for x := range 5 {
				d := x + 5*y
				s := src[d]
				if s == 0 { // lane (0, 0) neither moves nor rotates
					next[d] = lane[s]
					continue
				}
				dst := takeFor(d)
				switch n := r[s%5][s/5]; n {
				case 8:
					VPSHUFB(rol8, lane[s], dst)
				case 56:
					VPSHUFB(rol56, lane[s], dst)
				default:
					VPROLQ(U8(uint64(n)), lane[s], dst)
				}
				give(lane[s])
				next[d] = dst
			}
			Comment(fmt.Sprintf("chi (Algorithm 4): plane %d", y))
			b := next[5*y : 5*y+5]
			t0, t1 := take(), take()
			VMOVDQA64(b[0], t0)
			VMOVDQA64(b[1], t1)
			VPTERNLOGQ(U8(ternChi), b[2], b[1], b[0])
			VPTERNLOGQ(U8(ternChi), b[3], b[2], b[1])
			VPTERNLOGQ(U8(ternChi), b[4], b[3], b[2])
			VPTERNLOGQ(U8(ternChi), t0, b[4], b[3])
			VPTERNLOGQ(U8(ternChi), t1, t0, b[4])
			give(t0)
			give(t1)
			if y == 0 {
				Comment("iota (Algorithm 6)")
				VPXORQ_BCST(rcMem, b[0], b[0])
			}
		}
		lane = next
	}

	Label(loop)
	copy(lane[:], regs[:25])
	free = append([]VecPhysical(nil), regs[25:]...)
	round(Mem{Base: rc})
	round(Mem{Base: rc, Disp: laneSize})
	Comment("Put lane i back in register i for the next two rounds.")
	holder := func(f VecPhysical) bool { return slices.Contains(lane[:], f) }
	for {
		moved, left := false, false
		for i := range lane {
			if lane[i] == regs[i] {
				continue
			}
			left = true
			if !holder(regs[i]) {
				VMOVDQA64(lane[i], regs[i])
				lane[i], moved = regs[i], true
			}
		}
		if !left {
			break
		}
		if !moved {
			// Only cycles are left: move one of their lanes to a
			// register that holds none, which opens the cycle.
			for i := range lane {
				if lane[i] != regs[i] {
					f := slices.IndexFunc(regs[:], func(f VecPhysical) bool { return !holder(f) })
					VMOVDQA64(lane[i], regs[f])
					lane[i] = regs[f]
					break
				}
			}
		}
	}
	ADDQ(Imm(2*laneSize), rc)
	CMPQ(rc, end)
	JNE(LabelRef(loop))
}

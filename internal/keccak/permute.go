package keccak

import "math/bits"

// keccakF1600x4Generic is the Go twin of the assembly permutations:
// Keccak-f[1600] on each of the four interleaved states in turn. It is
// what Lanes.Permute runs without the assembly; X4 uses four crypto/sha3
// states instead, which are faster.
func keccakF1600x4Generic(a *[25][4]uint64) {
	for j := range 4 {
		var s [25]uint64
		for i := range s {
			s[i] = a[i][j]
		}
		keccakF1600(&s)
		for i := range s {
			a[i][j] = s[i]
		}
	}
}

// keccakF1600 is Keccak-p[1600, 24] (FIPS 202, Algorithm 7) on one state,
// lane (x, y) at s[x+5y], written step mapping by step mapping as in
// section 3.2 for clarity rather than speed.
func keccakF1600(s *[25]uint64) {
	for _, rc := range roundConstants {
		// theta (Algorithm 1): add the parities of two nearby columns.
		var c [5]uint64
		for x := range 5 {
			c[x] = s[x] ^ s[x+5] ^ s[x+10] ^ s[x+15] ^ s[x+20]
		}
		for x := range 5 {
			d := c[(x+4)%5] ^ bits.RotateLeft64(c[(x+1)%5], 1)
			for y := 0; y < 25; y += 5 {
				s[x+y] ^= d
			}
		}
		// rho and pi (Algorithms 2 and 3): the lane at (x, y), rotated,
		// moves to (y, 2x + 3y).
		var b [25]uint64
		for x := range 5 {
			for y := range 5 {
				b[y+5*((2*x+3*y)%5)] = bits.RotateLeft64(s[x+5*y], rhoOffsets[x+5*y])
			}
		}
		// chi (Algorithm 4): the nonlinear step, along each row.
		for y := 0; y < 25; y += 5 {
			for x := range 5 {
				s[x+y] = b[x+y] ^ (^b[(x+1)%5+y] & b[(x+2)%5+y])
			}
		}
		// iota (Algorithm 6).
		s[0] ^= rc
	}
}

// rhoOffsets[x+5y] is the rotation of lane (x, y) in rho (FIPS 202,
// Algorithm 2, step 3).
var rhoOffsets = func() (r [25]int) {
	x, y := 1, 0
	for t := range 24 {
		r[x+5*y] = (t + 1) * (t + 2) / 2 % 64
		x, y = y, (2*x+3*y)%5
	}
	return r
}()

// roundConstants are the 24 iota constants RC (FIPS 202, Algorithm 6,
// steps 2 and 3), made from the bits rc(j + 7i) of Algorithm 5's LFSR.
var roundConstants = func() (rcs [24]uint64) {
	// r is Algorithm 5's register R, bit k of r being R[k]; each step
	// shifts it by one and feeds back the bit that falls out.
	r := uint8(1)
	next := func() uint64 {
		out := uint64(r & 1)
		fb := r >> 7
		r <<= 1
		if fb == 1 {
			r ^= 0x71 // R[0], R[4], R[5], R[6] ^= R[8]
		}
		return out
	}
	for i := range rcs {
		for j := range 7 {
			rcs[i] |= next() << (1<<j - 1)
		}
	}
	return rcs
}()

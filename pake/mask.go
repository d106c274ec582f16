package pake

import "crypto/sha3"

// The password masks of msg1: the mask vector added to T, ρ's mask (NoIC)
// and the nonce mask.

// maskSeedsT holds the mask seed s and, for NoIC, the ρ mask r.
type maskSeedsT struct{ s, r [32]byte }

func (m *maskSeedsT) clear() { *m = maskSeedsT{} }

// maskSeeds is NoIC's G(pw || sid || nonce) split into s and r, or Tempo's
// s = H(pw || sid || nonce).
func (s *Scheme) maskSeeds(pw, sid []byte, nonce *[32]byte) maskSeedsT {
	var in [96]byte
	copy(in[:], pw)
	copy(in[32:], sid)
	copy(in[64:], nonce[:])
	var ms maskSeedsT
	if s.proto == NoIC {
		g := sha3.Sum512(in[:])
		copy(ms.s[:], g[:32])
		copy(ms.r[:], g[32:])
		clear(g[:])
	} else {
		ms.s = sha3.Sum256(in[:])
	}
	clear(in[:])
	return ms
}

// nonceMask is H(pw || sid || X) with X = msg1[32:] (T' || ρ') for NoIC,
// X = msg1[32 : 32+384k] (T') for Tempo.
func (s *Scheme) nonceMask(pw, sid, msg1 []byte) [32]byte {
	x := msg1[32:]
	if s.proto == Tempo {
		x = msg1[32 : 32+384*s.k]
	}
	h := sha3.New256()
	h.Write(pw)
	h.Write(sid)
	h.Write(x)
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// maskVec returns the k mask polynomials: polynomial i is the sampler's
// output for seed || i || 0xFF. (The protocol uses maskVecTo, into a
// buffer on its stack; the tests use this.)
func maskVec(smp Sampler, seed *[32]byte, k int) [][256]uint16 {
	out := new([4][256]uint16)
	maskVecTo(out, smp, seed, k)
	return out[:k]
}

// maskXOFInput is the sampler's 34-byte input for mask polynomial i:
// seed || i || 0xFF.
func maskXOFInput(seed *[32]byte, i int) (in [34]byte) {
	copy(in[:], seed[:])
	in[32], in[33] = byte(i), 0xff
	return in
}

// maskVecTo is maskVec into mask[:k], with no allocation.
func maskVecTo(mask *[4][256]uint16, smp Sampler, seed *[32]byte, k int) {
	var ptrs [4]*[256]uint16
	var seeds [4][34]byte
	for i := range k {
		ptrs[i] = &mask[i]
		seeds[i] = maskXOFInput(seed, i)
	}
	smp.sampleBatch(ptrs[:k], seeds[:k])
	clear(seeds[:])
}

// maskT adds (or, with sub, subtracts) the mask to the 12-bit fields of t,
// modulo q, in place, in constant time. Fields at or above q are reduced:
// the output is always canonical.
func maskT(t []byte, mask [][256]uint16, sub bool) {
	for i := range mask {
		p := t[384*i : 384*(i+1)]
		for j := 0; j < n; j += 2 {
			b := p[3*j/2 : 3*j/2+3]
			x0 := uint32(b[0]) | uint32(b[1]&0x0f)<<8
			x1 := uint32(b[1])>>4 | uint32(b[2])<<4
			m0, m1 := uint32(mask[i][j]), uint32(mask[i][j+1])
			if sub { // public: which side runs
				m0, m1 = q-m0, q-m1 // in [1, q]
			}
			y0 := barrett32(x0 + m0)
			y1 := barrett32(x1 + m1)
			b[0] = byte(y0)
			b[1] = byte(y0>>8) | byte(y1<<4)
			b[2] = byte(y1 >> 4)
		}
	}
}

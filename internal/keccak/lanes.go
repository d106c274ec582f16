package keccak

import "encoding/binary"

// Lanes is the interleaved four-way Keccak-f[1600] state for callers that
// drive each of the four sponges on their own: a lane may run SHAKE128,
// SHAKE256 or SHA3-256, start over after any permutation, absorb a long
// input block by block while the others squeeze, or sit out a permutation
// (Save before, Restore after). X4 is the common case of four equal
// instances; Lanes is for schedules that mix them, such as ML-KEM key
// generation, which hashes the encapsulation key in one lane while the
// other three sample the matrix and the noise.
//
// Use Lanes when Accelerated() reports true: Permute then runs the
// assembly permutation. Elsewhere it runs the slower Go twin, which is
// correct but loses to four crypto/sha3 states. The other methods are
// plain Go. Byte offsets are within
// one block: every b and out must be at most 200 bytes.
type Lanes struct {
	a [25][4]uint64
}

// Reset sets lane j to the all-zero state, the start of every sponge.
func (s *Lanes) Reset(j int) {
	j &= 3
	for i := range s.a {
		s.a[i][j] = 0
	}
}

// XOR adds b to lane j from byte 0 on: absorbing a whole input block, or
// the start of a partial one.
func (s *Lanes) XOR(j int, b []byte) {
	j &= 3
	if len(b) == Rate256 {
		// A whole SHA3-256 block, the hash of ML-KEM's encapsulation
		// key: fixed sizes drop the bounds checks.
		w, b := (*[Rate256 / 8][4]uint64)(s.a[:Rate256/8]), (*[Rate256]byte)(b)
		for i := range w {
			w[i][j] ^= binary.LittleEndian.Uint64(b[8*i:])
		}
		return
	}
	w := s.a[:len(b)/8]
	for i := range w {
		w[i][j] ^= binary.LittleEndian.Uint64(b[8*i:])
	}
	for i := len(w) * 8; i < len(b); i++ {
		s.a[i/8][j] ^= uint64(b[i]) << (8 * (i % 8))
	}
}

// Pad adds the domain separation and pad10*1 padding (FIPS 202, sections
// 5.1 and 6) to lane j after a final block of l < rate bytes: ds, which
// holds the domain bits and the first padding bit (0x1f for SHAKE, 0x06
// for SHA-3), at byte l and the last padding bit at byte rate-1.
func (s *Lanes) Pad(j, rate, l int, ds byte) {
	j &= 3
	s.a[(l/8)%25][j] ^= uint64(ds) << (8 * (l % 8))
	s.a[(rate/8-1)%25][j] ^= 0x80 << 56
}

// Start resets lane j and absorbs the short input in (len(in) < rate) of a
// sponge with the given rate and domain byte: after the next Permute, the
// lane holds the first output block.
func (s *Lanes) Start(j, rate int, ds byte, in []byte) {
	// Reset, XOR and Pad in one pass that writes each word of the lane
	// once.
	j &= 3
	n := len(in) / 8 % 25
	for i := range n {
		s.a[i][j] = binary.LittleEndian.Uint64(in[8*i:])
	}
	w := uint64(ds) << (8 * (len(in) % 8))
	for i := 8 * n; i < len(in); i++ {
		w |= uint64(in[i]) << (8 * (i % 8))
	}
	s.a[n][j] = w
	for i := n + 1; i < len(s.a); i++ {
		s.a[i][j] = 0
	}
	s.a[(rate/8-1)%25][j] ^= 0x80 << 56
}

// StartSeed is Start with the input seed || suffix, where suffix holds
// the n < 8 bytes that follow the seed: the 34-byte XOF(rho, j, i) and
// 33-byte PRF(sigma, N) inputs of FIPS 203 (n = 2 and 1). Written without
// loops, it takes about a third of Start's time, which ML-KEM's schedules
// spend on every matrix entry and noise polynomial.
func (s *Lanes) StartSeed(j, rate int, ds byte, seed *[32]byte, suffix uint64, n int) {
	j &= 3
	n &= 7
	a := &s.a
	a[0][j] = binary.LittleEndian.Uint64(seed[0:])
	a[1][j] = binary.LittleEndian.Uint64(seed[8:])
	a[2][j] = binary.LittleEndian.Uint64(seed[16:])
	a[3][j] = binary.LittleEndian.Uint64(seed[24:])
	a[4][j] = suffix&(1<<(8*n)-1) | uint64(ds)<<(8*n)
	a[5][j] = 0
	a[6][j] = 0
	a[7][j] = 0
	a[8][j] = 0
	a[9][j] = 0
	a[10][j] = 0
	a[11][j] = 0
	a[12][j] = 0
	a[13][j] = 0
	a[14][j] = 0
	a[15][j] = 0
	a[16][j] = 0
	a[17][j] = 0
	a[18][j] = 0
	a[19][j] = 0
	a[20][j] = 0
	a[21][j] = 0
	a[22][j] = 0
	a[23][j] = 0
	a[24][j] = 0
	// Every rate ends after word 4 (Rate512, the smallest, at word 8).
	a[(rate/8-1)%25][j] ^= 0x80 << 56
}

// Read copies the first len(out) bytes of lane j to out: after a
// permutation, the lane's output block (or the start of it).
func (s *Lanes) Read(j int, out []byte) {
	j &= 3
	w := s.a[:len(out)/8]
	for i := range w {
		binary.LittleEndian.PutUint64(out[8*i:], w[i][j])
	}
	for i := len(w) * 8; i < len(out); i++ {
		out[i] = byte(s.a[i/8][j] >> (8 * (i % 8)))
	}
}

// ReadAll copies the first Rate128 bytes of every lane to out: the output
// blocks of all four lanes at once, for lanes of rate Rate128 or less
// (the assembly transposes the four lanes faster than four Reads).
func (s *Lanes) ReadAll(out *[4][Rate128]byte) { s.readAll(out) }

// Save returns a copy of lane j, for Restore after a permutation the lane
// must not take part in.
func (s *Lanes) Save(j int) (v [25]uint64) {
	j &= 3
	for i := range v {
		v[i] = s.a[i][j]
	}
	return v
}

// Restore sets lane j to v, a value from Save.
func (s *Lanes) Restore(j int, v *[25]uint64) {
	j &= 3
	for i := range v {
		s.a[i][j] = v[i]
	}
}

// Permute applies Keccak-f[1600] to the four lanes at once: with the
// AVX-512 or AVX2 permutation when Accelerated() is true, else in Go.
func (s *Lanes) Permute() {
	keccakF1600x4(&s.a)
}

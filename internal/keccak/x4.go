package keccak

import (
	"crypto/sha3"
	"encoding/binary"
)

// dsbyteSHAKE is the SHAKE domain separation "1111" followed by the first
// bit of the pad10*1 padding (FIPS 202, section 6.2 and B.2).
const dsbyteSHAKE = 0x1f

// X4 is four SHAKE128 or SHAKE256 instances advanced together. The zero
// value is not usable: call Init128 or Init256 (or NewSHAKE128x4 /
// NewSHAKE256x4) first. X4 holds no pointers to its inputs or outputs and
// can live on the stack.
type X4 struct {
	// a is the interleaved state of the four-way permutation:
	// a[i][j] is the 64-bit lane i (x + 5y) of state j.
	a    [25][4]uint64
	rate int // bytes per block
	// off is how many bytes of the current output block were read (for
	// the generic states, modulo the rate).
	off int
	// asm says whether a is in use (an assembly permutation), or g
	// (generic, or unequal input lengths).
	asm bool
	g   [4]sha3.SHAKE
}

// NewSHAKE128x4 returns four SHAKE128 instances that absorbed in[0..3].
func NewSHAKE128x4(in [4][]byte) *X4 {
	s := new(X4)
	s.Init128(in)
	return s
}

// NewSHAKE256x4 returns four SHAKE256 instances that absorbed in[0..3].
func NewSHAKE256x4(in [4][]byte) *X4 {
	s := new(X4)
	s.Init256(in)
	return s
}

// Init128 sets s to four SHAKE128 instances that absorbed in[0..3] (and
// padded them), ready to be read.
func (s *X4) Init128(in [4][]byte) { s.init(Rate128, in) }

// Init256 sets s to four SHAKE256 instances that absorbed in[0..3] (and
// padded them), ready to be read.
func (s *X4) Init256(in [4][]byte) { s.init(Rate256, in) }

// Rate is the size in bytes of the blocks SqueezeBlocks produces.
func (s *X4) Rate() int { return s.rate }

func (s *X4) init(rate int, in [4][]byte) {
	if s.begin(rate, &in) {
		s.absorb(&in)
	}
}

// begin starts the four instances at rate and reports whether they run on
// the four-way state, which then is zero and must absorb in (absorb, or
// absorbBlock and absorbLast); otherwise the generic states have absorbed
// it.
func (s *X4) begin(rate int, in *[4][]byte) bool {
	s.rate = rate
	s.off = 0
	l := len(in[0])
	s.asm = Accelerated() &&
		len(in[1]) == l && len(in[2]) == l && len(in[3]) == l
	if !s.asm {
		for j := range s.g {
			if rate == Rate128 {
				s.g[j] = *sha3.NewSHAKE128()
			} else {
				s.g[j] = *sha3.NewSHAKE256()
			}
			s.g[j].Write(in[j])
		}
		return false
	}
	s.a = [25][4]uint64{}
	return true
}

// absorb absorbs and pads in, four inputs of equal length, into the zero
// four-way state.
func (s *X4) absorb(in *[4][]byte) {
	o := 0
	for ; o+s.rate <= len(in[0]); o += s.rate {
		s.absorbBlock(in, o)
		keccakF1600x4(&s.a)
	}
	s.absorbLast(in, o)
	keccakF1600x4(&s.a)
}

// absorbBlock XORs the whole block at byte o of the four inputs into the
// state, which must then be permuted.
func (s *X4) absorbBlock(in *[4][]byte, o int) {
	for j := range 4 {
		s.xorBlock(j, in[j][o:o+s.rate])
	}
}

// absorbLast XORs the last, partial block of the four inputs, from byte o
// on (fewer than rate bytes each), and the padding into the state, which
// must then be permuted: the SHAKE suffix and the first padding bit after
// the input, the last padding bit at byte rate-1.
func (s *X4) absorbLast(in *[4][]byte, o int) {
	l := len(in[0]) - o
	w := l / 8
	whole := s.a[:w]
	for j := range 4 {
		b := in[j][o:][:l]
		for i := range whole {
			whole[i][j] ^= binary.LittleEndian.Uint64(b)
			b = b[8:]
		}
		var t uint64
		for i, c := range b {
			t |= uint64(c) << (8 * i)
		}
		s.a[w][j] ^= t | dsbyteSHAKE<<(8*(l%8))
		s.a[s.rate/8-1][j] ^= 0x80 << 56
	}
}

// xorBlock XORs a whole block b (s.rate bytes) into state j.
func (s *X4) xorBlock(j int, b []byte) {
	j &= 3
	// Fixed sizes let the compiler drop the bounds checks.
	if s.rate == Rate128 {
		a, b := (*[Rate128 / 8][4]uint64)(s.a[:Rate128/8]), (*[Rate128]byte)(b)
		for i := range a {
			a[i][j] ^= binary.LittleEndian.Uint64(b[8*i:])
		}
	} else {
		a, b := (*[Rate256 / 8][4]uint64)(s.a[:Rate256/8]), (*[Rate256]byte)(b)
		for i := range a {
			a[i][j] ^= binary.LittleEndian.Uint64(b[8*i:])
		}
	}
}

// squeezeBlock copies the output block of state j to b (s.rate bytes).
func (s *X4) squeezeBlock(j int, b []byte) {
	j &= 3
	if s.rate == Rate128 {
		a, b := (*[Rate128 / 8][4]uint64)(s.a[:Rate128/8]), (*[Rate128]byte)(b)
		for i := range a {
			binary.LittleEndian.PutUint64(b[8*i:], a[i][j])
		}
	} else {
		a, b := (*[Rate256 / 8][4]uint64)(s.a[:Rate256/8]), (*[Rate256]byte)(b)
		for i := range a {
			binary.LittleEndian.PutUint64(b[8*i:], a[i][j])
		}
	}
}

// SqueezeBlocks fills out[0..3] with the next output of the four instances.
// The four slices must have the same length, a multiple of s.Rate(), and
// the instance must be at a block boundary (only SqueezeBlocks calls, or
// Read calls of whole blocks, since Init); otherwise it panics.
func (s *X4) SqueezeBlocks(out *[4][]byte) {
	l := s.checkSqueeze(out)
	if !s.asm {
		for j := range s.g {
			s.g[j].Read(out[j])
		}
		return
	}
	for o := 0; o < l; o += s.rate {
		if s.off == s.rate {
			keccakF1600x4(&s.a)
		}
		s.squeezeBlocks4(out, o)
		s.off = s.rate
	}
}

// checkSqueeze panics unless SqueezeBlocks can fill out, and returns the
// length of its outputs.
func (s *X4) checkSqueeze(out *[4][]byte) int {
	if s.rate == 0 {
		panic("keccak: X4 used before Init128 or Init256")
	}
	l := len(out[0])
	if l%s.rate != 0 || len(out[1]) != l || len(out[2]) != l || len(out[3]) != l {
		panic("keccak: SqueezeBlocks needs four outputs of the same length, a multiple of the rate")
	}
	if s.off%s.rate != 0 {
		panic("keccak: SqueezeBlocks after a partial Read")
	}
	return l
}

// Read fills out[0..3], which must have the same length, with the next
// output of the four instances. Unlike SqueezeBlocks it takes any length.
func (s *X4) Read(out [4][]byte) {
	if s.rate == 0 {
		panic("keccak: X4 used before Init128 or Init256")
	}
	l := len(out[0])
	if len(out[1]) != l || len(out[2]) != l || len(out[3]) != l {
		panic("keccak: Read needs four outputs of the same length")
	}
	if !s.asm {
		for j := range s.g {
			s.g[j].Read(out[j])
		}
		s.off = (s.off + l) % s.rate
		return
	}
	for o := 0; o < l; {
		if s.off == s.rate {
			keccakF1600x4(&s.a)
			s.off = 0
		}
		m := min(s.rate-s.off, l-o)
		for j := range 4 {
			s.readLane(j, out[j][o:o+m])
		}
		s.off += m
		o += m
	}
}

// readLane copies len(b) bytes of the output block of state j, from byte
// s.off on, to b.
func (s *X4) readLane(j int, b []byte) {
	j &= 3
	p := s.off
	for ; len(b) > 0 && p%8 != 0; p++ {
		b[0] = byte(s.a[p/8][j] >> (8 * (p % 8)))
		b = b[1:]
	}
	words := s.a[p/8 : p/8+len(b)/8]
	for i := range words {
		binary.LittleEndian.PutUint64(b, words[i][j])
		b = b[8:]
	}
	p += 8 * len(words)
	for ; len(b) > 0; p++ {
		b[0] = byte(s.a[p/8][j] >> (8 * (p % 8)))
		b = b[1:]
	}
}

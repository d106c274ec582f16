package keccak

import "github.com/pqkem/pqkem/internal/cpuid"

// X8 is eight SHAKE128 or SHAKE256 instances advanced together, as two X4:
// at the AVX-512 level (Wide) one eight-way permutation advances all eight,
// which on CPUs with 512-bit vector units (AMD Zen 5) takes about the time
// of a four-way one, and on Zen 4 about that of two; elsewhere the two
// halves run one after the other, as two X4 would. The zero value
// is not usable: call Init128 or Init256 first. Like X4, X8 holds no
// pointers and can live on the stack.
//
// Lanes 0..3 are one X4 and lanes 4..7 the other, so the rules of X4
// apply to each half: inputs of unequal length work but leave the
// assembly, and every output of one SqueezeBlocks call has the same
// length.
type X8 struct {
	h [2]X4
	// joint says whether the halves run on one eight-way state: both on
	// the assembly and all eight inputs of one length.
	joint bool
}

// Init128 sets s to eight SHAKE128 instances that absorbed in[0..7] (and
// padded them), ready to be squeezed.
func (s *X8) Init128(in [8][]byte) { s.init(Rate128, in) }

// Init256 sets s to eight SHAKE256 instances that absorbed in[0..7] (and
// padded them), ready to be squeezed.
func (s *X8) Init256(in [8][]byte) { s.init(Rate256, in) }

// Rate is the size in bytes of the blocks SqueezeBlocks produces.
func (s *X8) Rate() int { return s.h[0].rate }

// Wide reports whether X8 runs the eight-way permutation (AVX-512 on ZMM
// registers) rather than two four-way ones. Where it has been measured
// (AMD Zen 5, and an earlier version on Zen 4) it is no slower than two
// four-way permutations, so callers use X8 where they have eight streams
// of equal length.
func Wide() bool { return x4Level >= cpuid.LevelAVX512 && Accelerated() }

func (s *X8) init(rate int, in [8][]byte) {
	lo, hi := [4][]byte(in[:4]), [4][]byte(in[4:])
	asm0, asm1 := s.h[0].begin(rate, &lo), s.h[1].begin(rate, &hi)
	s.joint = asm0 && asm1 && len(lo[0]) == len(hi[0])
	if !s.joint {
		if asm0 {
			s.h[0].absorb(&lo)
		}
		if asm1 {
			s.h[1].absorb(&hi)
		}
		return
	}
	o := 0
	for ; o+rate <= len(lo[0]); o += rate {
		s.h[0].absorbBlock(&lo, o)
		s.h[1].absorbBlock(&hi, o)
		keccakF1600x8(&s.h[0].a, &s.h[1].a)
	}
	s.h[0].absorbLast(&lo, o)
	s.h[1].absorbLast(&hi, o)
	keccakF1600x8(&s.h[0].a, &s.h[1].a)
}

// SqueezeBlocks fills out[0..7] with the next output of the eight
// instances. The eight slices must have the same length, a multiple of
// s.Rate(); otherwise it panics.
func (s *X8) SqueezeBlocks(out *[8][]byte) {
	lo, hi := (*[4][]byte)(out[:4]), (*[4][]byte)(out[4:])
	l := s.h[0].checkSqueeze(lo)
	if s.h[1].checkSqueeze(hi) != l {
		panic("keccak: SqueezeBlocks needs eight outputs of the same length")
	}
	if !s.joint {
		s.h[0].SqueezeBlocks(lo)
		s.h[1].SqueezeBlocks(hi)
		return
	}
	rate := s.h[0].rate
	for o := 0; o < l; o += rate {
		if s.h[0].off == rate {
			keccakF1600x8(&s.h[0].a, &s.h[1].a)
		}
		s.h[0].squeezeBlocks4(lo, o)
		s.h[1].squeezeBlocks4(hi, o)
		s.h[0].off, s.h[1].off = rate, rate
	}
}

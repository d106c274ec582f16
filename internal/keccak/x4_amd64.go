//go:build amd64 && !purego

package keccak

import "github.com/pqkem/pqkem/internal/cpuid"

// keccakF1600x4 applies Keccak-f[1600] to the four interleaved states of a
// with the permutation of x4Level.
func keccakF1600x4(a *[25][4]uint64) {
	switch x4Level {
	case cpuid.LevelAVX512:
		keccakF1600x4AVX512(a)
	case cpuid.LevelAVX2:
		keccakF1600x4AVX2(a)
	default:
		keccakF1600x4Generic(a)
	}
}

// keccakF1600x8 applies Keccak-f[1600] to the eight states of a and b:
// with the eight-way permutation at the AVX-512 level, else as two
// four-way permutations.
func keccakF1600x8(a, b *[25][4]uint64) {
	if x4Level == cpuid.LevelAVX512 {
		keccakF1600x8AVX512(a, b)
		return
	}
	keccakF1600x4(a)
	keccakF1600x4(b)
}

// squeezeBlocks4 copies the output blocks of the four states to
// out[j][o:o+s.rate]. Only for Accelerated().
func (s *X4) squeezeBlocks4(out *[4][]byte, o int) {
	if s.rate == Rate128 {
		keccakSqueeze168x4(&s.a, (*[Rate128]byte)(out[0][o:]), (*[Rate128]byte)(out[1][o:]),
			(*[Rate128]byte)(out[2][o:]), (*[Rate128]byte)(out[3][o:]))
	} else {
		keccakSqueeze136x4(&s.a, (*[Rate256]byte)(out[0][o:]), (*[Rate256]byte)(out[1][o:]),
			(*[Rate256]byte)(out[2][o:]), (*[Rate256]byte)(out[3][o:]))
	}
}

// readAll copies the first Rate128 bytes of every lane of s to out.
func (s *Lanes) readAll(out *[4][Rate128]byte) {
	if !Accelerated() {
		for j := range out {
			s.Read(j, out[j][:])
		}
		return
	}
	keccakSqueeze168x4(&s.a, &out[0], &out[1], &out[2], &out[3])
}

//go:build !amd64 || purego

package keccak

// keccakF1600x4 applies Keccak-f[1600] to the four interleaved states of
// a: here always the Go permutation, whatever x4Level says (it is
// generic unless a test set it).
func keccakF1600x4(a *[25][4]uint64) { keccakF1600x4Generic(a) }

// keccakF1600x8 applies Keccak-f[1600] to the eight states of a and b, as
// two four-way permutations.
func keccakF1600x8(a, b *[25][4]uint64) {
	keccakF1600x4(a)
	keccakF1600x4(b)
}

func (s *X4) squeezeBlocks4(out *[4][]byte, o int) {
	for j := range 4 {
		s.squeezeBlock(j, out[j][o:o+s.rate])
	}
}

func (s *Lanes) readAll(out *[4][Rate128]byte) {
	for j := range out {
		s.Read(j, out[j][:])
	}
}

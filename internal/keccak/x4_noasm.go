//go:build !amd64 || purego

package keccak

// haveAsm is false: X4 always uses four crypto/sha3 states.
const haveAsm = false

func keccakF1600x4(a *[25][4]uint64) {
	panic("keccak: no four-way permutation on this platform") // unreachable
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

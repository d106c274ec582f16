//go:build amd64 && !purego

package keccak

// haveAsm says that keccakF1600x4 (keccakx4_amd64.s) exists; whether it may
// run is cpuid.AVX2().
const haveAsm = true

// squeezeBlocks4 copies the output blocks of the four states to
// out[j][o:o+s.rate].
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

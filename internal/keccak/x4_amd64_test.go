//go:build amd64 && !purego

package keccak

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// TestSqueezeAVX2 compares the AVX2 block extraction with its Go twin,
// squeezeBlock, on random states.
func TestSqueezeAVX2(t *testing.T) {
	if !cpuid.HasAVX2() {
		t.Skip("no AVX2 on this CPU")
	}
	r := rand.New(rand.NewPCG(9, 10))
	for range 200 {
		for _, rate := range []int{Rate128, Rate256} {
			s := X4{rate: rate}
			for i := range s.a {
				for j := range s.a[i] {
					s.a[i][j] = r.Uint64()
				}
			}
			var got, want [4][Rate128 + 16]byte
			out := [4][]byte{got[0][8:], got[1][8:], got[2][8:], got[3][8:]}
			s.squeezeBlocks4(&out, 0)
			for j := range 4 {
				s.squeezeBlock(j, want[j][8:])
				if !bytes.Equal(got[j][:], want[j][:]) {
					t.Fatalf("rate %d, state %d: AVX2 and Go differ (or wrote out of bounds)\ngot  %x\nwant %x", rate, j, got[j], want[j])
				}
			}
		}
	}
}

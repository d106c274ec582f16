package fips203

import (
	"bytes"
	"crypto/sha3"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// TestKeyGenWithStreams checks KeyGenInternalWithStreams on both paths: the
// key is the one KeyGenInternal makes (expanded bytes and H(ek)), and every
// stream's output is SHAKE128 of its seed, for zero to three streams of
// the lengths the PAKE samplers use (37 blocks for C1, 840 and 400 bytes
// for A1 and B0) and odd ones, at every level.
func TestKeyGenWithStreams(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	lengths := []int{37 * 168, 840, 400, 1, 168, 169, 3 * 168}
	for _, generic := range []bool{false, true} {
		t.Run(fmt.Sprintf("generic=%v", generic), func(t *testing.T) {
			if generic {
				defer cpuid.ForceGeneric(true)()
			} else if !cpuid.AVX2() {
				t.Skip("no AVX2")
			}
			for _, p := range []*Params{MLKEM512, MLKEM768, MLKEM1024} {
				for n := 0; n <= maxStreams; n++ {
					for trial := range 3 {
						var d, z [32]byte
						for i := range d {
							d[i], z[i] = byte(r.Uint32()), byte(r.Uint32())
						}
						streams := make([]Stream, n)
						for i := range streams {
							for j := range streams[i].Seed {
								streams[i].Seed[j] = byte(r.Uint32())
							}
							streams[i].Out = make([]byte, lengths[(trial+i)%len(lengths)])
						}
						var got, want DecapsulationKey
						KeyGenInternalWithStreams(&got, p, &d, &z, streams)
						KeyGenInternal(&want, p, &d, &z)
						if !bytes.Equal(got.ExpandedBytes(nil), want.ExpandedBytes(nil)) || got.ek.h != want.ek.h {
							t.Fatalf("%s, %d streams: the key differs from KeyGenInternal's", p.name, n)
						}
						for i, s := range streams {
							h := sha3.NewSHAKE128()
							h.Write(s.Seed[:])
							w := make([]byte, len(s.Out))
							h.Read(w)
							if !bytes.Equal(s.Out, w) {
								t.Fatalf("%s, %d streams: stream %d (%d bytes) differs from SHAKE128", p.name, n, i, len(s.Out))
							}
						}
					}
				}
			}
		})
	}
	defer func() {
		if recover() == nil {
			t.Error("four streams did not panic")
		}
	}()
	var dk DecapsulationKey
	var d, z [32]byte
	KeyGenInternalWithStreams(&dk, MLKEM512, &d, &z, make([]Stream, 4))
}

package keccak

import (
	"bytes"
	"crypto/sha3"
	"math/rand/v2"
	"testing"
)

// TestSHAKE compares SHAKE with crypto/sha3 on every path, for random
// inputs and outputs written and read in random pieces, after Reset too.
func TestSHAKE(t *testing.T) {
	paths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		for trial := range 300 {
			in := make([]byte, r.IntN(1000))
			for i := range in {
				in[i] = byte(r.Uint32())
			}
			outLen := r.IntN(1200)
			var h SHAKE
			want := sha3.NewSHAKE128()
			if trial%2 == 1 {
				h.Init256()
				want = sha3.NewSHAKE256()
			} else {
				h.Init128()
			}
			for reset := range 2 {
				if reset == 1 {
					h.Reset()
					want.Reset()
				}
				for p := in; len(p) > 0; {
					c := min(len(p), r.IntN(400))
					h.Write(p[:c])
					want.Write(p[:c])
					p = p[c:]
				}
				got, exp := make([]byte, outLen), make([]byte, outLen)
				for o := got; len(o) > 0; {
					c := min(len(o), r.IntN(500))
					h.Read(o[:c])
					o = o[c:]
				}
				want.Read(exp)
				if !bytes.Equal(got, exp) {
					t.Fatalf("trial %d (reset %d): %d bytes in, %d out: SHAKE differs from crypto/sha3", trial, reset, len(in), outLen)
				}
			}
		}
	})
}

func BenchmarkSHAKESingle(b *testing.B) {
	out := make([]byte, 100*Rate256)
	b.Run("impl=keccak", func(b *testing.B) {
		for b.Loop() {
			var h SHAKE
			h.Init256()
			h.Write(out[:32])
			h.Read(out)
		}
	})
	b.Run("impl=sha3", func(b *testing.B) {
		for b.Loop() {
			h := sha3.NewSHAKE256()
			h.Write(out[:32])
			h.Read(out)
		}
	})
}

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

// TestSHAKESecond runs a second instance beside the first, started after
// some of the first's input, with input of random lengths (shorter and
// longer than the first's stream), and compares both with crypto/sha3.
func TestSHAKESecond(t *testing.T) {
	paths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		random := func(n int) []byte {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			return b
		}
		for trial := range 300 {
			var h SHAKE
			want, want2 := sha3.NewSHAKE128(), sha3.NewSHAKE128()
			if trial%2 == 1 {
				h.Init256()
				want, want2 = sha3.NewSHAKE256(), sha3.NewSHAKE256()
			} else {
				h.Init128()
			}
			if trial%3 == 0 {
				h.Write(random(50))
				h.Reset()
			}
			in, side, rest := random(r.IntN(300)), random(r.IntN(3000)), random(r.IntN(300))
			out, out2 := make([]byte, r.IntN(3000)), make([]byte, r.IntN(400))
			split := r.IntN(len(in) + 1)
			h.Write(in[:split])
			h.StartSecond(side)
			h.Write(in[split:])
			h.Read(out[:len(out)/2])
			h.SumSecond(rest, out2)
			h.Read(out[len(out)/2:])
			exp, exp2 := refOutputs(want, want2, in, side, rest, len(out), len(out2))
			if !bytes.Equal(out, exp) || !bytes.Equal(out2, exp2) {
				t.Fatalf("trial %d: in %d, side %d, rest %d, out %d, out2 %d: differs from crypto/sha3",
					trial, len(in), len(side), len(rest), len(out), len(out2))
			}
		}
	})
}

// refOutputs returns crypto/sha3's n bytes of want over in, and n2 bytes
// of want2 over side and rest: what SHAKE and its second instance should
// give.
func refOutputs(want, want2 *sha3.SHAKE, in, side, rest []byte, n, n2 int) (exp, exp2 []byte) {
	want.Write(in)
	exp = make([]byte, n)
	want.Read(exp)
	want2.Write(side)
	want2.Write(rest)
	exp2 = make([]byte, n2)
	want2.Read(exp2)
	return exp, exp2
}

// FuzzSHAKE compares SHAKE, with a second instance, with crypto/sha3 on
// arbitrary inputs and lengths, at the level this process runs.
func FuzzSHAKE(f *testing.F) {
	f.Add([]byte("input"), []byte("second"), uint16(100), uint16(32), false)
	f.Add(make([]byte, 300), make([]byte, 1000), uint16(2000), uint16(500), true)
	f.Fuzz(func(t *testing.T, in, side []byte, outLen, out2Len uint16, s256 bool) {
		var h SHAKE
		want, want2 := sha3.NewSHAKE128(), sha3.NewSHAKE128()
		if s256 {
			h.Init256()
			want, want2 = sha3.NewSHAKE256(), sha3.NewSHAKE256()
		} else {
			h.Init128()
		}
		h.StartSecond(side)
		h.Write(in)
		out := make([]byte, outLen%5000)
		h.Read(out)
		out2 := make([]byte, out2Len%1000)
		h.SumSecond(in, out2)
		exp, exp2 := refOutputs(want, want2, in, side, in, len(out), len(out2))
		if !bytes.Equal(out, exp) || !bytes.Equal(out2, exp2) {
			t.Fatalf("in %d, side %d, out %d, out2 %d: differs from crypto/sha3", len(in), len(side), len(out), len(out2))
		}
	})
}

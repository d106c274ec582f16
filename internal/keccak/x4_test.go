package keccak

import (
	"bytes"
	"crypto/sha3"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
	"github.com/pqkem/pqkem/internal/cpuid/cpuidtest"
)

// cpuLevels are the four-way permutation's levels: avx512, avx2 and
// generic (four crypto/sha3 states, or keccakF1600x4Generic for Lanes).
var cpuLevels = cpuidtest.Levels{Top: cpuid.LevelAVX512, Var: &x4Level}

// paths runs f once for every level this machine runs, as subtests named
// after the levels; the others skip, saying what they need.
func paths(t *testing.T, f func(t *testing.T)) { cpuLevels.ForEach(t, f) }

// useLevel sets x4Level to l until tb and its subtests end, or skips tb
// if this machine cannot run l.
func useLevel(tb testing.TB, l cpuid.Level) {
	tb.Helper()
	cpuLevels.SkipUnless(tb, l)
	tb.Cleanup(cpuLevels.Force(l))
}

func newRef(rate int, in []byte) *sha3.SHAKE {
	var h *sha3.SHAKE
	if rate == Rate128 {
		h = sha3.NewSHAKE128()
	} else {
		h = sha3.NewSHAKE256()
	}
	h.Write(in)
	return h
}

func (s *X4) init4(rate int, in [4][]byte) {
	if rate == Rate128 {
		s.Init128(in)
	} else {
		s.Init256(in)
	}
}

// check absorbs in into an X4 and four references and compares the outputs
// of the reads, each of the given length (a negative length means
// SqueezeBlocks of that many blocks).
func check(t *testing.T, rate int, in [4][]byte, reads []int) {
	t.Helper()
	var s X4
	s.init4(rate, in)
	var ref [4]*sha3.SHAKE
	for j := range ref {
		ref[j] = newRef(rate, in[j])
	}
	for r, n := range reads {
		var out [4][]byte
		size := n
		if n < 0 {
			size = -n * rate
		}
		for j := range out {
			out[j] = make([]byte, size)
		}
		if n < 0 {
			s.SqueezeBlocks(&out)
		} else {
			s.Read(out)
		}
		for j := range out {
			want := make([]byte, size)
			ref[j].Read(want)
			if !bytes.Equal(out[j], want) {
				t.Fatalf("rate %d, input lengths %d %d %d %d, read %d (%d): lane %d differs\ngot  %x\nwant %x",
					rate, len(in[0]), len(in[1]), len(in[2]), len(in[3]), r, n, j, out[j], want)
			}
		}
	}
}

func randInputs(rng *rand.ChaCha8, lens [4]int) (in [4][]byte) {
	for j := range in {
		in[j] = make([]byte, lens[j])
		rng.Read(in[j])
	}
	return in
}

func TestX4EqualLengths(t *testing.T) {
	paths(t, func(t *testing.T) {
		rng := rand.NewChaCha8([32]byte{1})
		for _, rate := range []int{Rate128, Rate256} {
			for l := 0; l <= 500; l++ {
				in := randInputs(rng, [4]int{l, l, l, l})
				check(t, rate, in, []int{-1, -2, 7, 1, rate - 8, -1, 2 * rate, 5})
			}
		}
	})
}

func TestX4DifferentLengths(t *testing.T) {
	paths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		rng := rand.NewChaCha8([32]byte{2})
		for _, rate := range []int{Rate128, Rate256} {
			for range 200 {
				var lens [4]int
				for j := range lens {
					lens[j] = r.IntN(501)
				}
				check(t, rate, randInputs(rng, lens), []int{-1, 33, rate - 33, -0, 100})
			}
		}
	})
}

func TestX4ManyBlocks(t *testing.T) {
	paths(t, func(t *testing.T) {
		rng := rand.NewChaCha8([32]byte{3})
		for _, rate := range []int{Rate128, Rate256} {
			for _, l := range []int{0, 18, 34, 33, rate - 1, rate, rate + 1, 1000} {
				in := randInputs(rng, [4]int{l, l, l, l})
				check(t, rate, in, []int{-100, -1, 1, 2, 3, 4, 5, 1000})
			}
		}
	})
}

// TestX4SameInputs checks that the lanes do not mix: four equal inputs give
// four equal outputs, and a change in one lane changes only its output.
func TestX4SameInputs(t *testing.T) {
	paths(t, func(t *testing.T) {
		in := bytes.Repeat([]byte{0xa5}, 34)
		in2 := bytes.Clone(in)
		in2[33] ^= 1
		check(t, Rate128, [4][]byte{in, in, in, in}, []int{-3})
		check(t, Rate128, [4][]byte{in, in2, in, in}, []int{-3})
	})
}

func TestSqueezeBlocksPanics(t *testing.T) {
	paths(t, func(t *testing.T) {
		for _, tc := range []struct {
			name string
			f    func(*X4)
		}{
			{"partial block", func(s *X4) {
				s.SqueezeBlocks(&[4][]byte{make([]byte, 5), make([]byte, 5), make([]byte, 5), make([]byte, 5)})
			}},
			{"unequal", func(s *X4) {
				s.SqueezeBlocks(&[4][]byte{make([]byte, Rate128), make([]byte, Rate128), nil, make([]byte, Rate128)})
			}},
			{"before Init", func(s *X4) {
				*s = X4{}
				s.Read([4][]byte{})
			}},
			{"after Read", func(s *X4) {
				s.Read([4][]byte{make([]byte, 5), make([]byte, 5), make([]byte, 5), make([]byte, 5)})
				b := make([]byte, Rate128)
				s.SqueezeBlocks(&[4][]byte{b, b, b, b})
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				defer func() {
					if recover() == nil {
						t.Errorf("no panic")
					}
				}()
				var s X4
				s.Init128([4][]byte{})
				tc.f(&s)
			})
		}
	})
}

func TestNew(t *testing.T) {
	in := [4][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d")}
	for _, s := range []*X4{NewSHAKE128x4(in), NewSHAKE256x4(in)} {
		var out [4][]byte
		for j := range out {
			out[j] = make([]byte, 2*s.Rate())
		}
		s.SqueezeBlocks(&out)
		for j := range out {
			want := make([]byte, 2*s.Rate())
			newRef(s.Rate(), in[j]).Read(want)
			if !bytes.Equal(out[j], want) {
				t.Fatalf("rate %d lane %d differs", s.Rate(), j)
			}
		}
	}
}

func TestX4Allocs(t *testing.T) {
	paths(t, func(t *testing.T) {
		var in [4][]byte
		var buf [4][3 * Rate128]byte
		out := [4][]byte{buf[0][:], buf[1][:], buf[2][:], buf[3][:]}
		seed := make([]byte, 34)
		n := testing.AllocsPerRun(100, func() {
			var s X4
			in = [4][]byte{seed, seed, seed, seed}
			s.Init128(in)
			s.SqueezeBlocks(&out)
		})
		if n != 0 {
			t.Errorf("%v allocations, want 0", n)
		}
	})
}

// FuzzSHAKEx4 compares X4, on every level the machine has, with four
// crypto/sha3 instances: data is cut into four inputs at the given points,
// equal-length or not.
func FuzzSHAKEx4(f *testing.F) {
	f.Add([]byte("abcdefgh"), uint16(2), uint16(4), uint16(6), uint8(3), false)
	f.Add(bytes.Repeat([]byte{1}, 672), uint16(168), uint16(336), uint16(504), uint8(2), true)
	f.Add(bytes.Repeat([]byte{2}, 544), uint16(136), uint16(272), uint16(408), uint8(1), false)
	f.Fuzz(func(t *testing.T, data []byte, c1, c2, c3 uint16, nb uint8, s256 bool) {
		cuts := []int{0, int(c1) % (len(data) + 1), int(c2) % (len(data) + 1), int(c3) % (len(data) + 1), len(data)}
		for i := 1; i < 4; i++ {
			cuts[i] = max(cuts[i], cuts[i-1])
		}
		var in [4][]byte
		for j := range in {
			in[j] = data[cuts[j]:cuts[j+1]]
		}
		rate := Rate128
		if s256 {
			rate = Rate256
		}
		// The same with four equal-length inputs, the four-way absorb.
		var eq [4][]byte
		l := len(data) / 4
		for j := range eq {
			eq[j] = data[j*l : (j+1)*l]
		}
		old := x4Level
		defer func() { x4Level = old }()
		for x4Level = cpuid.LevelGeneric; x4Level <= cpuid.Max(); x4Level++ {
			check(t, rate, in, []int{-int(nb % 8), int(nb), 2*rate - int(nb), -1})
			check(t, rate, eq, []int{-int(nb%8) - 1, int(nb)})
		}
	})
}

func BenchmarkSHAKE(b *testing.B) {
	seed := make([]byte, 34)
	for _, bc := range []struct {
		rate, blocks int
	}{{Rate128, 3}, {Rate256, 1}, {Rate128, 1}} {
		name := fmt.Sprintf("SHAKE%d/blocks=%d", map[int]int{Rate128: 128, Rate256: 256}[bc.rate], bc.blocks)
		var buf [4][3 * Rate128]byte
		var out [4][]byte
		for j := range out {
			out[j] = buf[j][:bc.blocks*bc.rate]
		}
		for l := cpuid.LevelAVX512; l >= cpuid.LevelGeneric; l-- {
			// impl=generic is X4 on four crypto/sha3 states.
			b.Run(name+"/impl="+l.String(), func(b *testing.B) {
				useLevel(b, l)
				b.SetBytes(int64(4 * bc.blocks * bc.rate))
				for b.Loop() {
					var s X4
					s.init4(bc.rate, [4][]byte{seed, seed, seed, seed})
					s.SqueezeBlocks(&out)
				}
			})
		}
		b.Run(name+"/impl=4xsha3", func(b *testing.B) {
			b.SetBytes(int64(4 * bc.blocks * bc.rate))
			for b.Loop() {
				for j := range 4 {
					h := newRef(bc.rate, seed)
					h.Read(out[j])
				}
			}
		})
	}
}

// BenchmarkPermute measures one four-way permutation at each level;
// level=generic is the Go twin, which X4 does not use.
func BenchmarkPermute(b *testing.B) {
	for l := cpuid.LevelAVX512; l >= cpuid.LevelGeneric; l-- {
		b.Run("level="+l.String(), func(b *testing.B) {
			useLevel(b, l)
			var a [25][4]uint64
			for b.Loop() {
				keccakF1600x4(&a)
			}
		})
	}
}

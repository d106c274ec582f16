package keccak

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// checkX8 absorbs in into an X8 and eight crypto/sha3 references and
// compares the outputs of SqueezeBlocks calls of the given numbers of
// blocks.
func checkX8(t *testing.T, rate int, in [8][]byte, reads []int) {
	t.Helper()
	var s X8
	if rate == Rate128 {
		s.Init128(in)
	} else {
		s.Init256(in)
	}
	if s.Rate() != rate {
		t.Fatalf("Rate() = %d, want %d", s.Rate(), rate)
	}
	var ref [8]interface{ Read([]byte) (int, error) }
	for j := range ref {
		ref[j] = newRef(rate, in[j])
	}
	for r, n := range reads {
		var out [8][]byte
		for j := range out {
			out[j] = make([]byte, n*rate)
		}
		s.SqueezeBlocks(&out)
		for j := range out {
			want := make([]byte, n*rate)
			ref[j].Read(want)
			if !bytes.Equal(out[j], want) {
				var lens [8]int
				for k := range in {
					lens[k] = len(in[k])
				}
				t.Fatalf("rate %d, input lengths %v, read %d (%d blocks): lane %d differs\ngot  %x\nwant %x",
					rate, lens, r, n, j, out[j], want)
			}
		}
	}
}

func randInputs8(rng *rand.ChaCha8, lens [8]int) (in [8][]byte) {
	lo, hi := randInputs(rng, [4]int(lens[:4])), randInputs(rng, [4]int(lens[4:]))
	copy(in[:4], lo[:])
	copy(in[4:], hi[:])
	return in
}

func TestX8EqualLengths(t *testing.T) {
	paths(t, func(t *testing.T) {
		rng := rand.NewChaCha8([32]byte{8})
		for _, rate := range []int{Rate128, Rate256} {
			for l := 0; l <= 3*rate+1; l++ {
				in := randInputs8(rng, [8]int{l, l, l, l, l, l, l, l})
				checkX8(t, rate, in, []int{1, 0, 3, 1})
			}
		}
	})
}

// TestX8DifferentLengths covers the halves' own paths: the two halves of
// different lengths (each on its own four-way state) and unequal lengths
// within a half (crypto/sha3 states beside a four-way state).
func TestX8DifferentLengths(t *testing.T) {
	paths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(8, 9))
		rng := rand.NewChaCha8([32]byte{9})
		for _, rate := range []int{Rate128, Rate256} {
			for range 100 {
				a, b := r.IntN(400), r.IntN(400)
				checkX8(t, rate, randInputs8(rng, [8]int{a, a, a, a, b, b, b, b}), []int{2, 1})
				var lens [8]int
				for j := range lens {
					lens[j] = r.IntN(400)
				}
				lens[4], lens[5], lens[6] = lens[7], lens[7], lens[7]
				checkX8(t, rate, randInputs8(rng, lens), []int{1, 2})
			}
		}
	})
}

// TestX8Lanes checks that the eight lanes do not mix: eight equal inputs
// give eight equal outputs, and a change in one lane changes only its
// output.
func TestX8Lanes(t *testing.T) {
	paths(t, func(t *testing.T) {
		seed := bytes.Repeat([]byte{0x5a}, 34)
		var base [8][Rate128 * 2]byte
		var s X8
		s.Init128([8][]byte{seed, seed, seed, seed, seed, seed, seed, seed})
		out := [8][]byte{}
		for j := range out {
			out[j] = base[j][:]
		}
		s.SqueezeBlocks(&out)
		for j := 1; j < 8; j++ {
			if base[j] != base[0] {
				t.Fatalf("equal inputs, lane %d differs from lane 0", j)
			}
		}
		for k := range 8 {
			var in [8][]byte
			for j := range in {
				in[j] = bytes.Clone(seed)
			}
			in[k][33] ^= 1
			var got [8][Rate128 * 2]byte
			for j := range out {
				out[j] = got[j][:]
			}
			s.Init128(in)
			s.SqueezeBlocks(&out)
			for j := range 8 {
				if (got[j] == base[j]) != (j != k) {
					t.Fatalf("input of lane %d changed: lane %d changed %v", k, j, got[j] != base[j])
				}
			}
		}
	})
}

func TestX8SqueezeBlocksPanics(t *testing.T) {
	var s X8
	seed := make([]byte, 34)
	s.Init128([8][]byte{seed, seed, seed, seed, seed, seed, seed, seed})
	for _, c := range []struct {
		name string
		lens [8]int
	}{
		{"not whole blocks", [8]int{1, 1, 1, 1, 1, 1, 1, 1}},
		{"first half shorter", [8]int{168, 168, 168, 0, 168, 168, 168, 168}},
		{"second half shorter", [8]int{168, 168, 168, 168, 168, 168, 168, 0}},
		{"halves of different lengths", [8]int{168, 168, 168, 168, 336, 336, 336, 336}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out [8][]byte
			for j := range out {
				out[j] = make([]byte, c.lens[j])
			}
			defer func() {
				if recover() == nil {
					t.Errorf("SqueezeBlocks with output lengths %v did not panic", c.lens)
				}
			}()
			s.SqueezeBlocks(&out)
		})
	}
}

func TestX8Allocs(t *testing.T) {
	paths(t, func(t *testing.T) {
		var buf [8][3 * Rate128]byte
		var out [8][]byte
		for j := range out {
			out[j] = buf[j][:]
		}
		seed := make([]byte, 34)
		n := testing.AllocsPerRun(100, func() {
			var s X8
			s.Init128([8][]byte{seed, seed, seed, seed, seed, seed, seed, seed})
			s.SqueezeBlocks(&out)
		})
		if n != 0 {
			t.Errorf("%v allocations, want 0", n)
		}
	})
}

// TestPermute8 compares the eight-way permutation of each level (two
// four-way ones below AVX-512) with the Go twin on each half, on edge-case
// states paired with other states in the other half, both ways round.
func TestPermute8(t *testing.T) {
	paths(t, func(t *testing.T) {
		states := permuteEdgeStates()
		for n, a := range states {
			b := states[(n*7+3)%len(states)]
			b[n%25][n%4] ^= 1 // never equal to a
			ga, gb, wa, wb := a, b, a, b
			keccakF1600x8(&ga, &gb)
			keccakF1600x4Generic(&wa)
			keccakF1600x4Generic(&wb)
			if ga != wa || gb != wb {
				t.Fatalf("states %d: eight-way permutation differs\ngot  %x\n     %x\nwant %x\n     %x", n, ga, gb, wa, wb)
			}
			keccakF1600x8(&gb, &ga)
			keccakF1600x4Generic(&wa)
			keccakF1600x4Generic(&wb)
			if ga != wa || gb != wb {
				t.Fatalf("states %d, swapped: eight-way permutation differs", n)
			}
		}
	})
}

// FuzzPermute8 compares keccakF1600x8, at every level this machine has,
// with the Go twin on states filled from the fuzzed bytes.
func FuzzPermute8(f *testing.F) {
	f.Add([]byte{}, []byte{1})
	f.Add([]byte{0xff}, []byte{0, 0xff})
	f.Fuzz(func(t *testing.T, da, db []byte) {
		a, b := stateFromBytes(da), stateFromBytes(db)
		wa, wb := a, b
		keccakF1600x4Generic(&wa)
		keccakF1600x4Generic(&wb)
		old := x4Level
		defer func() { x4Level = old }()
		for x4Level = cpuid.LevelGeneric; x4Level <= cpuid.Max(); x4Level++ {
			ga, gb := a, b
			keccakF1600x8(&ga, &gb)
			if ga != wa || gb != wb {
				t.Fatalf("level %v: eight-way permutation differs", x4Level)
			}
		}
	})
}

// FuzzSHAKEx8 compares X8, at every level the machine has, with eight
// crypto/sha3 instances: data cut into eight equal inputs (the eight-way
// absorb), and into two halves of four equal inputs each.
func FuzzSHAKEx8(f *testing.F) {
	f.Add([]byte("abcdefghijklmnop"), uint16(3), uint8(2), false)
	f.Add(bytes.Repeat([]byte{1}, 8*168), uint16(4*168), uint8(1), true)
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, nb uint8, s256 bool) {
		rate := Rate128
		if s256 {
			rate = Rate256
		}
		var eq, halves [8][]byte
		l := len(data) / 8
		c := int(cut) % (len(data) + 1)
		lo, hi := c/4, (len(data)-c)/4
		for j := range 8 {
			eq[j] = data[j*l : (j+1)*l]
			if j < 4 {
				halves[j] = data[j*lo : (j+1)*lo]
			} else {
				halves[j] = data[c+(j-4)*hi : c+(j-3)*hi]
			}
		}
		old := x4Level
		defer func() { x4Level = old }()
		for x4Level = cpuid.LevelGeneric; x4Level <= cpuid.Max(); x4Level++ {
			checkX8(t, rate, eq, []int{int(nb % 4), 1})
			checkX8(t, rate, halves, []int{1, int(nb % 3)})
		}
	})
}

// BenchmarkSHAKEx8 measures eight SHAKE128 streams of 16 blocks (a
// FrodoKEM-1344 row each) with X8 and with two X4, at each level.
func BenchmarkSHAKEx8(b *testing.B) {
	seed := make([]byte, 18)
	var buf [8][16 * Rate128]byte
	var out [8][]byte
	for j := range out {
		out[j] = buf[j][:]
	}
	for l := cpuid.LevelAVX512; l >= cpuid.LevelGeneric; l-- {
		b.Run(fmt.Sprintf("impl=x8/level=%v", l), func(b *testing.B) {
			useLevel(b, l)
			b.SetBytes(int64(len(out) * len(out[0])))
			for b.Loop() {
				var s X8
				s.Init128([8][]byte{seed, seed, seed, seed, seed, seed, seed, seed})
				s.SqueezeBlocks(&out)
			}
		})
		b.Run(fmt.Sprintf("impl=2x4/level=%v", l), func(b *testing.B) {
			useLevel(b, l)
			b.SetBytes(int64(len(out) * len(out[0])))
			for b.Loop() {
				for h := 0; h < 8; h += 4 {
					var s X4
					s.Init128([4][]byte{seed, seed, seed, seed})
					s.SqueezeBlocks((*[4][]byte)(out[h : h+4]))
				}
			}
		})
	}
}

// BenchmarkPermute8 measures one eight-way permutation at each level
// (below AVX-512, two four-way ones): against BenchmarkPermute's one
// four-way permutation, the cost of four more states.
func BenchmarkPermute8(b *testing.B) {
	for l := cpuid.LevelAVX512; l >= cpuid.LevelGeneric; l-- {
		b.Run("level="+l.String(), func(b *testing.B) {
			useLevel(b, l)
			var a, c [25][4]uint64
			for b.Loop() {
				keccakF1600x8(&a, &c)
			}
		})
	}
}

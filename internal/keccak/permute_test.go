package keccak

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// TestPermuteGenericKAT checks the Go twin on facts published with Keccak:
// the first and last round constants, and the first two lanes of
// Keccak-f[1600] applied to the all-zero state.
func TestPermuteGenericKAT(t *testing.T) {
	if roundConstants[0] != 1 || roundConstants[1] != 0x8082 || roundConstants[23] != 0x8000000080008008 {
		t.Errorf("round constants %#x %#x ... %#x", roundConstants[0], roundConstants[1], roundConstants[23])
	}
	var s [25]uint64
	keccakF1600(&s)
	if s[0] != 0xf1258f7940e1dde7 || s[1] != 0x84d5ccf933c0478a {
		t.Errorf("Keccak-f[1600](0): lanes 0 and 1 are %#x %#x", s[0], s[1])
	}
}

// permuteEdgeStates returns the states the assembly is compared with the
// Go twin on: all zeros, all ones, every single bit set (in each of the
// four states, at a different position in each), every single bit clear,
// and random states.
func permuteEdgeStates() (states [][25][4]uint64) {
	var zero, ones [25][4]uint64
	for i := range ones {
		ones[i] = [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
	}
	states = append(states, zero, ones)
	for k := range 1600 {
		var bit, hole [25][4]uint64
		hole = ones
		for j := range 4 {
			b := (k + 400*j) % 1600
			bit[b/64][j] |= 1 << (b % 64)
			hole[b/64][j] &^= 1 << (b % 64)
		}
		states = append(states, bit, hole)
	}
	r := rand.New(rand.NewPCG(11, 12))
	for range 500 {
		var a [25][4]uint64
		for i := range a {
			for j := range a[i] {
				a[i][j] = r.Uint64()
			}
		}
		states = append(states, a)
	}
	return states
}

// comparePermute compares f with the Go twin on the edge-case states, on
// each once and on a chain of permutations.
func comparePermute(t *testing.T, f func(*[25][4]uint64)) {
	t.Helper()
	for n, a := range permuteEdgeStates() {
		got, want := a, a
		f(&got)
		keccakF1600x4Generic(&want)
		if got != want {
			t.Fatalf("state %d: permutations differ\nin   %x\ngot  %x\nwant %x", n, a, got, want)
		}
	}
	var got, want [25][4]uint64
	for i := range 100 {
		f(&got)
		keccakF1600x4Generic(&want)
		if got != want {
			t.Fatalf("permutation %d of the zero state: got %x, want %x", i+1, got, want)
		}
	}
}

// TestPermute compares the assembly permutation of each level with the Go
// twin on edge-case and random states.
func TestPermute(t *testing.T) {
	for _, l := range []cpuid.Level{cpuid.LevelAVX2, cpuid.LevelAVX512} {
		t.Run(l.String(), func(t *testing.T) {
			useLevel(t, l)
			comparePermute(t, keccakF1600x4)
		})
	}
}

// stateFromBytes fills a four-way state from b, repeated as needed.
func stateFromBytes(b []byte) (a [25][4]uint64) {
	if len(b) == 0 {
		return a
	}
	var buf [800]byte
	for i := range buf {
		buf[i] = b[i%len(b)]
	}
	for i := range a {
		for j := range a[i] {
			a[i][j] = binary.LittleEndian.Uint64(buf[8*(4*i+j):])
		}
	}
	return a
}

// FuzzPermute compares keccakF1600x4, at every level this machine has,
// with the Go twin, on states filled from the fuzzed bytes.
func FuzzPermute(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0xff})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		a := stateFromBytes(data)
		want := a
		keccakF1600x4Generic(&want)
		old := x4Level
		defer func() { x4Level = old }()
		for x4Level = cpuid.LevelGeneric; x4Level <= cpuid.Max(); x4Level++ {
			got := a
			keccakF1600x4(&got)
			if got != want {
				t.Fatalf("level %v: got %x, want %x", x4Level, got, want)
			}
		}
	})
}

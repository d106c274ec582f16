//go:build amd64 && !purego

package pake

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// compareA1Compact runs the AVX2 network and the Go rounds on the slots w
// (v[:280] as bytes, the rest zero) and reports whether they agree.
func compareA1Compact(t *testing.T, w []byte) {
	t.Helper()
	var got, want [a1PaddedWords]uint64
	for i := range a1Iterations {
		got[i] = binary.LittleEndian.Uint64(w[8*i:])
	}
	want = got
	a1CompactAVX2(&got)
	a1CompactGeneric(&want)
	if got != want {
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("word %d: AVX2 %#x, Go %#x", i, got[i], want[i])
			}
		}
	}
}

// TestA1CompactAVX2 compares the AVX2 compaction network with the Go
// rounds on arbitrary words (not only the slots A1 builds: both compute the
// same masked selects on any bits), all-ones and all-zero slots, and the
// slots A1 builds from random bytes.
func TestA1CompactAVX2(t *testing.T) {
	if !cpuid.AVX2() {
		t.Skip("no AVX2")
	}
	r := rand.New(rand.NewPCG(1, 2))
	w := make([]byte, 8*a1Iterations)
	for trial := range 2000 {
		switch trial {
		case 0:
			for i := range w {
				w[i] = 0xff
			}
		case 1:
			clear(w)
		default:
			for i := range w {
				w[i] = byte(r.Uint32())
			}
			if trial%2 == 0 {
				// Mostly valid slots with random distances.
				for i := 3; i < len(w); i += 4 {
					w[i] |= 0x80
				}
			}
		}
		compareA1Compact(t, w)
	}
}

// FuzzA1CompactAVX2 compares the AVX2 compaction network with the Go rounds
// on arbitrary slots.
func FuzzA1CompactAVX2(f *testing.F) {
	f.Add(make([]byte, 8*a1Iterations))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !cpuid.AVX2() {
			t.Skip("no AVX2")
		}
		w := make([]byte, 8*a1Iterations)
		copy(w, b)
		compareA1Compact(t, w)
	})
}

// FuzzC1BlocksAVX2 compares the AVX2 C1 reduction with the Go code on
// arbitrary blocks (four lanes of 168 bytes).
func FuzzC1BlocksAVX2(f *testing.F) {
	f.Add(make([]byte, 4*168))
	f.Add(bytes.Repeat([]byte{0xff}, 4*168))
	f.Fuzz(func(t *testing.T, in []byte) {
		if !cpuid.AVX2() {
			t.Skip("no AVX2")
		}
		var buf [4][c1BlockBuf]byte
		for l := range buf {
			copy(buf[l][:168], in[min(len(in), 168*l):])
		}
		var got, want [4][8]uint16
		c1BlocksAVX2(&got, &buf)
		c1BlocksGeneric(&want, &buf, 4)
		for l := range got {
			if [7]uint16(got[l][:7]) != [7]uint16(want[l][:7]) {
				t.Fatalf("lane %d: AVX2 %v, Go %v", l, got[l][:7], want[l][:7])
			}
		}
	})
}

// BenchmarkC1Blocks reduces one SHAKE128 block in each of four lanes, with
// AVX2 and with the Go code.
func BenchmarkC1Blocks(b *testing.B) {
	var buf [4][c1BlockBuf]byte
	r := rand.NewChaCha8([32]byte{})
	for l := range buf {
		r.Read(buf[l][:])
	}
	var res [4][8]uint16
	b.Run("impl=avx2", func(b *testing.B) {
		if !cpuid.AVX2() {
			b.Skip("no AVX2")
		}
		for b.Loop() {
			c1BlocksAVX2(&res, &buf)
		}
	})
	b.Run("impl=generic", func(b *testing.B) {
		for b.Loop() {
			c1BlocksGeneric(&res, &buf, 4)
		}
	})
}

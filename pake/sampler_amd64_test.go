//go:build amd64 && !purego

package pake

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// requireAVX2 skips t unless the CPU, the build and PQKEM_CPU run the AVX2
// routines, which the tests below call directly, whatever the package's
// level.
func requireAVX2(t testing.TB) {
	t.Helper()
	cpuLevels.SkipUnless(t, cpuid.LevelAVX2)
}

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
	requireAVX2(t)
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
		requireAVX2(t)
		w := make([]byte, 8*a1Iterations)
		copy(w, b)
		compareA1Compact(t, w)
	})
}

// FuzzC1BlocksAVX2 compares the AVX2 C1 reduction with the Go code on
// arbitrary blocks: 1 to 4 lanes (the first byte), at a stride of one
// block as in a stream or of a lane buffer (the second), and the lanes
// past the last must be left alone.
func FuzzC1BlocksAVX2(f *testing.F) {
	f.Add(append([]byte{3, 0}, make([]byte, 4*168)...))
	f.Add(append([]byte{3, 1}, bytes.Repeat([]byte{0xff}, 4*168)...))
	f.Add([]byte{0, 0})
	f.Add([]byte{1, 1, 0xff})
	f.Fuzz(func(t *testing.T, in []byte) {
		requireAVX2(t)
		if len(in) < 2 {
			return
		}
		lanes := 1 + int(in[0])%4
		stride := []int{168, c1BlockBuf}[in[1]%2]
		in = in[2:]
		// Exactly the bytes c1Blocks may read, so that a read past them
		// fails the bounds check.
		buf := make([]byte, (lanes-1)*stride+c1BlockBuf)
		copy(buf, in)
		var got, want [4][8]uint16
		for l := range got {
			for c := range got[l] {
				got[l][c], want[l][c] = 0xbeef, 0xbeef
			}
		}
		c1BlocksAVX2(&got, &buf[0], uintptr(stride), uintptr(lanes))
		c1BlocksGeneric(&want, buf, stride, lanes)
		for l := range got {
			if l < lanes && [7]uint16(got[l][:7]) != [7]uint16(want[l][:7]) {
				t.Fatalf("lanes %d, stride %d, lane %d: AVX2 %v, Go %v", lanes, stride, l, got[l][:7], want[l][:7])
			}
			if l >= lanes && got[l] != want[l] {
				t.Fatalf("lanes %d: lane %d written: %v", lanes, l, got[l])
			}
		}
	})
}

// BenchmarkC1Blocks reduces one SHAKE128 block in each of four (or two)
// lanes, with AVX2 and with the Go code.
func BenchmarkC1Blocks(b *testing.B) {
	var buf [4 * c1BlockBuf]byte
	r := rand.NewChaCha8([32]byte{})
	r.Read(buf[:])
	var res [4][8]uint16
	for _, lanes := range []int{4, 2} {
		b.Run(fmt.Sprintf("lanes=%d/impl=avx2", lanes), func(b *testing.B) {
			requireAVX2(b)
			for b.Loop() {
				c1BlocksAVX2(&res, &buf[0], c1BlockBuf, uintptr(lanes))
			}
		})
		b.Run(fmt.Sprintf("lanes=%d/impl=generic", lanes), func(b *testing.B) {
			for b.Loop() {
				c1BlocksGeneric(&res, buf[:], c1BlockBuf, lanes)
			}
		})
	}
}

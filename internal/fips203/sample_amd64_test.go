//go:build amd64 && !purego

package fips203

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// Differential tests of sample_amd64.s against the Go twins.

func TestRejUniformAVX2(t *testing.T) {
	requireAVX2(t)
	rng := rand.NewChaCha8([32]byte{21})
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 5000 {
		b := rejInput(rng, r, trial)
		k0 := r.IntN(n + 1)
		var got, want nttElement
		kg, used := rejUniformAVX2((*[n]uint16)(&got), k0, b)
		if used%24 != 0 || used > len(b) || (kg <= 240 && len(b)-used >= 24 && len(b) >= 32) {
			t.Fatalf("trial %d: k0 %d len %d: stopped at k = %d after %d bytes", trial, k0, len(b), kg, used)
		}
		kw := rejectionSampleGeneric(&want, k0, b[:used])
		if kg != kw || !slices.Equal(got[k0:kg], want[k0:kw]) {
			t.Fatalf("trial %d: k0 %d: AVX2 gave k = %d, Go %d, or the coefficients differ", trial, k0, kg, kw)
		}
	}
}

// rejInput returns up to 600 bytes for the rejection sampling, by trial:
// random; mostly 0xff, which every 12-bit value rejects; values next to q,
// on either side of the bound; zeros.
func rejInput(rng *rand.ChaCha8, r *rand.Rand, trial int) []byte {
	b := make([]byte, r.IntN(600))
	rng.Read(b)
	switch trial % 4 {
	case 1:
		for x := range b {
			if r.IntN(4) != 0 {
				b[x] = 0xff
			}
		}
	case 2:
		for x := 0; x+3 <= len(b); x += 3 {
			d1, d2 := uint32(q-3+r.IntN(6)), uint32(q-3+r.IntN(6))
			w := d1 | d2<<12
			b[x], b[x+1], b[x+2] = byte(w), byte(w>>8), byte(w>>16)
		}
	case 3:
		clear(b)
	}
	return b
}

// addRejSeeds adds the rejection-sampling fuzz targets' seeds: all
// zeros; 4095 (rejected) beside 207; q-1 (accepted) beside q (rejected).
func addRejSeeds(f *testing.F) {
	f.Add(make([]byte, 504), uint8(0))
	f.Add(bytes.Repeat([]byte{0xff, 0xff, 0x0c}, 100), uint8(200))
	f.Add(bytes.Repeat([]byte{0x00, 0x1d, 0xd0}, 168), uint8(17))
}

// FuzzRejUniformAVX2 compares the AVX2 rejection sampling with the Go loop
// on arbitrary bytes from an arbitrary starting count.
func FuzzRejUniformAVX2(f *testing.F) {
	addRejSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte, k0 uint8) {
		requireAVX2(t)
		b = b[:len(b)/3*3]
		var got, want nttElement
		kg, used := rejUniformAVX2((*[n]uint16)(&got), int(k0), b)
		if used%24 != 0 || used > len(b) || (kg <= 240 && len(b)-used >= 24 && len(b) >= 32) {
			t.Fatalf("k0 %d len %d: stopped at k = %d after %d bytes", k0, len(b), kg, used)
		}
		kw := rejectionSampleGeneric(&want, int(k0), b[:used])
		if kg != kw || !slices.Equal(got[k0:kg], want[k0:kw]) {
			t.Fatalf("k0 %d: AVX2 gave k = %d, Go %d, or the coefficients differ", k0, kg, kw)
		}
		// And the dispatching rejectionSample as a whole.
		checkRejectionSample(t, b, int(k0))
	})
}

// checkRejectionSample compares the dispatching rejectionSample, at the
// level in force, with the Go loop on b from k0.
func checkRejectionSample(t *testing.T, b []byte, k0 int) {
	t.Helper()
	var all, ref nttElement
	ka := rejectionSample(&all, k0, b)
	kr := rejectionSampleGeneric(&ref, k0, b)
	if ka != kr || !slices.Equal(all[k0:ka], ref[k0:kr]) {
		t.Fatalf("k0 %d: rejectionSample gave k = %d, Go %d, or the coefficients differ", k0, ka, kr)
	}
}

// BenchmarkRejUniformAVX2 parses one SHAKE128 block (as the lane schedule
// does) and three (as SampleNTT does) with the assembly alone.
func BenchmarkRejUniformAVX2(b *testing.B) {
	requireAVX2(b)
	for _, blocks := range []int{1, 3} {
		b.Run(fmt.Sprintf("blocks=%d", blocks), func(b *testing.B) {
			buf := make([]byte, blocks*168)
			rand.NewChaCha8([32]byte{}).Read(buf)
			var a nttElement
			for b.Loop() {
				rejUniformAVX2((*[n]uint16)(&a), 0, buf)
			}
		})
	}
}

func requireVBMI2(t testing.TB) {
	t.Helper()
	if !cpuid.HasAVX512VBMI2() {
		t.Skip("no AVX-512 VBMI2 (or PQKEM_CPU caps the level below avx512)")
	}
}

// checkRejUniformAVX512 compares rejUniformAVX512 on b from k0 with the Go
// loop on the bytes it says it consumed, and checks where it stopped.
func checkRejUniformAVX512(t *testing.T, b []byte, k0 int) {
	t.Helper()
	// got is followed by guard lanes, which it must leave alone.
	var buf [n + 32]uint16
	for i := range buf {
		buf[i] = 0xbeef
	}
	got := (*nttElement)(buf[:n])
	var want nttElement
	kg, used := rejUniformAVX512((*[n]uint16)(got), k0, b)
	for i, v := range buf[n:] {
		if v != 0xbeef {
			t.Fatalf("k0 %d len %d: wrote %#x to a[%d]", k0, len(b), v, n+i)
		}
	}
	// It stops at k = 256, or with fewer than 24 bytes left, and stores
	// nothing past a[255] (rejUniformAVX512 has no room for it to).
	if used%24 != 0 || used > len(b) || kg > n || (kg < n && len(b)-used >= 24) {
		t.Fatalf("k0 %d len %d: stopped at k = %d after %d bytes", k0, len(b), kg, used)
	}
	kw := rejectionSampleGeneric(&want, k0, b[:used])
	if kg != kw || !slices.Equal(got[k0:kg], want[k0:kw]) {
		t.Fatalf("k0 %d len %d: AVX-512 gave k = %d, Go %d, or the coefficients differ", k0, len(b), kg, kw)
	}
}

func TestRejUniformAVX512(t *testing.T) {
	requireVBMI2(t)
	rng := rand.NewChaCha8([32]byte{22})
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 5000 {
		b := rejInput(rng, r, trial)
		checkRejUniformAVX512(t, b, r.IntN(n+1))
	}
	// Every starting count with the lengths at the loops' edges, the
	// candidates all accepted (zeros), so that a[255] is reached.
	for _, l := range []int{0, 21, 24, 45, 48, 72, 96, 168, 504} {
		for k0 := range n + 1 {
			checkRejUniformAVX512(t, make([]byte, l), k0)
		}
	}
}

// FuzzRejUniformAVX512 compares the AVX-512 rejection sampling with the Go
// loop on arbitrary bytes from an arbitrary starting count, and the
// dispatching rejectionSample at the avx512 level as a whole.
func FuzzRejUniformAVX512(f *testing.F) {
	addRejSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte, k0 uint8) {
		requireVBMI2(t)
		b = b[:len(b)/3*3]
		checkRejUniformAVX512(t, b, int(k0))
		defer cpuLevels.Force(cpuid.LevelAVX512)()
		checkRejectionSample(t, b, int(k0))
	})
}

// BenchmarkRejUniformAVX512 parses one SHAKE128 block with rejectionSample
// at the avx512 and avx2 levels, as the lane schedule does.
func BenchmarkRejUniformAVX512(b *testing.B) {
	requireVBMI2(b)
	buf := make([]byte, 168)
	rand.NewChaCha8([32]byte{}).Read(buf)
	var a nttElement
	for _, l := range []cpuid.Level{cpuid.LevelAVX512, cpuid.LevelAVX2} {
		b.Run("level="+l.String(), func(b *testing.B) {
			defer cpuLevels.Force(l)()
			for b.Loop() {
				rejectionSample(&a, 0, buf)
			}
		})
	}
}

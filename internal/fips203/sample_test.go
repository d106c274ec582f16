package fips203

import (
	"bytes"
	"crypto/sha3"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// bothPaths runs f with the generic Keccak and, where this build and CPU
// have it, with the four-way AVX2 Keccak.
func bothPaths(t *testing.T, f func(t *testing.T)) {
	t.Run("generic", func(t *testing.T) {
		defer cpuLevels.Force(cpuid.LevelGeneric)()
		f(t)
	})
	t.Run("avx2", func(t *testing.T) {
		if !cpuid.HasAVX2() {
			t.Skip("no AVX2 path in this build or on this CPU")
		}
		defer cpuLevels.Force(cpuid.Max())()
		f(t)
	})
}

// sampleNTTFunc fills a with the NTT element that the matrix entry (i, j) of
// Â is derived from: FIPS 203 SampleNTT(rho || j || i).
type sampleNTTFunc func(a *nttElement, rho *[32]byte, j, i byte)

// sampleMatrixWith returns a sampleMatrixFunc that samples the entries one at
// a time with f: the seam for samplers that have no batched form.
func sampleMatrixWith(f sampleNTTFunc) sampleMatrixFunc {
	return func(a []nttElement, rho *[32]byte, k int) {
		for i := range k {
			for j := range k {
				f(&a[i*k+j], rho, byte(i), byte(j))
			}
		}
	}
}

// sampleNTTRef is Algorithm 7 as FIPS 203 writes it, one SHAKE128 block at
// a time and one candidate at a time. It also returns the number of blocks
// it read.
func sampleNTTRef(a *nttElement, rho *[32]byte, j, i byte) (blocks int) {
	h := sha3.NewSHAKE128()
	h.Write(rho[:])
	h.Write([]byte{j, i})
	var C [168]byte
	k := 0
	for k < n {
		h.Read(C[:])
		blocks++
		for b := C[:]; len(b) >= 3 && k < n; b = b[3:] {
			d1 := uint16(b[0]) + 256*uint16(b[1]%16)
			d2 := uint16(b[1]/16) + 16*uint16(b[2])
			if d1 < q {
				a[k] = fieldElement(d1)
				k++
			}
			if d2 < q && k < n {
				a[k] = fieldElement(d2)
				k++
			}
		}
	}
	return blocks
}

func TestSampleNTT(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{7})
	for range 300 {
		var rho [32]byte
		rng.Read(rho[:])
		i, j := byte(rng.Uint64()), byte(rng.Uint64())
		var got, want nttElement
		sampleNTT(&got, &rho, i, j)
		sampleNTTRef(&want, &rho, i, j)
		if got != want {
			t.Fatalf("sampleNTT(%x, %d, %d) differs from Algorithm 7", rho, i, j)
		}
	}
}

// TestRejectionSample feeds rejectionSample adversarial and random buffers
// in pieces of every size, from every starting count, and compares it with
// the candidate-by-candidate loop. Only a[:k] is defined: the branch-free
// fast path may leave a rejected candidate in a[k].
func TestRejectionSample(t *testing.T) { bothPaths(t, testRejectionSample) }

func testRejectionSample(t *testing.T) {
	rng := rand.NewChaCha8([32]byte{8})
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 2000 {
		buf := make([]byte, 3*(1+r.IntN(200)))
		rng.Read(buf)
		switch trial % 4 {
		case 1: // mostly rejections: 12-bit values >= q
			for x := range buf {
				if r.IntN(8) != 0 {
					buf[x] = 0xff
				}
			}
		case 2: // values around q
			for x := 0; x+3 <= len(buf); x += 3 {
				d1, d2 := uint32(q-2+r.IntN(4)), uint32(q-2+r.IntN(4))
				w := d1 | d2<<12
				buf[x], buf[x+1], buf[x+2] = byte(w), byte(w>>8), byte(w>>16)
			}
		}
		k0 := r.IntN(n + 1)
		var got, want nttElement
		for x := range got {
			got[x] = fieldElement(x)
			want[x] = fieldElement(x)
		}
		// The reference.
		kw := k0
		for b := buf; len(b) >= 3 && kw < n; b = b[3:] {
			d1 := uint16(b[0]) | uint16(b[1]&0x0f)<<8
			d2 := uint16(b[1])>>4 | uint16(b[2])<<4
			if d1 < q {
				want[kw] = fieldElement(d1)
				kw++
			}
			if d2 < q && kw < n {
				want[kw] = fieldElement(d2)
				kw++
			}
		}
		// In pieces of random multiples of 3 bytes.
		kg := k0
		for b := buf; len(b) > 0; {
			m := min(len(b), 3*(1+r.IntN(60)))
			kg = rejectionSample(&got, kg, b[:m])
			b = b[m:]
		}
		if kg != kw || !slices.Equal(got[:kw], want[:kw]) {
			t.Fatalf("trial %d: rejectionSample from %d: k = %d, want %d, or coefficients differ", trial, k0, kg, kw)
		}
	}
}

func TestSampleMatrix(t *testing.T) {
	bothPaths(t, func(t *testing.T) {
		rng := rand.NewChaCha8([32]byte{9})
		perEntry := sampleMatrixWith(sampleNTT)
		for _, k := range []int{1, 2, 3, 4} {
			for range 100 {
				var rho [32]byte
				rng.Read(rho[:])
				var got, want [maxK * maxK]nttElement
				sampleMatrixFIPS(got[:], &rho, k)
				perEntry(want[:], &rho, k)
				if got != want {
					t.Fatalf("k = %d, rho = %x: batched matrix differs from per-entry SampleNTT", k, rho)
				}
				checkMatrixRef(t, got[:], &rho, k)
			}
		}
	})
}

// checkMatrixRef fails t unless every entry of the rank-k matrix a equals
// Algorithm 7's SampleNTT(rho || i || j) as sampleNTTRef computes it.
func checkMatrixRef(t *testing.T, a []nttElement, rho *[32]byte, k int) {
	t.Helper()
	for i := range k {
		for j := range k {
			var ref nttElement
			sampleNTTRef(&ref, rho, byte(i), byte(j))
			if a[i*k+j] != ref {
				t.Fatalf("k = %d, rho = %x: entry (%d, %d) differs from Algorithm 7", k, *rho, i, j)
			}
		}
	}
}

// TestSampleMatrixManyBlocks checks the matrix sampler on matrices with an
// entry that needs more than the three blocks most need (about 1% of
// entries), at every rank, so the long entry meets the other lanes at
// different points of the schedule.
func TestSampleMatrixManyBlocks(t *testing.T) {
	bothPaths(t, func(t *testing.T) {
		rng := rand.NewChaCha8([32]byte{10})
		found := 0
		for try := 0; found < 20 && try < 100000; try++ {
			var rho [32]byte
			rng.Read(rho[:])
			var ref nttElement
			if sampleNTTRef(&ref, &rho, 0, 0) <= 3 {
				continue
			}
			found++
			for _, k := range []int{2, 3, 4} {
				var got [maxK * maxK]nttElement
				sampleMatrixFIPS(got[:], &rho, k)
				checkMatrixRef(t, got[:], &rho, k)
			}
		}
		if found < 20 {
			t.Fatalf("found only %d entries needing more than 3 blocks", found)
		}
	})
}

func TestSamplePRFs(t *testing.T) {
	bothPaths(t, func(t *testing.T) {
		rng := rand.NewChaCha8([32]byte{11})
		r := rand.New(rand.NewPCG(5, 6))
		for count := 1; count <= 2*maxK+1; count++ {
			for range 20 {
				var s [32]byte
				rng.Read(s[:])
				var got, want [2*maxK + 1]ringElement
				var f [2*maxK + 1]*ringElement
				var etas [2*maxK + 1]int
				for i := range count {
					f[i] = &got[i]
					etas[i] = 2 + r.IntN(2)
					samplePRF(&want[i], &s, byte(i), etas[i])
				}
				samplePRFs(&s, f[:count], etas[:count])
				if got != want {
					t.Fatalf("%d polynomials, etas %v: samplePRFs differs from samplePRF", count, etas[:count])
				}
			}
		}
	})
}

// TestKeccakPathsAgree runs whole operations with the generic Keccak and the
// four-way AVX2 one and compares every output.
func TestKeccakPathsAgree(t *testing.T) {
	if !cpuid.HasAVX2() {
		t.Skip("no AVX2 path in this build or on this CPU")
	}
	rng := rand.NewChaCha8([32]byte{12})
	for _, p := range []*Params{MLKEM512, MLKEM768, MLKEM1024} {
		for range 50 {
			var d, z, m [32]byte
			rng.Read(d[:])
			rng.Read(z[:])
			rng.Read(m[:])
			run := func(generic bool) (ek, dkb, c, K, K2, Kbad []byte) {
				defer cpuLevels.Force(map[bool]cpuid.Level{true: cpuid.LevelGeneric, false: cpuid.Max()}[generic])()
				var dk DecapsulationKey
				KeyGenInternal(&dk, p, &d, &z)
				var ek2 EncapsulationKey
				if err := NewEncapsulationKey(&ek2, p, dk.EncapsulationKey().Bytes(nil)); err != nil {
					t.Fatal(err)
				}
				var k1, k2, k3 [SharedKeySize]byte
				c = ek2.EncapsulateInternal(&k1, nil, &m)
				if err := dk.Decapsulate(&k2, c); err != nil {
					t.Fatal(err)
				}
				bad := bytes.Clone(c)
				bad[0] ^= 1
				if err := dk.Decapsulate(&k3, bad); err != nil {
					t.Fatal(err)
				}
				return dk.EncapsulationKey().Bytes(nil), dk.ExpandedBytes(nil), c, k1[:], k2[:], k3[:]
			}
			g := [][]byte{}
			a := [][]byte{}
			{
				x1, x2, x3, x4, x5, x6 := run(true)
				g = append(g, x1, x2, x3, x4, x5, x6)
				y1, y2, y3, y4, y5, y6 := run(false)
				a = append(a, y1, y2, y3, y4, y5, y6)
			}
			for i := range g {
				if !bytes.Equal(g[i], a[i]) {
					t.Fatalf("%s: output %d differs between the generic and AVX2 Keccak", p.Name(), i)
				}
			}
			if !bytes.Equal(g[3], g[4]) {
				t.Fatalf("%s: decapsulation does not recover the key", p.Name())
			}
		}
	}
}

func BenchmarkSampleMatrix(b *testing.B) {
	var rho [32]byte
	var a [maxK * maxK]nttElement
	perEntry := sampleMatrixWith(sampleNTT)
	for _, k := range []int{2, 3, 4} {
		b.Run(fmt.Sprintf("k=%d/impl=lanes", k), func(b *testing.B) {
			if !cpuid.AVX2() {
				b.Skip("no AVX2")
			}
			for b.Loop() {
				sampleMatrixFIPS(a[:], &rho, k)
			}
		})
		b.Run(fmt.Sprintf("k=%d/impl=sha3", k), func(b *testing.B) {
			for b.Loop() {
				perEntry(a[:], &rho, k)
			}
		})
	}
}

func BenchmarkSamplePRFs(b *testing.B) {
	var s [32]byte
	var polys [2*maxK + 1]ringElement
	var f [2*maxK + 1]*ringElement
	etas := [2*maxK + 1]int{2, 2, 2, 2, 2, 2, 2, 2, 2}
	for i := range f {
		f[i] = &polys[i]
	}
	for _, count := range []int{1, 2, 3, 4, 7} {
		b.Run(fmt.Sprintf("polys=%d/impl=x4", count), func(b *testing.B) {
			if !cpuid.AVX2() {
				b.Skip("no AVX2")
			}
			for b.Loop() {
				samplePRFs(&s, f[:count], etas[:count])
			}
		})
		b.Run(fmt.Sprintf("polys=%d/impl=sha3", count), func(b *testing.B) {
			defer cpuLevels.Force(cpuid.LevelGeneric)()
			for b.Loop() {
				samplePRFs(&s, f[:count], etas[:count])
			}
		})
	}
}

// BenchmarkRejectionSample parses three SHAKE128 blocks, as sampleNTT
// does first.
func BenchmarkRejectionSample(b *testing.B) {
	buf := make([]byte, 3*168)
	rand.NewChaCha8([32]byte{}).Read(buf)
	var a nttElement
	b.Run("impl=dispatch", func(b *testing.B) {
		for b.Loop() {
			rejectionSample(&a, 0, buf)
		}
	})
	b.Run("impl=go", func(b *testing.B) {
		for b.Loop() {
			rejectionSampleGeneric(&a, 0, buf)
		}
	})
}

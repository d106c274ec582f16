package fips203

import (
	"math/rand/v2"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// Microbenchmarks of the polynomial routines, each run through the
// dispatcher with the AVX2 path (impl=avx2, where available) and with the
// generic path forced (impl=generic).

func benchImpls(b *testing.B, f func(b *testing.B)) {
	if cpuid.HasAVX2() {
		b.Run("impl=avx2", f)
	}
	b.Run("impl=generic", func(b *testing.B) {
		defer cpuid.ForceGeneric(true)()
		f(b)
	})
}

func BenchmarkNTT(b *testing.B) {
	f := randomBounded(rand.New(rand.NewPCG(1, 1)), q)
	benchImpls(b, func(b *testing.B) {
		for b.Loop() {
			g := f
			ntt(&g)
		}
	})
}

func BenchmarkInverseNTT(b *testing.B) {
	f := nttElement(randomBounded(rand.New(rand.NewPCG(1, 2)), q))
	benchImpls(b, func(b *testing.B) {
		for b.Loop() {
			g := f
			inverseNTT(&g)
		}
	})
}

// BenchmarkInnerProduct is one row of the ML-KEM-768 matrix times a
// vector: three base-case multiplications and one reduction.
func BenchmarkInnerProduct(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 3))
	var a, s [3]nttElement
	var sc [3]nttCache
	for i := range 3 {
		a[i] = nttElement(randomBounded(r, q))
		s[i] = nttElement(randomBounded(r, q))
		sc[i].computeGeneric(&s[i])
	}
	benchImpls(b, func(b *testing.B) {
		var acc nttAccumulator
		var out nttElement
		for b.Loop() {
			for i := range 3 {
				acc.mulAdd(&a[i], &s[i], &sc[i])
			}
			acc.reduce(&out)
		}
	})
}

func BenchmarkCache(b *testing.B) {
	s := nttElement(randomBounded(rand.New(rand.NewPCG(1, 4)), q))
	benchImpls(b, func(b *testing.B) {
		var c nttCache
		for b.Loop() {
			c.compute(&s)
		}
	})
}

//go:build amd64 && !purego

package fips203

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// Microbenchmarks of the polynomial routines, each run through the
// dispatcher at the default level (impl=avx512 where the CPU has AVX-512,
// which only the rejection sampling tells apart from avx2), with the AVX2
// path (impl=avx2, where available) and with the generic path forced
// (impl=generic).

func benchImpls(b *testing.B, f func(b *testing.B)) {
	if cpuid.Max() >= cpuid.LevelAVX512 {
		b.Run("impl=avx512", f)
		b.Run("impl=avx2", func(b *testing.B) {
			defer cpuLevels.Force(cpuid.LevelAVX2)()
			f(b)
		})
	} else if cpuid.HasAVX2() {
		b.Run("impl=avx2", f)
	}
	b.Run("impl=generic", func(b *testing.B) {
		defer cpuLevels.Force(cpuid.LevelGeneric)()
		f(b)
	})
}

// BenchmarkNTT transforms one polynomial again and again, in place: the
// output, in [0, q), is a valid input. (Copying a fresh input in first
// would time the copy's 16-byte stores holding up the 32-byte loads.)
func BenchmarkNTT(b *testing.B) {
	f := randomBounded(rand.New(rand.NewPCG(1, 1)), q)
	benchImpls(b, func(b *testing.B) {
		for b.Loop() {
			ntt(&f)
		}
	})
}

// BenchmarkInverseNTT works in place as BenchmarkNTT does.
func BenchmarkInverseNTT(b *testing.B) {
	f := nttElement(randomBounded(rand.New(rand.NewPCG(1, 2)), q))
	benchImpls(b, func(b *testing.B) {
		for b.Loop() {
			inverseNTT(&f)
		}
	})
}

// BenchmarkInnerProduct is one row of the ML-KEM-768 matrix times a
// vector, reduced.
func BenchmarkInnerProduct(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 3))
	var a [maxK]nttElement
	var s [maxK]nttElement
	var sc [maxK]nttCache
	for i := range 3 {
		a[i] = nttElement(randomBounded(r, q))
		s[i] = nttElement(randomBounded(r, q))
		sc[i].computeGeneric(&s[i])
	}
	benchImpls(b, func(b *testing.B) {
		var out nttElement
		for b.Loop() {
			innerProduct(&out, a[:], 1, s[:], sc[:], 3, nil)
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

func BenchmarkCompressEncode(b *testing.B) {
	f := randomBounded(rand.New(rand.NewPCG(1, 5)), q)
	for _, d := range compressionWidths {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			benchImpls(b, func(b *testing.B) {
				out := make([]byte, 0, 32*int(d))
				for b.Loop() {
					ringCompressAndEncode(out, &f, d)
				}
			})
		})
	}
}

func BenchmarkDecodeDecompress(b *testing.B) {
	buf := make([]byte, 32*11)
	for i := range buf {
		buf[i] = byte(i * 37)
	}
	for _, d := range compressionWidths {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			benchImpls(b, func(b *testing.B) {
				var f ringElement
				for b.Loop() {
					ringDecodeAndDecompress(&f, buf, d)
				}
			})
		})
	}
}

func BenchmarkEncode12(b *testing.B) {
	f := nttElement(randomBounded(rand.New(rand.NewPCG(1, 6)), q))
	benchImpls(b, func(b *testing.B) {
		out := make([]byte, 0, encodingSize12)
		for b.Loop() {
			byteEncode12(out, &f)
		}
	})
}

func BenchmarkDecode12(b *testing.B) {
	f := nttElement(randomBounded(rand.New(rand.NewPCG(1, 7)), q))
	enc := byteEncode12(nil, &f)
	benchImpls(b, func(b *testing.B) {
		var g nttElement
		for b.Loop() {
			byteDecode12Secret(&g, enc)
		}
	})
}

// BenchmarkSamplePolyCBD compares the assembly sampler with the generic
// one directly.
func BenchmarkSamplePolyCBD(b *testing.B) {
	buf := make([]byte, 192)
	for i := range buf {
		buf[i] = byte(i * 101)
	}
	for _, eta := range []int{2, 3} {
		b.Run(fmt.Sprintf("eta=%d", eta), func(b *testing.B) {
			var f ringElement
			if cpuid.HasAVX2() {
				b.Run("impl=avx2", func(b *testing.B) {
					for b.Loop() {
						samplePolyCBDAVX2(&f, buf, eta)
					}
				})
			}
			b.Run("impl=generic", func(b *testing.B) {
				defer cpuLevels.Force(cpuid.LevelGeneric)()
				for b.Loop() {
					samplePolyCBD(&f, buf, eta)
				}
			})
		})
	}
}

func BenchmarkPolyAdd(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 8))
	x, y := randomBounded(r, q), randomBounded(r, q)
	benchImpls(b, func(b *testing.B) {
		var f ringElement
		for b.Loop() {
			polyAdd(&f, &x, &y)
		}
	})
}

// BenchmarkOps runs whole operations with every assembly path (this
// package's and internal/keccak's) and with the generic Go code forced.
func BenchmarkOps(b *testing.B) {
	for _, p := range []*Params{MLKEM512, MLKEM768, MLKEM1024} {
		var d, z [32]byte
		var m [MessageSize]byte
		var dk DecapsulationKey
		KeyGenInternal(&dk, p, &d, &z)
		var K [SharedKeySize]byte
		c := dk.EncapsulationKey().EncapsulateInternal(&K, nil, &m)
		b.Run(p.name+"/op=keygen", func(b *testing.B) {
			benchImpls(b, func(b *testing.B) {
				var dk DecapsulationKey
				for b.Loop() {
					KeyGenInternal(&dk, p, &d, &z)
				}
			})
		})
		b.Run(p.name+"/op=encaps", func(b *testing.B) {
			benchImpls(b, func(b *testing.B) {
				buf := make([]byte, 0, len(c))
				for b.Loop() {
					dk.EncapsulationKey().EncapsulateInternal(&K, buf, &m)
				}
			})
		})
		b.Run(p.name+"/op=decaps", func(b *testing.B) {
			benchImpls(b, func(b *testing.B) {
				for b.Loop() {
					dk.Decapsulate(&K, c)
				}
			})
		})
	}
}

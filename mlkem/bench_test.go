package mlkem_test

import (
	"crypto"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// The benchmarks put each operation of this package, on its default path
// (AVX2 where the CPU has it) and on the generic Go path, beside the same
// operation of crypto/mlkem and of CIRCL, so one run measures all of them
// in alternation on the same machine state. Compare them with benchstat:
//
//	go test -run '^$' -bench . -count 10 ./mlkem | tee bench.txt
//	benchstat -col /impl bench.txt

// benchImpl is one contender at one level: a key from a seed, and the
// encapsulation and decapsulation of a parsed key.
type benchImpl struct {
	name        string
	newKey      func(seed []byte) func() // returns a keygen closure
	encapsulate func(seed []byte) func()
	decapsulate func(seed []byte) func()
}

func benchImpls(l *kemLevel) []benchImpl {
	ours := benchImpl{
		name:   "pqkem",
		newKey: func(seed []byte) func() { return func() { l.newKey(seed) } },
		encapsulate: func(seed []byte) func() {
			dk, _ := l.newKey(seed)
			ek := dk.Encapsulator()
			return func() { ek.Encapsulate() }
		},
		decapsulate: func(seed []byte) func() {
			dk, _ := l.newKey(seed)
			_, c := dk.Encapsulator().Encapsulate()
			return func() { dk.Decapsulate(c) }
		},
	}
	impls := []benchImpl{ours}
	if cpuid.HasAVX2() {
		generic := ours
		generic.name = "pqkem-generic"
		impls = append(impls, generic)
	}
	if l.std != nil {
		impls = append(impls, benchImpl{
			name:   "std",
			newKey: func(seed []byte) func() { return func() { l.std.newKey(seed) } },
			encapsulate: func(seed []byte) func() {
				dk, _ := l.std.newKey(seed)
				ek := dk.Encapsulator()
				return func() { ek.Encapsulate() }
			},
			decapsulate: func(seed []byte) func() {
				dk, _ := l.std.newKey(seed)
				_, c := dk.Encapsulator().Encapsulate()
				var d crypto.Decapsulator = dk
				return func() { d.Decapsulate(c) }
			},
		})
	}
	impls = append(impls, benchImpl{
		name: "circl",
		newKey: func(seed []byte) func() {
			return func() { l.circl.DeriveKeyPair(seed) }
		},
		encapsulate: func(seed []byte) func() {
			pk, _ := l.circl.DeriveKeyPair(seed)
			return func() { l.circl.Encapsulate(pk) }
		},
		decapsulate: func(seed []byte) func() {
			pk, sk := l.circl.DeriveKeyPair(seed)
			c, _, _ := l.circl.Encapsulate(pk)
			return func() { l.circl.Decapsulate(sk, c) }
		},
	})
	return impls
}

func runBench(b *testing.B, op func(benchImpl) func(seed []byte) func()) {
	seed := make([]byte, 64)
	for i := range seed {
		seed[i] = byte(i)
	}
	for _, l := range kemLevels {
		for _, impl := range benchImpls(l) {
			b.Run(l.name+"/impl="+impl.name, func(b *testing.B) {
				defer cpuid.ForceGeneric(impl.name == "pqkem-generic")()
				f := op(impl)(seed)
				for b.Loop() {
					f()
				}
			})
		}
	}
}

func BenchmarkKeyGen(b *testing.B) {
	runBench(b, func(i benchImpl) func([]byte) func() { return i.newKey })
}

func BenchmarkEncaps(b *testing.B) {
	runBench(b, func(i benchImpl) func([]byte) func() { return i.encapsulate })
}

func BenchmarkDecaps(b *testing.B) {
	runBench(b, func(i benchImpl) func([]byte) func() { return i.decapsulate })
}

// The bytes-in path, as C libraries such as mlkem-native offer it: every
// call parses its key from bytes (the encapsulation key, or the expanded
// FIPS 203 decapsulation key) and then operates. crypto/mlkem has no
// expanded-key import, so its decapsulation row parses the 64-byte seed.
// Key generation returns the encapsulation key and the expanded
// decapsulation key as bytes.
func BenchmarkBytesIn(b *testing.B) {
	seed := make([]byte, 64)
	for i := range seed {
		seed[i] = byte(i)
	}
	for _, l := range kemLevels {
		dk, _ := l.newKey(seed)
		ekBytes := dk.Encapsulator().Bytes()
		dkBytes := dk.ExpandedBytes()
		_, c := dk.Encapsulator().Encapsulate()
		// Key generation in the C shape: the seed in, both encodings out.
		b.Run(l.name+"/op=keygen/impl=pqkem", func(b *testing.B) {
			for b.Loop() {
				dk, err := l.newKey(seed)
				if err != nil {
					b.Fatal(err)
				}
				dk.Encapsulator().Bytes()
				dk.ExpandedBytes()
			}
		})
		b.Run(l.name+"/op=encaps/impl=pqkem", func(b *testing.B) {
			for b.Loop() {
				ek, err := l.newEK(ekBytes)
				if err != nil {
					b.Fatal(err)
				}
				ek.Encapsulate()
			}
		})
		b.Run(l.name+"/op=decaps/impl=pqkem", func(b *testing.B) {
			for b.Loop() {
				dk, err := l.newKeyExpanded(dkBytes)
				if err != nil {
					b.Fatal(err)
				}
				dk.Decapsulate(c)
			}
		})
		if l.std != nil {
			b.Run(l.name+"/op=encaps/impl=std", func(b *testing.B) {
				for b.Loop() {
					ek, _ := l.std.newEK(ekBytes)
					ek.Encapsulate()
				}
			})
			b.Run(l.name+"/op=decaps/impl=std", func(b *testing.B) {
				for b.Loop() {
					dk, _ := l.std.newKey(seed)
					dk.Decapsulate(c)
				}
			})
		}
		b.Run(l.name+"/op=encaps/impl=circl", func(b *testing.B) {
			for b.Loop() {
				pk, _ := l.circl.UnmarshalBinaryPublicKey(ekBytes)
				l.circl.Encapsulate(pk)
			}
		})
		b.Run(l.name+"/op=decaps/impl=circl", func(b *testing.B) {
			for b.Loop() {
				sk, _ := l.circl.UnmarshalBinaryPrivateKey(dkBytes)
				l.circl.Decapsulate(sk, c)
			}
		})
	}
}

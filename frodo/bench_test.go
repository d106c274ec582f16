package frodo_test

import (
	"testing"

	"github.com/cloudflare/circl/kem/frodo/frodo640shake"
	"github.com/pqkem/pqkem/frodo"
)

func BenchmarkFrodo(b *testing.B) {
	for _, p := range frodo.ParameterSets() {
		dk, err := p.GenerateKey()
		if err != nil {
			b.Fatal(err)
		}
		_, ct := dk.EncapsulationKey().Encapsulate()
		b.Run(p.Name()+"/KeyGen", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.GenerateKey()
			}
		})
		// Each operation with the key as made (A generated row by row at
		// every operation) and with a copy that keeps A
		// (Precompute), one after the other: benchstat -col /key sets
		// them side by side.
		pre, err := p.NewDecapsulationKey(dk.Bytes())
		if err != nil {
			b.Fatal(err)
		}
		pre.Precompute()
		keys := []struct {
			name string
			dk   *frodo.DecapsulationKey
		}{{"plain", dk}, {"precomputed", pre}}
		for _, k := range keys {
			b.Run(p.Name()+"/Encaps/key="+k.name, func(b *testing.B) {
				b.ReportAllocs()
				ek := k.dk.EncapsulationKey()
				for b.Loop() {
					ek.Encapsulate()
				}
			})
		}
		for _, k := range keys {
			b.Run(p.Name()+"/Decaps/key="+k.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					k.dk.Decapsulate(ct)
				}
			})
		}
	}
}

// BenchmarkCIRCL is CIRCL's frodo640shake, which is eFrodoKEM-640-SHAKE,
// for comparison in the same run.
func BenchmarkCIRCL(b *testing.B) {
	s := frodo640shake.Scheme()
	pk, sk, err := s.GenerateKeyPair()
	if err != nil {
		b.Fatal(err)
	}
	ct, _, _ := s.Encapsulate(pk)
	b.Run("frodo640shake/KeyGen", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.GenerateKeyPair()
		}
	})
	b.Run("frodo640shake/Encaps", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.Encapsulate(pk)
		}
	})
	b.Run("frodo640shake/Decaps", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.Decapsulate(sk, ct)
		}
	})
}

// BenchmarkAESImpls is the FrodoKEM AES sets on each AES row generator this
// CPU runs (the default first), for comparison in the same run.
func BenchmarkAESImpls(b *testing.B) {
	for _, impl := range frodo.AESImpls {
		b.Run(impl, func(b *testing.B) {
			defer frodo.ForceAES(impl)()
			for _, p := range []*frodo.ParameterSet{frodo.FrodoKEM640AES(), frodo.FrodoKEM976AES(), frodo.FrodoKEM1344AES()} {
				dk, err := p.GenerateKey()
				if err != nil {
					b.Fatal(err)
				}
				ek := dk.EncapsulationKey()
				_, ct := ek.Encapsulate()
				b.Run(p.Name()+"/KeyGen", func(b *testing.B) {
					for b.Loop() {
						p.GenerateKey()
					}
				})
				b.Run(p.Name()+"/Encaps", func(b *testing.B) {
					for b.Loop() {
						ek.Encapsulate()
					}
				})
				b.Run(p.Name()+"/Decaps", func(b *testing.B) {
					for b.Loop() {
						dk.Decapsulate(ct)
					}
				})
			}
		})
	}
}

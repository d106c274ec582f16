package hybrid_test

import (
	"testing"
)

// BenchmarkKEM times key generation, encapsulation to a parsed key,
// decapsulation, and parsing an encapsulation key, for every KEM.
func BenchmarkKEM(b *testing.B) {
	for _, k := range allKEMs() {
		dk := mustDKForFuzz(k)
		ekBytes := dk.EncapsulationKey().Bytes()
		ek, err := k.NewEncapsulationKey(ekBytes)
		if err != nil {
			b.Fatal(err)
		}
		_, ct := ek.Encapsulate()
		b.Run(k.Name()+"/GenerateKey", func(b *testing.B) {
			for b.Loop() {
				if _, err := k.GenerateKey(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(k.Name()+"/NewEncapsulationKey", func(b *testing.B) {
			for b.Loop() {
				if _, err := k.NewEncapsulationKey(ekBytes); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(k.Name()+"/Encapsulate", func(b *testing.B) {
			for b.Loop() {
				ek.Encapsulate()
			}
		})
		b.Run(k.Name()+"/Decapsulate", func(b *testing.B) {
			for b.Loop() {
				if _, err := dk.Decapsulate(ct); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

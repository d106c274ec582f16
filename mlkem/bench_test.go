package mlkem_test

import (
	stdmlkem "crypto/mlkem"
	"testing"

	"github.com/pqkem/pqkem/mlkem"
)

// The benchmarks put each operation of this package beside the same
// operation of crypto/mlkem, so one run measures both on the same machine
// state. Compare them with benchstat, e.g.
//
//	go test -run '^$' -bench . -count 10 ./mlkem | tee bench.txt
//	benchstat -col /impl bench.txt

func BenchmarkKeyGen(b *testing.B) {
	seed := make([]byte, mlkem.SeedSize)
	b.Run("ML-KEM-512/impl=pqkem", func(b *testing.B) {
		for b.Loop() {
			mlkem.NewDecapsulationKey512(seed)
		}
	})
	b.Run("ML-KEM-768/impl=pqkem", func(b *testing.B) {
		for b.Loop() {
			mlkem.NewDecapsulationKey768(seed)
		}
	})
	b.Run("ML-KEM-768/impl=std", func(b *testing.B) {
		for b.Loop() {
			stdmlkem.NewDecapsulationKey768(seed)
		}
	})
	b.Run("ML-KEM-1024/impl=pqkem", func(b *testing.B) {
		for b.Loop() {
			mlkem.NewDecapsulationKey1024(seed)
		}
	})
	b.Run("ML-KEM-1024/impl=std", func(b *testing.B) {
		for b.Loop() {
			stdmlkem.NewDecapsulationKey1024(seed)
		}
	})
}

func BenchmarkEncaps(b *testing.B) {
	seed := make([]byte, mlkem.SeedSize)
	b.Run("ML-KEM-512/impl=pqkem", func(b *testing.B) {
		dk, _ := mlkem.NewDecapsulationKey512(seed)
		ek := dk.EncapsulationKey()
		for b.Loop() {
			ek.Encapsulate()
		}
	})
	b.Run("ML-KEM-768/impl=pqkem", func(b *testing.B) {
		dk, _ := mlkem.NewDecapsulationKey768(seed)
		ek := dk.EncapsulationKey()
		for b.Loop() {
			ek.Encapsulate()
		}
	})
	b.Run("ML-KEM-768/impl=std", func(b *testing.B) {
		dk, _ := stdmlkem.NewDecapsulationKey768(seed)
		ek := dk.EncapsulationKey()
		for b.Loop() {
			ek.Encapsulate()
		}
	})
	b.Run("ML-KEM-1024/impl=pqkem", func(b *testing.B) {
		dk, _ := mlkem.NewDecapsulationKey1024(seed)
		ek := dk.EncapsulationKey()
		for b.Loop() {
			ek.Encapsulate()
		}
	})
	b.Run("ML-KEM-1024/impl=std", func(b *testing.B) {
		dk, _ := stdmlkem.NewDecapsulationKey1024(seed)
		ek := dk.EncapsulationKey()
		for b.Loop() {
			ek.Encapsulate()
		}
	})
}

func BenchmarkDecaps(b *testing.B) {
	seed := make([]byte, mlkem.SeedSize)
	b.Run("ML-KEM-512/impl=pqkem", func(b *testing.B) {
		dk, _ := mlkem.NewDecapsulationKey512(seed)
		_, c := dk.EncapsulationKey().Encapsulate()
		for b.Loop() {
			dk.Decapsulate(c)
		}
	})
	b.Run("ML-KEM-768/impl=pqkem", func(b *testing.B) {
		dk, _ := mlkem.NewDecapsulationKey768(seed)
		_, c := dk.EncapsulationKey().Encapsulate()
		for b.Loop() {
			dk.Decapsulate(c)
		}
	})
	b.Run("ML-KEM-768/impl=std", func(b *testing.B) {
		dk, _ := stdmlkem.NewDecapsulationKey768(seed)
		_, c := dk.EncapsulationKey().Encapsulate()
		for b.Loop() {
			dk.Decapsulate(c)
		}
	})
	b.Run("ML-KEM-1024/impl=pqkem", func(b *testing.B) {
		dk, _ := mlkem.NewDecapsulationKey1024(seed)
		_, c := dk.EncapsulationKey().Encapsulate()
		for b.Loop() {
			dk.Decapsulate(c)
		}
	})
	b.Run("ML-KEM-1024/impl=std", func(b *testing.B) {
		dk, _ := stdmlkem.NewDecapsulationKey1024(seed)
		_, c := dk.EncapsulationKey().Encapsulate()
		for b.Loop() {
			dk.Decapsulate(c)
		}
	})
}

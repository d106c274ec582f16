package fips203

import (
	"crypto/subtle"
	"math/rand/v2"
	"testing"
)

// TestCtEqual compares ctEqual with subtle.ConstantTimeCompare on equal
// inputs of every length up to 100 and the ciphertext lengths, on inputs
// that differ in one bit at every position, and on unequal lengths.
func TestCtEqual(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lengths := []int{768, 1088, 1568}
	for n := range 101 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		a := make([]byte, n)
		for i := range a {
			a[i] = byte(r.Uint32())
		}
		b := append([]byte(nil), a...)
		if got := ctEqual(a, b); got != 1 {
			t.Fatalf("length %d: equal inputs gave %d", n, got)
		}
		for i := range n {
			bit := byte(1) << r.IntN(8)
			b[i] ^= bit
			if got, want := ctEqual(a, b), subtle.ConstantTimeCompare(a, b); got != 0 || want != 0 {
				t.Fatalf("length %d: a bit of byte %d differs, ctEqual gave %d", n, i, got)
			}
			b[i] ^= bit
		}
		if n > 0 && ctEqual(a, b[:n-1]) != 0 {
			t.Fatalf("length %d against %d gave 1", n, n-1)
		}
	}
}

func BenchmarkCtEqual(b *testing.B) {
	x := make([]byte, 1088)
	y := make([]byte, 1088)
	b.Run("impl=ctEqual", func(b *testing.B) {
		for b.Loop() {
			ctEqual(x, y)
		}
	})
	b.Run("impl=subtle", func(b *testing.B) {
		for b.Loop() {
			subtle.ConstantTimeCompare(x, y)
		}
	})
}

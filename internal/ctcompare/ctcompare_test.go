package ctcompare

import (
	"crypto/subtle"
	"math/rand/v2"
	"testing"
)

// TestEqual compares Equal with subtle.ConstantTimeCompare on equal
// inputs of every length up to 100 and the ciphertext lengths, on inputs
// that differ in one bit at every position, and on unequal lengths.
func TestEqual(t *testing.T) {
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
		if got := Equal(a, b); got != 1 {
			t.Fatalf("length %d: equal inputs gave %d", n, got)
		}
		for i := range n {
			bit := byte(1) << r.IntN(8)
			b[i] ^= bit
			if got, want := Equal(a, b), subtle.ConstantTimeCompare(a, b); got != 0 || want != 0 {
				t.Fatalf("length %d: a bit of byte %d differs, Equal gave %d", n, i, got)
			}
			b[i] ^= bit
		}
		if n > 0 && Equal(a, b[:n-1]) != 0 {
			t.Fatalf("length %d against %d gave 1", n, n-1)
		}
	}
}

func BenchmarkEqual(b *testing.B) {
	x := make([]byte, 1088)
	y := make([]byte, 1088)
	b.Run("impl=ctcompare", func(b *testing.B) {
		for b.Loop() {
			Equal(x, y)
		}
	})
	b.Run("impl=subtle", func(b *testing.B) {
		for b.Loop() {
			subtle.ConstantTimeCompare(x, y)
		}
	})
}

package keccak

import (
	"crypto/sha3"
	"fmt"
	"testing"
)

// TestSum512 compares Sum512 with crypto/sha3 on every path, for the
// one-block lengths (the lane of the four-way permutation) and beyond.
func TestSum512(t *testing.T) {
	paths(t, func(t *testing.T) {
		in := make([]byte, 3*Rate512)
		for i := range in {
			in[i] = byte(i*7 + 3)
		}
		for n := range len(in) + 1 {
			if got, want := Sum512(in[:n]), sha3.Sum512(in[:n]); got != want {
				t.Fatalf("Sum512 of %d bytes: got %x, want %x", n, got, want)
			}
		}
	})
}

func BenchmarkSum512(b *testing.B) {
	in := make([]byte, 64)
	for _, n := range []int{33, 64} {
		b.Run(fmt.Sprintf("bytes=%d/impl=keccak", n), func(b *testing.B) {
			for b.Loop() {
				Sum512(in[:n])
			}
		})
		b.Run(fmt.Sprintf("bytes=%d/impl=sha3", n), func(b *testing.B) {
			for b.Loop() {
				sha3.Sum512(in[:n])
			}
		})
	}
}

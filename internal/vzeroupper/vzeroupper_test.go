package vzeroupper

import (
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// BenchmarkSHA256AfterOpen opens a ChaCha20-Poly1305 message, then hashes
// one byte with SHA-256 (SHA-NI, legacy SSE encoding, where the CPU has
// it): after 1,088 bytes x/crypto leaves the AVX upper state dirty, after
// 1,024 it does not. "fix" runs AfterOpen between the two, "always" runs
// VZEROUPPER whatever the length (the cost of doing it unconditionally).
// The sha256-ns/op metric is the hashing alone (with two time.Now calls).
// On Intel CPUs the 1088 case without the fix pays the SSE transition
// penalty; on AMD Zen it does not.
func BenchmarkSHA256AfterOpen(b *testing.B) {
	aead, err := chacha20poly1305.New(make([]byte, chacha20poly1305.KeySize))
	if err != nil {
		b.Fatal(err)
	}
	nonce := make([]byte, chacha20poly1305.NonceSize)
	for _, n := range []int{1024, 1088} {
		msg := aead.Seal(nil, nonce, make([]byte, n), nil)
		dst := make([]byte, n)
		one := []byte{1}
		for _, mode := range []string{"none", "fix", "always"} {
			b.Run(fmt.Sprintf("%d/%s", n, mode), func(b *testing.B) {
				var hashing time.Duration
				for b.Loop() {
					if _, err := aead.Open(dst[:0], nonce, msg, nil); err != nil {
						b.Fatal(err)
					}
					switch mode {
					case "fix":
						AfterOpen(n)
					case "always":
						if useAVX2 {
							vzeroupper()
						}
					}
					t0 := time.Now()
					sha256.Sum256(one)
					hashing += time.Since(t0)
				}
				b.ReportMetric(float64(hashing.Nanoseconds())/float64(b.N), "sha256-ns/op")
			})
		}
	}
}

// BenchmarkAfterOpen is the cost of AfterOpen on the lengths it clears
// and on the others.
func BenchmarkAfterOpen(b *testing.B) {
	for _, n := range []int{1024, 1088} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				AfterOpen(n)
			}
		})
	}
}

func TestDirtyAfterOpenCondition(t *testing.T) {
	var got []int
	for n := range 2200 {
		if dirtyAfterOpen(n) {
			got = append(got, n)
		}
	}
	if fmt.Sprint(got) != "[576 1088 1600 2112]" {
		t.Errorf("dirty lengths %v", got)
	}
}

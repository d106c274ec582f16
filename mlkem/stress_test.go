package mlkem_test

import (
	"bytes"
	"crypto/rand"
	mrand "math/rand/v2"
	"testing"
	"time"
)

// Stress counts per level, as the assurance issue sets them; -short runs a
// tenth of each.
const (
	stressRoundTrips = 5000 // honest: fresh key, encapsulate, decapsulate
	stressTamperings = 2000 // a valid ciphertext with random bits flipped
	stressGarbage    = 1000 // uniformly random ciphertexts
)

func stressCount(n int) int {
	if testing.Short() {
		return n / 10
	}
	return n
}

// TestStress runs, at every level, honest round trips with a fresh key
// each, random tamperings of valid ciphertexts (each must decapsulate to
// the implicit-rejection key J(z || c') = SHAKE256(z || c'), computed here
// independently, and never to the encapsulated key), and decapsulations of
// random bytes (the rejection key too, and no error).
func TestStress(t *testing.T) {
	for _, l := range kemLevels {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			r := mrand.New(mrand.NewPCG(uint64(l.k), 0x57e55))
			start := time.Now()
			var dk ourDecapsulator
			newKey := func() {
				var err error
				if dk, err = l.generateKey(); err != nil {
					t.Fatal(err)
				}
			}

			n := stressCount(stressRoundTrips)
			for i := range n {
				newKey()
				K, c := dk.Encapsulator().Encapsulate()
				if len(c) != l.ctSize {
					t.Fatalf("round trip %d: ciphertext of %d bytes, want %d", i, len(c), l.ctSize)
				}
				got, err := dk.Decapsulate(c)
				if err != nil || !bytes.Equal(got, K) {
					t.Fatalf("round trip %d: Decapsulate = %x, %v; want %x", i, got, err, K)
				}
			}
			roundTrips := time.Since(start)

			start = time.Now()
			nt := stressCount(stressTamperings)
			for i := range nt {
				if i%100 == 0 {
					newKey()
				}
				z := dk.Bytes()[32:64]
				K, c := dk.Encapsulator().Encapsulate()
				bad := bytes.Clone(c)
				// One to eight random bit flips, anywhere: u, v, or both.
				for range 1 + r.IntN(8) {
					bit := r.IntN(8 * len(bad))
					bad[bit/8] ^= 1 << (bit % 8)
				}
				if bytes.Equal(bad, c) {
					continue // the flips cancelled out
				}
				got, err := dk.Decapsulate(bad)
				if err != nil {
					t.Fatalf("tampering %d: %v", i, err)
				}
				if bytes.Equal(got, K) {
					t.Fatalf("tampering %d: a tampered ciphertext decapsulated to the real shared key", i)
				}
				if want := rejectionKey(z, bad); !bytes.Equal(got, want) {
					t.Fatalf("tampering %d: got %x, want the implicit-rejection key %x", i, got, want)
				}
			}
			tamperings := time.Since(start)

			start = time.Now()
			ng := stressCount(stressGarbage)
			garbage := make([]byte, l.ctSize)
			for i := range ng {
				if i%100 == 0 {
					newKey()
				}
				rand.Read(garbage)
				got, err := dk.Decapsulate(garbage)
				if err != nil {
					t.Fatalf("garbage %d: %v", i, err)
				}
				if want := rejectionKey(dk.Bytes()[32:64], garbage); !bytes.Equal(got, want) {
					t.Fatalf("garbage %d: got %x, want the implicit-rejection key %x", i, got, want)
				}
			}
			t.Logf("%d round trips in %v, %d tamperings in %v, %d garbage ciphertexts in %v",
				n, roundTrips.Round(time.Millisecond), nt, tamperings.Round(time.Millisecond),
				ng, time.Since(start).Round(time.Millisecond))
		})
	}
}

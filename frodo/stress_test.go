package frodo_test

import (
	"bytes"
	"crypto/rand"
	"flag"
	mrand "math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/pqkem/pqkem/frodo"
)

// The stress test of the assurance issue asks, per parameter set, for
// 5,000 honest round trips, 2,000 random tamperings and 1,000 random
// ciphertexts, as ML-KEM's does (mlkem/stress_test.go). FrodoKEM is one
// to two orders of magnitude slower than ML-KEM, and there are twelve
// sets, so the default run takes a fraction of those counts, scaled by the
// size of the set (frodoStressScale), to stay near 10 seconds on a loaded
// two-core machine (640: a twentieth, 976: a fiftieth, 1344: a
// hundredth); -frodo-stress-full runs the full counts (several
// minutes: go test -run TestStress -timeout 1h ./frodo -frodo-stress-full),
// and -short a tenth of the default.
var frodoStressFull = flag.Bool("frodo-stress-full", false, "TestStress: run the issue's full counts (5,000 / 2,000 / 1,000 per set)")

const (
	stressRoundTrips = 5000
	stressTamperings = 2000
	stressGarbage    = 1000
)

// frodoStressScale is the divisor of the full counts in the default run.
func frodoStressScale(p *frodo.ParameterSet) int {
	switch {
	case strings.Contains(p.Name(), "-640-"):
		return 20
	case strings.Contains(p.Name(), "-976-"):
		return 50
	default:
		return 100
	}
}

func stressCount(p *frodo.ParameterSet, full int) int {
	if *frodoStressFull {
		return full
	}
	n := full / frodoStressScale(p)
	if testing.Short() {
		n /= 10
	}
	return max(n, 2)
}

// TestStress runs, for every parameter set, honest round trips (a fresh
// key every tenth), random tamperings of valid ciphertexts (1 to 8 bit
// flips anywhere, salt included: each must give the implicit-rejection key
// SHAKE(ct' || s), never the real key) and random ciphertexts (the
// rejection key too, and no error).
func TestStress(t *testing.T) {
	for _, p := range frodo.ParameterSets() {
		t.Run(p.Name(), func(t *testing.T) {
			r := mrand.New(mrand.NewPCG(uint64(p.CiphertextSize()), 0x57e55))
			var dk *frodo.DecapsulationKey
			newKey := func() { dk = mustKey(t, p, randomBytes(p.KeySeedSize())) }

			start := time.Now()
			n := stressCount(p, stressRoundTrips)
			for i := range n {
				if i%10 == 0 {
					newKey()
				}
				K, c := dk.EncapsulationKey().Encapsulate()
				got, err := dk.Decapsulate(c)
				if err != nil || !bytes.Equal(got, K) {
					t.Fatalf("round trip %d: Decapsulate = %x, %v; want %x", i, got, err, K)
				}
			}
			roundTrips := time.Since(start)

			start = time.Now()
			nt := stressCount(p, stressTamperings)
			for i := range nt {
				if i%10 == 0 {
					newKey()
				}
				K, c := dk.EncapsulationKey().Encapsulate()
				bad := bytes.Clone(c)
				for range 1 + r.IntN(8) {
					bit := r.IntN(8 * len(bad))
					bad[bit/8] ^= 1 << (bit % 8)
				}
				if bytes.Equal(bad, c) {
					continue
				}
				got, err := dk.Decapsulate(bad)
				if err != nil {
					t.Fatalf("tampering %d: %v", i, err)
				}
				if bytes.Equal(got, K) {
					t.Fatalf("tampering %d: a tampered ciphertext decapsulated to the real shared key", i)
				}
				if want := rejectionKey(p, dk.Bytes(), bad); !bytes.Equal(got, want) {
					t.Fatalf("tampering %d: got %x, want the implicit-rejection key %x", i, got, want)
				}
			}
			tamperings := time.Since(start)

			start = time.Now()
			ng := stressCount(p, stressGarbage)
			garbage := make([]byte, p.CiphertextSize())
			for i := range ng {
				if i%10 == 0 {
					newKey()
				}
				rand.Read(garbage)
				got, err := dk.Decapsulate(garbage)
				if err != nil {
					t.Fatalf("garbage %d: %v", i, err)
				}
				if want := rejectionKey(p, dk.Bytes(), garbage); !bytes.Equal(got, want) {
					t.Fatalf("garbage %d: got %x, want the implicit-rejection key %x", i, got, want)
				}
			}
			t.Logf("%d round trips in %v, %d tamperings in %v, %d garbage ciphertexts in %v",
				n, roundTrips.Round(time.Millisecond), nt, tamperings.Round(time.Millisecond),
				ng, time.Since(start).Round(time.Millisecond))
		})
	}
}

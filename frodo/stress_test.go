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

var stress = flag.Bool("frodo.stress", false, "run TestStress with its full counts and TestCIRCL with 1,000 seeds (minutes)")

// The stress test: per parameter set, 5,000 honest round trips, 2,000
// random tamperings and 1,000 random ciphertexts, as ML-KEM's
// (mlkem/stress_test.go). Those full counts run with -frodo.stress (about
// 430 CPU seconds for all twelve sets with the AVX2 and AES-NI kernels; the
// generic Go code of the purego build, several times slower, runs a tenth
// of them, stressPathDivisor, set by build tag). By default each set runs a
// hundredth of the counts, and -short a hundredth for the 640 sets and a
// thousandth for the larger ones (at least 2 each). The log line of each set
// gives the counts it ran.
const (
	stressRoundTrips = 5000
	stressTamperings = 2000
	stressGarbage    = 1000
)

// stressCount is the number of iterations of a stage with full count full.
func stressCount(p *frodo.ParameterSet, full int) int {
	switch {
	case *stress:
		return full / stressPathDivisor
	case testing.Short() && !strings.Contains(p.Name(), "-640-"):
		return max(full/1000, 2)
	}
	return max(full/100, 2)
}

// TestStress runs, for every parameter set, honest round trips (a fresh
// key every tenth), random tamperings of valid ciphertexts (1 to 8 bit
// flips anywhere, salt included: each must give the implicit-rejection key
// SHAKE(ct' || s), never the real key) and random ciphertexts (the
// rejection key too, and no error).
func TestStress(t *testing.T) {
	for _, p := range frodo.ParameterSets() {
		t.Run(p.Name(), func(t *testing.T) {
			t.Parallel()
			r := mrand.New(mrand.NewPCG(uint64(p.CiphertextSize()), 0x57e55))
			var dk *frodo.DecapsulationKey
			newKey := func() { dk = mustKey(t, p, randomBytes(p.SeedSize())) }

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
				if want := rejectionKey(p, dk.ExpandedBytes(), bad); !bytes.Equal(got, want) {
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
				if want := rejectionKey(p, dk.ExpandedBytes(), garbage); !bytes.Equal(got, want) {
					t.Fatalf("garbage %d: got %x, want the implicit-rejection key %x", i, got, want)
				}
			}
			t.Logf("%d round trips in %v, %d tamperings in %v, %d garbage ciphertexts in %v",
				n, roundTrips.Round(time.Millisecond), nt, tamperings.Round(time.Millisecond),
				ng, time.Since(start).Round(time.Millisecond))
		})
	}
}

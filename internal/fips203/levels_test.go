package fips203

import (
	"bytes"
	"crypto/sha3"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
	"github.com/pqkem/pqkem/internal/cpuid/cpuidtest"
	"github.com/pqkem/pqkem/internal/vectors"
)

// cpuLevels are the levels this package tells apart: avx512 (the
// rejection sampling with VPCOMPRESSW, where the CPU has VBMI2), avx2 and
// generic (internal/keccak's tests run its AVX-512 permutation, which the
// avx2 subtest uses too where the CPU has it). Its tests run each path
// with cpuLevels.ForEach, or force one with cpuLevels.Force.
var cpuLevels = cpuidtest.Levels{Top: cpuid.LevelAVX512, Var: &level}

// TestAccumulatedLevels runs the accumulated test of
// internal/vectors/testdata/mlkem/accumulated.json (the CCTV procedure, 100
// iterations) on every level this machine runs, so that one go test checks
// the assembly and the generic code against the vectors (mlkem's
// TestAccumulated runs the default level to 10,000 iterations).
func TestAccumulatedLevels(t *testing.T) {
	var want struct {
		Digests []struct {
			ParameterSet, Procedure, Spec, Digest string
			Iterations                            int
		} `json:"digests"`
	}
	vectors.ReadJSONLax(t, "mlkem/accumulated.json", &want)
	const n = 100
	cpuLevels.ForEach(t, func(t *testing.T) {
		for _, p := range []*Params{MLKEM512, MLKEM768, MLKEM1024} {
			var digest string
			for _, d := range want.Digests {
				if d.ParameterSet == p.name && d.Iterations == n && d.Procedure == "cctv" && d.Spec == "FIPS203" {
					digest = strings.ToLower(d.Digest)
				}
			}
			if digest == "" {
				t.Fatalf("%s: no %d-iteration cctv digest", p.name, n)
			}
			if got := accumulate(t, p, n); got != digest {
				t.Errorf("%s at %v: digest %s, want %s", p.name, level, got, digest)
			}
		}
	})
}

// accumulate runs n iterations of the CCTV accumulated procedure (see
// accumulated.json) and returns the hex digest.
func accumulate(t *testing.T, p *Params, n int) string {
	rng, acc := sha3.NewSHAKE128(), sha3.NewSHAKE128()
	var d, z, m [32]byte
	ct := make([]byte, p.CiphertextSize())
	for i := range n {
		rng.Read(d[:])
		rng.Read(z[:])
		rng.Read(m[:])
		rng.Read(ct)
		var dk DecapsulationKey
		KeyGenInternal(&dk, p, &d, &z)
		var ek EncapsulationKey
		if err := NewEncapsulationKey(&ek, p, dk.EncapsulationKey().Bytes(nil)); err != nil {
			t.Fatal(err)
		}
		var K, K2, Kr [SharedKeySize]byte
		c := ek.EncapsulateInternal(&K, nil, &m)
		if err := dk.Decapsulate(&K2, c); err != nil || K2 != K {
			t.Fatalf("iteration %d: Decapsulate(Encapsulate) = %x, %v; want %x", i, K2, err, K)
		}
		if err := dk.Decapsulate(&Kr, ct); err != nil {
			t.Fatal(err)
		}
		for _, b := range [][]byte{ek.Bytes(nil), dk.ExpandedBytes(nil), c, K[:], Kr[:]} {
			acc.Write(b)
		}
	}
	out := make([]byte, 32)
	acc.Read(out)
	return hex.EncodeToString(out)
}

// TestLevelsAgree runs KeyGen, Encaps, Decaps (and the implicit rejection
// of a tampered ciphertext) at every level from the same seeds, and checks
// that every level gives the bytes of the highest one.
func TestLevelsAgree(t *testing.T) {
	var first []byte
	cpuLevels.ForEach(t, func(t *testing.T) {
		var transcript []byte
		for _, p := range []*Params{MLKEM512, MLKEM768, MLKEM1024} {
			for i := range 20 {
				var d, z, m [32]byte
				d[0], z[0], m[0] = byte(i), byte(i+1), byte(i+2)
				var dk DecapsulationKey
				KeyGenInternal(&dk, p, &d, &z)
				var K, K2 [SharedKeySize]byte
				c := dk.EncapsulationKey().EncapsulateInternal(&K, nil, &m)
				c[i] ^= 1
				if err := dk.Decapsulate(&K2, c); err != nil {
					t.Fatal(err)
				}
				transcript = dk.ExpandedBytes(transcript)
				transcript = append(append(append(transcript, c...), K[:]...), K2[:]...)
			}
		}
		if first == nil {
			first = transcript
		} else if !bytes.Equal(transcript, first) {
			t.Errorf("level %v differs from the highest level", level)
		}
	})
}

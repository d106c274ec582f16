// Package kemtest provides derandomized encapsulation and key generation
// for known-answer tests of any scheme of this module in package kem, as
// crypto/mlkem/mlkemtest does for ML-KEM.
//
// Never use it outside tests: reused or predictable randomness breaks the
// security of the shared key, and a single-use key ([kem.SingleUse]) made
// twice from the same randomness serves two exchanges with one secret.
package kemtest

import (
	"errors"
	"fmt"

	"github.com/pqkem/pqkem/internal/derand"
	"github.com/pqkem/pqkem/kem"
)

// Encapsulate encapsulates to ek with random as the encapsulation's
// randomness, which must be [kem.Scheme.EncapsulationSeedSize] bytes long
// (for ML-KEM, the 32-byte m of FIPS 203 ML-KEM.Encaps_internal; for the
// hybrids, what package hybrid/hybridtest takes; for FrodoKEM, what
// package frodo/frodotest takes; for the CCS 2016 Frodo key exchange, the
// 96 bytes of Bob's sampler keys, as frodotest.CCS2016Bob takes them). It
// returns an error if the length is
// wrong, or if the key belongs to a scheme registered from outside this
// module, which has no derandomized encapsulation.
func Encapsulate(ek kem.EncapsulationKey, random []byte) (sharedKey, ciphertext []byte, err error) {
	s := ek.Scheme()
	if want := s.EncapsulationSeedSize(); len(random) != want {
		return nil, nil, fmt.Errorf("kemtest: invalid %s encapsulation randomness length %d, want %d", s.Name(), len(random), want)
	}
	f, err := derand.Lookup[func(kem.EncapsulationKey, []byte) ([]byte, []byte, error)]("kem.Encapsulate")
	if err != nil {
		return nil, nil, fmt.Errorf("kemtest: %w", err)
	}
	sharedKey, ciphertext, err = f(ek, random)
	if errors.Is(err, errors.ErrUnsupported) {
		return nil, nil, fmt.Errorf("kemtest: %s does not support derandomized encapsulation", s.Name())
	}
	return sharedKey, ciphertext, err
}

// KeySeedSize is the size of the randomness [GenerateKey] takes for s:
// [kem.Scheme.DecapsulationKeySize] for a scheme that is not single-use
// ([kem.SingleUse]); for the CCS 2016 Frodo key exchange, 80 (seedA, then
// the sampler keys of S and E, as frodotest.CCS2016Alice0 takes them); and
// 0 for a single-use scheme registered from outside this module, which
// has no derandomized key generation.
func KeySeedSize(s kem.Scheme) int {
	if !kem.SingleUse(s) {
		return s.DecapsulationKeySize()
	}
	f, err := derand.Lookup[func(kem.Scheme) int]("kem.KeySeedSize")
	if err != nil {
		return 0
	}
	return f(s)
}

// GenerateKey makes a decapsulation key of s with random, [KeySeedSize]
// bytes, as its key generation's randomness. For a scheme that is not
// single-use it is [kem.Scheme.NewDecapsulationKey] of that seed. For the
// CCS 2016 Frodo key exchange, whose NewDecapsulationKey refuses every
// input ([kem.ErrSingleUse]), it is Alice0 with random as the authors'
// code draws it, and the key is single-use like one from GenerateKey. It
// returns an error if the length is wrong, or if s is a single-use scheme
// registered from outside this module.
func GenerateKey(s kem.Scheme, random []byte) (kem.DecapsulationKey, error) {
	if !kem.SingleUse(s) {
		if want := s.DecapsulationKeySize(); len(random) != want {
			return nil, fmt.Errorf("kemtest: invalid %s key generation randomness length %d, want %d", s.Name(), len(random), want)
		}
		return s.NewDecapsulationKey(random)
	}
	want := KeySeedSize(s)
	if want == 0 {
		return nil, fmt.Errorf("kemtest: %s does not support derandomized key generation", s.Name())
	}
	if len(random) != want {
		return nil, fmt.Errorf("kemtest: invalid %s key generation randomness length %d, want %d", s.Name(), len(random), want)
	}
	f, err := derand.Lookup[func(kem.Scheme, []byte) (kem.DecapsulationKey, error)]("kem.GenerateKey")
	if err != nil {
		return nil, fmt.Errorf("kemtest: %w", err)
	}
	dk, err := f(s, random)
	if errors.Is(err, errors.ErrUnsupported) {
		return nil, fmt.Errorf("kemtest: %s does not support derandomized key generation", s.Name())
	}
	return dk, err
}

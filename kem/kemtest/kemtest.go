// Package kemtest provides derandomized encapsulation for known-answer
// tests of any scheme of this module in package kem, as
// crypto/mlkem/mlkemtest does for ML-KEM.
//
// Never use it outside tests: reused or predictable encapsulation
// randomness breaks the security of the shared key.
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
// 96 bytes of Bob's sampler keys, as frodotest.CCS2016Bob takes them). It returns an error if the length is
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

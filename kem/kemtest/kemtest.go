// Package kemtest provides derandomized encapsulation for known-answer
// tests of any scheme in package kem, as crypto/mlkem/mlkemtest does for
// ML-KEM.
//
// Never use it outside tests: reused or predictable encapsulation
// randomness breaks the security of the shared key.
package kemtest

import (
	"fmt"

	"github.com/pqkem/pqkem/kem"
)

// Encapsulate encapsulates to ek with random as the encapsulation's
// randomness, which must be ek.Scheme().EncapsulationSeedSize() bytes long
// (for ML-KEM, the 32-byte m of FIPS 203 ML-KEM.Encaps_internal). It
// returns an error if the length is wrong, or if the scheme does not
// support derandomized encapsulation (its keys do not implement
// [kem.DeterministicEncapsulator]).
func Encapsulate(ek kem.EncapsulationKey, random []byte) (sharedKey, ciphertext []byte, err error) {
	s := ek.Scheme()
	d, ok := ek.(kem.DeterministicEncapsulator)
	if !ok {
		return nil, nil, fmt.Errorf("kemtest: %s does not support derandomized encapsulation", s.Name())
	}
	if want := s.EncapsulationSeedSize(); len(random) != want {
		return nil, nil, fmt.Errorf("kemtest: invalid %s encapsulation randomness length %d, want %d", s.Name(), len(random), want)
	}
	return d.EncapsulateDeterministic(random)
}

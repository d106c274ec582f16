// Package frodotest provides derandomized FrodoKEM encapsulation, and
// derandomized Alice0 and Bob of the CCS 2016 key exchange, for
// known-answer tests, as crypto/mlkem/mlkemtest does for ML-KEM.
//
// Never use it outside tests: reused or predictable randomness breaks the
// security of the shared key, and a CCS 2016 state made twice from the
// same randomness serves two exchanges with one secret.
package frodotest

import (
	"fmt"

	"github.com/pqkem/pqkem/frodo"
	"github.com/pqkem/pqkem/internal/derand"
)

// Encapsulate encapsulates to ek with random as the encapsulation's
// randomness: exactly what the reference encapsulation reads from
// randombytes, mu for eFrodoKEM and mu || salt for FrodoKEM
// ([frodo.ParameterSet.EncapsulationSeedSize] bytes).
func Encapsulate(ek *frodo.EncapsulationKey, random []byte) (sharedKey, ciphertext []byte, err error) {
	p := ek.ParameterSet()
	if len(random) != p.EncapsulationSeedSize() {
		return nil, nil, fmt.Errorf("frodotest: invalid %s encapsulation randomness length %d, want %d",
			p.Name(), len(random), p.EncapsulationSeedSize())
	}
	f, err := derand.Lookup[func(*frodo.EncapsulationKey, []byte) ([]byte, []byte)]("frodo.Encapsulate")
	if err != nil {
		return nil, nil, fmt.Errorf("frodotest: %w", err)
	}
	sharedKey, ciphertext = f(ek, random)
	return sharedKey, ciphertext, nil
}

// Package frodotest provides derandomized FrodoKEM encapsulation for
// known-answer tests, as crypto/mlkem/mlkemtest does for ML-KEM.
//
// Never use it outside tests: reused or predictable encapsulation
// randomness breaks the security of the shared key.
package frodotest

import (
	"github.com/pqkem/pqkem/frodo"
	"github.com/pqkem/pqkem/frodo/internal/derand"
)

// Encapsulate encapsulates to ek with random as the encapsulation's
// randomness: exactly what the reference encapsulation reads from
// randombytes, mu for eFrodoKEM and mu || salt for FrodoKEM
// (ek.ParameterSet().EncapsulationSeedSize() bytes).
func Encapsulate(ek *frodo.EncapsulationKey, random []byte) (sharedKey, ciphertext []byte, err error) {
	return derand.Encapsulate(ek, random)
}

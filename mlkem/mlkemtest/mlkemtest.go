// Package mlkemtest provides testing functions for the ML-KEM algorithm: the
// derandomized encapsulation ML-KEM.Encaps_internal, as the standard
// library's crypto/mlkem/mlkemtest does, plus ML-KEM-512.
//
// These functions make encapsulation deterministic. Never use them outside
// of tests and known-answer checks: a reused or predictable m breaks the
// security of the shared key.
package mlkemtest

import (
	"fmt"

	"github.com/pqkem/pqkem/internal/derand"
	"github.com/pqkem/pqkem/internal/fips203"
	"github.com/pqkem/pqkem/mlkem"
)

// Encapsulate512 implements derandomized ML-KEM-512 encapsulation (FIPS 203,
// Algorithm 17, ML-KEM.Encaps_internal) with random as the 32-byte m.
func Encapsulate512(ek *mlkem.EncapsulationKey512, random []byte) (sharedKey, ciphertext []byte, err error) {
	return encapsulate("mlkem.Encapsulate512", ek, random)
}

// Encapsulate768 implements derandomized ML-KEM-768 encapsulation (FIPS 203,
// Algorithm 17, ML-KEM.Encaps_internal) with random as the 32-byte m.
func Encapsulate768(ek *mlkem.EncapsulationKey768, random []byte) (sharedKey, ciphertext []byte, err error) {
	return encapsulate("mlkem.Encapsulate768", ek, random)
}

// Encapsulate1024 implements derandomized ML-KEM-1024 encapsulation
// (FIPS 203, Algorithm 17, ML-KEM.Encaps_internal) with random as the
// 32-byte m.
func Encapsulate1024(ek *mlkem.EncapsulationKey1024, random []byte) (sharedKey, ciphertext []byte, err error) {
	return encapsulate("mlkem.Encapsulate1024", ek, random)
}

// encapsulate calls package mlkem's hook name, registered for its key type
// EK, with random as m.
func encapsulate[EK any](name string, ek EK, random []byte) (sharedKey, ciphertext []byte, err error) {
	if len(random) != fips203.MessageSize {
		return nil, nil, fmt.Errorf("mlkemtest: invalid randomness length %d, want %d", len(random), fips203.MessageSize)
	}
	f, err := derand.Lookup[func(EK, *[fips203.MessageSize]byte) ([]byte, []byte)](name)
	if err != nil {
		return nil, nil, fmt.Errorf("mlkemtest: %w", err)
	}
	sharedKey, ciphertext = f(ek, (*[fips203.MessageSize]byte)(random))
	return sharedKey, ciphertext, nil
}

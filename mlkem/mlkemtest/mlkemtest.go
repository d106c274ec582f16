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

	"github.com/pqkem/pqkem/internal/fips203"
	"github.com/pqkem/pqkem/mlkem"
)

// Encapsulate512 implements derandomized ML-KEM-512 encapsulation (FIPS 203,
// Algorithm 17, ML-KEM.Encaps_internal) with random as the 32-byte m.
func Encapsulate512(ek *mlkem.EncapsulationKey512, random []byte) (sharedKey, ciphertext []byte, err error) {
	return encapsulate(fips203.MLKEM512, ek.Bytes(), random)
}

// Encapsulate768 implements derandomized ML-KEM-768 encapsulation (FIPS 203,
// Algorithm 17, ML-KEM.Encaps_internal) with random as the 32-byte m.
func Encapsulate768(ek *mlkem.EncapsulationKey768, random []byte) (sharedKey, ciphertext []byte, err error) {
	return encapsulate(fips203.MLKEM768, ek.Bytes(), random)
}

// Encapsulate1024 implements derandomized ML-KEM-1024 encapsulation
// (FIPS 203, Algorithm 17, ML-KEM.Encaps_internal) with random as the
// 32-byte m.
func Encapsulate1024(ek *mlkem.EncapsulationKey1024, random []byte) (sharedKey, ciphertext []byte, err error) {
	return encapsulate(fips203.MLKEM1024, ek.Bytes(), random)
}

func encapsulate(p *fips203.Params, ekBytes, random []byte) (sharedKey, ciphertext []byte, err error) {
	if len(random) != fips203.MessageSize {
		return nil, nil, fmt.Errorf("mlkemtest: invalid randomness length %d, want %d", len(random), fips203.MessageSize)
	}
	// The public key types keep their parsed form private, so parse the
	// encoding again, as the standard library's mlkemtest does.
	var ek fips203.EncapsulationKey
	if err := fips203.NewEncapsulationKey(&ek, p, ekBytes); err != nil {
		return nil, nil, err
	}
	var K [fips203.SharedKeySize]byte
	c := ek.EncapsulateInternal(&K, make([]byte, 0, p.CiphertextSize()), (*[32]byte)(random))
	return K[:], c, nil
}

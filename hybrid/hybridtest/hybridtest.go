// Package hybridtest provides derandomized encapsulation for known-answer
// tests of the KEMs of package [github.com/pqkem/pqkem/hybrid], as
// crypto/mlkem/mlkemtest does for ML-KEM.
//
// Never use it outside tests: reused or predictable encapsulation
// randomness breaks the security of the shared key.
package hybridtest

import (
	"fmt"

	"github.com/pqkem/pqkem/hybrid"
	"github.com/pqkem/pqkem/internal/derand"
)

// Encapsulate encapsulates to ek with random as the encapsulation's
// randomness, of [hybrid.KEM.EncapsulationSeedSize] bytes: FIPS 203's
// 32-byte m, then the randomness of the ephemeral elliptic-curve key (32
// bytes for X25519, 48 for P-384, and for P-256 three 32-byte candidate
// scalars, of which the first valid one is used), as in
// draft-ietf-hpke-pq's test vectors.
func Encapsulate(ek *hybrid.EncapsulationKey, random []byte) (sharedKey, ciphertext []byte, err error) {
	k := ek.KEM()
	if len(random) != k.EncapsulationSeedSize() {
		return nil, nil, fmt.Errorf("hybridtest: invalid %s encapsulation randomness length %d, want %d",
			k.Name(), len(random), k.EncapsulationSeedSize())
	}
	f, err := derand.Lookup[func(*hybrid.EncapsulationKey, []byte) ([]byte, []byte, error)]("hybrid.Encapsulate")
	if err != nil {
		return nil, nil, fmt.Errorf("hybridtest: %w", err)
	}
	return f(ek, random)
}

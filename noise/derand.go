package noise

import (
	"crypto/ecdh"

	"github.com/pqkem/pqkem/internal/derand"
	"github.com/pqkem/pqkem/kem"
)

// Deterministic handshakes, for known-answer tests, are package
// noisetest's: it reaches newHandshakeStateDerand through internal/derand,
// so that no HandshakeState of this package's API takes its randomness
// from anywhere but the KEM's own source.
func init() {
	derand.Register("noise.NewHandshakeState", newHandshakeStateDerand)
}

// newHandshakeStateDerand is NewHandshakeState with the ephemeral key
// generation (KEM and X25519) and the encapsulations replaced by the given functions.
func newHandshakeStateDerand(cfg *HandshakeConfig,
	generateKey func(kem.Scheme) (kem.DecapsulationKey, error),
	encapsulate func(kem.EncapsulationKey) (sharedKey, ciphertext []byte, err error),
	generateDH func() (*ecdh.PrivateKey, error)) (*HandshakeState, error) {
	hs, err := NewHandshakeState(cfg)
	if err != nil {
		return nil, err
	}
	hs.generateKey, hs.encapsulate, hs.generateDH = generateKey, encapsulate, generateDH
	return hs, nil
}

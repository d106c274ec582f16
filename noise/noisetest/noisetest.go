// Package noisetest runs deterministic PQNoise handshakes for
// known-answer tests: every random draw of a handshake comes from a
// reader the test supplies, as crypto/mlkem/mlkemtest does for ML-KEM.
//
// Never use it outside tests: predictable ephemeral keys or encapsulation
// randomness break every security property of the handshake.
package noisetest

import (
	"crypto/ecdh"
	"fmt"
	"io"

	"github.com/pqkem/pqkem/internal/derand"
	"github.com/pqkem/pqkem/kem"
	"github.com/pqkem/pqkem/kem/kemtest"
	"github.com/pqkem/pqkem/noise"
)

// NewHandshakeState is [noise.NewHandshakeState] with every random draw
// read from random, in token order: for each e token, in a hybrid pattern
// first the 32-byte X25519 private key, then the randomness of
// the ephemeral key ([kemtest.KeySeedSize] bytes: the seed, 64 for
// ML-KEM, d || z; for the single-use CCS 2016 Frodo key exchange, the 80
// bytes of Alice0), given to [kemtest.GenerateKey]; for each ekem or
// skem token, the encapsulation randomness
// ([kem.Scheme.EncapsulationSeedSize] bytes, 32 for ML-KEM: m), given to
// [kemtest.Encapsulate]. Nothing else is read. A short read fails the
// handshake message that needed it.
func NewHandshakeState(cfg *noise.HandshakeConfig, random io.Reader) (*noise.HandshakeState, error) {
	f, err := derand.Lookup[func(*noise.HandshakeConfig,
		func(kem.Scheme) (kem.DecapsulationKey, error),
		func(kem.EncapsulationKey) ([]byte, []byte, error),
		func() (*ecdh.PrivateKey, error)) (*noise.HandshakeState, error)]("noise.NewHandshakeState")
	if err != nil {
		return nil, fmt.Errorf("noisetest: %w", err)
	}
	generateKey := func(s kem.Scheme) (kem.DecapsulationKey, error) {
		seed := make([]byte, kemtest.KeySeedSize(s))
		if _, err := io.ReadFull(random, seed); err != nil {
			return nil, fmt.Errorf("noisetest: reading an ephemeral key seed: %w", err)
		}
		return kemtest.GenerateKey(s, seed)
	}
	encapsulate := func(ek kem.EncapsulationKey) ([]byte, []byte, error) {
		m := make([]byte, ek.Scheme().EncapsulationSeedSize())
		if _, err := io.ReadFull(random, m); err != nil {
			return nil, nil, fmt.Errorf("noisetest: reading encapsulation randomness: %w", err)
		}
		return kemtest.Encapsulate(ek, m)
	}
	generateDH := func() (*ecdh.PrivateKey, error) {
		b := make([]byte, 32)
		if _, err := io.ReadFull(random, b); err != nil {
			return nil, fmt.Errorf("noisetest: reading an ephemeral X25519 key: %w", err)
		}
		return ecdh.X25519().NewPrivateKey(b)
	}
	return f(cfg, generateKey, encapsulate, generateDH)
}

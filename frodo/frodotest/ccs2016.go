package frodotest

import (
	"fmt"

	"github.com/pqkem/pqkem/frodo"
	"github.com/pqkem/pqkem/internal/derand"
)

// CCS2016Alice0 is [frodo.KeyExchangeSet.Alice0] with random (80 bytes:
// seedA, then the sampler keys of S and E) as the randomness. Package
// frodo has no such function: with it, the same bytes would make the same
// single-use state twice.
func CCS2016Alice0(s *frodo.KeyExchangeSet, random []byte) (msg []byte, state *frodo.AliceState, err error) {
	f, err := derand.Lookup[func(*frodo.KeyExchangeSet, []byte) ([]byte, *frodo.AliceState, error)]("frodo.CCS2016Alice0")
	if err != nil {
		return nil, nil, fmt.Errorf("frodotest: %w", err)
	}
	return f(s, random)
}

// CCS2016Bob is [frodo.KeyExchangeSet.Bob] with random (96 bytes: the
// sampler keys of S', E' and E”) as the randomness.
func CCS2016Bob(s *frodo.KeyExchangeSet, aliceMsg, random []byte) (msg, key []byte, err error) {
	f, err := derand.Lookup[func(*frodo.KeyExchangeSet, []byte, []byte) ([]byte, []byte, error)]("frodo.CCS2016Bob")
	if err != nil {
		return nil, nil, fmt.Errorf("frodotest: %w", err)
	}
	return f(s, aliceMsg, random)
}

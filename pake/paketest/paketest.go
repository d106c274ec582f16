// Package paketest provides the derandomized steps of the PAKEs of package
// pake, for known-answer tests: [Start] and [Respond] take the randomness
// that [pake.Scheme.Start] and [pake.Scheme.Respond] draw, in the order
// the vectors of the Tempo artifact list it (d, z, nonce, then m).
//
// These functions make the protocol deterministic. Never use them outside
// of tests and known-answer checks: a reused or predictable nonce, key
// seed or m gives the password away to an eavesdropper.
package paketest

import (
	"fmt"

	"github.com/pqkem/pqkem/internal/derand"
	"github.com/pqkem/pqkem/pake"
)

var (
	start, errStart     = derand.Lookup[func(*pake.Scheme, []byte, []byte, *[64]byte, *[32]byte) (*pake.Initiator, []byte, error)]("pake.Start")
	respond, errRespond = derand.Lookup[func(*pake.Scheme, []byte, []byte, []byte, *[32]byte) (*pake.Responder, []byte, error)]("pake.Respond")
)

// Start is s.Start(pw, sid) with fixed randomness: d and z, the 32-byte
// seeds of the initiator's ML-KEM key generation (FIPS 203,
// ML-KEM.KeyGen_internal), and the 32-byte nonce.
func Start(s *pake.Scheme, pw, sid, d, z, nonce []byte) (*pake.Initiator, []byte, error) {
	if errStart != nil {
		return nil, nil, fmt.Errorf("paketest: %w", errStart)
	}
	if err := checkLen("d", d); err != nil {
		return nil, nil, err
	}
	if err := checkLen("z", z); err != nil {
		return nil, nil, err
	}
	if err := checkLen("nonce", nonce); err != nil {
		return nil, nil, err
	}
	var seed [64]byte
	copy(seed[:], d)
	copy(seed[32:], z)
	return start(s, pw, sid, &seed, (*[32]byte)(nonce))
}

// Respond is s.Respond(pw, sid, msg1) with fixed randomness: m, the
// 32-byte randomness of the ML-KEM encapsulation (FIPS 203,
// ML-KEM.Encaps_internal).
func Respond(s *pake.Scheme, pw, sid, msg1, m []byte) (*pake.Responder, []byte, error) {
	if errRespond != nil {
		return nil, nil, fmt.Errorf("paketest: %w", errRespond)
	}
	if err := checkLen("m", m); err != nil {
		return nil, nil, err
	}
	return respond(s, pw, sid, msg1, (*[32]byte)(m))
}

func checkLen(name string, b []byte) error {
	if len(b) != 32 {
		return fmt.Errorf("paketest: invalid %s length %d, want 32", name, len(b))
	}
	return nil
}

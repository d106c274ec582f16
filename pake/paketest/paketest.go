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
	"errors"
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

var (
	a0, errA0     = derand.Lookup[pake.Sampler]("pake.A0VariableTime")
	find, errFind = derand.Lookup[func(pake.Protocol, int, pake.Sampler) (*pake.Scheme, error)]("pake.Find")
)

// A0VariableTime returns FIPS 203 SampleNTT (Algorithm 7) as a PAKE
// sampler, the paper's A0. Its running time depends on its seed, which
// depends on the password: an attacker who times a party can test
// password guesses offline. It is UNSAFE for real passwords and is here
// for comparisons and benchmarks only; package pake refuses it.
func A0VariableTime() pake.Sampler { return a0 }

// NewNoIC is [pake.NewNoIC] that also takes [A0VariableTime]: with it,
// the KEM is FIPS 203 ML-KEM, and the scheme leaks the password through
// timing.
func NewNoIC(level int, smp pake.Sampler) (*pake.Scheme, error) {
	return newScheme(pake.NoIC, level, smp)
}

// NewTempo is [pake.NewTempo] that also takes [A0VariableTime] for the
// mask, which then leaks the password through timing.
func NewTempo(level int, smp pake.Sampler) (*pake.Scheme, error) {
	return newScheme(pake.Tempo, level, smp)
}

func newScheme(proto pake.Protocol, level int, smp pake.Sampler) (*pake.Scheme, error) {
	if errFind != nil || errA0 != nil {
		return nil, fmt.Errorf("paketest: %w", errors.Join(errFind, errA0))
	}
	return find(proto, level, smp)
}

package kem

import (
	"crypto"
	"fmt"

	"github.com/pqkem/pqkem/frodo"
)

// The twelve FrodoKEM parameter sets go through one adapter around
// *frodo.ParameterSet, registered by registerFrodo.
//
// The decapsulation key is the seed s || seedSE || z, or the
// specification's sk (s || pk || S^T || pkh), which NewDecapsulationKey
// tells apart by their lengths; the encapsulation seed is mu (eFrodoKEM) or
// mu || salt (FrodoKEM). The seeds are exactly what the reference
// implementation reads from randombytes, so that the NIST KAT DRBG drives
// known-answer tests through this interface.
func registerFrodo() {
	for _, p := range frodo.ParameterSets() {
		Register(&frodoScheme{p})
	}
}

type frodoScheme struct{ p *frodo.ParameterSet }

func (s *frodoScheme) Name() string { return s.p.Name() }

// Specification names the document, and for eFrodoKEM the limit on its
// use: one key for fewer than 2^8 ciphertexts.
func (s *frodoScheme) Specification() string {
	if s.p.Ephemeral() {
		return "draft-longa-cfrg-frodokem, ephemeral: < 2^8 ciphertexts per key"
	}
	return "draft-longa-cfrg-frodokem"
}

func (s *frodoScheme) EncapsulationKeySize() int  { return s.p.EncapsulationKeySize() }
func (s *frodoScheme) DecapsulationKeySize() int  { return s.p.SeedSize() }
func (s *frodoScheme) CiphertextSize() int        { return s.p.CiphertextSize() }
func (s *frodoScheme) SharedKeySize() int         { return s.p.SharedKeySize() }
func (s *frodoScheme) EncapsulationSeedSize() int { return s.p.EncapsulationSeedSize() }

func (s *frodoScheme) GenerateKey() (DecapsulationKey, error) {
	return s.wrap(s.p.GenerateKey())
}

// NewDecapsulationKey takes either the seed or the specification's sk,
// telling them apart by their length.
func (s *frodoScheme) NewDecapsulationKey(b []byte) (DecapsulationKey, error) {
	switch len(b) {
	case s.p.SeedSize():
		return s.wrap(s.p.NewDecapsulationKey(b))
	case s.p.DecapsulationKeyExpandedSize():
		return s.wrap(s.p.NewDecapsulationKeyExpanded(b))
	}
	return nil, fmt.Errorf("kem: invalid %s decapsulation key length %d, want %d (seed) or %d (expanded)",
		s.Name(), len(b), s.p.SeedSize(), s.p.DecapsulationKeyExpandedSize())
}

func (s *frodoScheme) NewEncapsulationKey(b []byte) (EncapsulationKey, error) {
	ek, err := s.p.NewEncapsulationKey(b)
	if err != nil {
		return nil, err
	}
	return &frodoEncapsulationKey{s, ek}, nil
}

func (s *frodoScheme) wrap(dk *frodo.DecapsulationKey, err error) (DecapsulationKey, error) {
	if err != nil {
		return nil, err
	}
	return &frodoDecapsulationKey{s, dk}, nil
}

type frodoDecapsulationKey struct {
	s  *frodoScheme
	dk *frodo.DecapsulationKey
}

func (k *frodoDecapsulationKey) Scheme() Scheme { return k.s }

// Bytes returns the seed. A key parsed from the specification's sk has no
// seed; for it, Bytes returns the sk, which NewDecapsulationKey also
// accepts.
func (k *frodoDecapsulationKey) Bytes() []byte {
	if b := k.dk.Bytes(); b != nil {
		return b
	}
	return k.dk.ExpandedBytes()
}

func (k *frodoDecapsulationKey) Decapsulate(ciphertext []byte) ([]byte, error) {
	return k.dk.Decapsulate(ciphertext)
}

// Precompute keeps the key's matrix A ([Precomputer]).
func (k *frodoDecapsulationKey) Precompute() { k.dk.Precompute() }

func (k *frodoDecapsulationKey) EncapsulationKey() EncapsulationKey {
	return &frodoEncapsulationKey{k.s, k.dk.EncapsulationKey()}
}

func (k *frodoDecapsulationKey) Encapsulator() crypto.Encapsulator { return k.EncapsulationKey() }

type frodoEncapsulationKey struct {
	s  *frodoScheme
	ek *frodo.EncapsulationKey
}

func (k *frodoEncapsulationKey) Scheme() Scheme { return k.s }
func (k *frodoEncapsulationKey) Bytes() []byte  { return k.ek.Bytes() }

// AppendBinary appends the key's encoding to b ([encoding.BinaryAppender]):
// a FrodoKEM key is 9.6 to 21.5 KB, which Bytes would copy first.
func (k *frodoEncapsulationKey) AppendBinary(b []byte) ([]byte, error) { return k.ek.AppendBinary(b) }

// Precompute keeps the key's matrix A ([Precomputer]).
func (k *frodoEncapsulationKey) Precompute() { k.ek.Precompute() }

func (k *frodoEncapsulationKey) Encapsulate() (sharedKey, ciphertext []byte) {
	return k.ek.Encapsulate()
}

package kem

import (
	"crypto"
	"fmt"

	"github.com/pqkem/pqkem/internal/mlkemlevel"
)

// The three ML-KEM levels go through one adapter around the module's table
// of levels, internal/mlkemlevel, which runs the code of package mlkem.
func registerMLKEM() {
	for _, l := range mlkemlevel.All() {
		Register(&mlkemScheme{l})
	}
}

// mlkemScheme is one ML-KEM level. Its decapsulation key is the seed d || z
// (64 bytes), or the expanded FIPS 203 encoding, and its encapsulation seed
// is m (32 bytes), as FIPS 203 ML-KEM.KeyGen_internal and
// ML-KEM.Encaps_internal take them.
type mlkemScheme struct{ l *mlkemlevel.Level }

func (s *mlkemScheme) Name() string               { return s.l.Name() }
func (s *mlkemScheme) Specification() string      { return "NIST FIPS 203" }
func (s *mlkemScheme) EncapsulationKeySize() int  { return s.l.EncapsulationKeySize() }
func (s *mlkemScheme) DecapsulationKeySize() int  { return mlkemlevel.SeedSize }
func (s *mlkemScheme) CiphertextSize() int        { return s.l.CiphertextSize() }
func (s *mlkemScheme) SharedKeySize() int         { return mlkemlevel.SharedKeySize }
func (s *mlkemScheme) EncapsulationSeedSize() int { return mlkemlevel.MessageSize }

func (s *mlkemScheme) GenerateKey() (DecapsulationKey, error) {
	return &mlkemDecapsulationKey{s, s.l.GenerateKey()}, nil
}

// NewDecapsulationKey takes either the 64-byte seed d || z or the expanded
// FIPS 203 encoding, telling them apart by their length.
func (s *mlkemScheme) NewDecapsulationKey(b []byte) (DecapsulationKey, error) {
	var dk mlkemlevel.DecapsulationKey
	var err error
	switch len(b) {
	case mlkemlevel.SeedSize:
		dk, err = s.l.NewDecapsulationKey(b)
	case s.l.DecapsulationKeyExpandedSize():
		dk, err = s.l.NewDecapsulationKeyExpanded(b)
	default:
		return nil, fmt.Errorf("kem: invalid %s decapsulation key length %d, want %d (seed) or %d (expanded)",
			s.Name(), len(b), mlkemlevel.SeedSize, s.l.DecapsulationKeyExpandedSize())
	}
	if err != nil {
		return nil, err
	}
	return &mlkemDecapsulationKey{s, dk}, nil
}

func (s *mlkemScheme) NewEncapsulationKey(b []byte) (EncapsulationKey, error) {
	ek, err := s.l.NewEncapsulationKey(b)
	if err != nil {
		return nil, err
	}
	return &mlkemEncapsulationKey{s, ek}, nil
}

type mlkemDecapsulationKey struct {
	s  *mlkemScheme
	dk mlkemlevel.DecapsulationKey
}

func (k *mlkemDecapsulationKey) Scheme() Scheme { return k.s }

// Bytes returns the 64-byte seed d || z. A key parsed from the expanded
// FIPS 203 form has no seed; for it, Bytes returns the expanded encoding,
// which NewDecapsulationKey also accepts.
func (k *mlkemDecapsulationKey) Bytes() []byte {
	if b := k.dk.Bytes(); b != nil {
		return b
	}
	return k.dk.ExpandedBytes()
}

func (k *mlkemDecapsulationKey) Decapsulate(ciphertext []byte) ([]byte, error) {
	return k.dk.Decapsulate(ciphertext)
}

func (k *mlkemDecapsulationKey) EncapsulationKey() EncapsulationKey {
	return &mlkemEncapsulationKey{k.s, k.dk.EncapsulationKey()}
}

func (k *mlkemDecapsulationKey) Encapsulator() crypto.Encapsulator {
	return k.EncapsulationKey()
}

type mlkemEncapsulationKey struct {
	s  *mlkemScheme
	ek mlkemlevel.EncapsulationKey
}

func (k *mlkemEncapsulationKey) Scheme() Scheme { return k.s }
func (k *mlkemEncapsulationKey) Bytes() []byte  { return k.ek.Bytes() }

func (k *mlkemEncapsulationKey) Encapsulate() (sharedKey, ciphertext []byte) {
	return k.ek.Encapsulate()
}

package kem

// This file adapts the hybrids of package hybrid; registerHybrids is
// called from kem.go's init, after ML-KEM's registration.

import (
	"crypto"

	"github.com/pqkem/pqkem/hybrid"
)

// X-Wing, MLKEM768-P256, MLKEM1024-P384, X25519MLKEM768, SecP256r1MLKEM768
// and SecP384r1MLKEM1024, through one adapter. The HPKE ML-KEM KEMs of
// package hybrid (hybrid.MLKEM768 ...) are not registered: their names are
// ML-KEM's.
func registerHybrids() {
	for _, k := range hybrid.All() {
		Register(&hybridScheme{k})
	}
}

// HPKEScheme is implemented by every hybrid; HPKEID's ok says whether the
// scheme has an HPKE KEM identifier (X-Wing, MLKEM768-P256, MLKEM1024-P384
// do).
type HPKEScheme interface {
	Scheme
	// HPKEID returns the HPKE KEM identifier, and false if the scheme has
	// none.
	HPKEID() (id uint16, ok bool)
}

// TLSGroupScheme is implemented by every hybrid; its ok result says
// whether the scheme is a TLS key-share group (X25519MLKEM768,
// SecP256r1MLKEM768, SecP384r1MLKEM1024 are).
type TLSGroupScheme interface {
	Scheme
	// TLSGroup returns the TLS supported-group codepoint, and false if
	// the scheme is not a TLS group.
	TLSGroup() (codepoint uint16, ok bool)
}

// hybridScheme adapts a *hybrid.KEM. The embedded KEM supplies Name,
// Specification, the sizes but DecapsulationKeySize, HPKEID and TLSGroup;
// the methods below return the interfaces of this package.
type hybridScheme struct {
	*hybrid.KEM
}

// DecapsulationKeySize is the size of the seed, which is what the keys'
// Bytes return.
func (s *hybridScheme) DecapsulationKeySize() int { return s.SeedSize() }

func (s *hybridScheme) GenerateKey() (DecapsulationKey, error) {
	return s.wrap(s.KEM.GenerateKey())
}

// NewDecapsulationKey takes the seed, the only encoding of a hybrid
// decapsulation key.
func (s *hybridScheme) NewDecapsulationKey(b []byte) (DecapsulationKey, error) {
	return s.wrap(s.KEM.NewDecapsulationKey(b))
}

func (s *hybridScheme) NewEncapsulationKey(b []byte) (EncapsulationKey, error) {
	ek, err := s.KEM.NewEncapsulationKey(b)
	if err != nil {
		return nil, err
	}
	return &hybridEncapsulationKey{s, ek}, nil
}

func (s *hybridScheme) wrap(dk *hybrid.DecapsulationKey, err error) (DecapsulationKey, error) {
	if err != nil {
		return nil, err
	}
	return &hybridDecapsulationKey{s, dk}, nil
}

type hybridDecapsulationKey struct {
	s *hybridScheme
	*hybrid.DecapsulationKey
}

func (k *hybridDecapsulationKey) Scheme() Scheme { return k.s }

func (k *hybridDecapsulationKey) EncapsulationKey() EncapsulationKey {
	return &hybridEncapsulationKey{k.s, k.DecapsulationKey.EncapsulationKey()}
}

func (k *hybridDecapsulationKey) Encapsulator() crypto.Encapsulator {
	return k.EncapsulationKey()
}

// hybridEncapsulationKey gets Bytes and Encapsulate from the embedded key.
type hybridEncapsulationKey struct {
	s *hybridScheme
	*hybrid.EncapsulationKey
}

func (k *hybridEncapsulationKey) Scheme() Scheme { return k.s }

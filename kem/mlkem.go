package kem

import (
	"crypto"
	"fmt"

	"github.com/pqkem/pqkem/mlkem"
	"github.com/pqkem/pqkem/mlkem/mlkemtest"
)

// The three ML-KEM levels go through one generic adapter, instantiated with
// each level's key types and constructors from package mlkem.
func registerMLKEM() {
	Register(newMLKEM(mlkemLevel{"ML-KEM-512", mlkem.EncapsulationKeySize512, mlkem.DecapsulationKeyExpandedSize512, mlkem.CiphertextSize512},
		mlkem.GenerateKey512, mlkem.NewDecapsulationKey512, mlkem.NewDecapsulationKeyExpanded512, mlkem.NewEncapsulationKey512, mlkemtest.Encapsulate512))
	Register(newMLKEM(mlkemLevel{"ML-KEM-768", mlkem.EncapsulationKeySize768, mlkem.DecapsulationKeyExpandedSize768, mlkem.CiphertextSize768},
		mlkem.GenerateKey768, mlkem.NewDecapsulationKey768, mlkem.NewDecapsulationKeyExpanded768, mlkem.NewEncapsulationKey768, mlkemtest.Encapsulate768))
	Register(newMLKEM(mlkemLevel{"ML-KEM-1024", mlkem.EncapsulationKeySize1024, mlkem.DecapsulationKeyExpandedSize1024, mlkem.CiphertextSize1024},
		mlkem.GenerateKey1024, mlkem.NewDecapsulationKey1024, mlkem.NewDecapsulationKeyExpanded1024, mlkem.NewEncapsulationKey1024, mlkemtest.Encapsulate1024))
}

// mlkemMessageSize is the size of FIPS 203's m, the randomness of one
// encapsulation.
const mlkemMessageSize = 32

// mlkemLevel is what tells the ML-KEM levels apart, besides their key types.
type mlkemLevel struct {
	name                         string
	ekSize, expandedSize, ctSize int
}

// mlkemEK is what the adapter needs of an mlkem.EncapsulationKeyN.
type mlkemEK interface {
	Bytes() []byte
	Encapsulate() (sharedKey, ciphertext []byte)
}

// mlkemDK is what the adapter needs of an mlkem.DecapsulationKeyN whose
// encapsulation key type is EK.
type mlkemDK[EK mlkemEK] interface {
	Bytes() []byte
	ExpandedBytes() []byte
	Decapsulate(ciphertext []byte) (sharedKey []byte, err error)
	EncapsulationKey() EK
}

// mlkemScheme is one ML-KEM level. Its key seed is d || z (64 bytes) and
// its encapsulation seed is m (32 bytes), as FIPS 203 ML-KEM.KeyGen_internal
// and ML-KEM.Encaps_internal take them.
type mlkemScheme[DK mlkemDK[EK], EK mlkemEK] struct {
	mlkemLevel
	generateKey                    func() (DK, error)
	newKeyFromSeed, newKeyExpanded func([]byte) (DK, error)
	newEncapsulationKey            func([]byte) (EK, error)
	encapsulateDeterministic       func(EK, []byte) (sharedKey, ciphertext []byte, err error)
}

func newMLKEM[DK mlkemDK[EK], EK mlkemEK](l mlkemLevel, generateKey func() (DK, error),
	newKeyFromSeed, newKeyExpanded func([]byte) (DK, error), newEncapsulationKey func([]byte) (EK, error),
	encapsulateDeterministic func(EK, []byte) ([]byte, []byte, error),
) *mlkemScheme[DK, EK] {
	return &mlkemScheme[DK, EK]{l, generateKey, newKeyFromSeed, newKeyExpanded, newEncapsulationKey, encapsulateDeterministic}
}

func (s *mlkemScheme[DK, EK]) Name() string               { return s.name }
func (s *mlkemScheme[DK, EK]) Specification() string      { return "NIST FIPS 203" }
func (s *mlkemScheme[DK, EK]) EncapsulationKeySize() int  { return s.ekSize }
func (s *mlkemScheme[DK, EK]) DecapsulationKeySize() int  { return mlkem.SeedSize }
func (s *mlkemScheme[DK, EK]) CiphertextSize() int        { return s.ctSize }
func (s *mlkemScheme[DK, EK]) SharedKeySize() int         { return mlkem.SharedKeySize }
func (s *mlkemScheme[DK, EK]) KeySeedSize() int           { return mlkem.SeedSize }
func (s *mlkemScheme[DK, EK]) EncapsulationSeedSize() int { return mlkemMessageSize }

func (s *mlkemScheme[DK, EK]) GenerateKey() (DecapsulationKey, error) {
	return s.wrap(s.generateKey())
}

func (s *mlkemScheme[DK, EK]) DeriveKey(seed []byte) (DecapsulationKey, error) {
	if len(seed) != mlkem.SeedSize {
		return nil, fmt.Errorf("kem: invalid %s key seed length %d, want %d", s.name, len(seed), mlkem.SeedSize)
	}
	return s.wrap(s.newKeyFromSeed(seed))
}

// NewDecapsulationKey takes either the 64-byte seed d || z or the expanded
// FIPS 203 encoding, telling them apart by their length.
func (s *mlkemScheme[DK, EK]) NewDecapsulationKey(b []byte) (DecapsulationKey, error) {
	switch len(b) {
	case mlkem.SeedSize:
		return s.wrap(s.newKeyFromSeed(b))
	case s.expandedSize:
		return s.wrap(s.newKeyExpanded(b))
	}
	return nil, fmt.Errorf("kem: invalid %s decapsulation key length %d, want %d (seed) or %d (expanded)",
		s.name, len(b), mlkem.SeedSize, s.expandedSize)
}

func (s *mlkemScheme[DK, EK]) NewEncapsulationKey(b []byte) (EncapsulationKey, error) {
	ek, err := s.newEncapsulationKey(b)
	if err != nil {
		return nil, err
	}
	return &mlkemEncapsulationKey[DK, EK]{s, ek}, nil
}

func (s *mlkemScheme[DK, EK]) wrap(dk DK, err error) (DecapsulationKey, error) {
	if err != nil {
		return nil, err
	}
	return &mlkemDecapsulationKey[DK, EK]{s, dk}, nil
}

type mlkemDecapsulationKey[DK mlkemDK[EK], EK mlkemEK] struct {
	s  *mlkemScheme[DK, EK]
	dk DK
}

func (k *mlkemDecapsulationKey[DK, EK]) Scheme() Scheme { return k.s }

// Bytes returns the 64-byte seed d || z. A key parsed from the expanded
// FIPS 203 form has no seed; for it, Bytes returns the expanded encoding,
// which NewDecapsulationKey also accepts.
func (k *mlkemDecapsulationKey[DK, EK]) Bytes() []byte {
	if b := k.dk.Bytes(); b != nil {
		return b
	}
	return k.dk.ExpandedBytes()
}

func (k *mlkemDecapsulationKey[DK, EK]) Decapsulate(ciphertext []byte) ([]byte, error) {
	return k.dk.Decapsulate(ciphertext)
}

func (k *mlkemDecapsulationKey[DK, EK]) EncapsulationKey() EncapsulationKey {
	return &mlkemEncapsulationKey[DK, EK]{k.s, k.dk.EncapsulationKey()}
}

func (k *mlkemDecapsulationKey[DK, EK]) Encapsulator() crypto.Encapsulator {
	return k.EncapsulationKey()
}

type mlkemEncapsulationKey[DK mlkemDK[EK], EK mlkemEK] struct {
	s  *mlkemScheme[DK, EK]
	ek EK
}

func (k *mlkemEncapsulationKey[DK, EK]) Scheme() Scheme { return k.s }
func (k *mlkemEncapsulationKey[DK, EK]) Bytes() []byte  { return k.ek.Bytes() }

func (k *mlkemEncapsulationKey[DK, EK]) Encapsulate() (sharedKey, ciphertext []byte) {
	return k.ek.Encapsulate()
}

func (k *mlkemEncapsulationKey[DK, EK]) EncapsulateDeterministic(random []byte) (sharedKey, ciphertext []byte, err error) {
	return k.s.encapsulateDeterministic(k.ek, random)
}

// Package mlkemlevel is the one table of the three ML-KEM parameter sets
// (FIPS 203, section 8) for the code that handles a key of any level
// through one type: the ML-KEM schemes of package kem, the ML-KEM part of
// the hybrids, key files, and the tests and benchmarks that run over the
// levels. Package mlkem's per-level types, the crypto/mlkem-shaped API,
// are generated from the same table (mlkem/generate.go).
//
// A [Level] names its parameter set and gives its sizes; its constructors
// return a [DecapsulationKey] or an [EncapsulationKey], one adapter,
// generic in the per-level key types of internal/fips203, so that a key
// holds the fixed-size arrays of its own rank (an ML-KEM-512 key is as
// small here as in package mlkem) and nothing is parsed twice.
//
// [EncapsulationKey.EncapsulateInternal] is FIPS 203's derandomized
// ML-KEM.Encaps_internal. The production packages that use this table
// never put it in an exported method set: they hand it to their test
// packages through internal/derand.
package mlkemlevel

import (
	"github.com/pqkem/pqkem/internal/fips203"
)

const (
	// SeedSize is the size of the seed d || z of a decapsulation key.
	SeedSize = fips203.SeedSize
	// SharedKeySize is the size of a shared key.
	SharedKeySize = fips203.SharedKeySize
	// MessageSize is the size of FIPS 203's m, the randomness of one
	// encapsulation.
	MessageSize = fips203.MessageSize
)

// Level is one ML-KEM parameter set.
type Level struct {
	name     string
	security string
	params   *fips203.Params
	ops      ops
}

var levels = [...]*Level{
	newLevel[fips203.DecapsulationKey512, fips203.EncapsulationKey512]("ML-KEM-512", "roughly AES-128 (NIST category 1)",
		fips203.MLKEM512, fips203.GenerateKey, fips203.NewDecapsulationKeyFromSeed, fips203.NewDecapsulationKeyExpanded, fips203.NewEncapsulationKey),
	newLevel[fips203.DecapsulationKey768, fips203.EncapsulationKey768]("ML-KEM-768", "roughly AES-192 (NIST category 3)",
		fips203.MLKEM768, fips203.GenerateKey, fips203.NewDecapsulationKeyFromSeed, fips203.NewDecapsulationKeyExpanded, fips203.NewEncapsulationKey),
	newLevel[fips203.DecapsulationKey1024, fips203.EncapsulationKey1024]("ML-KEM-1024", "roughly AES-256 (NIST category 5)",
		fips203.MLKEM1024, fips203.GenerateKey, fips203.NewDecapsulationKeyFromSeed, fips203.NewDecapsulationKeyExpanded, fips203.NewEncapsulationKey),
}

// All returns the three levels: ML-KEM-512, ML-KEM-768 and ML-KEM-1024.
func All() []*Level { return levels[:] }

// ByName returns the level named name ("ML-KEM-768"), or nil if there is
// none.
func ByName(name string) *Level {
	for _, l := range levels {
		if l.name == name {
			return l
		}
	}
	return nil
}

// MLKEM512 returns ML-KEM-512.
func MLKEM512() *Level { return levels[0] }

// MLKEM768 returns ML-KEM-768.
func MLKEM768() *Level { return levels[1] }

// MLKEM1024 returns ML-KEM-1024.
func MLKEM1024() *Level { return levels[2] }

// Name is the parameter set's name as FIPS 203 writes it, "ML-KEM-768".
func (l *Level) Name() string { return l.name }

// Security is the level's security category, in words.
func (l *Level) Security() string { return l.security }

// Params is the level's parameter set in internal/fips203.
func (l *Level) Params() *fips203.Params { return l.params }

// EncapsulationKeySize is the size of an encapsulation key, 384k + 32.
func (l *Level) EncapsulationKeySize() int { return l.params.EncapsulationKeySize() }

// DecapsulationKeyExpandedSize is the size of the FIPS 203 encoding of a
// decapsulation key (the expanded form), 768k + 96.
func (l *Level) DecapsulationKeyExpandedSize() int { return l.params.DecapsulationKeySize() }

// CiphertextSize is the size of a ciphertext.
func (l *Level) CiphertextSize() int { return l.params.CiphertextSize() }

// GenerateKey generates a decapsulation key from fresh randomness
// (FIPS 203, Algorithm 19).
func (l *Level) GenerateKey() DecapsulationKey { return l.ops.generateKey(l) }

// NewDecapsulationKey makes the decapsulation key of the 64-byte seed
// d || z (ML-KEM.KeyGen_internal).
func (l *Level) NewDecapsulationKey(seed []byte) (DecapsulationKey, error) {
	return l.ops.newDecapsulationKey(l, seed)
}

// NewDecapsulationKeyExpanded parses the FIPS 203 encoding of a
// decapsulation key, with the checks of FIPS 203, section 7.3. The key has
// no seed: its Bytes method returns nil.
func (l *Level) NewDecapsulationKeyExpanded(dk []byte) (DecapsulationKey, error) {
	return l.ops.newDecapsulationKeyExpanded(l, dk)
}

// NewEncapsulationKey parses an encapsulation key, with the checks of
// FIPS 203, section 7.2.
func (l *Level) NewEncapsulationKey(ek []byte) (EncapsulationKey, error) {
	return l.ops.newEncapsulationKey(l, ek)
}

// DecapsulationKey is a decapsulation key of some level.
type DecapsulationKey interface {
	// Level is the key's parameter set.
	Level() *Level
	// Bytes returns the 64-byte seed d || z, or nil for a key made by
	// NewDecapsulationKeyExpanded, which has none.
	Bytes() []byte
	// ExpandedBytes returns the FIPS 203 encoding of the key.
	ExpandedBytes() []byte
	// Decapsulate is ML-KEM.Decaps (FIPS 203, Algorithm 21).
	Decapsulate(ciphertext []byte) (sharedKey []byte, err error)
	// EncapsulationKey returns the key's encapsulation key, which shares
	// its parsed state.
	EncapsulationKey() EncapsulationKey
}

// EncapsulationKey is an encapsulation key of some level.
type EncapsulationKey interface {
	// Level is the key's parameter set.
	Level() *Level
	// Bytes returns the encoded key.
	Bytes() []byte
	// Encapsulate is ML-KEM.Encaps (FIPS 203, Algorithm 20).
	Encapsulate() (sharedKey, ciphertext []byte)
	// EncapsulateInternal is ML-KEM.Encaps_internal (FIPS 203,
	// Algorithm 17) with m as its randomness: for test packages only.
	EncapsulateInternal(m *[MessageSize]byte) (sharedKey, ciphertext []byte)
}

// Package kem is the scheme registry: every key encapsulation mechanism in
// pqkem, by name, behind one interface.
//
// A [Scheme] is looked up with [ByName] ("ML-KEM-768", as FIPS 203 writes
// it) or listed with [All]. Its keys satisfy [crypto.Encapsulator] and
// [crypto.Decapsulator] and know the scheme they belong to, so code that
// handles keys of any scheme (the command, key files, benchmarks) needs no
// switch on the algorithm.
//
// The schemes of this module are registered by package kem itself: a file
// per family (mlkem.go for ML-KEM-512, ML-KEM-768 and ML-KEM-1024,
// mlkem_hybrid.go, frodo.go, frodo_ccs2016.go for the key exchange of the
// Frodo paper, dhkem.go for the classical DHKEM(X25519))
// adapts the scheme's own package (or the standard library), which never
// imports kem, so there is no import cycle and every scheme is there
// whenever kem is linked in. Schemes from
// elsewhere (another module, a test) join with [Register], from an init
// function.
//
// Not every scheme is safe as a long-term key: [EphemeralOnly] says which
// are not (the eFrodoKEM sets, meant for fewer than 2^8 ciphertexts per
// key, and the passively secure CCS 2016 Frodo key exchange), and
// protocols such as package [github.com/pqkem/pqkem/noise] refuse them as
// static keys. The keys of a [SingleUse] scheme (the CCS 2016 key
// exchange) serve one decapsulation, come only from GenerateKey, and have
// no encoding (Bytes is nil, NewDecapsulationKey refuses every input) and
// no key files.
//
// Names: CIRCL's "FrodoKEM-640-SHAKE" (kem/frodo/frodo640shake) is NIST
// round 3 FrodoKEM, which is this registry's "eFrodoKEM-640-SHAKE"
// (9,720-byte ciphertexts); this registry's "FrodoKEM-640-SHAKE" is the
// salted FrodoKEM of the ISO proposal (9,752 bytes). Keys and ciphertexts
// of the two do not mix: a key from CIRCL goes with eFrodoKEM-640-SHAKE.
//
// Known-answer tests of any scheme of this module use derandomized
// encapsulation, and for a single-use scheme derandomized key generation,
// through package [github.com/pqkem/pqkem/kem/kemtest]; no key or scheme
// of this package has them in its method set.
package kem

import (
	"crypto"
	"fmt"
	"strings"
	"sync"
)

// Scheme is a key encapsulation mechanism at one parameter set.
type Scheme interface {
	// Name is the scheme's canonical name, as its specification writes it,
	// for example "ML-KEM-768".
	Name() string

	// EncapsulationKeySize is the size of an encoded encapsulation key,
	// as EncapsulationKey.Bytes returns it.
	EncapsulationKeySize() int
	// DecapsulationKeySize is the size of an encoded decapsulation key,
	// as DecapsulationKey.Bytes returns it for a key made by GenerateKey or
	// from a seed. For every scheme of this module it is the seed the
	// key is made from, but for a [SingleUse] scheme, whose keys have no
	// encoding, it is 0.
	DecapsulationKeySize() int
	// CiphertextSize is the size of a ciphertext.
	CiphertextSize() int
	// SharedKeySize is the size of a shared key.
	SharedKeySize() int
	// EncapsulationSeedSize is the size of the randomness that one
	// encapsulation consumes; kemtest.Encapsulate takes that many bytes.
	EncapsulationSeedSize() int

	// GenerateKey generates a new decapsulation key from a secure source
	// of randomness.
	GenerateKey() (DecapsulationKey, error)
	// NewDecapsulationKey makes a decapsulation key from its encoding,
	// with every input check the scheme's specification asks for: the
	// seed of DecapsulationKeySize bytes, from which the key is derived
	// deterministically (as crypto/mlkem's NewDecapsulationKey768 does; a
	// new seed must be uniformly random and secret), and any other
	// encoding the scheme has, told apart by its length (ML-KEM's and
	// FrodoKEM's expanded forms). It accepts whatever
	// DecapsulationKey.Bytes returns, but for a [SingleUse] scheme it
	// refuses every input, with an error wrapping [ErrSingleUse]: a key
	// made from bytes could be made twice, and its one use would be two.
	NewDecapsulationKey(b []byte) (DecapsulationKey, error)
	// NewEncapsulationKey parses an encoded encapsulation key, with every
	// input check the scheme's specification asks for.
	NewEncapsulationKey(b []byte) (EncapsulationKey, error)
}

// EncapsulationKey is a public key of some [Scheme]. Keys of the schemes
// whose keys are large (FrodoKEM's) also implement
// [encoding.BinaryAppender], which appends what Bytes returns to a buffer
// without a copy of its own.
type EncapsulationKey interface {
	crypto.Encapsulator
	// Scheme is the scheme the key belongs to.
	Scheme() Scheme
}

// DecapsulationKey is a private key of some [Scheme].
type DecapsulationKey interface {
	crypto.Decapsulator
	// Scheme is the scheme the key belongs to.
	Scheme() Scheme
	// Bytes encodes the key in a form Scheme.NewDecapsulationKey accepts:
	// the seed, or for a key parsed from another encoding that has no seed
	// (ML-KEM's or FrodoKEM's expanded form), that encoding. It is secret.
	// For a single-use scheme ([SingleUse]) Bytes returns nil: its keys
	// have no encoding, so that none can be copied.
	Bytes() []byte
	// EncapsulationKey is the public key that goes with this key.
	EncapsulationKey() EncapsulationKey
}

// Precomputer is implemented by the keys of schemes that can spend memory
// to make a key's later operations faster: FrodoKEM's keep their matrix
// A whole (800 KiB to 3.4 MiB a key; each operation up to a quarter
// faster with AES, about five times with SHAKE; see
// [frodo.EncapsulationKey.Precompute]). It is for keys that serve many
// operations, such as a server's static key: package
// [github.com/pqkem/pqkem/noise] precomputes the static keys of its
// connections' Configs. A decapsulation key and the encapsulation key
// that goes with it share what either's Precompute keeps.
type Precomputer interface {
	// Precompute makes and keeps what the key's operations would otherwise
	// compute each time. It may be called more than once, and concurrently
	// with the key's other methods; the results of the operations do not
	// change.
	Precompute()
}

// Specifier is implemented by schemes that can name the document that
// specifies them, for listings such as `pqkem list`.
type Specifier interface {
	// Specification names the document, for example "NIST FIPS 203".
	Specification() string
}

// The schemes of this module register in one init function, in the order
// kem.All promises: ML-KEM-512, ML-KEM-768 and ML-KEM-1024 first, then
// the hybrids, then FrodoKEM, then the CCS 2016 Frodo key exchange, then
// the classical DHKEM(X25519).
func init() {
	registerMLKEM()
	registerHybrids()
	registerFrodo()
	registerFrodoCCS2016()
	registerDHKEM()
}

var registry struct {
	sync.RWMutex
	schemes []Scheme
	byName  map[string]Scheme // keyed by strings.ToLower(Name())
}

// Register adds a scheme to the registry. It is meant to be called from an
// init function. It panics if s is nil, has an empty name, or has the
// name of a scheme already registered (names are compared without regard
// to case).
func Register(s Scheme) {
	if s == nil {
		panic("kem: Register of a nil Scheme")
	}
	name := s.Name()
	if name == "" {
		panic("kem: Register of a Scheme with an empty name")
	}
	key := strings.ToLower(name)
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.byName[key]; dup {
		panic("kem: Register called twice for scheme " + name)
	}
	if registry.byName == nil {
		registry.byName = make(map[string]Scheme)
	}
	registry.byName[key] = s
	registry.schemes = append(registry.schemes, s)
}

// ByName returns the registered scheme with the given name. The lookup
// ignores case; the scheme's Name method returns the canonical spelling.
// For an unknown name, the error lists the known ones.
func ByName(name string) (Scheme, error) {
	registry.RLock()
	s, ok := registry.byName[strings.ToLower(name)]
	registry.RUnlock()
	if !ok {
		return nil, fmt.Errorf("kem: unknown scheme %q, want one of %s", name, strings.Join(Names(), ", "))
	}
	return s, nil
}

// All returns every registered scheme, in the order they were registered:
// ML-KEM-512, ML-KEM-768 and ML-KEM-1024 first. The slice is a copy.
func All() []Scheme {
	registry.RLock()
	defer registry.RUnlock()
	return append([]Scheme(nil), registry.schemes...)
}

// Names returns the canonical names of every registered scheme, in the
// order of [All].
func Names() []string {
	all := All()
	names := make([]string, len(all))
	for i, s := range all {
		names[i] = s.Name()
	}
	return names
}

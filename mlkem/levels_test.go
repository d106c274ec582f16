package mlkem_test

// The one adapter through which the self-contained tests (crosscheck, api,
// fuzz and alloc) see the three ML-KEM levels, so that the test logic is
// written once and run over the table below. The per-level types of this
// package, of crypto/mlkem and of CIRCL differ only in their names; the
// generic constructors turn them into the interfaces the tests use. Each
// entry also holds the level of the module's table (internal/mlkemlevel),
// from which this package's per-level code is generated and through which
// the other packages run it; the tests check that the two agree.

import (
	"crypto"
	stdmlkem "crypto/mlkem"
	stdmlkemtest "crypto/mlkem/mlkemtest"
	"crypto/sha3"

	"github.com/cloudflare/circl/kem"
	circl1024 "github.com/cloudflare/circl/kem/mlkem/mlkem1024"
	circl512 "github.com/cloudflare/circl/kem/mlkem/mlkem512"
	circl768 "github.com/cloudflare/circl/kem/mlkem/mlkem768"

	"github.com/pqkem/pqkem/internal/mlkemlevel"
	"github.com/pqkem/pqkem/mlkem"
	"github.com/pqkem/pqkem/mlkem/mlkemtest"
)

// ourDecapsulator is what every *mlkem.DecapsulationKeyN has in common.
type ourDecapsulator interface {
	crypto.Decapsulator // Encapsulator, Decapsulate
	Bytes() []byte
	ExpandedBytes() []byte
}

// stdDecapsulator is what every *crypto/mlkem.DecapsulationKeyN has in
// common.
type stdDecapsulator interface {
	crypto.Decapsulator
	Bytes() []byte
}

// encapsulateFunc is FIPS 203 ML-KEM.Encaps_internal with m as randomness,
// as the mlkemtest packages export it.
type encapsulateFunc func(ek crypto.Encapsulator, m []byte) (sharedKey, ciphertext []byte, err error)

// kemLevel is one ML-KEM parameter set as seen by the tests: this package's
// API, CIRCL's scheme and, for 768 and 1024, crypto/mlkem.
type kemLevel struct {
	name     string
	k        int    // module rank
	du, dv   int    // ciphertext compression
	ekSize   int    // mlkem.EncapsulationKeySizeN
	dkSize   int    // mlkem.DecapsulationKeyExpandedSizeN
	ctSize   int    // mlkem.CiphertextSizeN
	expected [3]int // the FIPS 203 sizes (ek, dk, ct), written out

	generateKey      func() (ourDecapsulator, error)
	newKey           func(seed []byte) (ourDecapsulator, error)
	newKeyExpanded   func(dk []byte) (ourDecapsulator, error)
	newEK            func(ek []byte) (crypto.Encapsulator, error)
	encapsulationKey func(dk ourDecapsulator) crypto.Encapsulator // the concrete EncapsulationKey method
	encapsulate      encapsulateFunc                              // mlkemtest.EncapsulateN

	circl kem.Scheme
	std   *stdLevel         // nil for ML-KEM-512, which crypto/mlkem lacks
	level *mlkemlevel.Level // the module's table's entry of the same name
}

// stdLevel is crypto/mlkem and crypto/mlkem/mlkemtest at one level.
type stdLevel struct {
	ekSize, ctSize int // crypto/mlkem's constants
	newKey         func(seed []byte) (stdDecapsulator, error)
	newEK          func(ek []byte) (crypto.Encapsulator, error)
	encapsulate    encapsulateFunc
}

// kemLevels is the table every test here runs over.
var kemLevels = []*kemLevel{
	newKEMLevel("ML-KEM-512", 2, 10, 4,
		[3]int{mlkem.EncapsulationKeySize512, mlkem.DecapsulationKeyExpandedSize512, mlkem.CiphertextSize512},
		[3]int{800, 1632, 768},
		mlkem.GenerateKey512, mlkem.NewDecapsulationKey512, mlkem.NewDecapsulationKeyExpanded512,
		mlkem.NewEncapsulationKey512, mlkemtest.Encapsulate512,
		circl512.Scheme(), nil),
	newKEMLevel("ML-KEM-768", 3, 10, 4,
		[3]int{mlkem.EncapsulationKeySize768, mlkem.DecapsulationKeyExpandedSize768, mlkem.CiphertextSize768},
		[3]int{1184, 2400, 1088},
		mlkem.GenerateKey768, mlkem.NewDecapsulationKey768, mlkem.NewDecapsulationKeyExpanded768,
		mlkem.NewEncapsulationKey768, mlkemtest.Encapsulate768,
		circl768.Scheme(),
		newStdLevel(stdmlkem.EncapsulationKeySize768, stdmlkem.CiphertextSize768,
			stdmlkem.NewDecapsulationKey768, stdmlkem.NewEncapsulationKey768, stdmlkemtest.Encapsulate768)),
	newKEMLevel("ML-KEM-1024", 4, 11, 5,
		[3]int{mlkem.EncapsulationKeySize1024, mlkem.DecapsulationKeyExpandedSize1024, mlkem.CiphertextSize1024},
		[3]int{1568, 3168, 1568},
		mlkem.GenerateKey1024, mlkem.NewDecapsulationKey1024, mlkem.NewDecapsulationKeyExpanded1024,
		mlkem.NewEncapsulationKey1024, mlkemtest.Encapsulate1024,
		circl1024.Scheme(),
		newStdLevel(stdmlkem.EncapsulationKeySize1024, stdmlkem.CiphertextSize1024,
			stdmlkem.NewDecapsulationKey1024, stdmlkem.NewEncapsulationKey1024, stdmlkemtest.Encapsulate1024)),
}

func newKEMLevel[D interface {
	comparable
	ourDecapsulator
	EncapsulationKey() E
}, E interface {
	comparable
	crypto.Encapsulator
}](
	name string, k, du, dv int, sizes, expected [3]int,
	generateKey func() (D, error), newKey, newKeyExpanded func([]byte) (D, error),
	newEK func([]byte) (E, error), encapsulate func(E, []byte) ([]byte, []byte, error),
	circl kem.Scheme, std *stdLevel,
) *kemLevel {
	var level *mlkemlevel.Level
	for _, l := range mlkemlevel.All() {
		if l.Name() == name {
			level = l
		}
	}
	if level == nil {
		panic("kemLevels: no level " + name + " in internal/mlkemlevel")
	}
	return &kemLevel{
		name: name, k: k, du: du, dv: dv, level: level,
		ekSize: sizes[0], dkSize: sizes[1], ctSize: sizes[2],
		expected:         expected,
		generateKey:      func() (ourDecapsulator, error) { return asInterface[D, ourDecapsulator](generateKey()) },
		newKey:           adaptParse[D, ourDecapsulator](newKey),
		newKeyExpanded:   adaptParse[D, ourDecapsulator](newKeyExpanded),
		newEK:            adaptParse[E, crypto.Encapsulator](newEK),
		encapsulationKey: func(dk ourDecapsulator) crypto.Encapsulator { return dk.(D).EncapsulationKey() },
		encapsulate:      adaptEncapsulate(encapsulate),
		circl:            circl,
		std:              std,
	}
}

func newStdLevel[D interface {
	comparable
	stdDecapsulator
}, E interface {
	comparable
	crypto.Encapsulator
}](
	ekSize, ctSize int, newKey func([]byte) (D, error), newEK func([]byte) (E, error),
	encapsulate func(E, []byte) ([]byte, []byte, error),
) *stdLevel {
	return &stdLevel{
		ekSize: ekSize, ctSize: ctSize,
		newKey:      adaptParse[D, stdDecapsulator](newKey),
		newEK:       adaptParse[E, crypto.Encapsulator](newEK),
		encapsulate: adaptEncapsulate(encapsulate),
	}
}

// asInterface converts a constructor's result to the interface I. A nil
// pointer becomes a nil interface, so that tests can check that a failed
// constructor returns no key.
func asInterface[T comparable, I any](v T, err error) (I, error) {
	var zero T
	var i I
	if v != zero {
		i = any(v).(I)
	}
	return i, err
}

func adaptParse[T comparable, I any](f func([]byte) (T, error)) func([]byte) (I, error) {
	return func(b []byte) (I, error) { return asInterface[T, I](f(b)) }
}

func adaptEncapsulate[E crypto.Encapsulator](f func(E, []byte) ([]byte, []byte, error)) encapsulateFunc {
	return func(ek crypto.Encapsulator, m []byte) ([]byte, []byte, error) { return f(ek.(E), m) }
}

// Helpers on encodings, shared by the tests.

const modulusQ = 3329 // FIPS 203 q

// coefficient returns the idx-th 12-bit value of a ByteEncode12 encoding
// (idx counts across the polynomials of a vector).
func coefficient(b []byte, idx int) uint16 {
	o := 3 * (idx / 2)
	if idx%2 == 0 {
		return uint16(b[o]) | uint16(b[o+1]&0x0f)<<8
	}
	return uint16(b[o+1])>>4 | uint16(b[o+2])<<4
}

// setCoefficient sets the idx-th 12-bit value of a ByteEncode12 encoding.
func setCoefficient(b []byte, idx int, v uint16) {
	o := 3 * (idx / 2)
	if idx%2 == 0 {
		b[o] = byte(v)
		b[o+1] = b[o+1]&0xf0 | byte(v>>8)&0x0f
	} else {
		b[o+1] = b[o+1]&0x0f | byte(v<<4)
		b[o+2] = byte(v >> 4)
	}
}

// reducedEncoding reports whether every 12-bit value of the first n
// polynomials' ByteEncode12 encoding in b is below q.
func reducedEncoding(b []byte, n int) bool {
	for i := range 256 * n {
		if coefficient(b, i) >= modulusQ {
			return false
		}
	}
	return true
}

// Offsets into an expanded decapsulation key: s || ek || H(ek) || z.
func (l *kemLevel) sPart(dk []byte) []byte  { return dk[:384*l.k] }
func (l *kemLevel) ekPart(dk []byte) []byte { return dk[384*l.k : 768*l.k+32] }
func (l *kemLevel) hPart(dk []byte) []byte  { return dk[768*l.k+32 : 768*l.k+64] }
func (l *kemLevel) zPart(dk []byte) []byte  { return dk[768*l.k+64:] }

// fixH overwrites the H(ek) field of an expanded key with the hash of its
// encapsulation key.
func (l *kemLevel) fixH(dk []byte) {
	copy(l.hPart(dk), hashOf(l.ekPart(dk)))
}

// hashOf is FIPS 203 H = SHA3-256.
func hashOf(b []byte) []byte {
	h := sha3.Sum256(b)
	return h[:]
}

// rejectionKey is the FIPS 203 implicit-rejection key K̄ = J(z || c) =
// SHAKE256(z || c, 32), computed independently of the implementation.
func rejectionKey(z, c []byte) []byte {
	h := sha3.NewSHAKE256()
	h.Write(z)
	h.Write(c)
	out := make([]byte, 32)
	h.Read(out)
	return out
}

// fitLength returns b repeated or cut to n bytes (zeros if b is empty), so
// that a fuzzer's input reaches the code behind each level's length check.
func fitLength(b []byte, n int) []byte {
	out := make([]byte, n)
	if len(b) == 0 {
		return out
	}
	for i := range out {
		out[i] = b[i%len(b)]
	}
	return out
}

// fixedSeed is a deterministic key seed for tests that need one fixed key
// per level.
func (l *kemLevel) fixedSeed() []byte {
	seed := make([]byte, mlkem.SeedSize)
	h := sha3.NewSHAKE128()
	h.Write([]byte("pqkem test seed " + l.name))
	h.Read(seed)
	return seed
}

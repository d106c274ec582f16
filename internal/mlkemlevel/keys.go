package mlkemlevel

import (
	"github.com/pqkem/pqkem/internal/fips203"
	"github.com/pqkem/pqkem/internal/secret"
)

// The adapter from fips203's per-level key types to DecapsulationKey and
// EncapsulationKey, written once and instantiated in the table.

// fipsEK is what the adapter uses of a fips203 encapsulation key.
type fipsEK interface {
	Bytes(b []byte) []byte
	Encapsulate(K *[SharedKeySize]byte, c []byte) []byte
	EncapsulateInternal(K *[SharedKeySize]byte, c []byte, m *[MessageSize]byte) []byte
}

// fipsDK is what the adapter uses of a fips203 decapsulation key whose
// encapsulation key is an EK.
type fipsDK[EK any] interface {
	HasSeed() bool
	Seed(b []byte) []byte
	ExpandedBytes(b []byte) []byte
	Decapsulate(K *[SharedKeySize]byte, c []byte) error
	EncapsulationKey() *EK
}

// ops are a level's constructors.
type ops interface {
	generateKey(l *Level) DecapsulationKey
	newDecapsulationKey(l *Level, seed []byte) (DecapsulationKey, error)
	newDecapsulationKeyExpanded(l *Level, b []byte) (DecapsulationKey, error)
	newEncapsulationKey(l *Level, b []byte) (EncapsulationKey, error)
}

// levelOps are the constructors of the level whose fips203 key types are
// DK and EK: fips203's generic functions, instantiated for them.
type levelOps[DK, EK any, PDK interface {
	*DK
	fipsDK[EK]
}, PEK interface {
	*EK
	fipsEK
}] struct {
	keyGen       func(*DK, *fips203.Params)
	fromSeed     func(*DK, *fips203.Params, []byte) error
	fromExpanded func(*DK, *fips203.Params, []byte) error
	parseEK      func(*EK, *fips203.Params, []byte) error
}

func newLevel[DK, EK any, PDK interface {
	*DK
	fipsDK[EK]
}, PEK interface {
	*EK
	fipsEK
}](name, security string, p *fips203.Params,
	keyGen func(*DK, *fips203.Params),
	fromSeed, fromExpanded func(*DK, *fips203.Params, []byte) error,
	parseEK func(*EK, *fips203.Params, []byte) error,
) *Level {
	return &Level{name: name, security: security, params: p,
		ops: &levelOps[DK, EK, PDK, PEK]{keyGen, fromSeed, fromExpanded, parseEK}}
}

func (o *levelOps[DK, EK, PDK, PEK]) generateKey(l *Level) DecapsulationKey {
	dk := &decapsulationKey[DK, EK, PDK, PEK]{l: l}
	secret.Do(func() { o.keyGen(&dk.key, l.params) })
	return dk
}

func (o *levelOps[DK, EK, PDK, PEK]) newDecapsulationKey(l *Level, seed []byte) (DecapsulationKey, error) {
	dk := &decapsulationKey[DK, EK, PDK, PEK]{l: l}
	var err error
	secret.Do(func() { err = o.fromSeed(&dk.key, l.params, seed) })
	if err != nil {
		return nil, err
	}
	return dk, nil
}

func (o *levelOps[DK, EK, PDK, PEK]) newDecapsulationKeyExpanded(l *Level, b []byte) (DecapsulationKey, error) {
	dk := &decapsulationKey[DK, EK, PDK, PEK]{l: l}
	var err error
	secret.Do(func() { err = o.fromExpanded(&dk.key, l.params, b) })
	if err != nil {
		return nil, err
	}
	return dk, nil
}

func (o *levelOps[DK, EK, PDK, PEK]) newEncapsulationKey(l *Level, b []byte) (EncapsulationKey, error) {
	// One allocation holds both the wrapper and the parsed key.
	k := new(struct {
		ek  encapsulationKey[EK, PEK]
		key EK
	})
	k.ek = encapsulationKey[EK, PEK]{l: l, key: &k.key}
	if err := o.parseEK(&k.key, l.params, b); err != nil {
		return nil, err
	}
	return &k.ek, nil
}

type decapsulationKey[DK, EK any, PDK interface {
	*DK
	fipsDK[EK]
}, PEK interface {
	*EK
	fipsEK
}] struct {
	l   *Level
	key DK
}

func (dk *decapsulationKey[DK, EK, PDK, PEK]) Level() *Level { return dk.l }

func (dk *decapsulationKey[DK, EK, PDK, PEK]) Bytes() []byte {
	k := PDK(&dk.key)
	if !k.HasSeed() {
		return nil
	}
	return k.Seed(make([]byte, 0, SeedSize))
}

func (dk *decapsulationKey[DK, EK, PDK, PEK]) ExpandedBytes() []byte {
	return PDK(&dk.key).ExpandedBytes(make([]byte, 0, dk.l.DecapsulationKeyExpandedSize()))
}

func (dk *decapsulationKey[DK, EK, PDK, PEK]) Decapsulate(ciphertext []byte) ([]byte, error) {
	var K [SharedKeySize]byte
	var err error
	secret.Do(func() { err = PDK(&dk.key).Decapsulate(&K, ciphertext) })
	if err != nil {
		return nil, err
	}
	return K[:], nil
}

func (dk *decapsulationKey[DK, EK, PDK, PEK]) EncapsulationKey() EncapsulationKey {
	// Keys never change once made, so the encapsulation key shares the
	// parsed state (the matrix included) with dk.
	return &encapsulationKey[EK, PEK]{l: dk.l, key: PDK(&dk.key).EncapsulationKey()}
}

type encapsulationKey[EK any, PEK interface {
	*EK
	fipsEK
}] struct {
	l   *Level
	key *EK
}

func (ek *encapsulationKey[EK, PEK]) Level() *Level { return ek.l }

func (ek *encapsulationKey[EK, PEK]) Bytes() []byte {
	return PEK(ek.key).Bytes(make([]byte, 0, ek.l.EncapsulationKeySize()))
}

func (ek *encapsulationKey[EK, PEK]) Encapsulate() (sharedKey, ciphertext []byte) {
	var K [SharedKeySize]byte
	c := make([]byte, 0, ek.l.CiphertextSize())
	secret.Do(func() { c = PEK(ek.key).Encapsulate(&K, c) })
	return K[:], c
}

func (ek *encapsulationKey[EK, PEK]) EncapsulateInternal(m *[MessageSize]byte) (sharedKey, ciphertext []byte) {
	var K [SharedKeySize]byte
	c := PEK(ek.key).EncapsulateInternal(&K, make([]byte, 0, ek.l.CiphertextSize()), m)
	return K[:], c
}

package fips203

import (
	"crypto/rand"
	"crypto/sha3"
	"crypto/subtle"
	"errors"
	"fmt"

	"github.com/pqkem/pqkem/internal/ctcompare"
	"github.com/pqkem/pqkem/internal/keccak"
)

// The ML-KEM key-encapsulation mechanism, FIPS 203 sections 6 and 7.

// EncapsulationKeyOf is a parsed ML-KEM encapsulation key whose t̂ and Â
// live in the array set E (see storage.go). It names its parameter set by
// the module rank k, so that it holds no pointers.
type EncapsulationKeyOf[E any, PE ekArrays[E]] struct {
	k   uint8 // the parameter set is byRank[k]; 0 for the zero value
	rho [32]byte
	h   [32]byte // H(ek)
	st  E
}

// ex returns the K-PKE encryption key view of ek.
func (ek *EncapsulationKeyOf[E, PE]) ex() encryptionKey {
	k := int(ek.k)
	t, a := PE(&ek.st).arrays()
	return encryptionKey{t: t[:k], rho: &ek.rho, a: a[:k*k]}
}

// DecapsulationKeyOf is a parsed ML-KEM decapsulation key whose arrays
// live in E and D.
type DecapsulationKeyOf[E, D any, PE ekArrays[E], PD dkArrays[D]] struct {
	ek EncapsulationKeyOf[E, PE]
	st D
	z  [32]byte
	// d is the key generation seed, kept so that Seed can return d || z. A
	// key imported in the expanded form has no seed.
	d       [32]byte
	hasSeed bool
}

// dx returns the K-PKE decryption key view of dk.
func (dk *DecapsulationKeyOf[E, D, PE, PD]) dx() decryptionKey {
	k := int(dk.ek.k)
	s, c := PD(&dk.st).arrays()
	return decryptionKey{s: s[:k], sCache: c[:k]}
}

// setRank sets the rank of ek to that of p, and panics if ek's arrays are
// too small for it: a programming error (the key types of package mlkem
// are made for their parameter set).
func (ek *EncapsulationKeyOf[E, PE]) setRank(p *Params) {
	if t, _ := PE(&ek.st).arrays(); len(t) < p.k {
		panic("fips203: key arrays of rank " + string(rune('0'+len(t))) + " used for " + p.name)
	}
	ek.k = uint8(p.k)
}

// byRank maps the module rank k to the FIPS 203 parameter set.
var byRank = [maxK + 1]*Params{2: MLKEM512, 3: MLKEM768, 4: MLKEM1024}

// Params returns the key's FIPS 203 parameter set (for a key made with a
// parameter set from WithSampler, the one it was copied from), or nil for
// the zero value.
func (ek *EncapsulationKeyOf[E, PE]) Params() *Params { return byRank[ek.k%(maxK+1)] }

// Params returns the key's FIPS 203 parameter set, as EncapsulationKey.Params.
func (dk *DecapsulationKeyOf[E, D, PE, PD]) Params() *Params { return dk.ek.Params() }

// EncapsulationKey returns the encapsulation key that belongs to dk.
func (dk *DecapsulationKeyOf[E, D, PE, PD]) EncapsulationKey() *EncapsulationKeyOf[E, PE] {
	return &dk.ek
}

// HasSeed reports whether dk was made from a seed (and so has one).
func (dk *DecapsulationKeyOf[E, D, PE, PD]) HasSeed() bool { return dk.hasSeed }

// Seed appends d || z to b. It must only be called if dk.HasSeed().
func (dk *DecapsulationKeyOf[E, D, PE, PD]) Seed(b []byte) []byte {
	b = append(b, dk.d[:]...)
	return append(b, dk.z[:]...)
}

// Bytes appends the encapsulation key encoding ByteEncode12(t̂) || rho to b.
func (ek *EncapsulationKeyOf[E, PE]) Bytes(b []byte) []byte {
	ex := ek.ex()
	for i := range ex.t {
		b = byteEncode12(b, &ex.t[i])
	}
	return append(b, ek.rho[:]...)
}

// ExpandedBytes appends the FIPS 203 decapsulation key encoding
// ByteEncode12(ŝ) || ek || H(ek) || z to b (Algorithm 16, line 3).
func (dk *DecapsulationKeyOf[E, D, PE, PD]) ExpandedBytes(b []byte) []byte {
	dx := dk.dx()
	for i := range dx.s {
		b = byteEncode12(b, &dx.s[i])
	}
	b = dk.ek.Bytes(b)
	b = append(b, dk.ek.h[:]...)
	return append(b, dk.z[:]...)
}

// GenerateKey generates a decapsulation key from fresh randomness
// (FIPS 203, Algorithm 19).
func GenerateKey[E, D any, PE ekArrays[E], PD dkArrays[D]](dk *DecapsulationKeyOf[E, D, PE, PD], p *Params) {
	var d, z [32]byte
	rand.Read(d[:])
	rand.Read(z[:])
	KeyGenInternal(dk, p, &d, &z)
}

// KeyGenInternal implements ML-KEM.KeyGen_internal (FIPS 203, Algorithm 16).
func KeyGenInternal[E, D any, PE ekArrays[E], PD dkArrays[D]](dk *DecapsulationKeyOf[E, D, PE, PD], p *Params, d, z *[32]byte) {
	dk.ek.setRank(p)
	ex, dx := dk.ek.ex(), dk.dx()
	if keccak.Accelerated() {
		sigma := pkeSeeds(p, &ex, d)
		dk.ek.h = keyGenX4(p, &ex, &dx, &sigma)
	} else {
		pkeKeyGen(p, &ex, &dx, d)
		var ekBuf [maxEncapsulationKeySize]byte
		dk.ek.h = sha3.Sum256(dk.ek.Bytes(ekBuf[:0]))
	}
	dk.z = *z
	dk.d = *d
	dk.hasSeed = true
}

const maxEncapsulationKeySize = encodingSize12*maxK + 32

// NewDecapsulationKeyFromSeed sets dk to the key generated from the 64-byte
// seed d || z.
func NewDecapsulationKeyFromSeed[E, D any, PE ekArrays[E], PD dkArrays[D]](dk *DecapsulationKeyOf[E, D, PE, PD], p *Params, seed []byte) error {
	if len(seed) != SeedSize {
		return fmt.Errorf("mlkem: invalid %s seed length %d, want %d", p.name, len(seed), SeedSize)
	}
	KeyGenInternal(dk, p, (*[32]byte)(seed[:32]), (*[32]byte)(seed[32:]))
	return nil
}

// NewDecapsulationKeyExpanded parses an expanded FIPS 203 decapsulation key
// and performs the input check of FIPS 203, section 7.3: the length, and the
// hash check H(dk[384k : 768k+32]) == dk[768k+32 : 768k+64]. The embedded
// encapsulation key must also pass the section 7.2 modulus check, and the
// coefficients of ŝ must be below q, as KeyGen makes them (the standard
// library's ACVP import checks the same).
func NewDecapsulationKeyExpanded[E, D any, PE ekArrays[E], PD dkArrays[D]](dk *DecapsulationKeyOf[E, D, PE, PD], p *Params, b []byte) error {
	if len(b) != p.DecapsulationKeySize() {
		return fmt.Errorf("mlkem: invalid %s decapsulation key length %d, want %d", p.name, len(b), p.DecapsulationKeySize())
	}
	k := p.k
	sBytes := b[:encodingSize12*k]
	ekBytes := b[encodingSize12*k : 2*encodingSize12*k+32]
	hBytes := b[2*encodingSize12*k+32 : 2*encodingSize12*k+64]
	zBytes := b[2*encodingSize12*k+64:]

	// The hash and the encapsulation key are public values, so comparing
	// them in variable time is safe; use subtle anyway, as it costs nothing.
	// Parsing the encapsulation key computes H(ek) once for both uses; a
	// hash mismatch is reported before a modulus error, as FIPS 203
	// section 7.3 orders the checks.
	errEK := NewEncapsulationKey(&dk.ek, p, ekBytes)
	h := dk.ek.h
	if errEK != nil {
		h = sha3.Sum256(ekBytes) // not computed by the failed parse
	}
	if subtle.ConstantTimeCompare(h[:], hBytes) != 1 {
		return errors.New("mlkem: invalid decapsulation key: H(ek) does not match the encapsulation key")
	}
	if errEK != nil {
		return errEK
	}
	valid := 1
	dx := dk.dx()
	for i := range k {
		valid &= byteDecode12Secret(&dx.s[i], sBytes[encodingSize12*i:])
		dx.sCache[i].compute(&dx.s[i])
	}
	// Only the validity of the whole key is revealed, not which
	// coefficient failed. KeyGen never produces such a key, and accepting
	// it would make ExpandedBytes differ from the input.
	if valid != 1 {
		return fmt.Errorf("mlkem: invalid %s decapsulation key: secret coefficient not reduced modulo q", p.name)
	}
	copy(dk.z[:], zBytes)
	dk.d = [32]byte{}
	dk.hasSeed = false
	return nil
}

// NewEncapsulationKey parses an encapsulation key and performs the input
// check of FIPS 203, section 7.2: the length, and the modulus check (every
// coefficient of t̂ is below q).
func NewEncapsulationKey[E any, PE ekArrays[E]](ek *EncapsulationKeyOf[E, PE], p *Params, b []byte) error {
	if len(b) != p.EncapsulationKeySize() {
		return fmt.Errorf("mlkem: invalid %s encapsulation key length %d, want %d", p.name, len(b), p.EncapsulationKeySize())
	}
	ek.setRank(p)
	ex := ek.ex()
	for i := range p.k {
		if err := byteDecode12Check(&ex.t[i], b[encodingSize12*i:]); err != nil {
			return fmt.Errorf("mlkem: invalid %s encapsulation key: polynomial %d: %w", p.name, i, err)
		}
	}
	copy(ek.rho[:], b[encodingSize12*p.k:])
	if keccak.Accelerated() {
		ek.h = parseX4(p, &ex, b)
	} else {
		ek.h = sha3.Sum256(b)
		expandMatrix(p, &ex)
	}
	return nil
}

// Encapsulate generates a shared key and appends its ciphertext to c
// (FIPS 203, Algorithm 20).
func (ek *EncapsulationKeyOf[E, PE]) Encapsulate(K *[SharedKeySize]byte, c []byte) []byte {
	var m [MessageSize]byte
	rand.Read(m[:])
	return ek.EncapsulateInternal(K, c, &m)
}

// EncapsulateInternal implements ML-KEM.Encaps_internal (FIPS 203,
// Algorithm 17): it writes the shared key to K and appends the ciphertext
// to c.
func (ek *EncapsulationKeyOf[E, PE]) EncapsulateInternal(K *[SharedKeySize]byte, c []byte, m *[MessageSize]byte) []byte {
	var gIn [64]byte
	copy(gIn[:32], m[:])
	copy(gIn[32:], ek.h[:])
	g := keccak.Sum512(gIn[:]) // G (line 2)
	copy(K[:], g[:32])
	ex := ek.ex()
	return pkeEncrypt(ek.Params(), c, &ex, m, (*[32]byte)(g[32:]))
}

// Decapsulate implements ML-KEM.Decaps (FIPS 203, Algorithm 21): the length
// check of section 7.3, then Decaps_internal. A wrong ciphertext of the
// right length is not an error: it yields the implicit-rejection key.
func (dk *DecapsulationKeyOf[E, D, PE, PD]) Decapsulate(K *[SharedKeySize]byte, c []byte) error {
	p := dk.Params()
	if p == nil {
		return errors.New("mlkem: uninitialized decapsulation key")
	}
	if len(c) != p.CiphertextSize() {
		return fmt.Errorf("mlkem: invalid %s ciphertext length %d, want %d", p.name, len(c), p.CiphertextSize())
	}
	dk.decapsulateInternal(K, c)
	return nil
}

// decapsulateInternal implements ML-KEM.Decaps_internal (FIPS 203,
// Algorithm 18). It runs in constant time with respect to dk and to whether
// c is valid: the re-encryption is compared in full with subtle and the key
// is selected with a mask.
func (dk *DecapsulationKeyOf[E, D, PE, PD]) decapsulateInternal(K *[SharedKeySize]byte, c []byte) {
	p := dk.Params()
	var m [MessageSize]byte
	dx := dk.dx()
	pkeDecrypt(p, &m, &dx, c)

	var gIn [64]byte
	copy(gIn[:32], m[:])
	copy(gIn[32:], dk.ek.h[:])

	var cBuf [maxCiphertextSize]byte
	var c1 []byte
	var g [64]byte
	var kBar [SharedKeySize]byte
	ex := dk.ek.ex()
	if keccak.Accelerated() {
		// G, J and the noise of the re-encryption on the four-way Keccak.
		var f encryptionNoise
		g, kBar = decapsulateX4(p, &f, &gIn, &dk.z, c)
		c1 = pkeEncryptNoise(p, cBuf[:0], &ex, &m, &f)
	} else {
		g = sha3.Sum512(gIn[:])
		// K̄ = J(z || c) = SHAKE256(z || c, 32)
		var j sha3.SHAKE // the zero value is SHAKE256
		j.Write(dk.z[:])
		j.Write(c)
		j.Read(kBar[:])
		c1 = pkeEncrypt(p, cBuf[:0], &ex, &m, (*[32]byte)(g[32:]))
	}

	equal := ctcompare.Equal(c, c1)
	copy(K[:], kBar[:])
	subtle.ConstantTimeCopy(equal, K[:], g[:32])
}

const maxCiphertextSize = 32 * (11*maxK + 5)

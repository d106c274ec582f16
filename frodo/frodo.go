// Package frodo implements FrodoKEM, the key encapsulation mechanism on
// plain LWE ("Frodo: Take off the ring!"), at all twelve parameter sets:
// the salted FrodoKEM of the ISO/IEC proposal and draft-longa-cfrg-frodokem
// (FrodoKEM-640-AES ... FrodoKEM-1344-SHAKE), and the ephemeral eFrodoKEM,
// bit-identical to NIST round 3 FrodoKEM (eFrodoKEM-640-AES ...
// eFrodoKEM-1344-SHAKE). Use an eFrodoKEM key for fewer than 2^8
// ciphertexts; for keys that see many ciphertexts use FrodoKEM.
//
// # Design
//
// One implementation serves the twelve sets: a [ParameterSet] value holds
// n, D, B, the sizes and the CDF table, and the working arrays have fixed
// capacities sized for n = 1344, on the stack. There is no per-set copy of
// any code.
//
// The n x n matrix A is never materialized: it is generated four rows at a
// time (SHAKE128 through the four-way Keccak of internal/keccak; AES128 with
// AES-NI eight blocks at a time, or crypto/aes without it) and multiplied
// in at once. Heap use per operation is the returned ciphertext and shared
// key and a few small hash states (see the allocation tests).
//
// Constant time: the error sampler compares each sample with the whole CDF
// table, without branches; decapsulation re-encrypts, compares the whole
// ciphertext (B', C and the salt) with an OR of XORs, and selects k' or s
// with a mask (the CRYPTO 2020 timing attack on FrodoKEM exploited a
// short-circuit compare).
//
// # Encodings
//
// The encapsulation key is the specification's pk, seedA || pack(B). The
// decapsulation key is the specification's sk, s || pk || S^T || pkh, the
// format every other implementation exchanges; [ParameterSet.NewDecapsulationKey]
// checks that pkh is the hash of pk. Key generation from a seed takes
// exactly the bytes the reference implementation reads from randombytes,
// s || seedSE || z, and derandomized encapsulation (package
// [github.com/pqkem/pqkem/frodo/frodotest]) takes mu, or mu || salt for
// FrodoKEM, so that the NIST DRBG drives the known-answer tests through
// this API.
package frodo

import (
	"crypto"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"fmt"

	"github.com/pqkem/pqkem/frodo/internal/derand"
)

func init() {
	derand.Encapsulate = func(ek any, random []byte) ([]byte, []byte, error) {
		k := ek.(*EncapsulationKey)
		if len(random) != k.p.EncapsulationSeedSize() {
			return nil, nil, fmt.Errorf("frodotest: invalid %s encapsulation randomness length %d, want %d",
				k.p.name, len(random), k.p.EncapsulationSeedSize())
		}
		ss, ct := k.encapsulate(random)
		return ss, ct, nil
	}
}

// EncapsulationKey is a FrodoKEM public key. It holds the parsed matrix B
// and the hash of the key, so repeated encapsulations do not redo that work.
type EncapsulationKey struct {
	p   *ParameterSet
	pk  []byte   // the encoding: seedA || pack(B)
	bt  []uint16 // B^T, n̄ x n
	pkh [maxLenSec]byte
	a   matrixA
}

// DecapsulationKey is a FrodoKEM private key.
type DecapsulationKey struct {
	ek EncapsulationKey
	sk []byte   // the encoding: s || pk || S^T || pkh
	st []uint16 // S^T, n̄ x n
}

// GenerateKey generates a new key pair from crypto/rand.
func (p *ParameterSet) GenerateKey() (*DecapsulationKey, error) {
	seed := make([]byte, p.KeySeedSize())
	rand.Read(seed)
	return p.NewKeyFromSeed(seed)
}

// NewKeyFromSeed derives a key pair from seed = s || seedSE || z, the
// KeySeedSize bytes the reference key generation reads from randombytes.
// The seed must be uniformly random and secret.
func (p *ParameterSet) NewKeyFromSeed(seed []byte) (*DecapsulationKey, error) {
	if len(seed) != p.KeySeedSize() {
		return nil, fmt.Errorf("frodo: invalid %s key seed length %d, want %d", p.name, len(seed), p.KeySeedSize())
	}
	dk := new(DecapsulationKey)
	p.keyGen(dk, seed)
	return dk, nil
}

// NewEncapsulationKey parses the specification's pk. Every input of the
// right length is a valid key.
func (p *ParameterSet) NewEncapsulationKey(pk []byte) (*EncapsulationKey, error) {
	if len(pk) != p.EncapsulationKeySize() {
		return nil, fmt.Errorf("frodo: invalid %s encapsulation key length %d, want %d", p.name, len(pk), p.EncapsulationKeySize())
	}
	ek := new(EncapsulationKey)
	p.parseEncapsulationKey(ek, append([]byte(nil), pk...))
	return ek, nil
}

func (p *ParameterSet) parseEncapsulationKey(ek *EncapsulationKey, pk []byte) {
	ek.p = p
	ek.pk = pk
	var b [maxN * nbar]uint16
	p.unpack(b[:p.n*nbar], pk[seedASize:])
	ek.bt = p.transpose(b[:p.n*nbar])
	h := p.newHash()
	h.Write(pk)
	h.Read(ek.pkh[:p.lenSec])
	ek.a.init(p, pk[:seedASize])
}

// NewDecapsulationKey parses the specification's sk, s || pk || S^T || pkh,
// and checks that pkh is the hash of pk.
func (p *ParameterSet) NewDecapsulationKey(sk []byte) (*DecapsulationKey, error) {
	if len(sk) != p.DecapsulationKeySize() {
		return nil, fmt.Errorf("frodo: invalid %s decapsulation key length %d, want %d", p.name, len(sk), p.DecapsulationKeySize())
	}
	sk = append([]byte(nil), sk...)
	pkSize := p.EncapsulationKeySize()
	dk := new(DecapsulationKey)
	p.parseEncapsulationKey(&dk.ek, sk[p.lenSec:p.lenSec+pkSize])
	if subtle.ConstantTimeCompare(dk.ek.pkh[:p.lenSec], sk[len(sk)-p.lenSec:]) != 1 {
		return nil, fmt.Errorf("frodo: invalid %s decapsulation key: pkh is not the hash of pk", p.name)
	}
	dk.sk = sk
	dk.st = make([]uint16, nbar*p.n)
	stBytes := sk[p.lenSec+pkSize:]
	for i := range dk.st {
		dk.st[i] = binary.LittleEndian.Uint16(stBytes[2*i:])
	}
	return dk, nil
}

// ParameterSet returns the key's parameter set.
func (ek *EncapsulationKey) ParameterSet() *ParameterSet { return ek.p }

// Bytes returns the specification's pk.
func (ek *EncapsulationKey) Bytes() []byte { return append([]byte(nil), ek.pk...) }

// Encapsulate generates a shared key and its ciphertext for ek, with fresh
// randomness from crypto/rand.
func (ek *EncapsulationKey) Encapsulate() (sharedKey, ciphertext []byte) {
	var random [maxLenSec + maxSalt]byte
	r := random[:ek.p.EncapsulationSeedSize()]
	rand.Read(r)
	ss, ct := ek.encapsulate(r)
	clear(random[:])
	return ss, ct
}

// ParameterSet returns the key's parameter set.
func (dk *DecapsulationKey) ParameterSet() *ParameterSet { return dk.ek.p }

// Bytes returns the specification's sk, s || pk || S^T || pkh. It is secret.
func (dk *DecapsulationKey) Bytes() []byte { return append([]byte(nil), dk.sk...) }

// EncapsulationKey returns the public key that goes with dk.
func (dk *DecapsulationKey) EncapsulationKey() *EncapsulationKey { return &dk.ek }

// Encapsulator returns the public key as a crypto.Encapsulator.
func (dk *DecapsulationKey) Encapsulator() crypto.Encapsulator { return &dk.ek }

// Decapsulate returns the shared key of ciphertext. A ciphertext of the
// right length is never an error: a wrong one gives a pseudorandom key
// (implicit rejection), a function of s and the ciphertext.
func (dk *DecapsulationKey) Decapsulate(ciphertext []byte) (sharedKey []byte, err error) {
	p := dk.ek.p
	if len(ciphertext) != p.CiphertextSize() {
		return nil, fmt.Errorf("frodo: invalid %s ciphertext length %d, want %d", p.name, len(ciphertext), p.CiphertextSize())
	}
	return dk.decapsulate(ciphertext), nil
}

// Package frodo implements FrodoKEM, the key encapsulation mechanism on
// plain LWE ("Frodo: Take off the ring!"), at all twelve parameter sets:
// the salted FrodoKEM of the ISO/IEC proposal and draft-longa-cfrg-frodokem
// (FrodoKEM-640-AES ... FrodoKEM-1344-SHAKE), and the ephemeral eFrodoKEM,
// bit-identical to NIST round 3 FrodoKEM (eFrodoKEM-640-AES ...
// eFrodoKEM-1344-SHAKE). Use an eFrodoKEM key for fewer than 2^8
// ciphertexts; for keys that see many ciphertexts use FrodoKEM.
//
// Names: CIRCL's "FrodoKEM-640-SHAKE" (kem/frodo/frodo640shake) is NIST
// round 3 FrodoKEM, which is this package's [EFrodoKEM640SHAKE]
// (9,720-byte ciphertexts), not its [FrodoKEM640SHAKE], the salted
// FrodoKEM (9,752 bytes): keys and ciphertexts of the two do not mix.
//
// # Design
//
// One implementation serves the twelve sets: a [ParameterSet] value holds
// n, D, B, the sizes and the CDF table, and the working arrays have fixed
// capacities sized for n = 1344, taken from a pool. There is no per-set
// copy of any code.
//
// The n x n matrix A is generated four rows at a time (SHAKE128 through
// the four-way Keccak of internal/keccak, or eight rows at a time through
// its eight-way one with AVX-512; AES128 with VAES or AES-NI, or
// crypto/aes without them) and multiplied in at once, so that an
// operation's heap use is its ciphertext and shared key and a few small
// hash states (see the allocation tests). A key that serves many
// operations, such as a server's long-term key, can keep A whole instead:
// [EncapsulationKey.Precompute] spends n² 16-bit words (800 KiB to 3.4
// MiB) to make each later operation up to a quarter faster with AES, and
// about five times faster with SHAKE.
//
// Constant time: the error sampler compares each sample with the whole CDF
// table, without branches; decapsulation re-encrypts, compares the whole
// ciphertext (B', C and the salt) with an OR of XORs, and selects k' or s
// with a mask (the CRYPTO 2020 timing attack on FrodoKEM exploited a
// short-circuit compare).
//
// # Names
//
// The names are those of the ISO/IEC proposal: FrodoKEM-640-SHAKE is the
// salted FrodoKEM (a 9,752-byte ciphertext) and eFrodoKEM-640-SHAKE is
// NIST round 3 FrodoKEM (9,720 bytes), and so on for every set.
// Implementations of round 3 call the latter FrodoKEM-640-SHAKE: CIRCL's
// FrodoKEM-640-SHAKE is this package's eFrodoKEM-640-SHAKE. The keys of
// the two encode alike, so a round-3 key parses as either set, but their
// ciphertexts differ (in size and in the key derivation): a ciphertext
// made with one set for a peer that runs the other is of no use to it.
// Choose the set by the peer's specification, not by the name it uses.
//
// # The CCS 2016 key exchange
//
// The package also runs the protocol of the paper FrodoKEM comes from
// (Bos et al., ACM CCS 2016), byte for byte as the authors' code does, on
// the same row generator and kernels: [CCS2016Recommended] and
// [CCS2016Paranoid], with [KeyExchangeSet.Alice0], [KeyExchangeSet.Bob]
// and [AliceState.Alice1]. It is passively secure: a state serves one
// exchange, and comes only from Alice0, on fresh randomness, so that none
// can be made twice (the derandomized Alice0 of the known-answer vectors
// is package frodotest's).
//
// # Encodings
//
// The encapsulation key is the specification's pk, seedA || pack(B).
//
// A decapsulation key has two encodings, as in package
// [github.com/pqkem/pqkem/mlkem]: its seed s || seedSE || z, exactly the
// bytes the reference key generation reads from randombytes, which
// [ParameterSet.NewDecapsulationKey] takes and [DecapsulationKey.Bytes]
// returns; and the specification's sk, s || pk || S^T || pkh (the
// expanded form, which other implementations exchange), which
// [ParameterSet.NewDecapsulationKeyExpanded] takes, after checking that
// pkh is the hash of pk, and [DecapsulationKey.ExpandedBytes] returns. The
// seed is 48 to 112 bytes, the sk 19888 to 43088. A key parsed from the
// sk has no seed, and its Bytes method returns nil: code that may hold
// such a key stores ExpandedBytes (package
// [github.com/pqkem/pqkem/kem] does that on its own).
//
// Derandomized encapsulation, in package
// [github.com/pqkem/pqkem/frodo/frodotest] and nowhere in this package's
// API, takes mu, or mu || salt for FrodoKEM, so that the NIST DRBG drives
// the known-answer tests through the same code.
package frodo

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"fmt"

	"github.com/pqkem/pqkem/internal/derand"
	"github.com/pqkem/pqkem/internal/keccak"
	"github.com/pqkem/pqkem/internal/secret"
)

// Derandomized encapsulation is package frodotest's, through
// internal/derand: random is ek.ParameterSet().EncapsulationSeedSize()
// bytes long (frodotest checks).
func init() {
	derand.Register("frodo.Encapsulate", func(ek *EncapsulationKey, random []byte) (sharedKey, ciphertext []byte) {
		return ek.encapsulate(random)
	})
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
	s  [maxLenSec]byte // s, the implicit-rejection secret: lenSec bytes
	st []uint16        // S^T, n̄ x n
	// seed is s || seedSE || z, of ParameterSet.SeedSize() bytes; a key
	// parsed from its sk has none.
	seed    [maxSeedSize]byte
	hasSeed bool
}

// GenerateKey generates a new key pair from crypto/rand.
func (p *ParameterSet) GenerateKey() (dk *DecapsulationKey, err error) {
	secret.Do(func() {
		var seed [maxSeedSize]byte
		s := seed[:p.SeedSize()]
		rand.Read(s)
		dk, err = p.NewDecapsulationKey(s)
		clear(s)
	})
	return dk, err
}

// NewDecapsulationKey makes the key pair of seed = s || seedSE || z, the
// [ParameterSet.SeedSize] bytes the reference key generation reads from
// randombytes (FrodoKEM.KeyGen). The seed must be uniformly random and
// secret; [DecapsulationKey.Bytes] returns it.
func (p *ParameterSet) NewDecapsulationKey(seed []byte) (*DecapsulationKey, error) {
	if len(seed) != p.SeedSize() {
		return nil, fmt.Errorf("frodo: invalid %s seed length %d, want %d", p.name, len(seed), p.SeedSize())
	}
	dk := new(DecapsulationKey)
	secret.Do(func() { p.keyGen(dk, seed) })
	copy(dk.seed[:], seed)
	dk.hasSeed = true
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
	w := getWork()
	b := w.bp[:p.n*nbar]
	p.unpack(b, pk[seedASize:])
	ek.bt = p.transpose(b)
	putWork(w)
	var h keccak.SHAKE
	p.initHash(&h)
	h.Write(pk)
	h.Read(ek.pkh[:p.lenSec])
	ek.a.init(p, pk[:seedASize])
}

// NewDecapsulationKeyExpanded parses the specification's sk,
// s || pk || S^T || pkh, and checks that pkh is the hash of pk. The key has
// no seed: its Bytes method returns nil.
func (p *ParameterSet) NewDecapsulationKeyExpanded(sk []byte) (dk *DecapsulationKey, err error) {
	secret.Do(func() { dk, err = p.newDecapsulationKeyExpanded(sk) })
	return dk, err
}

func (p *ParameterSet) newDecapsulationKeyExpanded(sk []byte) (*DecapsulationKey, error) {
	if len(sk) != p.DecapsulationKeyExpandedSize() {
		return nil, fmt.Errorf("frodo: invalid %s expanded decapsulation key length %d, want %d", p.name, len(sk), p.DecapsulationKeyExpandedSize())
	}
	pkSize := p.EncapsulationKeySize()
	dk := new(DecapsulationKey)
	p.parseEncapsulationKey(&dk.ek, bytes.Clone(sk[p.lenSec:p.lenSec+pkSize]))
	if subtle.ConstantTimeCompare(dk.ek.pkh[:p.lenSec], sk[len(sk)-p.lenSec:]) != 1 {
		return nil, fmt.Errorf("frodo: invalid %s decapsulation key: pkh is not the hash of pk", p.name)
	}
	copy(dk.s[:], sk[:p.lenSec])
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

// AppendBinary appends the specification's pk to b, as Bytes returns it
// but without a copy of its own, for a protocol that writes the key into a
// larger message ([encoding.BinaryAppender]). The error is always nil.
func (ek *EncapsulationKey) AppendBinary(b []byte) ([]byte, error) { return append(b, ek.pk...), nil }

// Precompute generates the key's matrix A and keeps it, so that later
// encapsulations to ek, and decapsulations with the [DecapsulationKey] ek
// belongs to, read A instead of generating it again. It is for a key that
// serves many operations, such as a server's long-term key or a client's
// pinned server key: A is n x n 16-bit words, 800 KiB for the
// FrodoKEM-640 sets, 1.8 MiB for 976 and 3.4 MiB for 1344, kept as long
// as the key. Each later operation is then up to a quarter faster with
// the AES sets, and about five times faster with SHAKE, whose A costs
// more to make than the rest of the operation. Precompute may be called
// more than once, and concurrently with the key's other methods; the
// results do not change.
func (ek *EncapsulationKey) Precompute() { ek.a.expand() }

// Encapsulate generates a shared key and its ciphertext for ek, with fresh
// randomness from crypto/rand. For known-answer tests, derandomized
// encapsulation is in package [github.com/pqkem/pqkem/frodo/frodotest].
func (ek *EncapsulationKey) Encapsulate() (sharedKey, ciphertext []byte) {
	var random [maxLenSec + maxSalt]byte
	r := random[:ek.p.EncapsulationSeedSize()]
	rand.Read(r)
	var ss, ct []byte
	secret.Do(func() { ss, ct = ek.encapsulate(r) })
	clear(random[:])
	return ss, ct
}

// ParameterSet returns the key's parameter set.
func (dk *DecapsulationKey) ParameterSet() *ParameterSet { return dk.ek.p }

// Bytes returns the seed s || seedSE || z the key was made from, in the
// form [ParameterSet.NewDecapsulationKey] takes. It is secret.
//
// A key made by [ParameterSet.NewDecapsulationKeyExpanded] has no seed, and
// Bytes returns nil for it; use [DecapsulationKey.ExpandedBytes].
func (dk *DecapsulationKey) Bytes() []byte {
	if !dk.hasSeed {
		return nil
	}
	return bytes.Clone(dk.seed[:dk.ek.p.SeedSize()])
}

// ExpandedBytes returns the specification's sk, s || pk || S^T || pkh, in
// the form [ParameterSet.NewDecapsulationKeyExpanded] takes. It is secret.
func (dk *DecapsulationKey) ExpandedBytes() []byte {
	p := dk.ek.p
	sk := make([]byte, 0, p.DecapsulationKeyExpandedSize())
	sk = append(sk, dk.s[:p.lenSec]...)
	sk = append(sk, dk.ek.pk...)
	for _, v := range dk.st {
		sk = binary.LittleEndian.AppendUint16(sk, v)
	}
	return append(sk, dk.ek.pkh[:p.lenSec]...)
}

// EncapsulationKey returns the public key that goes with dk.
func (dk *DecapsulationKey) EncapsulationKey() *EncapsulationKey { return &dk.ek }

// Encapsulator returns the public key as a [crypto.Encapsulator].
func (dk *DecapsulationKey) Encapsulator() crypto.Encapsulator { return &dk.ek }

// Precompute keeps the key's matrix A for its later decapsulations and
// encapsulations; see [EncapsulationKey.Precompute].
func (dk *DecapsulationKey) Precompute() { dk.ek.Precompute() }

// Decapsulate returns the shared key of ciphertext. A ciphertext of the
// right length is never an error: a wrong one gives a pseudorandom key
// (implicit rejection), a function of s and the ciphertext.
func (dk *DecapsulationKey) Decapsulate(ciphertext []byte) (sharedKey []byte, err error) {
	p := dk.ek.p
	if len(ciphertext) != p.CiphertextSize() {
		return nil, fmt.Errorf("frodo: invalid %s ciphertext length %d, want %d", p.name, len(ciphertext), p.CiphertextSize())
	}
	secret.Do(func() { sharedKey = dk.decapsulate(ciphertext) })
	return sharedKey, nil
}

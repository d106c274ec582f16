package frodo

import "fmt"

// nbar is n̄, the number of columns of the secret matrices, 8 at every level.
const nbar = 8

// Largest sizes over all parameter sets, for fixed-capacity arrays that
// live on the stack.
const (
	maxN      = 1344
	maxLenSec = 32
	maxSeedSE = 2 * maxLenSec
	maxSalt   = 2 * maxLenSec
	// maxSeedSize is the largest SeedSize: s || seedSE || z.
	maxSeedSize = maxLenSec + maxSeedSE + seedASize
	seedASize   = 16
	cdfMaxSize  = 13
)

// ParameterSet is one of the twelve FrodoKEM parameter sets, which
// [FrodoKEM640AES] ... [EFrodoKEM1344SHAKE] and [ParameterSets] return;
// there are no others. A ParameterSet never changes.
type ParameterSet struct {
	name    string
	n       int      // the LWE dimension n
	logq    uint     // D: q = 2^D
	b       int      // B: bits encoded per matrix entry
	lenSec  int      // len_sec/8: the size of s, mu, pkh, k and the shared key
	lenSE   int      // the size of seedSE
	lenSalt int      // the size of the salt (0 for eFrodoKEM)
	cdf     []uint16 // T_chi, the error distribution's CDF table
	// cdfVec is cdf with each entry repeated 16 times, for the AVX2
	// sampler.
	cdfVec   [cdfMaxSize][16]uint16
	shake256 bool // SHAKE256 (976, 1344) or SHAKE128 (640) for the hashes
	aes      bool // matrix A from AES128 (true) or SHAKE128
}

// The error distributions' CDF tables (T_chi in the specification).
var (
	cdf640  = []uint16{4643, 13363, 20579, 25843, 29227, 31145, 32103, 32525, 32689, 32745, 32762, 32766, 32767}
	cdf976  = []uint16{5638, 15915, 23689, 28571, 31116, 32217, 32613, 32731, 32760, 32766, 32767}
	cdf1344 = []uint16{9142, 23462, 30338, 32361, 32725, 32765, 32767}
)

func newSet(name string, n int, logq uint, b, lenSec int, salted bool, cdf []uint16, aes bool) *ParameterSet {
	p := &ParameterSet{name: name, n: n, logq: logq, b: b, lenSec: lenSec, lenSE: lenSec, cdf: cdf, shake256: n > 640, aes: aes}
	for i, c := range cdf {
		for j := range p.cdfVec[i] {
			p.cdfVec[i][j] = c
		}
	}
	if salted {
		// The ISO/CFRG FrodoKEM: seedSE of 2*len_sec bits and a salt of
		// 2*len_sec bits, carried in the ciphertext.
		p.lenSE = 2 * lenSec
		p.lenSalt = 2 * lenSec
	}
	return p
}

// sets are the twelve parameter sets, which the functions below return,
// in the order of ParameterSets: each level (n = 640, 976, 1344, with AES
// before SHAKE) salted, then the same levels ephemeral.
var sets = func() (sets [12]*ParameterSet) {
	levels := []struct {
		n      int
		logq   uint
		b      int
		lenSec int
		cdf    []uint16
	}{{640, 15, 2, 16, cdf640}, {976, 16, 3, 24, cdf976}, {1344, 16, 4, 32, cdf1344}}
	i := 0
	for _, salted := range []bool{true, false} {
		for _, l := range levels {
			for _, aes := range []bool{true, false} {
				name := fmt.Sprintf("FrodoKEM-%d-SHAKE", l.n)
				if aes {
					name = fmt.Sprintf("FrodoKEM-%d-AES", l.n)
				}
				if !salted {
					name = "e" + name
				}
				sets[i] = newSet(name, l.n, l.logq, l.b, l.lenSec, salted, l.cdf, aes)
				i++
			}
		}
	}
	return sets
}()

// The salted FrodoKEM of the ISO/IEC proposal and
// draft-longa-cfrg-frodokem, safe for keys used with many ciphertexts.

// FrodoKEM640AES returns FrodoKEM-640-AES.
func FrodoKEM640AES() *ParameterSet { return sets[0] }

// FrodoKEM640SHAKE returns FrodoKEM-640-SHAKE.
func FrodoKEM640SHAKE() *ParameterSet { return sets[1] }

// FrodoKEM976AES returns FrodoKEM-976-AES.
func FrodoKEM976AES() *ParameterSet { return sets[2] }

// FrodoKEM976SHAKE returns FrodoKEM-976-SHAKE.
func FrodoKEM976SHAKE() *ParameterSet { return sets[3] }

// FrodoKEM1344AES returns FrodoKEM-1344-AES.
func FrodoKEM1344AES() *ParameterSet { return sets[4] }

// FrodoKEM1344SHAKE returns FrodoKEM-1344-SHAKE.
func FrodoKEM1344SHAKE() *ParameterSet { return sets[5] }

// The ephemeral eFrodoKEM, bit-identical to FrodoKEM of NIST round 3: use
// one eFrodoKEM key for fewer than 2^8 ciphertexts (the specification's
// limit for the ephemeral variant, whose security with many ciphertexts per
// key is not claimed).

// EFrodoKEM640AES returns eFrodoKEM-640-AES, for fewer than 2^8
// ciphertexts per key.
func EFrodoKEM640AES() *ParameterSet { return sets[6] }

// EFrodoKEM640SHAKE returns eFrodoKEM-640-SHAKE, for fewer than 2^8
// ciphertexts per key.
func EFrodoKEM640SHAKE() *ParameterSet { return sets[7] }

// EFrodoKEM976AES returns eFrodoKEM-976-AES, for fewer than 2^8
// ciphertexts per key.
func EFrodoKEM976AES() *ParameterSet { return sets[8] }

// EFrodoKEM976SHAKE returns eFrodoKEM-976-SHAKE, for fewer than 2^8
// ciphertexts per key.
func EFrodoKEM976SHAKE() *ParameterSet { return sets[9] }

// EFrodoKEM1344AES returns eFrodoKEM-1344-AES, for fewer than 2^8
// ciphertexts per key.
func EFrodoKEM1344AES() *ParameterSet { return sets[10] }

// EFrodoKEM1344SHAKE returns eFrodoKEM-1344-SHAKE, for fewer than 2^8
// ciphertexts per key.
func EFrodoKEM1344SHAKE() *ParameterSet { return sets[11] }

// ParameterSets returns the twelve parameter sets: the six salted FrodoKEM
// sets, then the six eFrodoKEM sets, each 640, 976, 1344 with AES before
// SHAKE. The slice is new; the sets are shared and never change.
func ParameterSets() []*ParameterSet {
	all := sets
	return all[:]
}

// Name is the parameter set's name, for example "FrodoKEM-640-AES" or
// "eFrodoKEM-1344-SHAKE".
func (p *ParameterSet) Name() string { return p.name }

// Ephemeral reports whether p is an eFrodoKEM set (no salt; one key for
// fewer than 2^8 ciphertexts).
func (p *ParameterSet) Ephemeral() bool { return p.lenSalt == 0 }

// EncapsulationKeySize is the size of the specification's pk:
// seedA || pack(B).
func (p *ParameterSet) EncapsulationKeySize() int { return seedASize + p.packedSize(p.n*nbar) }

// DecapsulationKeyExpandedSize is the size of the specification's sk,
// s || pk || S^T || pkh, which [ParameterSet.NewDecapsulationKeyExpanded]
// takes and [DecapsulationKey.ExpandedBytes] returns.
func (p *ParameterSet) DecapsulationKeyExpandedSize() int {
	return p.lenSec + p.EncapsulationKeySize() + 2*p.n*nbar + p.lenSec
}

// CiphertextSize is the size of a ciphertext: pack(B') || pack(C), followed
// by the salt for FrodoKEM.
func (p *ParameterSet) CiphertextSize() int {
	return p.packedSize(p.n*nbar) + p.packedSize(nbar*nbar) + p.lenSalt
}

// SharedKeySize is the size of a shared key: 16, 24 or 32 bytes.
func (p *ParameterSet) SharedKeySize() int { return p.lenSec }

// SeedSize is the size of the seed of a decapsulation key,
// s || seedSE || z: the randomness of key generation, exactly what the
// reference implementation reads from randombytes. It is what
// [ParameterSet.NewDecapsulationKey] takes and [DecapsulationKey.Bytes]
// returns.
func (p *ParameterSet) SeedSize() int { return p.lenSec + p.lenSE + seedASize }

// EncapsulationSeedSize is the size of the randomness one encapsulation
// takes: mu, or mu || salt for FrodoKEM.
func (p *ParameterSet) EncapsulationSeedSize() int { return p.lenSec + p.lenSalt }

func (p *ParameterSet) packedSize(entries int) int { return entries * int(p.logq) / 8 }

// q1 is q - 1, the mask that reduces modulo q.
func (p *ParameterSet) q1() uint16 { return uint16(1<<p.logq - 1) }

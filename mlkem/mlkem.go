// Package mlkem implements the quantum-resistant key encapsulation method
// ML-KEM (formerly known as Kyber), as specified in [NIST FIPS 203], at all
// three of its security levels: ML-KEM-512, ML-KEM-768 and ML-KEM-1024.
//
// The API is a superset of the standard library's crypto/mlkem: the same
// types and functions for ML-KEM-768 and ML-KEM-1024, the same shape for
// ML-KEM-512, and the expanded FIPS 203 decapsulation key format
// (NewDecapsulationKeyExpanded768, ExpandedBytes). Keys made from the same
// seed by this package and by crypto/mlkem are byte-identical, and so is
// everything derived from them. Derandomized encapsulation for tests is in
// package [github.com/pqkem/pqkem/mlkem/mlkemtest].
//
// Most applications should use ML-KEM-768, or a hybrid with X25519.
//
// # Key encodings
//
// A decapsulation key has two encodings: the 64-byte seed d || z, which
// [NewDecapsulationKey768] takes and [DecapsulationKey768.Bytes] returns,
// and the FIPS 203 encoding (the expanded form), which
// [NewDecapsulationKeyExpanded768] takes and
// [DecapsulationKey768.ExpandedBytes] returns; the same for 512 and 1024.
// Store the seed: it is smaller, and the expanded form follows from it.
// A key parsed from the expanded form has no seed, and its Bytes method
// returns the expanded form again, as package [github.com/pqkem/pqkem/kem]
// does: the length (64 bytes for a seed) tells the two forms apart.
//
// # Use with crypto/hpke
//
// The standard library's crypto/hpke takes these keys by their bytes:
// hpke.MLKEM768().NewPublicKey(ek.Bytes()) to seal to an encapsulation key,
// and hpke.MLKEM768().NewPrivateKey(dk.Bytes()) to open with the
// decapsulation key's seed (MLKEM1024 for ML-KEM-1024; crypto/hpke has no
// ML-KEM-512). The other way, the Bytes of a crypto/hpke ML-KEM private key
// is a seed that [NewDecapsulationKey768] takes. crypto/hpke takes seeds
// only: a key parsed from the expanded form cannot be used with it.
// hpke.NewMLKEMPublicKey and
// hpke.NewMLKEMPrivateKey do not work: they accept crypto/mlkem's types
// only. See the examples.
//
// # Implementation
//
// The three levels share one implementation (package internal/fips203):
// each FIPS 203 algorithm is written once over a parameter value (k, eta1,
// du, dv) and views of k polynomials, and the parsed keys hold fixed-size
// arrays for their level (the key types are generic in them), so an
// ML-KEM-512 key is 5 KiB and nothing is allocated beyond the returned
// values. The PAKE protocols swap the matrix sampler without a second copy
// of K-PKE. The per-level wrappers in this package are generated from one
// template (generate.go) and the table of levels (internal/mlkemlevel)
// that the other packages of the module use.
//
// On amd64 with AVX2 the arithmetic runs in assembly, and key generation,
// key parsing and decapsulation schedule their Keccak work on the four
// lanes of a four-way permutation: the hash of the encapsulation key, or
// J(z || c), runs in one lane while the matrix and noise run in the others.
//
// Secret data never drives a branch, a memory index or a division: the
// rounding divisions of Compress and the reductions modulo q are
// multiply-shift sequences, and decapsulation compares and selects with
// crypto/subtle.
//
// [NIST FIPS 203]: https://doi.org/10.6028/NIST.FIPS.203
package mlkem

//go:generate go run generate.go

import "github.com/pqkem/pqkem/internal/fips203"

const (
	// SharedKeySize is the size of a shared key produced by ML-KEM.
	SharedKeySize = fips203.SharedKeySize

	// SeedSize is the size of a seed (d || z) used to generate a
	// decapsulation key.
	SeedSize = fips203.SeedSize
)

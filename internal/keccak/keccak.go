// Package keccak is the one home of Keccak in this module: the SHAKE
// extendable-output functions of FIPS 202 for one state and for four states
// at once. ML-KEM, the FrodoKEM SHAKE matrix rows and the PAKE samplers all
// use it, so the assembly is written once.
//
// # One state
//
// A single SHAKE state is crypto/sha3: the standard library already has an
// assembly Keccak-f[1600] on amd64, and a second scalar implementation here
// would only be slower or the same. Callers use crypto/sha3 directly for it.
//
// # Four states
//
// X4 runs four independent SHAKE128 or SHAKE256 instances in lock step. On
// amd64 with AVX2 (see internal/cpuid) the four states are interleaved lane
// by lane, 25 x 4 uint64 words, and one AVX2 permutation (generated with avo,
// see _asm/) advances all four in about the time crypto/sha3 takes for one
// block of one state (BenchmarkSHAKE, BenchmarkPermute). Everywhere else,
// under the purego build tag, or when a test calls cpuid.ForceGeneric(true),
// X4 is four crypto/sha3 states: no second Go Keccak permutation exists in
// this module.
//
// Usage, e.g. for four FrodoKEM rows or four ML-KEM matrix entries:
//
//	var x keccak.X4
//	x.Init128([4][]byte{in0, in1, in2, in3}) // absorb and pad, once
//	x.SqueezeBlocks(&out)                    // whole blocks of x.Rate() bytes
//	x.Read(out2)                             // or any length, continuing
//
// The four inputs may have any lengths, but the four-way permutation only
// absorbs inputs of equal length (every real caller's case); with unequal
// lengths X4 quietly uses the four generic states. Reads must ask for the
// same number of bytes from the four lanes.
package keccak

import "github.com/pqkem/pqkem/internal/cpuid"

// Rates in bytes: SHAKE128 absorbs and squeezes 168 bytes per permutation,
// SHAKE256 136.
const (
	Rate128 = 168
	Rate256 = 136
)

// Accelerated reports whether X4 runs the four-way AVX2 permutation (and so
// costs about one single-state permutation per block for four), rather than
// four crypto/sha3 states. Callers with fewer than four useful lanes can use
// it to pick single states instead.
func Accelerated() bool { return haveAsm && cpuid.AVX2() }

// Package keccak is the one home of Keccak in this module: the SHAKE
// extendable-output functions of FIPS 202 for one state and for four or
// eight states at once. ML-KEM, the FrodoKEM SHAKE matrix rows and the
// PAKE samplers all use it, so the assembly is written once.
//
// # One state
//
// A single SHAKE state is crypto/sha3: the standard library already has an
// assembly Keccak-f[1600] on amd64, and a second scalar implementation here
// would only be slower or the same. Callers use crypto/sha3 directly for it,
// except for ML-KEM's G (Sum512) and FrodoKEM's long single streams
// (SHAKE), which one lane of the AVX-512 four-way permutation runs faster
// than crypto/sha3 does.
//
// # Four states
//
// X4 runs four independent SHAKE128 or SHAKE256 instances in lock step. On
// amd64 the four states are interleaved lane by lane, 25 x 4 uint64 words,
// and one four-way permutation (generated with avo, see _asm/) advances all
// four in about the time crypto/sha3 takes for one block of one state
// (BenchmarkSHAKE, BenchmarkPermute). Which permutation runs is chosen once,
// at init, from the CPU (see internal/cpuid):
//
//   - with AVX-512F, VL and BW, keccakF1600x4AVX512 keeps the whole state
//     in the 32 ymm registers;
//   - with AVX2 (and BMI2), keccakF1600x4AVX2;
//   - everywhere else, under the purego build tag, or when a test calls
//     cpuid.ForceGeneric(true), X4 is four crypto/sha3 states.
//
// The environment variable PQKEM_CPU ("avx512", "avx2" or "generic", read
// once at init by internal/cpuid) lowers the choice, to test or measure a
// lower path on a CPU that has a higher one; a level the CPU lacks, or an
// unknown value, is ignored. The tests of this package run every level the
// machine has, one after the other, by setting x4Level.
//
// The assembly's Go twin, keccakF1600x4Generic, follows FIPS 202 step by
// step; it is what the tests compare the assembly with, and what
// Lanes.Permute runs without the assembly.
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
//
// # Eight states
//
// X8 is two X4 that one eight-way permutation advances together where the
// CPU has AVX-512 (Wide): keccakF1600x8AVX512 runs the rounds of
// keccakF1600x4AVX512 on ZMM registers, the second four-way state in
// their high halves. On a CPU that executes 512-bit operations at the
// rate of 256-bit ones (AMD Zen 5) eight streams then cost about what
// four do (BenchmarkSHAKEx8). Elsewhere X8 is two X4, one after the other.
package keccak

import "github.com/pqkem/pqkem/internal/cpuid"

// Rates in bytes: SHAKE128 absorbs and squeezes 168 bytes per permutation,
// SHAKE256 and SHA3-256 136, SHA3-512 72 (200 - 2*64, FIPS 202).
const (
	Rate128 = 168
	Rate256 = 136
	Rate512 = 72
)

// x4Level is the level X4 and Lanes use: the fastest the CPU and build
// run, as PQKEM_CPU allows (cpuid.Max), unless a test set it lower to
// check every path in one run (restoring it afterwards): generic is four
// crypto/sha3 states (Lanes: keccakF1600x4Generic), avx2
// keccakF1600x4AVX2, avx512 keccakF1600x4AVX512. It is read on every
// permutation, and tests set it only while nothing else runs.
var x4Level = cpuid.Max()

// SingleInLane reports whether one four-way permutation takes less time
// than crypto/sha3's one-state permutation (the AVX-512 one does), so that
// a single sponge (SHAKE, Sum512) runs in a lane of it, and X4 pays even
// with a single lane in use.
func SingleInLane() bool { return x4Level >= cpuid.LevelAVX512 && Accelerated() }

// Accelerated reports whether X4 runs a four-way assembly permutation (and
// so costs about one single-state permutation per block for four), rather
// than four crypto/sha3 states. Callers with fewer than four useful lanes
// can use it to pick single states instead.
func Accelerated() bool { return x4Level >= cpuid.LevelAVX2 && cpuid.AVX2() }

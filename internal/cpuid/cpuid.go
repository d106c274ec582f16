// Package cpuid says which assembly paths this process may use, and lets
// tests and the benchmark force the generic Go path in the same binary.
//
// # PQKEM_CPU
//
// The environment variable PQKEM_CPU, read once when the process starts,
// lowers the level of assembly the whole module uses, to test or measure
// the lower paths on a machine that has the higher ones:
//
//   - "avx512": everything the CPU has (the default);
//   - "avx2": no AVX-512 (the four-way Keccak runs its AVX2 permutation,
//     ML-KEM's G and FrodoKEM's single SHAKE streams run crypto/sha3
//     rather than a lane of it, SampleNTT's rejection loop and ML-KEM's
//     NTTs their AVX2 forms, FrodoKEM's AES rows VAES on ymm rather than
//     zmm);
//   - "generic": no AVX2 or AVX-512 assembly either (nor VAES); AES-NI,
//     which is not a vector level, stays.
//
// A level above what the CPU has changes nothing, and so does any other
// value. Applications leave it unset and get the fastest path.
package cpuid

import (
	"os"
	"sync/atomic"
)

// A Level is a vector instruction level of the module's assembly, lowest
// first. Packages with assembly keep an unexported copy of Max, which
// their tests lower to run every path in one go test.
type Level int

// The levels, as PQKEM_CPU names them.
const (
	LevelGeneric Level = iota // no vector assembly (AES-NI may still run)
	LevelAVX2                 // AVX2 and BMI2 (VEX, ymm)
	LevelAVX512               // AVX-512F, VL and BW besides (EVEX, 32 registers)
)

// levelNames are the names of PQKEM_CPU, by level.
var levelNames = [...]string{LevelGeneric: "generic", LevelAVX2: "avx2", LevelAVX512: "avx512"}

func (l Level) String() string {
	if l < 0 || int(l) >= len(levelNames) {
		return "unknown"
	}
	return levelNames[l]
}

// Max returns the highest level the CPU and the build run, as PQKEM_CPU
// allows. It is chosen once, when the process starts, and ForceGeneric
// does not change it.
func Max() Level {
	switch {
	case hasAVX512:
		return LevelAVX512
	case hasAVX2:
		return LevelAVX2
	}
	return LevelGeneric
}

// Levels of PQKEM_CPU, in increasing order, as ints.
const (
	levelGeneric = int(LevelGeneric)
	levelAVX2    = int(LevelAVX2)
	levelAVX512  = int(LevelAVX512)
)

// envLevel is the highest level PQKEM_CPU allows.
var envLevel = parseLevel(os.Getenv("PQKEM_CPU"))

// parseLevel returns the level named by v, or levelAVX512 (no cap) for
// an empty or unknown value.
func parseLevel(v string) int {
	switch v {
	case "generic":
		return levelGeneric
	case "avx2":
		return levelAVX2
	}
	return levelAVX512
}

var (
	hasAVX2   = cpuAVX2 && envLevel >= levelAVX2
	hasAVX512 = hasAVX2 && cpuAVX512 && envLevel >= levelAVX512
	hasVBMI2  = hasAVX512 && cpuVBMI2
	hasVAES   = hasAVX2 && cpuVAES()
)

// forceGeneric is set by ForceGeneric; it is read on every dispatch, so it
// is atomic to keep the race detector quiet when tests flip it.
var forceGeneric atomic.Bool

// AVX2 reports whether the AVX2 (with BMI2) assembly may run: the CPU has
// it, the build allows it (no purego tag, amd64), PQKEM_CPU does not rule
// it out, and no test forced the generic path.
func AVX2() bool {
	return hasAVX2 && !forceGeneric.Load()
}

// HasAVX2 reports whether the CPU, build and PQKEM_CPU support the AVX2
// path at all, regardless of ForceGeneric.
func HasAVX2() bool { return hasAVX2 }

// HasAVX512 reports whether the CPU, build and PQKEM_CPU support
// AVX-512F, AVX-512VL and AVX-512BW (EVEX-encoded instructions, the byte
// and word ones included, and 32 registers, on ymm as well as zmm; the
// flags include the OS's saving of the zmm and mask registers), besides
// the AVX2 path. ForceGeneric does not change
// it: the packages that use AVX-512 check AVX2 first, or choose among
// their paths themselves.
func HasAVX512() bool { return hasAVX512 }

// HasAVX512VBMI2 reports whether HasAVX512 does and the CPU also has
// AVX-512 VBMI and VBMI2 (byte permutes, and the word compression of
// ML-KEM's rejection sampling). It is part of the avx512 level of
// PQKEM_CPU, not a level of its own; ForceGeneric does not change it.
func HasAVX512VBMI2() bool { return hasVBMI2 }

// ForceGeneric makes AVX2 report false while on is true. It returns a
// function that restores the previous setting. For tests and benchmarks:
// every package with assembly (fips203, keccak, frodo, pake) reads AVX2 at
// its dispatch and runs its generic level while it is on, so it switches
// them all at once from outside (pqkem-bench, the mlkem benchmark), and
// a package's tests use it beside their own level to make the packages
// under it generic too.
func ForceGeneric(on bool) (restore func()) {
	old := forceGeneric.Swap(on)
	return func() { forceGeneric.Store(old) }
}

// HasVAES reports whether the CPU, build and PQKEM_CPU support VAES on
// ymm registers (VEX-encoded, with AVX2). ForceGeneric does not change it:
// the packages that use VAES choose among their AES paths themselves.
func HasVAES() bool { return hasVAES }

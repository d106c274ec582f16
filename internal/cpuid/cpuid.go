// Package cpuid says which assembly paths this process may use, and lets
// tests and the benchmark force the generic Go path in the same binary.
//
// The switch is internal on purpose: applications always get the fastest
// correct path for their CPU.
package cpuid

import "sync/atomic"

// forceGeneric is set by ForceGeneric; it is read on every dispatch, so it
// is atomic to keep the race detector quiet when tests flip it.
var forceGeneric atomic.Bool

// AVX2 reports whether the AVX2 (with BMI2) assembly may run: the CPU has
// it, the build allows it (no purego tag, amd64), and no test forced the
// generic path.
func AVX2() bool {
	return hasAVX2 && !forceGeneric.Load()
}

// HasAVX2 reports whether the CPU and build support the AVX2 path at all,
// regardless of ForceGeneric.
func HasAVX2() bool { return hasAVX2 }

// ForceGeneric makes AVX2 report false while on is true. It returns a
// function that restores the previous setting. For tests and benchmarks.
func ForceGeneric(on bool) (restore func()) {
	old := forceGeneric.Swap(on)
	return func() { forceGeneric.Store(old) }
}

// HasVAES reports whether the CPU and build support VAES on ymm registers
// (VEX-encoded, with AVX2). ForceGeneric does not change it: the packages
// that use VAES choose among their AES paths themselves.
func HasVAES() bool { return hasVAES }

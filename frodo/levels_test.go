package frodo

import (
	"os"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// forceLevel sets level to l and, at the generic level, makes the four-way
// Keccak (internal/keccak) run crypto/sha3 states too, through
// cpuid.ForceGeneric; restore puts both back. Keys made while it holds keep
// the AES row generator of l. Tests and benchmarks call it while nothing
// else in the package runs.
func forceLevel(l cpuid.Level) (restore func()) {
	old := level
	level = l
	undo := cpuid.ForceGeneric(l < cpuid.LevelAVX2)
	return func() {
		undo()
		level = old
	}
}

// levelNeeds says what each level needs, for skip messages.
var levelNeeds = [...]string{
	cpuid.LevelAVX2:   "AVX2 and BMI2 on amd64, without the purego tag",
	cpuid.LevelAVX512: "AVX-512F, VL and BW on amd64 (and VAES, for this package's AVX-512 code), without the purego tag",
}

// skipUnlessLevel skips t unless this process runs level l, saying what l
// needs and what runs instead.
func skipUnlessLevel(t testing.TB, l cpuid.Level) {
	t.Helper()
	if l > cpuid.Max() {
		t.Skipf("level %v needs %s: this CPU, build and PQKEM_CPU=%q run up to %v",
			l, levelNeeds[l], os.Getenv("PQKEM_CPU"), cpuid.Max())
	}
}

// forEachLevel runs f as a subtest at every level, highest first, named
// after the level: avx512 (VAES on zmm for the AES rows, where the CPU has
// it; internal/keccak's tests run its AVX-512 permutation, which every
// level but generic uses where the CPU has it), avx2 (the AVX2 products and
// sampler, VAES on ymm) and generic (Go, with AES-NI where the CPU has it;
// forceAES reaches crypto/aes). A level this process cannot run (the CPU
// lacks it, the build has no assembly, or PQKEM_CPU caps it) skips, saying
// why. The level holds until f's parallel subtests are done.
func forEachLevel(t *testing.T, f func(t *testing.T)) {
	for l := cpuid.LevelAVX512; l >= cpuid.LevelGeneric; l-- {
		t.Run(l.String(), func(t *testing.T) {
			skipUnlessLevel(t, l)
			t.Cleanup(forceLevel(l))
			t.Logf("level %v: AES rows %s", l, aesImplNames[aesFastest(l)])
			f(t)
		})
	}
}

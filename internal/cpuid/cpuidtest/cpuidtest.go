// Package cpuidtest runs a package's tests at every vector level
// ([cpuid.Level]) the package tells apart and this process can run, one
// subtest a level, so that one go test checks the assembly and the generic
// code. It is for tests only: no production package imports it.
//
// A package with assembly keeps its level in a variable of its own
// (cpuid.Max(), chosen once) that its dispatch reads; its tests describe
// it with a [Levels] value, and lower it with [Levels.Force] or
// [Levels.ForEach].
package cpuidtest

import (
	"os"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// Levels are the vector levels of one package's code.
type Levels struct {
	// Top is the highest level the package has code of its own for:
	// ForEach runs Top and every level below it.
	Top cpuid.Level
	// Var is the package's level variable, which its dispatch reads.
	Var *cpuid.Level
	// Needs says, for a level, what the package's own code at that level
	// needs besides what the level does (FrodoKEM's AVX-512 AES rows need
	// VAES too), for skip messages; it may be nil.
	Needs map[cpuid.Level]string
	// Log, if not nil, is called at the start of each of ForEach's
	// subtests, once the level is set, to log what runs at it.
	Log func(t testing.TB)
}

// levelNeeds says what each level needs of the CPU and the build.
var levelNeeds = [...]string{
	cpuid.LevelAVX2:   "AVX2 and BMI2 on amd64, without the purego tag",
	cpuid.LevelAVX512: "AVX-512F, VL and BW on amd64, without the purego tag",
}

// Force sets the package's level to l and, below the AVX2 level, makes
// the packages under it (the four-way Keccak of internal/keccak, ML-KEM's
// internal/fips203) run their Go code too, through cpuid.ForceGeneric;
// restore puts both back. Tests and benchmarks call it while nothing else
// in the package runs.
func (ls *Levels) Force(l cpuid.Level) (restore func()) {
	old := *ls.Var
	*ls.Var = l
	undo := cpuid.ForceGeneric(l < cpuid.LevelAVX2)
	return func() {
		undo()
		*ls.Var = old
	}
}

// SkipUnless skips t unless this process runs level l, saying what l
// needs and what runs instead.
func (ls *Levels) SkipUnless(t testing.TB, l cpuid.Level) {
	t.Helper()
	if l <= cpuid.Max() {
		return
	}
	needs := "an unknown level"
	if l >= 0 && int(l) < len(levelNeeds) {
		needs = levelNeeds[l]
	}
	if also := ls.Needs[l]; also != "" {
		needs += " (" + also + ")"
	}
	t.Skipf("level %v needs %s: this CPU, build and PQKEM_CPU=%q run up to %v",
		l, needs, os.Getenv("PQKEM_CPU"), cpuid.Max())
}

// ForEach runs f as a subtest at every level from Top down to generic,
// named after the level (avx512, avx2, generic). A level this process
// cannot run (the CPU lacks it, the build has no assembly, or PQKEM_CPU
// caps it) skips, saying why. The level holds until f and its subtests,
// parallel ones included, are done.
func (ls *Levels) ForEach(t *testing.T, f func(t *testing.T)) {
	for l := ls.Top; l >= cpuid.LevelGeneric; l-- {
		t.Run(l.String(), func(t *testing.T) {
			ls.SkipUnless(t, l)
			t.Cleanup(ls.Force(l))
			if ls.Log != nil {
				ls.Log(t)
			}
			f(t)
		})
	}
}

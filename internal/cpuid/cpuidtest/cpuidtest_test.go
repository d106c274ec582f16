package cpuidtest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
)

// TestForEach checks that ForEach runs f at every level from Top down
// that this process runs, in a subtest named after it, with the level
// variable set, cpuid.ForceGeneric on below the avx2 level, and
// Log called first; and that it puts everything back.
func TestForEach(t *testing.T) {
	for _, top := range []cpuid.Level{cpuid.LevelAVX512, cpuid.LevelAVX2, cpuid.LevelGeneric} {
		t.Run("top-"+top.String(), func(t *testing.T) { testForEach(t, top) })
	}
}

func testForEach(t *testing.T, top cpuid.Level) {
	level := cpuid.Max()
	var logged, ran []cpuid.Level
	ls := Levels{Top: top, Var: &level, Log: func(testing.TB) { logged = append(logged, level) }}
	ls.ForEach(t, func(t *testing.T) {
		if !strings.HasSuffix(t.Name(), "/"+level.String()) {
			t.Errorf("level %v runs in subtest %s", level, t.Name())
		}
		if level > cpuid.Max() {
			t.Errorf("level %v runs, but this process runs up to %v", level, cpuid.Max())
		}
		if want := cpuid.HasAVX2() && level >= cpuid.LevelAVX2; cpuid.AVX2() != want {
			t.Errorf("at level %v, cpuid.AVX2() = %v, want %v", level, cpuid.AVX2(), want)
		}
		ran = append(ran, level)
	})
	var want []cpuid.Level
	for l := min(top, cpuid.Max()); l >= cpuid.LevelGeneric; l-- {
		want = append(want, l)
	}
	if !slices.Equal(ran, want) || !slices.Equal(logged, want) {
		t.Errorf("top %v: ran at %v, logged %v; want %v", top, ran, logged, want)
	}
	if level != cpuid.Max() || cpuid.AVX2() != cpuid.HasAVX2() {
		t.Errorf("top %v: after ForEach, level %v and cpuid.AVX2() = %v; want %v and %v", top, level, cpuid.AVX2(), cpuid.Max(), cpuid.HasAVX2())
	}
}

// TestForce checks that Force sets the level and restore puts back the
// one before, nested.
func TestForce(t *testing.T) {
	level := cpuid.Max()
	ls := Levels{Top: cpuid.LevelAVX2, Var: &level}
	outer := ls.Force(cpuid.LevelGeneric)
	if level != cpuid.LevelGeneric || cpuid.AVX2() {
		t.Errorf("Force(generic): level %v, cpuid.AVX2() = %v", level, cpuid.AVX2())
	}
	inner := ls.Force(cpuid.LevelAVX2)
	if level != cpuid.LevelAVX2 || cpuid.AVX2() != cpuid.HasAVX2() {
		t.Errorf("Force(avx2) inside Force(generic): level %v, cpuid.AVX2() = %v", level, cpuid.AVX2())
	}
	inner()
	if level != cpuid.LevelGeneric || cpuid.AVX2() {
		t.Errorf("after the inner restore: level %v, cpuid.AVX2() = %v", level, cpuid.AVX2())
	}
	outer()
	if level != cpuid.Max() || cpuid.AVX2() != cpuid.HasAVX2() {
		t.Errorf("after both restores: level %v, cpuid.AVX2() = %v", level, cpuid.AVX2())
	}
}

// TestSkipUnless checks the skip message of a level above this process's:
// it names what the level needs and the package's addition.
func TestSkipUnless(t *testing.T) {
	ls := Levels{Top: cpuid.LevelAVX512, Needs: map[cpuid.Level]string{cpuid.LevelAVX512: "and VAES"}}
	for l := cpuid.LevelGeneric; l <= cpuid.LevelAVX512+1; l++ {
		var ft fakeT
		ls.SkipUnless(&ft, l)
		if ft.skipped != (l > cpuid.Max()) {
			t.Errorf("level %v: skipped %v, this process runs up to %v", l, ft.skipped, cpuid.Max())
		}
		if !ft.skipped {
			continue
		}
		want := map[cpuid.Level]string{
			cpuid.LevelAVX2:       "level avx2 needs AVX2 and BMI2 on amd64",
			cpuid.LevelAVX512:     "level avx512 needs AVX-512F, VL and BW on amd64, without the purego tag (and VAES)",
			cpuid.LevelAVX512 + 1: "level unknown needs an unknown level",
		}[l]
		if !strings.HasPrefix(ft.msg, want) || !strings.Contains(ft.msg, "run up to "+cpuid.Max().String()) {
			t.Errorf("level %v: skip message %q, want %q... and what runs", l, ft.msg, want)
		}
	}
}

// fakeT records a skip, without ending the goroutine.
type fakeT struct {
	testing.TB
	skipped bool
	msg     string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Skipf(format string, args ...any) {
	f.skipped = true
	f.msg = fmt.Sprintf(format, args...)
}

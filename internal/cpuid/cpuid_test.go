package cpuid

import (
	"os"
	"testing"
)

func TestParseLevel(t *testing.T) {
	for v, want := range map[string]int{
		"":        levelAVX512,
		"avx512":  levelAVX512,
		"avx2":    levelAVX2,
		"generic": levelGeneric,
		"AVX2":    levelAVX512, // unknown: ignored
		"sse2":    levelAVX512,
	} {
		if got := parseLevel(v); got != want {
			t.Errorf("parseLevel(%q) = %d, want %d", v, got, want)
		}
	}
}

// TestLevels checks the order of the flags: AVX-512 only with AVX2, VAES
// only with AVX2, and PQKEM_CPU's cap.
func TestLevels(t *testing.T) {
	if HasAVX512() && !HasAVX2() {
		t.Error("AVX-512 without AVX2")
	}
	if HasVAES() && !HasAVX2() {
		t.Error("VAES without AVX2")
	}
	if HasAVX512VBMI2() && !HasAVX512() {
		t.Error("AVX-512 VBMI2 without AVX-512")
	}
	switch os.Getenv("PQKEM_CPU") {
	case "generic":
		if HasAVX2() || HasAVX512() || HasAVX512VBMI2() || HasVAES() {
			t.Error("PQKEM_CPU=generic, but a vector level is on")
		}
	case "avx2":
		if HasAVX512() || HasAVX512VBMI2() {
			t.Error("PQKEM_CPU=avx2, but AVX-512 is on")
		}
	}
}

// TestMax checks Max against the flags, and prints the levels this process
// runs (go test -v shows it; .ci/run prints it).
func TestMax(t *testing.T) {
	want := LevelGeneric
	if HasAVX2() {
		want = LevelAVX2
	}
	if HasAVX512() {
		want = LevelAVX512
	}
	if got := Max(); got != want {
		t.Errorf("Max() = %v, want %v", got, want)
	}
	t.Logf("assembly levels run: up to %v (PQKEM_CPU=%q; avx2 %v, avx512 %v, avx512 vbmi2 %v, vaes %v)",
		Max(), os.Getenv("PQKEM_CPU"), HasAVX2(), HasAVX512(), HasAVX512VBMI2(), HasVAES())
}

package frodo

import (
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
	"github.com/pqkem/pqkem/internal/cpuid/cpuidtest"
)

// cpuLevels are this package's levels: avx512 (VAES on zmm for the AES
// rows, where the CPU has it; internal/keccak's tests run its AVX-512
// permutation, which every level but generic uses where the CPU has it),
// avx2 (the AVX2 products and sampler, VAES on ymm) and generic (Go, with
// AES-NI where the CPU has it; forceAES reaches crypto/aes). Keys made
// while cpuLevels.Force holds keep the AES row generator of its level.
// Each of cpuLevels.ForEach's subtests logs the AES row generator it runs.
var cpuLevels = cpuidtest.Levels{
	Top:   cpuid.LevelAVX512,
	Var:   &level,
	Needs: map[cpuid.Level]string{cpuid.LevelAVX512: "and VAES, for this package's AVX-512 code"},
	Log: func(t testing.TB) {
		t.Logf("level %v: AES rows %s", level, aesImplNames[aesFastest(level)])
	},
}

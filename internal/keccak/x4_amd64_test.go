//go:build amd64 && !purego

package keccak

import (
	"bytes"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/pqkem/pqkem/internal/cpuid"
	"golang.org/x/sys/cpu"
)

// TestSqueezeAVX2 compares the AVX2 block extraction with its Go twin,
// squeezeBlock, on random states.
func TestSqueezeAVX2(t *testing.T) {
	if !cpuid.HasAVX2() {
		t.Skip("no AVX2 on this CPU")
	}
	r := rand.New(rand.NewPCG(9, 10))
	for range 200 {
		for _, rate := range []int{Rate128, Rate256} {
			s := X4{rate: rate}
			for i := range s.a {
				for j := range s.a[i] {
					s.a[i][j] = r.Uint64()
				}
			}
			var got, want [4][Rate128 + 16]byte
			out := [4][]byte{got[0][8:], got[1][8:], got[2][8:], got[3][8:]}
			s.squeezeBlocks4(&out, 0)
			for j := range 4 {
				s.squeezeBlock(j, want[j][8:])
				if !bytes.Equal(got[j][:], want[j][:]) {
					t.Fatalf("rate %d, state %d: AVX2 and Go differ (or wrote out of bounds)\ngot  %x\nwant %x", rate, j, got[j], want[j])
				}
			}
		}
	}
}

// TestLevelChoice checks that init chose the fastest level the CPU runs,
// as PQKEM_CPU allows: every caller of X4 and Lanes gets it.
func TestLevelChoice(t *testing.T) {
	want := cpuid.LevelGeneric
	if cpu.X86.HasAVX2 && cpu.X86.HasBMI2 {
		want = cpuid.LevelAVX2
		if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512BW {
			want = cpuid.LevelAVX512
		}
	}
	switch os.Getenv("PQKEM_CPU") {
	case "avx2":
		want = min(want, cpuid.LevelAVX2)
	case "generic":
		want = cpuid.LevelGeneric
	}
	if cpuid.Max() != want || x4Level != want {
		t.Errorf("cpuid.Max() %v, x4Level %v; want %v for this CPU and PQKEM_CPU=%q", cpuid.Max(), x4Level, want, os.Getenv("PQKEM_CPU"))
	}
	if Accelerated() != (want >= cpuid.LevelAVX2) {
		t.Errorf("Accelerated() = %v at level %v", Accelerated(), want)
	}
}

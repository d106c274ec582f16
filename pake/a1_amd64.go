//go:build amd64 && !purego

package pake

import "github.com/pqkem/pqkem/internal/cpuid"

//go:generate go run -C _asm . -out ../a1_amd64.s -stubs ../a1_stub_amd64.go -pkg pake

// a1Compact runs A1's compaction network on v (see a1FromBytes): with
// AVX2, eight slots per instruction, else in Go.
func a1Compact(v *[a1PaddedWords]uint64) {
	if cpuid.AVX2() {
		a1CompactAVX2(v)
		return
	}
	a1CompactGeneric(v)
}

//go:build amd64 && !purego

package pake

import "github.com/pqkem/pqkem/internal/cpuid"

//go:generate go run -C _asm . -out ../sampler_amd64.s -stubs ../sampler_stub_amd64.go -pkg pake

// a1Compact runs A1's compaction network on v (see a1FromBytes): with
// AVX2, eight slots per instruction, else in Go.
func a1Compact(v *[a1PaddedWords]uint64) {
	if cpuid.AVX2() {
		a1CompactAVX2(v)
		return
	}
	a1CompactGeneric(v)
}

// c1Blocks sets res[l][:7] to C1 on the block b[l][:168] for l < lanes
// (see c1BlocksGeneric): with AVX2, all four lanes at once.
func c1Blocks(res *[4][8]uint16, b *[4][c1BlockBuf]byte, lanes int) {
	if cpuid.AVX2() {
		c1BlocksAVX2(res, b)
		return
	}
	c1BlocksGeneric(res, b, lanes)
}

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

// c1Blocks sets res[l][:7] to C1 on lane l's SHAKE128 block, the 168
// bytes at b[l*stride:], for l < lanes (1 to 4); res[l] for l >= lanes
// is left alone. b must hold c1BlockBuf bytes from the last lane's block
// on. With AVX2, a lane per pass of the same instructions; else
// c1BlocksGeneric.
func c1Blocks(res *[4][8]uint16, b []byte, stride, lanes int) {
	if lanes < 1 || lanes > 4 {
		panic("pake: c1Blocks of an invalid number of lanes") // unreachable: callers pass 1 to 4
	}
	_ = b[(lanes-1)*stride+c1BlockBuf-1] // every byte the assembly reads is in b
	if cpuid.AVX2() {
		c1BlocksAVX2(res, &b[0], uintptr(stride), uintptr(lanes))
		return
	}
	c1BlocksGeneric(res, b, stride, lanes)
}

//go:build !amd64 || purego

package pake

// The dispatch without assembly: the same names as sampler_amd64.go, each
// running its Go form.

// a1Compact runs A1's compaction network on v (see a1FromBytes).
func a1Compact(v *[a1PaddedWords]uint64) { a1CompactGeneric(v) }

// c1Blocks sets res[l][:7] to C1 on lane l's SHAKE128 block, the 168
// bytes at b[l*stride:], for l < lanes (1 to 4); b must hold c1BlockBuf
// bytes from the last lane's block on, as the amd64 version asks.
func c1Blocks(res *[4][8]uint16, b []byte, stride, lanes int) {
	if lanes < 1 || lanes > 4 {
		panic("pake: c1Blocks of an invalid number of lanes") // unreachable: callers pass 1 to 4
	}
	_ = b[(lanes-1)*stride+c1BlockBuf-1]
	c1BlocksGeneric(res, b, stride, lanes)
}

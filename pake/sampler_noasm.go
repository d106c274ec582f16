//go:build !amd64 || purego

package pake

// a1Compact runs A1's compaction network on v (see a1FromBytes).
func a1Compact(v *[a1PaddedWords]uint64) { a1CompactGeneric(v) }

// c1Blocks sets res[l][:7] to C1 on the block b[l][:168] for l < lanes.
func c1Blocks(res *[4][8]uint16, b *[4][c1BlockBuf]byte, lanes int) {
	c1BlocksGeneric(res, b, lanes)
}

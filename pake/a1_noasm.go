//go:build !amd64 || purego

package pake

// a1Compact runs A1's compaction network on v (see a1FromBytes).
func a1Compact(v *[a1PaddedWords]uint64) { a1CompactGeneric(v) }

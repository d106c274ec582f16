//go:build !amd64 || purego

package vzeroupper

// Without the assembly, x/crypto runs its generic code too (its amd64
// code has the same purego constraint), so there is nothing to clear.
const useAVX2 = false

func vzeroupper() {}

func upperHalves() uint64 { return 0 }

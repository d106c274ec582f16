//go:build !purego

package frodo_test

// stressPathDivisor divides TestStress's counts: the assembly kernels run
// the full counts.
const stressPathDivisor = 1

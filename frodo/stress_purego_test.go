//go:build purego

package frodo_test

// stressPathDivisor divides TestStress's counts: the generic Go code runs
// a tenth of them (see stressCount).
const stressPathDivisor = 10

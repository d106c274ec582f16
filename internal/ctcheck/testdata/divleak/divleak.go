// Package divleak divides on purpose: the test of package ctcheck compiles
// it to show that the check finds a division by a variable, and that a
// division by a constant compiles to no DIV at all.
package divleak

// Reduce divides its argument by a modulus that is only known at run
// time: the compiler must emit DIV (amd64) or UDIV (arm64).
func Reduce(secret, modulus uint32) uint32 {
	return secret / modulus
}

// Remainder takes a remainder by a variable: DIV/IDIV, or SDIV and MSUB.
func Remainder(secret, modulus int64) int64 {
	return secret % modulus
}

// ByConstant divides by q = 3329, a constant: a multiplication and a
// shift, no divider.
func ByConstant(secret uint32) uint32 {
	return secret / 3329
}

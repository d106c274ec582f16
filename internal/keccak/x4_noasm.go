//go:build !amd64 || purego

package keccak

// haveAsm is false: X4 always uses four crypto/sha3 states.
const haveAsm = false

func keccakF1600x4(a *[25][4]uint64) {
	panic("keccak: no four-way permutation on this platform") // unreachable
}

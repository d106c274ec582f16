//go:build amd64 && !purego

package keccak

// haveAsm says that keccakF1600x4 (keccakx4_amd64.s) exists; whether it may
// run is cpuid.AVX2().
const haveAsm = true

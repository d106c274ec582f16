// Package asmdiv has amd64 assembly with AVX2 (VEX) and AVX-512 (EVEX)
// instructions, some of it with a division planted among them: the test
// of package ctcheck builds it to show that the check decodes such code
// instruction by instruction, finds each planted division in the right
// function and nothing in the others. The functions are never called.
package asmdiv

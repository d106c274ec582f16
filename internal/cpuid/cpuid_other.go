//go:build !amd64 || purego

package cpuid

const (
	hasAVX2 = false
	hasVAES = false
)

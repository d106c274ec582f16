//go:build !amd64 || purego

package cpuid

const (
	cpuAVX2   = false
	cpuAVX512 = false
	cpuVBMI2  = false
)

func cpuVAES() bool { return false }

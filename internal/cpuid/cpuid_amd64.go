//go:build amd64 && !purego

package cpuid

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasBMI2

// x/sys/cpu reports VAES only with AVX-512 (HasAVX512VAES), which CPUs
// with VAES on ymm alone (AMD Zen 3) lack, so the bit is read from CPUID
// directly, after the AVX2 check (whose flag includes the OS's saving of
// the ymm registers).
var hasVAES = cpu.X86.HasAVX2 && cpuidVAES()

// cpuidVAES reports CPUID leaf 7's VAES bit (ECX bit 9).
func cpuidVAES() bool

//go:build amd64 && !purego

package cpuid

import "golang.org/x/sys/cpu"

// What the CPU and OS support, before PQKEM_CPU.
var (
	cpuAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasBMI2
	cpuAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL && cpu.X86.HasAVX512BW
	// VBMI (VPERMB) and VBMI2 (VPCOMPRESSW), besides cpuAVX512.
	cpuVBMI2 = cpu.X86.HasAVX512VBMI && cpu.X86.HasAVX512VBMI2
)

// x/sys/cpu reports VAES only with AVX-512 (HasAVX512VAES), which CPUs
// with VAES on ymm alone (AMD Zen 3) lack, so the bit is read from CPUID
// directly, after the AVX2 check (whose flag includes the OS's saving of
// the ymm registers; hasVAES checks it first).
func cpuVAES() bool { return cpuidVAES() }

// cpuidVAES reports CPUID leaf 7's VAES bit (ECX bit 9).
func cpuidVAES() bool

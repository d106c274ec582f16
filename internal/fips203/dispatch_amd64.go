//go:build amd64 && !purego

package fips203

import "github.com/pqkem/pqkem/internal/cpuid"

// useAVX2 reports whether the AVX2 twins in asm_amd64.s may run.
func useAVX2() bool { return cpuid.AVX2() }

//go:build amd64 && !purego

package vzeroupper

import "golang.org/x/sys/cpu"

// useAVX2 is x/crypto's own condition for its AVX2 ChaCha20-Poly1305
// (chacha20poly1305_amd64.go), which is also what makes VZEROUPPER safe to
// execute.
var useAVX2 = cpu.X86.HasSSSE3 && cpu.X86.HasAVX2 && cpu.X86.HasBMI2

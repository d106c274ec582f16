//go:build amd64 && !purego

package fips203

import "github.com/pqkem/pqkem/internal/cpuid"

//go:generate go run -C _sampleasm . -out ../sample_amd64.s -stubs ../sample_stub_amd64.go -pkg fips203

// rejectionSample parses b into a[k:] (see rejectionSampleGeneric): most of
// it with AVX2 and a compaction table, the end in Go.
func rejectionSample(a *nttElement, k int, b []byte) int {
	if cpuid.AVX2() {
		var used int
		k, used = rejUniformAVX2((*[n]uint16)(a), k, b)
		b = b[used:]
	}
	return rejectionSampleGeneric(a, k, b)
}

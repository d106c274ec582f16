//go:build !amd64 || purego

package fips203

// rejectionSample parses b into a[k:] (see rejectionSampleGeneric).
func rejectionSample(a *nttElement, k int, b []byte) int { return rejectionSampleGeneric(a, k, b) }

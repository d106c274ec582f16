//go:build !amd64 || purego

package fips203

// The dispatch without assembly: the same names as dispatch_amd64.go, each
// running its Go form.

func ntt(f *ringElement) *nttElement                      { return nttGeneric(f) }
func inverseNTT(f *nttElement) *ringElement               { return inverseNTTGeneric(f) }
func (c *nttCache) compute(b *nttElement)                 { c.computeGeneric(b) }
func encode12(out *[encodingSize12]byte, f *nttElement)   { encode12Generic(out, f) }
func decode12(b *[encodingSize12]byte, f *nttElement) int { return decode12Generic(b, f) }
func compressEncode(out []byte, f *ringElement, d uint8)  { compressEncodeGeneric(out, f, d) }
func decodeDecompress(f *ringElement, b []byte, d uint8)  { decodeDecompressGeneric(f, b, d) }
func polyAdd(f, a, b *ringElement)                        { polyAddGeneric(f, a, b) }
func polySub(f, a, b *ringElement)                        { polySubGeneric(f, a, b) }
func samplePolyCBD(f *ringElement, b []byte, eta int)     { samplePolyCBDGeneric(f, b, eta) }
func rejectionSample(a *nttElement, k int, b []byte) int  { return rejectionSampleGeneric(a, k, b) }

func innerProductChecked(f *nttElement, a []nttElement, stride int, b []nttElement, bc []nttCache, k int, e *nttElement) {
	innerProductGeneric(f, a, stride, b, bc, k, e)
}

//go:build !amd64 || purego

package fips203

// Without assembly, only the generic Go code runs. The AVX2 names exist so
// that the dispatching code compiles everywhere; they are never called.

func useAVX2() bool { return false }

func nttAVX2(f *[256]uint16)                   { panic(errNoAsm) }
func inverseNTTAVX2(f *[256]uint16)            { panic(errNoAsm) }
func cacheAVX2(c *[128]uint16, b *[256]uint16) { panic(errNoAsm) }

func compressEncodeAVX2(out []byte, f *ringElement, d uint8) { panic(errNoAsm) }
func decodeDecompressAVX2(f *ringElement, b []byte, d uint8) { panic(errNoAsm) }
func encode12AVX2(b *[384]byte, f *[256]uint16)              { panic(errNoAsm) }
func decode12AVX2(f *[256]uint16, b *[384]byte) int          { panic(errNoAsm) }

func samplePolyCBDAVX2(f *ringElement, b []byte, eta int) { panic(errNoAsm) }

func polyAddAVX2(f, a, b *[256]uint16) { panic(errNoAsm) }
func polySubAVX2(f, a, b *[256]uint16) { panic(errNoAsm) }

func innerProductAVX2(f, a *[256]uint16, aStride uintptr, b *[256]uint16, bc *[128]uint16, k int) {
	panic(errNoAsm)
}
func innerProductAddAVX2(f, a *[256]uint16, aStride uintptr, b *[256]uint16, bc *[128]uint16, k int, e *[256]uint16) {
	panic(errNoAsm)
}

const errNoAsm = "fips203: assembly called without assembly support"

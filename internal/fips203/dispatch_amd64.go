//go:build amd64 && !purego

package fips203

import "github.com/pqkem/pqkem/internal/cpuid"

// useAVX2 reports whether the AVX2 twins in asm_amd64.s may run.
func useAVX2() bool { return cpuid.AVX2() }

// compressEncodeAVX2 writes ByteEncode_d(Compress_d(f)) to out, which
// holds exactly 32 d bytes.
func compressEncodeAVX2(out []byte, f *ringElement, d uint8) {
	switch d {
	case 1:
		compressEncode1AVX2((*[32]byte)(out), (*[n]uint16)(f))
	case 4:
		compressEncode4AVX2((*[128]byte)(out), (*[n]uint16)(f))
	case 5:
		compressEncode5AVX2((*[160]byte)(out), (*[n]uint16)(f))
	case 10:
		compressEncode10AVX2((*[320]byte)(out), (*[n]uint16)(f))
	case 11:
		compressEncode11AVX2((*[352]byte)(out), (*[n]uint16)(f))
	default:
		panic("fips203: unsupported compression") // unreachable: d comes from Params
	}
}

// decodeDecompressAVX2 sets f to Decompress_d(ByteDecode_d(b)).
func decodeDecompressAVX2(f *ringElement, b []byte, d uint8) {
	switch d {
	case 1:
		decodeDecompress1AVX2((*[n]uint16)(f), (*[32]byte)(b))
	case 4:
		decodeDecompress4AVX2((*[n]uint16)(f), (*[128]byte)(b))
	case 5:
		decodeDecompress5AVX2((*[n]uint16)(f), (*[160]byte)(b))
	case 10:
		decodeDecompress10AVX2((*[n]uint16)(f), (*[320]byte)(b))
	case 11:
		decodeDecompress11AVX2((*[n]uint16)(f), (*[352]byte)(b))
	default:
		panic("fips203: unsupported compression") // unreachable: d comes from Params
	}
}

// samplePolyCBDAVX2 sets f to SamplePolyCBD_eta(b), for eta = 2 and 3,
// reading 64 eta bytes of b: the twin of samplePolyCBD.
func samplePolyCBDAVX2(f *ringElement, b []byte, eta int) {
	switch eta {
	case 2:
		samplePolyCBD2AVX2((*[n]uint16)(f), (*[128]byte)(b))
	case 3:
		samplePolyCBD3AVX2((*[n]uint16)(f), (*[192]byte)(b))
	default:
		panic("fips203: unsupported eta") // unreachable: eta comes from Params
	}
}

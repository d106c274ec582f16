package fips203

import "errors"

// Byte encodings of FIPS 203, section 4.2.1 (Algorithms 5 and 6), and the
// compression of section 4.2.1 (equations 4.7 and 4.8) applied to whole
// polynomials. Bit positions depend only on d, never on the data.

// encodingSize12 is the size of ByteEncode12 of one polynomial.
const encodingSize12 = n * 12 / 8

// byteEncode12 appends ByteEncode12(f) to b (Algorithm 5, d = 12).
func byteEncode12(b []byte, f *nttElement) []byte {
	b, out := sliceForAppend(b, encodingSize12)
	encode12((*[encodingSize12]byte)(out), f)
	return b
}

// encode12Generic writes ByteEncode12(f) to out: the Go form of encode12
// (dispatch_*.go).
func encode12Generic(out *[encodingSize12]byte, f *nttElement) {
	for i := 0; i < n; i += 2 {
		x := uint32(f[i]) | uint32(f[i+1])<<12
		o := out[3*i/2 : 3*i/2+3]
		o[0] = byte(x)
		o[1] = byte(x >> 8)
		o[2] = byte(x >> 16)
	}
}

var errModulus = errors.New("coefficient not reduced modulo q")

// byteDecode12Check implements ByteDecode12 (Algorithm 6, d = 12) for an
// encapsulation key and performs the modulus check of FIPS 203, section 7.2:
// it fails if any 12-bit value is q or more, and f is then unspecified.
func byteDecode12Check(f *nttElement, b []byte) error {
	if decode12((*[encodingSize12]byte)(b[:encodingSize12]), f) != 1 {
		return errModulus
	}
	return nil
}

// byteDecode12Secret implements ByteDecode12 (Algorithm 6, d = 12) for a
// secret polynomial. It reports whether every 12-bit value was below q
// (the encoding KeyGen produces) as 1 or 0, without branching on the
// coefficients; values of q or more are stored reduced modulo q.
func byteDecode12Secret(f *nttElement, b []byte) (valid int) {
	return decode12((*[encodingSize12]byte)(b[:encodingSize12]), f)
}

// decode12Generic is the Go form of decode12 (dispatch_*.go), which
// byteDecode12Secret and byteDecode12Check run.
func decode12Generic(b *[encodingSize12]byte, f *nttElement) (valid int) {
	var bad uint32
	for i := 0; i < n; i += 2 {
		x := uint32(b[3*i/2]) | uint32(b[3*i/2+1])<<8 | uint32(b[3*i/2+2])<<16
		d1, d2 := x&0xfff, x>>12
		// (q - 1 - d) has its top bit set exactly when d >= q.
		bad |= (q - 1 - d1) | (q - 1 - d2)
		f[i] = fieldElement(condSub(d1, q))
		f[i+1] = fieldElement(condSub(d2, q))
	}
	return int(1 ^ bad>>31)
}

// ringCompressAndEncode appends ByteEncode_d(Compress_d(f)) to b, for
// 1 <= d <= 11.
func ringCompressAndEncode(b []byte, f *ringElement, d uint8) []byte {
	b, out := sliceForAppend(b, n*int(d)/8)
	compressEncode(out, f, d)
	return b
}

// compressEncodeGeneric writes ByteEncode_d(Compress_d(f)) to out, which
// holds exactly 32 d bytes: the Go form of compressEncode (dispatch_*.go).
func compressEncodeGeneric(out []byte, f *ringElement, d uint8) {
	var acc uint64
	var bits uint8
	o := 0
	for i := range f {
		acc |= uint64(compress(f[i], d)) << bits
		bits += d
		for bits >= 8 {
			out[o] = byte(acc)
			o++
			acc >>= 8
			bits -= 8
		}
	}
}

// ringDecodeAndDecompress sets f to Decompress_d(ByteDecode_d(b)), for
// 1 <= d <= 11. Every d-bit value is in range, so there is nothing to check.
func ringDecodeAndDecompress(f *ringElement, b []byte, d uint8) {
	decodeDecompress(f, b[:n*int(d)/8], d)
}

// decodeDecompressGeneric sets f to Decompress_d(ByteDecode_d(b)), b
// holding exactly 32 d bytes: the Go form of decodeDecompress
// (dispatch_*.go).
func decodeDecompressGeneric(f *ringElement, b []byte, d uint8) {
	var acc uint64
	var bits uint8
	mask := uint64(1)<<d - 1
	for i := range f {
		for bits < d {
			acc |= uint64(b[0]) << bits
			b = b[1:]
			bits += 8
		}
		f[i] = decompress(uint16(acc&mask), d)
		acc >>= d
		bits -= d
	}
}

// sliceForAppend takes a slice and a requested number of bytes. It returns a
// slice with the contents of the given slice followed by that many bytes and
// a second slice that aliases into it and contains only the extra bytes.
func sliceForAppend(in []byte, n int) (head, tail []byte) {
	if total := len(in) + n; cap(in) >= total {
		head = in[:total]
	} else {
		head = make([]byte, total)
		copy(head, in)
	}
	tail = head[len(in):]
	return
}

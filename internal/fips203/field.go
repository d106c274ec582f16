package fips203

// Arithmetic in Z_q, q = 3329 (FIPS 203, section 2.3 and 4.3).
//
// A fieldElement always holds a canonical value in [0, q). Every function in
// this file runs in time independent of its inputs: reductions use
// multiply-shift (Barrett and Shoup) and mask-based conditional subtraction,
// never a branch, an index or a division on the value.

const (
	n = 256  // degree of the ring R_q = Z_q[X]/(X^256 + 1)
	q = 3329 // the ML-KEM modulus
)

// fieldElement is an alias, not a defined type, so that polynomials
// ([n]fieldElement) convert to the plain [256]uint16 arrays the assembly
// routines take without unsafe.
type fieldElement = uint16

// fieldReduceOnce maps a value in [0, 2q) to [0, q).
func fieldReduceOnce(a uint16) fieldElement {
	x := a - q
	// If a < q, x wrapped around and its top bit is set: add q back.
	x += (x >> 15) * q
	return fieldElement(x)
}

func fieldAdd(a, b fieldElement) fieldElement {
	return fieldReduceOnce(uint16(a + b))
}

func fieldSub(a, b fieldElement) fieldElement {
	return fieldReduceOnce(uint16(a - b + q))
}

// Barrett reduction of a 32-bit value: floor(x / q) is approximated by
// (x * barrettMultiplier) >> barrettShift, which is exact or one too small
// for every x < 2^32 (TestBarrettReduce checks the bound), so the remainder
// lies in [0, 2q) before the final conditional subtraction.
const (
	barrettShift      = 44
	barrettMultiplier = (1 << barrettShift) / q // 5284823
)

// fieldReduce reduces any 32-bit value modulo q.
func fieldReduce(x uint32) fieldElement {
	quotient := uint32((uint64(x) * barrettMultiplier) >> barrettShift)
	return fieldReduceOnce(uint16(x - quotient*q))
}

func fieldMul(a, b fieldElement) fieldElement {
	return fieldReduce(uint32(a) * uint32(b))
}

// shoupConstant returns floor(w * 2^16 / q), the precomputed quotient that
// lets fieldMulShoup multiply by the fixed value w with one high product.
// It runs only at package initialization, on public constants.
func shoupConstant(w fieldElement) uint32 {
	return uint32(w) << 16 / q
}

// fieldMulShoup returns a * w mod q for a constant w with ws =
// shoupConstant(w). For a < 2^16 the estimate (a * ws) >> 16 is floor(a*w/q)
// or one less, so a*w - estimate*q lies in [0, 2q).
func fieldMulShoup(a fieldElement, w fieldElement, ws uint32) fieldElement {
	return fieldElement(condSub(mulShoupLazy(uint32(a), uint32(w), ws), q))
}

// mulShoupLazy returns a value congruent to a * w modulo q, in [0, 2q),
// for a < 2^16 and ws = shoupConstant(w).
func mulShoupLazy(a, w, ws uint32) uint32 {
	est := (a * ws) >> 16
	return a*w - est*q
}

// condSub returns x - m if x >= m, and x otherwise, for x < 2^31 and
// m < 2^31, without a branch.
func condSub(x, m uint32) uint32 {
	x -= m
	return x + uint32(int32(x)>>31)&m
}

// compress computes Compress_d(x) = round(2^d / q * x) mod 2^d (FIPS 203,
// equation 4.7) for x in [0, q) and 1 <= d <= 11.
//
// The rounding division by q is a multiply-shift: for every y below
// 13788717, and so for every y = x << d + q/2 that compress forms (at most
// 6817408), (y * compressMultiplier) >> compressShift == floor(y / q)
// exactly (TestCompressConstants checks them all). Dividing a secret by q with
// the CPU's divider is what KyberSlash exploited.
func compress(x fieldElement, d uint8) uint16 {
	y := uint64(x)<<d + q/2
	quotient := (y * compressMultiplier) >> compressShift
	return uint16(quotient) & (1<<d - 1)
}

const (
	compressShift      = 35
	compressMultiplier = (1<<compressShift + q - 1) / q // ceil(2^35 / q)
)

// decompress computes Decompress_d(y) = round(q / 2^d * y) (FIPS 203,
// equation 4.8) for y in [0, 2^d).
func decompress(y uint16, d uint8) fieldElement {
	x := uint32(y)*q + 1<<(d-1)
	return fieldElement(x >> d)
}

// polyAddGeneric sets f = a + b, coefficient by coefficient: the Go form
// of polyAdd (dispatch_*.go). f may alias a or b.
func polyAddGeneric(f, a, b *ringElement) {
	for i := range f {
		f[i] = fieldAdd(a[i], b[i])
	}
}

// polySubGeneric sets f = a - b, coefficient by coefficient: the Go form
// of polySub (dispatch_*.go). f may alias a or b.
func polySubGeneric(f, a, b *ringElement) {
	for i := range f {
		f[i] = fieldSub(a[i], b[i])
	}
}
